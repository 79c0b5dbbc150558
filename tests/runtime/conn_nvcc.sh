#!/bin/sh
# conn_nvcc.sh NVCC INCLUDE_DIR CU WORKDIR: nrt_conn_dev.h (after nrt_simt.h, nrt_math.h,
# nrt_philox.h)
# must compile as CUDA for sm_90 without contraction and without a single warning.
set -u
NVCC=$1; INC=$2; CU=$3; WORK=$4
rm -rf "$WORK" && mkdir -p "$WORK" || exit 2
"$NVCC" -arch=sm_90 -cubin --fmad=false -Werror all-warnings -I"$INC" -x cu -o "$WORK/conn_dev.cubin" \
    "$CU" >"$WORK/log" 2>&1
rc=$?
cat "$WORK/log"
if [ $rc -ne 0 ] || [ -s "$WORK/log" ]; then
    echo "conn_nvcc: FAILED (exit $rc, or output above)" >&2
    exit 1
fi
echo "conn_nvcc: ok ($(wc -c <"$WORK/conn_dev.cubin") bytes of cubin)"
