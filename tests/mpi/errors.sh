#!/bin/sh
# tests/mpi: what a distributed build refuses, and says so. --mpi with a GPU back end refuses
# the one-GPU schedules at compile time; a distributed GPU
# simulator refuses NEUROC_GPU_MODE=block and a malformed NEUROC_MPI_EVERY_STEP (its checkpoints:
# ckpt_gpu.sh), and saves a plastic fixed_total projection of 3 ranks as one rank does; the
# C ranks' --save-connectivity needs one rank (status 2 with two, the message once)
# and works with one; the C ranks refuse --checkpoint; --instances is refused; so is a recorded subset of synapses.
#   errors.sh NEUROC PLASTIC_MODEL WORKDIR EXACT_MODEL
set -eu
neuroc=$1 model=$2 work=$3 exact=$4
command -v mpirun >/dev/null 2>&1 || { echo "skipped: mpirun not found (Debian: openmpi-bin)"; exit 77; }
rm -rf "$work" && mkdir -p "$work"
cd "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
expect() {   # expect STATUS TEXT FILE: the last command's status and a line of FILE
    [ "$st" = "$1" ] || { echo "FAIL: status $st, expected $1"; cat "$3"; exit 1; }
    [ "$(grep -c -- "$2" "$3")" = 1 ] || { echo "FAIL: '$2' not said once:"; cat "$3"; exit 1; }
}
# distributed GPU simulators run launch or graph
st=0; "$neuroc" --mpi --backend cuda --gpu-mode persistent "$exact" --emit-only x 2>err.txt || st=$?
expect 1 "error: --mpi: the persistent schedule runs on one GPU; distributed runs use launch or graph" err.txt
st=0; "$neuroc" --mpi --backend opencl --gpu-mode block "$exact" --emit-only x 2>err.txt || st=$?
expect 1 "error: --mpi: the block schedule runs on one GPU; distributed runs use launch or graph" err.txt
if ! "$neuroc" --mpi "$model" -o plain 2>err.txt; then
    cat err.txt
    if grep -q "built without MPI" err.txt; then echo "skipped: neuroc was built without MPI"; exit 77; fi
    exit 1
fi
# a subset of a projection's synapses is recorded by one process only (tests/e2e's records_syn)
st=0; "$neuroc" --mpi "$(dirname "$model")/../../e2e/models/records_syn.neuro" -o x 2>err.txt || st=$?
expect 1 "records_syn.neuro:39:16: error: a subset of synapses cannot be recorded with --mpi yet; record them all ('record w of SP')" err.txt
st=0; mpirun -np 2 ./plain --quiet --save-connectivity --out o3 2>err.txt || st=$?
expect 2 "error: --save-connectivity needs one rank (mpirun -np 1)" err.txt
[ ! -e o3/connectivity_plastic.npy ] || { echo "FAIL: o3/connectivity_plastic.npy written"; exit 1; }
st=0; ./plain --quiet --save-connectivity --out o4 2>err.txt || st=$?
[ "$st" = 0 ] && [ -s o4/connectivity_plastic.npy ] || { echo "FAIL: one rank did not save"; cat err.txt; exit 1; }
st=0; ./plain --quiet --checkpoint ck --out o6 2>err.txt || st=$?
expect 2 "error: --checkpoint and --resume need a simulator built without --mpi" err.txt
st=0; ./plain --quiet --instances 2 --out o5 2>err.txt || st=$?
[ "$st" = 1 ] && grep -q "error: --instances cannot be combined with a distributed simulator" err.txt ||
    { echo "FAIL: --instances with --mpi: status $st"; cat err.txt; exit 1; }
# a distributed GPU simulator (OpenCL: PoCL here) at run time
if "$neuroc" --mpi --backend opencl "$exact" -o gdist 2>err.txt && ./gdist --list-devices >/dev/null 2>&1; then
    st=0; NEUROC_GPU_MODE=block ./gdist --quiet --out o7 2>err.txt || st=$?
    expect 2 "error: the block schedule runs on one GPU; a distributed simulator takes launch or graph" err.txt
    st=0; NEUROC_MPI_EVERY_STEP=yes ./gdist --quiet --out o8 2>err.txt || st=$?
    expect 2 "error: NEUROC_MPI_EVERY_STEP='yes' is not 0 or 1" err.txt
    # --save-connectivity of more ranks gathers on rank 0 (run_mpi.sh's mpi_gpu_exact), also a
    # plastic projection whose rows are in draw order (fixed_total: put together by the ranks
    # in the rows that its cut keeps): the file of one rank
    sed 's/connect  = fixed_indegree(1, autapses = false)/connect  = fixed_total(300)/' \
        "$(dirname "$model")/gpu_plastic.neuro" >ptotal.neuro
    sed -i 's/^run .*/run 1 ms/' ptotal.neuro
    "$neuroc" --mpi --backend opencl ptotal.neuro -o ptotal
    ./ptotal --quiet --save-connectivity --out o9a
    mpirun -np 3 ./ptotal --quiet --save-connectivity --out o9
    cmp o9a/connectivity_rc.npy o9/connectivity_rc.npy || { echo "FAIL: 3 ranks saved another fixed_total plastic projection"; exit 1; }
else
    echo "skipped: the distributed OpenCL simulator's refusals (no OpenCL device)"
fi
echo "ok: refusals"
