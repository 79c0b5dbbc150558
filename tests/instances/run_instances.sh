#!/bin/sh
# run_instances.sh NEUROC MODEL WORKDIR B SEED [neuroc args...]
# Compile MODEL, run it once as `--instances B --seed SEED` and B times as single runs
# `--seed SEED+b`, then check with check_instances.py that instance b's folder holds exactly
# what the single run b wrote. Exit status: 0 pass; 2 usage; 3 compile failed; 4 a simulator
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

echo "instances[$name]: $WORKDIR/sim --instances $B --seed $SEED"
"$WORKDIR/sim" --instances "$B" --seed "$SEED" --out "$WORKDIR/batch" 2>"$WORKDIR/batch.err"
rc=$?
cat "$WORKDIR/batch.err"
[ $rc -eq 0 ] || { echo "instances[$name]: FAILED: the batch exited with $rc" >&2; exit 4; }
b=0
while [ $b -lt "$B" ]; do
    s=$((SEED + b))
    "$WORKDIR/sim" --seed "$s" --out "$WORKDIR/single_$b" --quiet ||
        { echo "instances[$name]: FAILED: the single run --seed $s" >&2; exit 4; }
    b=$((b + 1))
done
"$PYTHON" "$HERE/check_instances.py" "$WORKDIR" "$B" "$SEED"
