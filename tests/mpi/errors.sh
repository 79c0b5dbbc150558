#!/bin/sh
# tests/mpi: what a distributed build refuses, and says so. --mpi with a GPU back end is a
# compile error; --save-connectivity needs one rank (status 2 with two, the message once)
# and works with one; --checkpoint and --instances are refused.
#   errors.sh NEUROC PLASTIC_MODEL WORKDIR
set -eu
neuroc=$1 model=$2 work=$3
command -v mpirun >/dev/null 2>&1 || { echo "skipped: mpirun not found (Debian: openmpi-bin)"; exit 77; }
rm -rf "$work" && mkdir -p "$work"
cd "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
expect() {   # expect STATUS TEXT FILE: the last command's status and a line of FILE
    [ "$st" = "$1" ] || { echo "FAIL: status $st, expected $1"; cat "$3"; exit 1; }
    [ "$(grep -c -- "$2" "$3")" = 1 ] || { echo "FAIL: '$2' not said once:"; cat "$3"; exit 1; }
}
st=0; "$neuroc" --mpi --backend opencl "$model" -o x 2>err.txt || st=$?
expect 1 "error: --mpi needs the c back end (the opencl back end runs on one device)" err.txt
if ! "$neuroc" --mpi "$model" -o plain 2>err.txt; then
    cat err.txt
    if grep -q "built without MPI" err.txt; then echo "skipped: neuroc was built without MPI"; exit 77; fi
    exit 1
fi
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
echo "ok: refusals"
