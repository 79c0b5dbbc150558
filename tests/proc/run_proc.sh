#!/bin/sh
# run_proc.sh NEUROC WORKDIR BACKEND [SCHEDULE]
# Procedural connectivity (docs/language.md §12.4, storage = procedural) must be the stored
# connectivity regenerated: proc.neuro is built with STORAGE = stored and = procedural.
# c: both on the C back end; the spike trains must be identical (and the network active),
#    and --save-connectivity of every procedural projection equal to the stored one.
# cuda/opencl: the procedural model on BACKEND with --gpu-mode SCHEDULE against the C stored
#    run: connectivity identical, spikes identical (every schedule: the weights are whole pA,
#    so sums do not depend on the order of atomic adds), with --save-connectivity (which
#    builds the stored form on the device too) and without it; on the block schedule the
#    stored model as well.
# Exit: 0 pass; 77 skipped (no device for BACKEND); 3 compile failed; 4 run failed; 1 checks.
set -u
if [ $# -lt 3 ]; then
    echo "usage: $0 NEUROC WORKDIR c|opencl|cuda [SCHEDULE]" >&2
    exit 2
fi
NEUROC=$1; WORK=$2; BACKEND=$3; MODE=${4:-auto}
PYTHON=${PYTHON:-python3}
HERE=$(cd "$(dirname "$0")" && pwd)
tag="proc[$BACKEND/$MODE]"
rm -rf "$WORK" && mkdir -p "$WORK" || exit 2
# OpenCL runs on PoCL (the CPU) in CI: its first 100 ms (1,000 steps, thousands of spikes)
# carry every comparison; C, and CUDA on a GPU, run the model's 200 ms
len=200
[ "$BACKEND" = opencl ] && len=100
for s in stored procedural; do
    sed -e "s/STORAGE/$s/" -e "s/^run 200 ms$/run $len ms/" "$HERE/proc.neuro" >"$WORK/$s.neuro" || exit 2
done
grep -q "^run $len ms$" "$WORK/stored.neuro" || { echo "$tag: proc.neuro has no 'run 200 ms' line" >&2; exit 2; }
"$NEUROC" "$WORK/stored.neuro" --backend c -o "$WORK/sim_stored" || { echo "$tag: FAILED: neuroc" >&2; exit 3; }
"$WORK/sim_stored" --save-connectivity --quiet --out "$WORK/stored" || { echo "$tag: FAILED: run" >&2; exit 4; }
conns="FP LAT BAND ONE FULL OVER TOT TOTA TOTV"
same_conn() {   # same_conn DIR: every connectivity file of DIR equals the stored one
    for p in $conns; do
        if ! cmp -s "$WORK/stored/connectivity_$p.npy" "$1/connectivity_$p.npy"; then
            echo "$tag: FAILED: --save-connectivity of procedural $p differs from stored" >&2
            return 1
        fi
    done
}
if [ "$BACKEND" = c ]; then
    "$NEUROC" "$WORK/procedural.neuro" --backend c -o "$WORK/sim_proc" || { echo "$tag: FAILED: neuroc" >&2; exit 3; }
    "$NEUROC" "$WORK/procedural.neuro" --backend c --explain >"$WORK/explain.txt" 2>/dev/null || exit 3
    if ! grep -q "^projection FP: .*, procedural: rows regenerated at each spike, no synapse memory" "$WORK/explain.txt"; then
        echo "$tag: FAILED: --explain does not show FP as procedural:" >&2; cat "$WORK/explain.txt" >&2
        exit 1
    fi
    if ! grep -q "^projection TOT: .*, procedural: rows regenerated at each spike, no synapse memory" "$WORK/explain.txt"; then
        echo "$tag: FAILED: --explain does not show TOT (fixed_total) as procedural:" >&2; cat "$WORK/explain.txt" >&2
        exit 1
    fi
    "$WORK/sim_proc" --dry-run >"$WORK/plan.txt" || exit 4
    if ! grep -q "projection TOT (procedural) *6000 synapses" "$WORK/plan.txt"; then
        echo "$tag: FAILED: --dry-run does not show TOT's 6000 synapses as procedural:" >&2; cat "$WORK/plan.txt" >&2
        exit 1
    fi
    if ! grep -q "projection FP (procedural) *[0-9]* synapses" "$WORK/plan.txt"; then
        echo "$tag: FAILED: --dry-run does not show FP as procedural:" >&2; cat "$WORK/plan.txt" >&2
        exit 1
    fi
    "$WORK/sim_proc" --save-connectivity --quiet --out "$WORK/proc" || { echo "$tag: FAILED: run" >&2; exit 4; }
    same_conn "$WORK/proc" || exit 1
    exec "$PYTHON" - "$WORK/stored/spikes.npy" "$WORK/proc/spikes.npy" <<'PY'
import sys
import numpy as np
a, b = np.load(sys.argv[1]), np.load(sys.argv[2])
# the network is active and recurrent input matters: every neuron spikes, many times
assert len(a) > 5000 and len(np.unique(a["i"])) == 400, (len(a), len(np.unique(a["i"])))
if a.shape != b.shape or not (a == b).all():
    k = next((k for k in range(min(len(a), len(b))) if a[k] != b[k]), min(len(a), len(b)))
    sys.exit("proc[c]: FAILED: spikes part at row %d: stored %s, procedural %s"
             % (k, a[k] if k < len(a) else None, b[k] if k < len(b) else None))
print("proc[c]: %d spikes identical, stored and procedural" % len(a))
PY
fi
if [ "$BACKEND" = cuda ] && [ ! -e /dev/nvidiactl ] && ! nvidia-smi -L >/dev/null 2>&1; then
    echo "$tag: skipped: no CUDA device"
    exit 77
fi
"$NEUROC" "$WORK/procedural.neuro" --backend "$BACKEND" --gpu-mode "$MODE" -o "$WORK/sim_gpu" || { echo "$tag: FAILED: neuroc --backend $BACKEND" >&2; exit 3; }
if ! "$WORK/sim_gpu" --list-devices >"$WORK/devices.txt" 2>&1 || [ ! -s "$WORK/devices.txt" ]; then
    echo "$tag: skipped: no $BACKEND device ($(head -n 1 "$WORK/devices.txt"))"
    exit 77
fi
"$WORK/sim_gpu" --save-connectivity --quiet --out "$WORK/gpu" || { echo "$tag: FAILED: the $BACKEND run" >&2; exit 4; }
same_conn "$WORK/gpu" || exit 1
"$PYTHON" "$HERE/../gpu/compare.py" "$WORK/stored" "$WORK/gpu" --exact || exit 1
# without --save-connectivity no stored form is built on the device: the rows are only
# regenerated (fixed_total's row pointers uploaded from nrt_conn_total_rows)
"$WORK/sim_gpu" --quiet --out "$WORK/gpu_only" || { echo "$tag: FAILED: the $BACKEND run (no --save-connectivity)" >&2; exit 4; }
rm -f "$WORK"/stored/connectivity_*.npy
"$PYTHON" "$HERE/../gpu/compare.py" "$WORK/stored" "$WORK/gpu_only" --exact || exit 1
[ "$MODE" = block ] || exit 0
# the stored model on the block schedule too: fixed_total's stored rows are in draw order,
# walked whole and filtered by each work-item's targets (simt_deliver.c)
"$NEUROC" "$WORK/stored.neuro" --backend "$BACKEND" --gpu-mode block -o "$WORK/sim_gpu_stored" || { echo "$tag: FAILED: neuroc --backend $BACKEND (stored)" >&2; exit 3; }
"$WORK/sim_gpu_stored" --quiet --out "$WORK/gpu_stored" || { echo "$tag: FAILED: the $BACKEND run (stored)" >&2; exit 4; }
exec "$PYTHON" "$HERE/../gpu/compare.py" "$WORK/stored" "$WORK/gpu_stored" --exact
