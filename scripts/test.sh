#!/usr/bin/env bash
# Build with warnings as errors and run every test (the README's test command).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-test -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNEUROC_WERROR=ON >/dev/null
cmake --build build-test -j"$(nproc)"
cd build-test
rc=0
ctest --output-on-failure -j"$(nproc)" || rc=$?
# ctest shows a skipped test's status but not its output: say why the GPU tests skipped
n=$(grep -c "skipped: no CUDA device" Testing/Temporary/LastTest.log || true)
if [ "$n" -gt 0 ]; then
    echo "$n CUDA tests: skipped: no CUDA device"
fi
exit $rc
