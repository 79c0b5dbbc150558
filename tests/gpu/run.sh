#!/usr/bin/env bash
# tests/gpu/run.sh -- everything GPU-side in one call, on the machine with the GPU:
# the CUDA and OpenCL (NVIDIA driver) test suites, the full-size validation of every example
# (validation.log, the "device" columns of docs/validation.md), the building-block benchmark, the
# benchmark suite (bench/run.sh gpu: every model, back end and schedule; bench.json and bench.md),
# and a per-kernel time breakdown. Results under $OUT.
#
# The build comes from the development machine (re2c and lemon are not needed here):
#   cmake -S . -B build-dev -DNEUROC_PYTHON3=/usr/bin/python3 && cmake --build build-dev -j
# (an absolute path: CMake makes a relative one absolute against the source folder)
# and travels with the working tree (device tool: carry build-dev). CMake wrote absolute
# paths of the development checkout into it, so that checkout's path is linked here.
# The checkers need NumPy, which the device image's /usr/bin/python3 lacks and cannot
# download: put a wheel for its Python (3.12) into build-dev/wheels on the development machine,
#   pip download numpy==1.26.4 --only-binary=:all: --python-version 3.12 \
#       --platform manylinux2014_x86_64 --no-deps -d build-dev/wheels
# and it is unpacked into a temporary folder here.
# The GPU peer of the benchmark suite (Brian2CUDA, bench/brian2/peer.py) needs its own wheels,
# Brian2 2.10 wanting NumPy 2 (about 30 MB; the suite says "not run" without them):
#   pip download brian2cuda==1.0b1 --only-binary=:all: --python-version 3.12 \
#       --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 -d build-dev/wheels-brian2cuda
# With the whole build folder they exceed what the device tool carries (64 MiB): run the
# benchmarks with the peer in a call of their own that carries bin/neuroc, lib, include, share
# and wheels-brian2cuda of the build (docs/performance.md, "GPU peer").
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-build-dev}
OUT=${OUT:-$ROOT/gpu-out}
mkdir -p "$OUT"
SRC=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$ROOT/$BUILD/CMakeCache.txt")
if [ -n "$SRC" ] && [ "$SRC" != "$ROOT" ] && [ ! -e "$SRC" ]; then
    mkdir -p "$(dirname "$SRC")" && ln -s "$ROOT" "$SRC"
fi
export PATH=/usr/local/cuda/bin:$PATH
# The NVIDIA OpenCL driver is installed but not registered with the ICD loader.
mkdir -p /tmp/neuroc-icd && echo libnvidia-opencl.so.1 >/tmp/neuroc-icd/nvidia.icd
export OCL_ICD_VENDORS=/tmp/neuroc-icd
# The device image also registers PoCL (/etc/OpenCL/vendors/pocl.icd), which the loader lists
# first: name the NVIDIA library so that it is OpenCL device 0 (checked below).
export OCL_ICD_FILENAMES=libnvidia-opencl.so.1
nvidia-smi >"$OUT/nvidia-smi.txt" 2>&1
status=0
# (the checkers run under python3 and /usr/bin/python3: both must have it)
if ! python3 -c "import numpy" 2>/dev/null || ! /usr/bin/python3 -c "import numpy" 2>/dev/null; then
    PYLIB=$(mktemp -d)
    for whl in "$ROOT/$BUILD"/wheels/numpy-*.whl; do
        [ -e "$whl" ] && python3 -m zipfile -e "$whl" "$PYLIB" >/dev/null 2>&1
    done
    export PYTHONPATH="$PYLIB${PYTHONPATH:+:$PYTHONPATH}"
    /usr/bin/python3 -c "import numpy" 2>/dev/null || { echo "run.sh: NumPy is missing (see the header); checkers that need it fail"; status=1; }
fi
if ls "$ROOT/$BUILD"/wheels-brian2cuda/*.whl >/dev/null 2>&1; then
    export BRIAN2CUDA_PYTHONPATH=$(mktemp -d)
    for whl in "$ROOT/$BUILD"/wheels-brian2cuda/*.whl; do
        python3 -m zipfile -e "$whl" "$BRIAN2CUDA_PYTHONPATH" >/dev/null 2>&1
    done
fi
W0=$(mktemp -d)
"$ROOT/$BUILD/bin/neuroc" "$ROOT/examples/cuba.neuro" --backend opencl -o "$W0/cuba" >/dev/null 2>&1 &&
    "$W0/cuba" --list-devices >"$OUT/opencl-devices.txt" 2>&1
if ! grep -q "^  0: NVIDIA" "$OUT/opencl-devices.txt"; then
    echo "run.sh: OpenCL device 0 is not the NVIDIA GPU:"; cat "$OUT/opencl-devices.txt"; status=1
fi
echo "== tests (ctest -L gpu, and the runtime's device-layer tests)"
(cd "$ROOT/$BUILD" && ctest -L gpu -LE validation -R "${TESTS:-.}" -E "${EXCLUDE:-^$}" -j 8 --output-on-failure --timeout 600 >"$OUT/ctest.log" 2>&1) || status=1
(cd "$ROOT/$BUILD" && ctest -R "rt_gpu" --output-on-failure >>"$OUT/ctest.log" 2>&1) || status=1
grep -E "tests passed|Failed|\*\*\*|Not Run|skipped" "$OUT/ctest.log" | tail -40
echo "== validation: every example at full size on CUDA and OpenCL (tests/validation, docs/validation.md)"
(cd "$ROOT/$BUILD" && ctest -L validation -R "${VTESTS:-^validation_(cuda|opencl)_}" -j 2 -V --timeout 600 >"$OUT/validation.log" 2>&1) || status=1
grep -E "^[0-9]+: \[[a-z_]+\] (ok|FAIL|PASSED|FAILED|scale|reference)|tests passed|Failed|\*\*\*|skipped" "$OUT/validation.log" | tail -150
echo "== distributed runs, one GPU per rank (tests/gpu/mpi_gpu.sh; CPU ranks: tests/gpu/mpi.sh)"
if [ "${SKIP_MPI:-0}" != 1 ]; then
    OUT=$OUT bash "$ROOT/tests/gpu/mpi_gpu.sh"
    rc=$?
    [ "$rc" = 0 ] || [ "$rc" = 77 ] || status=1
fi
[ "${SKIP_BENCH:-0}" = 1 ] && exit $status
echo "== building blocks"
bash "$ROOT/bench/gpu/blocks.sh" >"$OUT/blocks.log" 2>&1 || status=1
tail -30 "$OUT/blocks.txt" 2>/dev/null
echo "== benchmark suite (bench/run.sh gpu; OUT/bench.md is the table for docs/performance.md)"
[ "${SKIP_SUITE:-0}" = 1 ] || OUT=$OUT bash "$ROOT/bench/run.sh" gpu "$ROOT/$BUILD/bin/neuroc" 2>&1 | tee "$OUT/suite.txt"
[ "${PIPESTATUS[0]}" = 0 ] || status=1
echo "== per-kernel breakdown (ncu, launch schedule, CUBA, 200 kernels after 2000)"
W=$(mktemp -d)
"$ROOT/$BUILD/bin/neuroc" "$ROOT/examples/cuba.neuro" --backend cuda --gpu-mode launch -o "$W/cuba" >/dev/null 2>&1
NEUROC_GPU_MODE=launch timeout 120 ncu --launch-skip 2000 --launch-count 200 --metrics gpu__time_duration.sum \
    --csv "$W/cuba" --quiet --out "$W/o" >"$OUT/ncu.csv" 2>"$OUT/ncu.err" || true
python3 - "$OUT/ncu.csv" <<'PY' || true
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
if not rows: print("ncu: no data (see ncu.err)"); sys.exit()
h = rows[0]; k = h.index("Kernel Name"); v = h.index("Metric Value"); u = h.index("Metric Unit")
d = collections.defaultdict(list)
for r in rows[1:]:
    x = float(r[v].replace(",", "")); x = x / 1000.0 if r[u] == "nsecond" else x
    d[r[k]].append(x)
for name, xs in d.items():
    xs.sort(); print("%-20s n=%4d median %.2f us" % (name, len(xs), xs[len(xs) // 2]))
PY
exit $status
