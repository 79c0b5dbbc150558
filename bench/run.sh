#!/usr/bin/env bash
# bench/run.sh cpu|gpu [NEUROC] -- the benchmark suite in one command (bench/suite.py says
# what it runs and how it times it): every model of the machine's list built with neuroc
# and run with --bench, and the peers (cpu: Brian2 C++ standalone on CUBA, COBA, COBAHH and
# the HH batch, from Debian's python3-brian). Prints the table; writes bench.json and
# bench.md (the table docs/performance.md quotes) to $OUT, default bench/results/<cpu|gpu>.
#   cpu: the C back end, on this machine.
#   gpu: CUDA (every schedule for CUBA and COBA, auto for the rest) and OpenCL; tests/gpu/run.sh
#        calls it on the machine with the GPU (it sets up the NVIDIA OpenCL driver first).
# RUNS (default 3), ONLY (regex of row names), JOBS (parallel builds), SIM_ARGS (more simulator
# options: SIM_ARGS=--check-finite=off OUT=... measures the state check's cost) as in bench/suite.py.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
MODE=${1:-}
case "$MODE" in cpu|gpu) ;; *) echo "usage: bench/run.sh cpu|gpu [NEUROC]" >&2; exit 2 ;; esac
NEUROC=${2:-$ROOT/build/bin/neuroc}
OUT=${OUT:-$ROOT/bench/results/$MODE}
if [ "$MODE" = gpu ]; then
    export PATH=/usr/local/cuda/bin:$PATH
    # as tests/gpu/run.sh: the NVIDIA OpenCL driver as device 0 (the image also registers PoCL)
    if [ -z "${OCL_ICD_FILENAMES:-}" ] && ldconfig -p 2>/dev/null | grep -q libnvidia-opencl.so.1; then
        mkdir -p /tmp/neuroc-icd && echo libnvidia-opencl.so.1 >/tmp/neuroc-icd/nvidia.icd
        export OCL_ICD_VENDORS=/tmp/neuroc-icd OCL_ICD_FILENAMES=libnvidia-opencl.so.1
    fi
fi
# the GPU peer (Brian2CUDA): its wheels beside neuroc's build, <build>/wheels-brian2cuda
# (tests/gpu/run.sh says how to download them), unpacked for bench/brian2/peer.py; the CPU
# peer uses the same wheels' Brian2 where the machine has no Brian2 of its own (the device host)
if { [ "$MODE" = gpu ] || ! /usr/bin/python3 -c 'import brian2' >/dev/null 2>&1; } &&
   [ -z "${BRIAN2CUDA_PYTHONPATH:-}" ] &&
   ls "$(dirname "$NEUROC")"/../wheels-brian2cuda/*.whl >/dev/null 2>&1; then
    BRIAN2CUDA_PYTHONPATH=$(mktemp -d)
    export BRIAN2CUDA_PYTHONPATH
    for whl in "$(dirname "$NEUROC")"/../wheels-brian2cuda/*.whl; do
        python3 -m zipfile -e "$whl" "$BRIAN2CUDA_PYTHONPATH" >/dev/null 2>&1
    done
fi
python3 "$ROOT/bench/suite.py" "$MODE" "$NEUROC" "$OUT"
