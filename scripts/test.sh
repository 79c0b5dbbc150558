#!/usr/bin/env bash
# Build with warnings as errors and run every test (the README's test command).
#   scripts/test.sh          the normal build (build-test)
#   scripts/test.sh asan     the same suite built with ASan + UBSan (build-asan, NEUROC_SANITIZE:
#                            neuroc, the runtime, the test programs and every simulator the
#                            tests generate); CI runs it after the normal one
set -euo pipefail
cd "$(dirname "$0")/.."
dir=build-test
flags=()
if [ "${1:-}" = asan ]; then
    dir=build-asan
    flags=(-DNEUROC_SANITIZE=ON)
    # leaks are errors; UBSan stops at the first finding; an allocation too large returns NULL
    # (the runtime reports it: tests ask for impossible sizes on purpose)
    export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1:allocator_may_return_null=1}
    export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
    # what PoCL and its LLVM keep when an OpenCL simulator compiles its program is theirs
    export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$(pwd)/tests/lsan.supp}
fi
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNEUROC_WERROR=ON "${flags[@]}" >/dev/null
cmake --build "$dir" -j"$(nproc)"
cd "$dir"
rc=0
# The sanitized pass on a machine without a CUDA device leaves out the tests labelled cuda:
# without a device they only build with nvcc (device code, which the sanitizers do not see)
# and skip, and the normal pass has run those builds; the sanitized golden.emit_hashes still
# generates CUDA programs with the sanitized neuroc.
select=()
if [ "${1:-}" = asan ] && ! nvidia-smi -L >/dev/null 2>&1; then
    select=(-LE cuda)
    echo "sanitized pass: the $(ctest -N -L cuda | sed -n 's/^Total Tests: //p') tests labelled cuda left out: no CUDA device (the normal pass ran their nvcc builds)"
fi
ctest --output-on-failure -j"$(nproc)" "${select[@]}" || rc=$?
# ctest shows a skipped test's status but not its output: say why the GPU tests skipped
n=$(grep -c "skipped: no CUDA device" Testing/Temporary/LastTest.log || true)
if [ "$n" -gt 0 ]; then
    echo "$n CUDA tests: skipped: no CUDA device"
fi
exit $rc
