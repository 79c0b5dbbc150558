#!/bin/sh
# diff_assembly.sh NEUROC EXAMPLE N K WORKDIR BACKEND SCHEDULE
# examples/assembly/EXAMPLE.neuro with n = N, k = K, run on the C back end and on BACKEND
# with SCHEDULE: the caps must be the same round by round (tests/gpu/diff.sh, --exact).
# Exit 77 (skipped) while the GPU back ends have no plastic synapses (branch simtplast).
set -u
if [ $# -ne 7 ]; then
    echo "usage: $0 NEUROC EXAMPLE N K WORKDIR BACKEND SCHEDULE" >&2
    exit 2
fi
NEUROC=$1; EXAMPLE=$2; N=$3; K=$4; WORK=$5; BACKEND=$6; MODE=$7
HERE=$(cd "$(dirname "$0")" && pwd)
name=$(basename "$EXAMPLE" .neuro)
rm -rf "$WORK" && mkdir -p "$WORK" || exit 2
sed -e "s/^const n .*/const n = $N/" -e "s/^const k .*/const k = $K/" "$EXAMPLE" > "$WORK/$name.neuro" || exit 2
if "$NEUROC" "$WORK/$name.neuro" --backend "$BACKEND" --emit-only "$WORK/emit" 2>&1 | grep -q "has plastic synapses"; then
    echo "diff_assembly[$name]: skipped: the GPU back ends have no plastic synapses yet (branch simtplast)"
    exit 77
fi
exec sh "$HERE/../gpu/diff.sh" "$NEUROC" "$WORK/$name.neuro" "$WORK/diff" "$BACKEND" "$MODE" --exact
