#!/usr/bin/env bash
# Build with warnings as errors and run every test (the README's test command).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-test -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNEUROC_WERROR=ON >/dev/null
cmake --build build-test -j"$(nproc)"
cd build-test && ctest --output-on-failure -j"$(nproc)"
