#!/bin/sh
# table.sh NEUROC PYTHON EXAMPLES WORKDIR: which GPU programs pass their kernels' arguments in
# a table (table mode, codegen/gpu/simt_table.c), read from --emit-only: exactly those
# whose arguments take more than the space every device of the API takes: CUDA 4,096 bytes,
# OpenCL 1,024 (PoCL's; NVIDIA's is 4,352). So the microcircuit (2,056 bytes) uses the table
# on OpenCL and its lists on CUDA, and tests/gpu/bigargs.py's 100 populations use the table on
# both back ends.
set -u
NEUROC=$1; PYTHON=$2; EX=$3; WORK=$4
HERE=$(cd "$(dirname "$0")" && pwd)
rm -rf "$WORK" && mkdir -p "$WORK" || exit 2
fails=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fails=$((fails + 1)); }
check() {   # check NAME MODEL BACKEND
    n=$1; m=$2; b=$3
    "$NEUROC" "$m" --backend "$b" --emit-only "$WORK/$n" >/dev/null 2>"$WORK/$n.err" || { bad "$n: neuroc failed: $(cat "$WORK/$n.err")"; return; }
    host=$(ls "$WORK/$n"/*.c | grep -v _program.c | head -n 1)
    if [ "$b" = cuda ]; then dev=$(ls "$WORK/$n"/*.cu); else dev=$(ls "$WORK/$n"/*.cl); fi
    limit=4096
    [ "$b" = opencl ] && limit=1024
    nargs=$(sed -n 's/.*NC_NTAB = \([0-9]*\).*/\1/p' "$host" | head -n 1)
    [ -n "$nargs" ] || nargs=$(sed -n 's/.*NC_NARGS = \([0-9]*\).*/\1/p' "$host" | head -n 1)
    table=0
    grep -q "NC_UNPACK" "$dev" && table=1
    want=0
    [ $((nargs * 8)) -gt $limit ] && want=1
    if [ $table = $want ]; then
        ok "$n: $nargs arguments ($((nargs * 8)) bytes, limit $limit): table mode $table"
    else
        bad "$n: $nargs arguments ($((nargs * 8)) bytes, limit $limit): table mode $table, expected $want"
    fi
    if [ $table = 1 ]; then
        # every model kernel takes the table, none the arguments themselves
        k=$(grep -c "NC_KERNEL.*(NC_ARGS" "$dev"); t=$(grep -c "NC_KERNEL.*(NC_KARGS" "$dev"); u=$(grep -c "^ *NC_UNPACK;" "$dev")
        [ "$k" = 0 ] && [ "$t" -gt 0 ] && [ "$t" = "$u" ] && ok "$n: $t kernels take and unpack the table" ||
            bad "$n: kernels: $k take NC_ARGS, $t NC_KARGS, $u unpack"
    fi
}
for m in "$EX"/*.neuro; do
    name=$(basename "$m" .neuro)
    for b in opencl cuda; do
        check "${name}_$b" "$m" "$b"
    done
done
# the microcircuit (2,056 bytes): the table on OpenCL, with the arena on before the program is
# loaded (the runtime builds it for registers on NVIDIA); its lists on CUDA
grep -q "NC_UNPACK" "$WORK/microcircuit_opencl/microcircuit.cl" && ok "microcircuit: OpenCL table mode" || bad "microcircuit: OpenCL argument lists"
awk '/nrt_gpu_arena\(gpu\)/ { a = NR } /nrt_gpu_load\(gpu/ { l = NR } END { exit !(a && l && a < l) }' "$WORK/microcircuit_opencl/microcircuit.c" &&
    ok "microcircuit: OpenCL arena on before the program is loaded" || bad "microcircuit: OpenCL arena not on before the load"
grep -q "NC_UNPACK" "$WORK/microcircuit_cuda/microcircuit.cu" && bad "microcircuit: CUDA table mode" || ok "microcircuit: CUDA argument lists"
grep -q "NC_UNPACK" "$WORK/cuba_opencl/cuba.cl" && bad "cuba: OpenCL table mode" || ok "cuba: OpenCL argument lists"
"$PYTHON" "$HERE/bigargs.py" 100 >"$WORK/big100.neuro" || exit 2
"$PYTHON" "$HERE/bigargs.py" 60 stdp >"$WORK/big60stdp.neuro" || exit 2
# CUDA's boundary: 24 plastic populations take 512 arguments, 4,096 bytes (argument lists);
# 26 take 554 (the table)
"$PYTHON" "$HERE/bigargs.py" 24 stdp >"$WORK/big24stdp.neuro" || exit 2
"$PYTHON" "$HERE/bigargs.py" 26 stdp >"$WORK/big26stdp.neuro" || exit 2
check big24stdp_cuda "$WORK/big24stdp.neuro" cuda
check big26stdp_cuda "$WORK/big26stdp.neuro" cuda
grep -q "NC_NARGS = 512," "$WORK/big24stdp_cuda/big24stdp.c" && ! grep -q NC_UNPACK "$WORK/big24stdp_cuda/big24stdp.cu" &&
    ok "CUDA: 512 arguments (4,096 bytes) in lists" || bad "CUDA: 512 arguments not in lists"
grep -q "NC_NTAB = 554," "$WORK/big26stdp_cuda/big26stdp.c" && ok "CUDA: 554 arguments in the table" || bad "CUDA: 554 arguments not in the table"
for b in opencl cuda; do
    check "big100_$b" "$WORK/big100.neuro" "$b"
    check "big60stdp_$b" "$WORK/big60stdp.neuro" "$b"
    grep -q "NC_UNPACK" "$WORK/big100_$b/big100.c" "$WORK/big100_$b"/*.c[lu] 2>/dev/null && ok "big100 $b: table mode" || bad "big100 $b: no table mode"
done
[ $fails = 0 ] && echo "table: all ok" || echo "table: $fails failed"
[ $fails = 0 ]
