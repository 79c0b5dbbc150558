#!/bin/sh
# run_set.sh NEUROC WORKDIR [neuroc back-end args...]
# Run-time parameters (`runtime P.x`, `./sim --set P.x=VALUE`) on one back end:
#  - with --set P.tau_m=15ms and =31ms, and without --set (10 ms), the spike steps equal the
#    closed form for that tau_m (check_set.py);
#  - the --set run equals, bit for bit (spikes.csv and the float64 V trace v.npy), a model
#    recompiled with tau_m = 15 ms in the source and no `runtime`;
#  - on a GPU back end, the --set run equals the C back end's (the block schedule is
#    bit-identical to C);
#  - a wrong unit, an unknown name, a malformed value and a missing '=' exit with 2 and
#    say why; --help lists the parameter.
# Exit: 0 pass, 1 a check failed, 77 skipped (a GPU back end without a device).
set -u
NEUROC=$1; WORK=$2; shift 2
HERE=$(cd "$(dirname "$0")" && pwd)
PYTHON=${PYTHON:-python3}
fails=0
ok()  { echo "ok   $*"; }
bad() { fails=$((fails + 1)); echo "FAIL $*"; }
rm -rf "$WORK"; mkdir -p "$WORK"
case " $* " in
*" cuda "*)
    if ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ] && [ -z "${NVCC:-}" ]; then
        echo "skipped: no nvcc (CUDA toolkit not installed)"; exit 77
    fi ;;
esac
"$NEUROC" "$HERE/lif_tau.neuro" -o "$WORK/sim" "$@" || { echo "FAIL neuroc $*"; exit 1; }
case " $* " in
*" cuda "*)
    if [ ! -e /dev/nvidiactl ] && ! nvidia-smi -L >/dev/null 2>&1; then
        echo "skipped: no CUDA device (the CUDA simulator compiled)"; exit 77
    fi ;;
esac
case " $* " in
*" cuda "*|*" opencl "*)
    if ! "$WORK/sim" --list-devices >"$WORK/devices.txt" 2>&1 || [ ! -s "$WORK/devices.txt" ]; then
        echo "skipped: no device for $* ($(head -n 1 "$WORK/devices.txt"))"; exit 77
    fi ;;
esac

for tau in 15 31; do
    if "$WORK/sim" --quiet --out "$WORK/t$tau" --set "P.tau_m=${tau}ms"; then
        "$PYTHON" "$HERE/check_set.py" "$WORK/t$tau" "$tau" || fails=$((fails + 1))
    else
        bad "--set P.tau_m=${tau}ms exited with $?"
    fi
done
"$WORK/sim" --quiet --out "$WORK/t10" && "$PYTHON" "$HERE/check_set.py" "$WORK/t10" 10 || bad "default tau_m"
"$PYTHON" -c "import json,sys; p = json.load(open(sys.argv[1]))['parameters']; sys.exit(p != {'P.tau_m': {'value': 15, 'unit': 'ms'}})" \
    "$WORK/t15/manifest.json" && ok "manifest.json: parameters P.tau_m = 15 ms" || bad "manifest.json parameters"
"$NEUROC" "$HERE/lif_tau.neuro" --dump=ast >"$WORK/ast.neuro" 2>/dev/null && grep -q "^runtime P.tau_m$" "$WORK/ast.neuro" &&
    "$NEUROC" "$WORK/ast.neuro" --dump=ast 2>/dev/null | cmp -s - "$WORK/ast.neuro" && ok "--dump=ast prints 'runtime' back (fixed point)" ||
    bad "--dump=ast of runtime"
"$WORK/sim" --quiet --out "$WORK/t15s" --set P.tau_m=0.015s --set P.tau_m=150steps &&
    cmp -s "$WORK/t15/spikes.csv" "$WORK/t15s/spikes.csv" && ok "the last --set wins; 150 steps = 15 ms" ||
    bad "--set P.tau_m=150steps differs from 15ms"

# bit for bit against the value written into the source
sed -e 's/tau_m: ms = 10 ms/tau_m: ms = 15 ms/' -e '/^runtime /d' "$HERE/lif_tau.neuro" >"$WORK/lif_tau.neuro"
"$NEUROC" "$WORK/lif_tau.neuro" -o "$WORK/sim15" "$@" 2>/dev/null && "$WORK/sim15" --quiet --out "$WORK/src15" ||
    bad "the recompiled model does not run"
if cmp -s "$WORK/t15/spikes.csv" "$WORK/src15/spikes.csv" && cmp -s "$WORK/t15/v.npy" "$WORK/src15/v.npy"; then
    ok "--set P.tau_m=15ms = tau_m = 15 ms in the source, bit for bit (spikes.csv, v.npy)"
else
    bad "--set P.tau_m=15ms differs from the recompiled model"
fi

# a GPU back end against C
case " $* " in
*" cuda "*|*" opencl "*)
    "$NEUROC" "$HERE/lif_tau.neuro" -o "$WORK/simc" --backend c 2>/dev/null &&
        "$WORK/simc" --quiet --out "$WORK/c15" --set P.tau_m=15ms || bad "the C simulator does not run"
    if cmp -s "$WORK/t15/spikes.csv" "$WORK/c15/spikes.csv" && cmp -s "$WORK/t15/v.npy" "$WORK/c15/v.npy"; then
        ok "$*: --set run = the C back end's, bit for bit"
    else
        bad "$*: --set run differs from the C back end's"
    fi ;;
esac

# errors: status 2, a message that says why, nothing written
expect_err() { # arg substring
    "$WORK/sim" --quiet --out "$WORK/err" --set "$1" 2>"$WORK/err.txt"; rc=$?
    if [ $rc -eq 2 ] && grep -qF -- "$2" "$WORK/err.txt" && [ ! -e "$WORK/err" ]; then
        ok "--set '$1': $(cat "$WORK/err.txt")"
    else
        bad "--set '$1': exit $rc, want 2 and '$2': $(cat "$WORK/err.txt")"
    fi
}
expect_err "P.tau_m=15mV" "'P.tau_m' is a time (ms), but 'mV' is a voltage"
expect_err "P.tau_m=15" "is a time (ms) and needs a unit"
expect_err "P.tau=15ms" "unknown run-time parameter 'P.tau' (valid: P.tau_m)"
expect_err "Q.tau_m=15ms" "(valid: P.tau_m)"
expect_err "P.tau_m=fast" "invalid value 'fast' for 'P.tau_m'"
expect_err "P.tau_m=15 mVs" "unknown unit 'mVs'"
expect_err "P.tau_m" "expected NAME=VALUE"
"$WORK/sim" --help >"$WORK/help.txt" && grep -q "^  P.tau_m  *10 ms$" "$WORK/help.txt" && grep -q -- "--set NAME=VALUE" "$WORK/help.txt" &&
    ok "--help lists P.tau_m and its value" || bad "--help does not list P.tau_m"

[ $fails -eq 0 ] && echo "run_set: PASSED" || echo "run_set: $fails FAILED"
[ $fails -eq 0 ]
