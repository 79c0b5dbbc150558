#!/bin/sh
# cuda_compile.sh NEUROC MODEL WORKDIR [FLAG...]: the CUDA back end's whole build of MODEL
# (device program through nvcc, host program through cc, linked with the runtime) must
# succeed; FLAGs go to neuroc (--mpi: the distributed simulator, through mpicc).
# Exit 77 with "skipped: no nvcc" where the CUDA toolkit is absent.
set -u
NEUROC=$1; MODEL=$2; WORK=$3
shift 3
name=$(basename "$MODEL" .neuro)
if ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ] && [ -z "${NVCC:-}" ]; then
    echo "cuda_compile[$name]: skipped: no nvcc (CUDA toolkit not installed)"
    exit 77
fi
rm -rf "$WORK" && mkdir -p "$WORK" || exit 2
if [ "${1:-}" = --mpi ] && ! command -v "${MPICC:-mpicc}" >/dev/null 2>&1; then
    echo "cuda_compile[$name]: skipped: no mpicc (Debian: libopenmpi-dev)"
    exit 77
fi
"$NEUROC" "$MODEL" --backend cuda --gpu-arch sm_90 "$@" -o "$WORK/sim" --emit-only "$WORK/src" >/dev/null || exit 3
"$NEUROC" "$MODEL" --backend cuda --gpu-arch sm_90 "$@" -o "$WORK/sim" || { echo "cuda_compile[$name]: FAILED" >&2; exit 1; }
[ -x "$WORK/sim" ] || { echo "cuda_compile[$name]: FAILED: no executable" >&2; exit 1; }
echo "cuda_compile[$name]: ok ($(wc -c <"$WORK/src/$name.cu") bytes of device code)"
