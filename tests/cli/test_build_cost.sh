#!/usr/bin/env bash
# What keeps a GPU build short (docs/performance.md, "Cold builds, session 10"), checked on the
# generated text and the commands neuroc runs, not by timing: the microcircuit's 55
# projections get 7 construction kernels (nc_k_syn_g0..6, ptxas compiles the out-of-line
# draws once per kernel), and 2 with --proj-tables=on, one per family (nc_k_synf0, 1); <cooperative_groups.h> only where a kernel uses it (persistent);
# the host program of cuda and opencl at -O1, the C back end's simulator at -O3.
#   test_build_cost.sh NEUROC SOURCE_DIR WORK_DIR
set -u
NEUROC=$1; SRC=$2; WORK=$3
fails=0
ok()  { echo "ok   $*"; }
bad() { fails=$((fails + 1)); echo "FAIL $*"; }
rm -rf "$WORK"; mkdir -p "$WORK"
export NEUROC_CACHE=off

# the microcircuit's 55 projections: 7 grouped construction kernels, a case per projection
# (on a GPU, a model of 128 projections or fewer keeps its stored projections out of families)
"$NEUROC" "$SRC/examples/microcircuit.neuro" --backend cuda --gpu-arch sm_90 --emit-only "$WORK/mc" \
    || bad "emit the microcircuit"
cu=$WORK/mc/microcircuit.cu
n=$(grep -c '^NC_KERNEL nc_k_syn_g[0-9]*(NC_ARGS, const int nc_sel)' "$cu")
[ "$n" = 7 ] && ok "55 projections in 7 construction kernels" || bad "construction kernels: $n"
grep -q '^NC_KERNEL nc_k_syn_prj' "$cu" && bad "a kernel per projection" || ok "no kernel per projection"
[ "$(grep -c '^ *case [0-7]: {$' "$cu")" = 55 ] && ok "a case per projection" || bad "cases: $(grep -c '^ *case [0-7]: {$' "$cu")"
grep -q 'nc_k_syn_g6", NC_NARGS + 1)) || nrt_gpu_arg_i32(k_syn_prj_L6I_0L6I, NC_NARGS, 6)' "$WORK/mc/microcircuit.c" \
    && ok "the host selects the last projection's case" || bad "host lookup of the last projection"
# with --proj-tables=on they are two families (codegen/cg_family.c): a construction kernel each
"$NEUROC" "$SRC/examples/microcircuit.neuro" --backend cuda --gpu-arch sm_90 --proj-tables=on \
    --emit-only "$WORK/mc_on" || bad "emit the microcircuit, --proj-tables=on"
n=$(grep -c '^NC_KERNEL nc_k_synf[0-9]*(NC_ARGS, ' "$WORK/mc_on/microcircuit.cu")
[ "$n" = 2 ] && ok "--proj-tables=on: 55 projections in 2 family construction kernels" || bad "family construction kernels: $n"
grep -q '^NC_KERNEL nc_k_syn_\(prj\|g[0-9]\)' "$WORK/mc_on/microcircuit.cu" && bad "--proj-tables=on: a kernel per projection or group" \
    || ok "--proj-tables=on: no kernel per projection or group"
grep -q 'cooperative_groups' "$cu" && bad "cooperative_groups.h in a program without grid or cluster sync" \
    || ok "no cooperative_groups.h where no kernel uses it"

"$NEUROC" "$SRC/examples/cuba.neuro" --backend cuda --gpu-arch sm_90 --gpu-mode persistent --emit-only "$WORK/cp" \
    || bad "emit cuba, persistent"
grep -q '^#include <cooperative_groups.h>$' "$WORK/cp/cuba.cu" && ok "cooperative_groups.h for the persistent kernel" \
    || bad "persistent: no cooperative_groups.h"

sed 's/STEPS/10 ms/' "$SRC/tests/cli/tiny.neuro" >"$WORK/t.neuro"
"$NEUROC" "$WORK/t.neuro" --backend opencl -v -o "$WORK/t_ocl" >/dev/null 2>"$WORK/ocl.err" || bad "opencl build: $(tail -3 "$WORK/ocl.err")"
grep -q -- '-std=c11 -O1 .*t\.c' "$WORK/ocl.err" && ok "opencl host program at -O1" || bad "opencl: $(grep std=c11 "$WORK/ocl.err")"
"$NEUROC" "$WORK/t.neuro" --backend c -v -o "$WORK/t_c" >/dev/null 2>"$WORK/c.err" || bad "c build: $(tail -3 "$WORK/c.err")"
grep -q -- '-std=c11 -O3 ' "$WORK/c.err" && ok "C simulator at -O3" || bad "c: $(grep std=c11 "$WORK/c.err")"

echo "$fails failed"
[ $fails = 0 ]
