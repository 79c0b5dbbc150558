#!/bin/sh
# mc_table.sh NEUROC EXAMPLES WORKDIR BACKEND SCHEDULE SCALE: the microcircuit (2,056 bytes of
# kernel arguments: table mode on OpenCL, whose devices must take only 1,024) at SCALE for
# 50 ms gives the C back end's spikes bit for bit (diff.sh --exact). Its fixed_total
# connectivity grows the arena while it is built (codegen/gpu/simt_table.c, rt_gpu_arena.c).
set -u
NEUROC=$1; EX=$2; WORK=$3; BACKEND=$4; MODE=$5; SCALE=$6
HERE=$(cd "$(dirname "$0")" && pwd)
rm -rf "$WORK" && mkdir -p "$WORK" || exit 2
model=$WORK/microcircuit.neuro
sed -e "s/^const scale = 1\$/const scale = $SCALE/" -e 's/^run 1 s$/run 50 ms/' "$EX/microcircuit.neuro" >"$model" || exit 2
grep -q "^const scale = $SCALE\$" "$model" && grep -q "^run 50 ms\$" "$model" || { echo "mc_table: the example changed: edit $0" >&2; exit 2; }
"$NEUROC" "$model" --backend "$BACKEND" --emit-only "$WORK/src" >/dev/null || exit 3
if [ "$BACKEND" = opencl ] && ! grep -q "^ *NC_UNPACK;" "$WORK/src"/*.cl; then
    echo "mc_table[$BACKEND]: FAILED: the OpenCL program is not in table mode" >&2
    exit 1
fi
exec sh "$HERE/diff.sh" "$NEUROC" "$model" "$WORK/diff" "$BACKEND" "$MODE" --exact
