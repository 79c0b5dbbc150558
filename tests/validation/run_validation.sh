#!/bin/sh
# run_validation.sh NEUROC MODEL CHECKER WORKDIR SCALE [neuroc args...]
# Run one validation case: MODEL with its `const scale = 1` line replaced by SCALE (a copy in
# WORKDIR.src; SCALE 1 uses MODEL as it is), then tests/e2e/run_e2e.sh (compile, run, check).
# With NEUROC_VALIDATION_BIG=1 (the large full-size cases), OpenCL runs only where an NVIDIA
# GPU is present: on the development machine OpenCL is PoCL on the CPU, too slow for them;
# they belong to the device (tests/gpu/run.sh). CUDA skips without a device in run_e2e.sh.
set -u
if [ $# -lt 5 ]; then
    echo "usage: $0 NEUROC MODEL CHECKER WORKDIR SCALE [neuroc args]" >&2
    exit 2
fi
NEUROC=$1; MODEL=$2; CHECKER=$3; WORKDIR=$4; SCALE=$5
shift 5
HERE=$(cd "$(dirname "$0")" && pwd)
name=$(basename "$MODEL" .neuro)
case " $* " in
*" --backend opencl "*|*" --backend=opencl "*)
    if [ "${NEUROC_VALIDATION_BIG:-0}" = 1 ] && ! nvidia-smi -L >/dev/null 2>&1; then
        echo "validation[$name]: skipped: full size needs a GPU (no NVIDIA device)"
        exit 77
    fi ;;
esac
if [ "$SCALE" != 1 ]; then
    src="$WORKDIR.src"
    rm -rf "$src" && mkdir -p "$src" || exit 2
    if ! grep -q "^const scale = 1$" "$MODEL"; then
        echo "validation[$name]: ERROR: $MODEL has no line 'const scale = 1'" >&2
        exit 2
    fi
    sed "s/^const scale = 1\$/const scale = $SCALE/" "$MODEL" >"$src/$name.neuro" || exit 2
    MODEL="$src/$name.neuro"
    echo "validation[$name]: scale $SCALE"
fi
exec sh "$HERE/../e2e/run_e2e.sh" "$NEUROC" "$MODEL" "$CHECKER" "$WORKDIR" "$@"
