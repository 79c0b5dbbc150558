#!/bin/sh
# tests/mpi: checkpoints of a distributed GPU simulator (neuroc --mpi --backend opencl, PoCL on
# every rank): a run of 2 ranks stopped at a checkpoint inside a run phase after a `set` and
# resumed by 2 ranks writes, stopped run's recordings followed by the resumed run's, the
# uninterrupted run's recordings (tests/mpi/models/gpu_topk.neuro: top-k split across the
# ranks, Hebbian weights recorded), and ends in the same state, every rank's part (rank 0
# in the folder, rank r in rank<r>/); resuming it with 3 ranks or with 1, or with a normal
# simulator, is refused.
#   ckpt_gpu.sh NEUROC MODEL WORKDIR   (PYTHON: a python3 with NumPy; DIST_BACKEND=cuda for
#   one GPU per rank on a machine with GPUs, default opencl)
set -eu
neuroc=$1 model=$2 work=$3
command -v mpirun >/dev/null 2>&1 || { echo "skipped: mpirun not found (Debian: openmpi-bin)"; exit 77; }
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work"
cd "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
be=${DIST_BACKEND:-opencl}
if ! "$neuroc" --mpi --backend "$be" "$model" -o dist 2>err.txt; then
    cat err.txt
    if grep -q "built without MPI" err.txt; then echo "skipped: neuroc was built without MPI"; exit 77; fi
    exit 1
fi
./dist --list-devices >devices.txt 2>&1 || { cat devices.txt; echo "skipped: no $be device"; exit 77; }
mpirun -np 2 ./dist -q --out full --checkpoint ckF --checkpoint-at 80steps
mpirun -np 2 ./dist -q --out stop --checkpoint ck --checkpoint-at 50steps --stop-after-checkpoint
[ -s ck/checkpoint.txt ] && [ -s ck/rank1/checkpoint.txt ] && [ ! -e ck/rank2 ] ||
    { echo "FAIL: ck holds no part per rank"; ls -R ck; exit 1; }
mpirun -np 2 ./dist -q --resume ck --out res --checkpoint ckE --checkpoint-at 80steps
"${PYTHON:-python3}" - "$here/../ckpt" "$work" <<'PY'
import os, sys
sys.path.insert(0, sys.argv[1])
from check_ckpt import concat_equal
w = sys.argv[2]
bad = concat_equal(os.path.join(w, "full"), os.path.join(w, "stop"), os.path.join(w, "res"))
if bad:
    sys.exit("FAIL: 2 ranks stopped and resumed differ from the uninterrupted run in %s" % bad)
for part in ("", "rank1"):
    a, b = os.path.join(w, "ckF", part), os.path.join(w, "ckE", part)
    for f in sorted(x for x in os.listdir(a) if os.path.isfile(os.path.join(a, x))):
        if open(os.path.join(a, f), "rb").read() != open(os.path.join(b, f), "rb").read():
            sys.exit("FAIL: final state %s/%s differs after the resume" % (part or ".", f))
print("ok: 2 ranks stopped at a checkpoint and resumed == the uninterrupted run, final states identical")
PY
st=0; mpirun -np 3 ./dist -q --resume ck --out r3 2>err.txt || st=$?
grep -q "error: checkpoint 'ck' has no part for rank 2 (rank2/checkpoint.txt): it was written by fewer than 3 ranks" err.txt &&
    [ "$st" != 0 ] || { echo "FAIL: 3 ranks resumed a checkpoint of 2 (status $st)"; cat err.txt; exit 1; }
st=0; ./dist -q --resume ck --out r1 2>err.txt || st=$?
[ "$st" = 1 ] && grep -q "error: checkpoint 'ck' was written by more than 1 rank (it holds rank1/)" err.txt ||
    { echo "FAIL: 1 rank resumed a checkpoint of 2 (status $st)"; cat err.txt; exit 1; }
# a normal simulator would take rank 0's part for the whole state: refused
"$neuroc" --backend c "$model" -o normal >/dev/null
st=0; ./normal -q --resume ck --out rn 2>err.txt || st=$?
[ "$st" = 1 ] && grep -q "error: checkpoint 'ck' is rank 0's part of a checkpoint of distributed ranks (it holds rank1/)" err.txt ||
    { echo "FAIL: a normal simulator resumed a distributed checkpoint (status $st)"; cat err.txt; exit 1; }
echo "ok: refused with 3 ranks, with 1 and by a normal simulator"
