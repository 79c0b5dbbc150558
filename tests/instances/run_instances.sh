#!/bin/sh
# run_instances.sh NEUROC MODEL WORKDIR B SEED [neuroc args...]
# Compile MODEL, run it once as `--instances B --seed SEED` and B times as single runs
# `--seed SEED+b` (with $SWEEP: `--sweep $SWEEP`, and `--seed SEED --set NAME=Vb`), then
# check with check_instances.py that instance b's folder holds exactly what the single run
# b wrote. Exit status: 0 pass; 2 usage; 3 compile failed; 4 a simulator
# failed; 77 skipped (a GPU back end without a device); else the checker's status.
set -u
if [ $# -lt 5 ]; then
    echo "usage: $0 NEUROC MODEL WORKDIR B SEED [neuroc args]" >&2
    exit 2
fi
NEUROC=$1; MODEL=$2; WORKDIR=$3; B=$4; SEED=$5
shift 5
PYTHON=${PYTHON:-python3}
HERE=$(cd "$(dirname "$0")" && pwd)
name=$(basename "$MODEL" .neuro)

rm -rf "$WORKDIR" && mkdir -p "$WORKDIR" || { echo "instances[$name]: cannot make $WORKDIR" >&2; exit 2; }
case " $* " in
*" --backend cuda "*)
    if [ ! -e /dev/nvidiactl ] && ! nvidia-smi -L >/dev/null 2>&1; then
        echo "instances[$name]: skipped: no CUDA device"
        exit 77
    fi ;;
esac
"$NEUROC" "$MODEL" -o "$WORKDIR/sim" "$@" || { echo "instances[$name]: FAILED: neuroc" >&2; exit 3; }
case " $* " in
*" --backend cuda "*|*" --backend opencl "*)
    if ! "$WORKDIR/sim" --list-devices >"$WORKDIR/devices.txt" 2>&1 || [ ! -s "$WORKDIR/devices.txt" ]; then
        echo "instances[$name]: skipped: no device for $* ($(head -n 1 "$WORKDIR/devices.txt"))"
        exit 77
    fi ;;
esac

# $SWEEP=NAME=V0,V1,...: the batch is `--sweep $SWEEP` (B values), instance b the run
# --seed SEED --set NAME=Vb
if [ -n "${SWEEP:-}" ]; then
    echo "instances[$name]: $WORKDIR/sim --sweep $SWEEP --seed $SEED"
    "$WORKDIR/sim" --sweep "$SWEEP" --seed "$SEED" --out "$WORKDIR/batch" 2>"$WORKDIR/batch.err"
else
    echo "instances[$name]: $WORKDIR/sim --instances $B --seed $SEED"
    "$WORKDIR/sim" --instances "$B" --seed "$SEED" --out "$WORKDIR/batch" 2>"$WORKDIR/batch.err"
fi
rc=$?
cat "$WORKDIR/batch.err"
[ $rc -eq 0 ] || { echo "instances[$name]: FAILED: the batch exited with $rc" >&2; exit 4; }
b=0
while [ $b -lt "$B" ]; do
    if [ -n "${SWEEP:-}" ]; then
        v=$(echo "${SWEEP#*=}" | cut -d, -f$((b + 1)))
        set -- --seed "$SEED" --set "${SWEEP%%=*}=$v"
    else
        set -- --seed $((SEED + b))
    fi
    "$WORKDIR/sim" "$@" --out "$WORKDIR/single_$b" --quiet ||
        { echo "instances[$name]: FAILED: the single run $*" >&2; exit 4; }
    b=$((b + 1))
done
"$PYTHON" "$HERE/check_instances.py" "$WORKDIR" "$B" "$SEED"
