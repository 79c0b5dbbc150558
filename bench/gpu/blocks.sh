#!/usr/bin/env bash
# Build bench/gpu/blocks.cu and run it on the present GPU: the building blocks of a simulation
# step (launch, graph node, grid/block/cluster barriers, atomics, Philox, memory bandwidth).
# Writes ${OUT:-.}/blocks.json (the table as JSON), blocks.txt (the full output) and
# blocks_build.log (nvcc's resource report). Exits non-zero if the build, a CUDA call or a check
# fails.
# Usage: bench/gpu/blocks.sh [--build-only]     (NVCC, ARCH override nvcc and -arch=sm_90)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
ARCH=${ARCH:-sm_90}
OUTDIR=${OUT:-.}
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
BUILD=$(mktemp -d)
trap 'rm -rf "$BUILD"' EXIT

"$NVCC" -O3 -arch="$ARCH" -std=c++17 -Xcompiler -Wall -Xptxas -v \
    "$ROOT/bench/gpu/blocks.cu" -o "$BUILD/blocks" >"$OUTDIR/blocks_build.log" 2>&1 || {
    cat "$OUTDIR/blocks_build.log" >&2
    echo "blocks.sh: build failed" >&2
    exit 1
}
grep -iE "warning|spill stores, [1-9]" "$OUTDIR/blocks_build.log" >&2 || true
if [[ "${1:-}" == "--build-only" ]]; then
    echo "blocks.sh: build ok (not run); resource report in $OUTDIR/blocks_build.log"
    exit 0
fi
"$BUILD/blocks" --json "$OUTDIR/blocks.json" 2>&1 | tee "$OUTDIR/blocks.txt"
