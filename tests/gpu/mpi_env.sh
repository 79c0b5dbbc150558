# tests/gpu/mpi_env.sh -- sourced by mpi.sh and mpi_gpu.sh on the device machine: this
# machine's MPI compiler and a private prefix whose MPI layer matches it.
# In: ROOT, BUILD, work (a scratch folder). Out: MPICC exported, NEUROC (the prefix's
# neuroc), the OpenMPI and NCCL variables. Returns 77 (skip) without mpirun or an MPI to
# compile against, 1 when the MPI layer does not build.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
command -v mpirun >/dev/null 2>&1 || { echo "skipped: no mpirun on this machine"; return 77; }
# the MPI compiler: mpicc, else cc with the include and lib folders beside mpirun's
if command -v mpicc >/dev/null 2>&1; then
    export MPICC=$(command -v mpicc)
else
    mpi_home=$(dirname "$(dirname "$(command -v mpirun)")")
    [ -e "$mpi_home/include/mpi.h" ] || { echo "skipped: no mpicc and no $mpi_home/include/mpi.h"; return 77; }
    printf '#!/bin/sh\nexec cc -I%s/include "$@" -L%s/lib -Wl,-rpath,%s/lib -lmpi\n' \
        "$mpi_home" "$mpi_home" "$mpi_home" >"$work/mpicc"
    chmod +x "$work/mpicc"
    export MPICC="$work/mpicc"
fi
# a private prefix: the build's neuroc, stdlib and runtime, and an MPI layer for this MPI
cp -r "$ROOT/$BUILD/bin" "$ROOT/$BUILD/lib" "$ROOT/$BUILD/include" "$ROOT/$BUILD/share" "$work/"
rm -f "$work/lib/libneurort_mpi.a"
for f in rt_mpi rt_mpi_gpu; do
    "$MPICC" -std=c11 -O2 -I"$ROOT/runtime/include" -I"$ROOT/runtime/src" -c "$ROOT/runtime/src/$f.c" \
        -o "$work/$f.o" || { echo "cannot build the MPI layer ($f.c) with this machine's mpicc"; return 1; }
done
ar rcs "$work/lib/libneurort_mpi.a" "$work/rt_mpi.o" "$work/rt_mpi_gpu.o" || return 1
NEUROC="$work/bin/neuroc"
# NCCL for distributed CUDA simulators: the system's, else one a Python package ships
if ! ldconfig -p 2>/dev/null | grep -q 'libnccl\.so\.2 ' && [ -z "${NEUROC_NCCL:-}" ]; then
    nccl=$(find / -xdev -name 'libnccl.so.2' 2>/dev/null | head -1)
    [ -n "$nccl" ] && export NEUROC_NCCL="$nccl"
fi
return 0
