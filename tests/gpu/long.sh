#!/bin/sh
# long.sh NEUROC MODEL CHECKER WORKDIR ARGS...: run_e2e.sh for a run that takes minutes on
# a CPU. Skipped (exit 77) where the OpenCL device is a CPU implementation (PoCL, as in CI);
# runs on a GPU (tests/gpu/run.sh) and wherever NEUROC_LONG_TESTS=1.
set -u
NEUROC=$1; MODEL=$2; WORK=$4
name=$(basename "$MODEL" .neuro)
case " $* " in
*" --backend opencl "*)
    if [ "${NEUROC_LONG_TESTS:-0}" != 1 ]; then
        mkdir -p "$WORK" || exit 2
        "$NEUROC" "$MODEL" -o "$WORK/probe" --backend opencl >/dev/null 2>&1 || { echo "long[$name]: FAILED: neuroc" >&2; exit 3; }
        if "$WORK/probe" --list-devices 2>/dev/null | grep -q "^  0: .*Portable Computing Language"; then
            echo "long[$name]: skipped: a long run, and OpenCL device 0 is a CPU (PoCL); NEUROC_LONG_TESTS=1 runs it"
            exit 77
        fi
    fi ;;
esac
exec sh "$(dirname "$0")/../e2e/run_e2e.sh" "$@"
