# Included by ctest (TEST_INCLUDE_FILES of tests/): the tests build without the compile cache.
set(ENV{NEUROC_CACHE} off)
