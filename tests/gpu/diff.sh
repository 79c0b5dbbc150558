#!/bin/sh
# diff.sh NEUROC MODEL WORKDIR BACKEND SCHEDULE COMPARE-OPTIONS...
# Compile MODEL for the C back end and for BACKEND (cuda or opencl) with --gpu-mode
# SCHEDULE, run both with the same seed, and compare the outputs with compare.py.
# Exit: 0 agree; 77 skipped (no device for BACKEND); 3 compile failed; 4 run failed;
# otherwise compare.py's status.
set -u
if [ $# -lt 6 ]; then
    echo "usage: $0 NEUROC MODEL WORKDIR BACKEND SCHEDULE COMPARE-OPTIONS..." >&2
    exit 2
fi
NEUROC=$1; MODEL=$2; WORK=$3; BACKEND=$4; MODE=$5
shift 5
PYTHON=${PYTHON:-python3}
HERE=$(cd "$(dirname "$0")" && pwd)
name=$(basename "$MODEL" .neuro)
tag="diff[$name/$BACKEND/$MODE]"
rm -rf "$WORK" && mkdir -p "$WORK" || exit 2

if [ "$BACKEND" = cuda ] && [ ! -e /dev/nvidiactl ] && ! nvidia-smi -L >/dev/null 2>&1; then
    echo "$tag: skipped: no CUDA device"
    exit 77
fi
"$NEUROC" "$MODEL" --backend "$BACKEND" --gpu-mode "$MODE" -o "$WORK/sim_gpu" || { echo "$tag: FAILED: neuroc --backend $BACKEND" >&2; exit 3; }
if ! "$WORK/sim_gpu" --list-devices >"$WORK/devices.txt" 2>&1 || [ ! -s "$WORK/devices.txt" ]; then
    echo "$tag: skipped: no $BACKEND device ($(head -n 1 "$WORK/devices.txt"))"
    exit 77
fi
"$NEUROC" "$MODEL" --backend c -o "$WORK/sim_c" || { echo "$tag: FAILED: neuroc --backend c" >&2; exit 3; }
"$WORK/sim_c" --out "$WORK/out_c" --quiet || { echo "$tag: FAILED: the C simulator" >&2; exit 4; }
"$WORK/sim_gpu" --out "$WORK/out_gpu" --quiet || { echo "$tag: FAILED: the $BACKEND simulator" >&2; exit 4; }
echo "$tag: comparing with $*"
"$PYTHON" "$HERE/compare.py" "$WORK/out_c" "$WORK/out_gpu" "$@"
