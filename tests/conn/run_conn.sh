#!/bin/sh
# run_conn.sh NEUROC WORKDIR BACKEND
# Build tests/conn/rules.neuro for the C back end and save its connectivity twice (the same
# seed must give the same synapses, another seed others), check it with check_conn.py; with
# BACKEND cuda or opencl, build it there too and require identical synapses.
# Exit: 0 pass; 77 skipped (no device for BACKEND); 3 compile failed; 4 run failed; 1 checks.
set -u
if [ $# -ne 3 ]; then
    echo "usage: $0 NEUROC WORKDIR c|opencl|cuda" >&2
    exit 2
fi
NEUROC=$1; WORK=$2; BACKEND=$3
PYTHON=${PYTHON:-python3}
HERE=$(cd "$(dirname "$0")" && pwd)
tag="conn[$BACKEND]"
rm -rf "$WORK" && mkdir -p "$WORK" || exit 2
"$NEUROC" "$HERE/rules.neuro" --backend c -o "$WORK/sim_c" || { echo "$tag: FAILED: neuroc" >&2; exit 3; }
"$WORK/sim_c" --save-connectivity --quiet --out "$WORK/c1" || { echo "$tag: FAILED: run" >&2; exit 4; }
if [ "$BACKEND" = c ]; then
    "$WORK/sim_c" --save-connectivity --quiet --out "$WORK/c2" || exit 4
    "$WORK/sim_c" --save-connectivity --quiet --seed 8 --out "$WORK/c3" || exit 4
    if cmp -s "$WORK/c1/connectivity_FP.npy" "$WORK/c3/connectivity_FP.npy"; then
        echo "$tag: FAILED: --seed 8 built the same fixed_prob synapses as seed 7" >&2
        exit 1
    fi
    exec "$PYTHON" "$HERE/check_conn.py" "$WORK/c1" "$WORK/c2"
fi
if [ "$BACKEND" = cuda ] && [ ! -e /dev/nvidiactl ] && ! nvidia-smi -L >/dev/null 2>&1; then
    echo "$tag: skipped: no CUDA device"
    exit 77
fi
"$NEUROC" "$HERE/rules.neuro" --backend "$BACKEND" -o "$WORK/sim_gpu" || { echo "$tag: FAILED: neuroc --backend $BACKEND" >&2; exit 3; }
if ! "$WORK/sim_gpu" --list-devices >"$WORK/devices.txt" 2>&1 || [ ! -s "$WORK/devices.txt" ]; then
    echo "$tag: skipped: no $BACKEND device ($(head -n 1 "$WORK/devices.txt"))"
    exit 77
fi
"$WORK/sim_gpu" --save-connectivity --quiet --out "$WORK/gpu" || { echo "$tag: FAILED: the $BACKEND run" >&2; exit 4; }
exec "$PYTHON" "$HERE/check_conn.py" "$WORK/gpu" "$WORK/c1"
