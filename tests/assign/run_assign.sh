#!/bin/sh
# run_assign.sh NEUROC WORKDIR [neuroc back-end args...]
# `set` with expressions between runs (docs/language.md §12.8) on one back end:
#  - exact.neuro: each sample after a set equals its expression (index, view, grid position,
#    states read before the statement's assignments, t), keyed draws (check_assign.py exact);
#  - trial.neuro: a trial reset (V, I_e and the plastic weights put back) makes trial 2's
#    spikes trial 1's; per-synapse expressions and draws (check_assign.py trial);
#  - cond.neuro: receptor states set (`set EE.g`, `set bg { g = .. }`): a trial reset of a
#    conductance-based network, V and g put back, repeats trial 1 (check_assign.py cond);
#  - C only: the controls, each reset left out changes trial 2 (the test can fail); --mpi
#    refuses such a set;
#  - a GPU back end: every recording equals the C back end's, bit for bit (the free and
#    cluster schedules: exact.neuro only).
# Exit: 0 pass, 1 a check failed, 77 skipped (a GPU back end without a device).
set -u
NEUROC=$1; WORK=$2; shift 2
HERE=$(cd "$(dirname "$0")" && pwd)
PYTHON=${PYTHON:-python3}
fails=0
ok()  { echo "ok   $*"; }
bad() { fails=$((fails + 1)); echo "FAIL $*"; }
rm -rf "$WORK"; mkdir -p "$WORK"
gpu=0
case " $* " in *" cuda "*|*" opencl "*) gpu=1 ;; esac
models="exact trial cond"   # the free and cluster schedules take no projection: exact only
case " $* " in *" free "*|*" cluster "*) models=exact ;; esac
for m in $models; do
    "$NEUROC" "$HERE/$m.neuro" -o "$WORK/$m" "$@" 2>"$WORK/$m.log" || { cat "$WORK/$m.log"; echo "FAIL neuroc $m $*"; exit 1; }
done
case " $* " in
*" cuda "*)
    if [ ! -e /dev/nvidiactl ] && ! nvidia-smi -L >/dev/null 2>&1; then
        echo "skipped: no CUDA device (the CUDA simulators compiled)"; exit 77
    fi ;;
esac
if [ $gpu = 1 ] && { ! "$WORK/exact" --list-devices >"$WORK/devices.txt" 2>&1 || [ ! -s "$WORK/devices.txt" ]; }; then
    echo "skipped: no device for $* ($(head -n 1 "$WORK/devices.txt"))"; exit 77
fi
for m in $models; do
    if "$WORK/$m" --quiet --out "$WORK/$m.out"; then
        "$PYTHON" "$HERE/check_assign.py" $m "$WORK/$m.out" || fails=$((fails + 1))
    else
        bad "$m exited with $?"
    fi
done

if [ $gpu = 1 ]; then   # the same bits as the reference
    for m in $models; do
        "$NEUROC" "$HERE/$m.neuro" -o "$WORK/$m.c" --backend c 2>/dev/null && "$WORK/$m.c" --quiet --out "$WORK/$m.c.out" ||
            { bad "the C reference of $m"; continue; }
        for f in $(cd "$WORK/$m.c.out" && ls *.csv *.npy 2>/dev/null); do
            cmp -s "$WORK/$m.c.out/$f" "$WORK/$m.out/$f" && ok "$m: $f equals the C back end's" || bad "$m: $f differs from the C back end's"
        done
    done
else                    # controls: without a reset, trial 2 is not trial 1
    control() {   # NAME SED-SCRIPT [MODEL]: the model (trial) edited must fail check_assign.py
        m=${3:-trial}
        sed "$2" "$HERE/$m.neuro" >"$WORK/$1.neuro"
        cmp -s "$HERE/$m.neuro" "$WORK/$1.neuro" && { bad "control $1: the edit did nothing"; return; }
        "$NEUROC" "$WORK/$1.neuro" -o "$WORK/$1" --backend c 2>/dev/null && "$WORK/$1" --quiet --out "$WORK/$1.out" ||
            { bad "control $1 did not run"; return; }
        "$PYTHON" "$HERE/check_assign.py" $m "$WORK/$1.out" >"$WORK/$1.txt" 2>&1
        if ! grep -q "^FAIL .*spikes are trial 1's" "$WORK/$1.txt"; then
            cat "$WORK/$1.txt"
            bad "control $1: trial 2 repeats trial 1 without the reset"
        else
            ok "control $1: without it, trial 2 differs ($(grep -c FAIL "$WORK/$1.txt") checks fail)"
        fi
    }
    control no_w_reset '/^set ST.w = 6000 pA$/d'
    control no_V_reset 's/^set S { V = E_L; I_e = \(.*\) }$/set S.I_e = \1/'
    control no_g_reset '/^set EE.g = 0 nS$/d' cond
    control no_stim_g_reset '/^set bg { g = 0 nS }$/d' cond
    # the C back end's --mpi runs no set with expressions (the GPU ranks do, tests/mpi): refused
    # before anything is built, with the reason
    if "$NEUROC" "$HERE/exact.neuro" --mpi -o "$WORK/mpi" >"$WORK/mpi.txt" 2>&1; then
        bad "--mpi compiled a set with expressions"
    elif grep -q "^neuroc: error: --mpi: 'set P' sets a state or a per-neuron or per-synapse value by an expression" "$WORK/mpi.txt"; then
        ok "--mpi refuses a set with expressions, with the reason"
    else
        cat "$WORK/mpi.txt"; bad "--mpi: the wrong message"
    fi
fi
[ $fails -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "all checks passed"
