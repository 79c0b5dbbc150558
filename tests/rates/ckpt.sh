#!/bin/sh
# ckpt.sh NEUROC WORKDIR [neuroc back-end args...]
# Rates across a checkpoint (docs/cli.md §2.5): models/tick.neuro without its bins of 7 and
# 200 steps, checkpointed at 6 ms (step 60, a multiple of every bin left) with
# --stop-after-checkpoint and resumed: the rows of the two parts, concatenated, are the
# uninterrupted run's, byte for byte (.npy: header aside; .csv: the lines after the header).
# Exit: 0 pass, 1 fail, 77 a GPU back end without a device.
set -u
NEUROC=$1; WORK=$2; shift 2
HERE=$(cd "$(dirname "$0")" && pwd)
PYTHON=${PYTHON:-python3}
rm -rf "$WORK"; mkdir -p "$WORK"; cd "$WORK"
case " $* " in
*" cuda "*)
    if ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ] && [ -z "${NVCC:-}" ]; then
        echo "skipped: no nvcc (CUDA toolkit not installed)"; exit 77
    fi ;;
esac
grep -v 'rate_mid7\|rate_none' "$HERE/models/tick.neuro" > tick.neuro
"$NEUROC" tick.neuro -o sim "$@" || { echo "FAIL neuroc $*"; exit 1; }
case " $* " in
*" cuda "*|*" opencl "*)
    if ! ./sim --list-devices >devices.txt 2>&1 || [ ! -s devices.txt ]; then
        echo "skipped: no device for $*"; exit 77
    fi ;;
esac
./sim --quiet --out full || { echo "FAIL the run"; exit 1; }
./sim --quiet --out part1 --checkpoint ck --checkpoint-at 6ms --stop-after-checkpoint || { echo "FAIL the checkpoint"; exit 1; }
./sim --quiet --resume ck --out part2 || { echo "FAIL the resumed run"; exit 1; }
"$PYTHON" - <<'PYEOF' || exit 1
import numpy as np
fails = 0
for f in ("rate_all.npy", "rate_one.npy", "rate_mid.csv", "rate_last.csv", "spikes.npy"):
    if f.endswith(".npy"):
        a, b, c = (np.load("%s/%s" % (d, f)) for d in ("full", "part1", "part2"))
        same = np.concatenate([b, c]).tobytes() == a.tobytes()
    else:
        a, b, c = (open("%s/%s" % (d, f)).read().splitlines() for d in ("full", "part1", "part2"))
        same = b + c[1:] == a
    print(("ok   " if same else "FAIL ") + "%s: checkpointed + resumed rows = the uninterrupted run's (%d + %d)" % (f, len(b), len(c)))
    fails += not same
raise SystemExit(1 if fails else 0)
PYEOF
echo "ok   rates across a checkpoint $*"
