#!/bin/sh
# run_assembly.sh NEUROC EXAMPLE VARIANT N K WORKDIR [extra neuroc args...]
# Write WORKDIR/VARIANT.neuro: examples/assembly/EXAMPLE.neuro with n = N and k = K (and
# beta = 0 for a VARIANT ending in _beta0), then compile, run and check it with
# check_assembly.py through tests/e2e/run_e2e.sh (exit statuses as there).
set -u
if [ $# -lt 6 ]; then
    echo "usage: $0 NEUROC EXAMPLE VARIANT N K WORKDIR [extra neuroc args]" >&2
    exit 2
fi
NEUROC=$1; EXAMPLE=$2; VARIANT=$3; N=$4; K=$5; WORK=$6
shift 6
HERE=$(cd "$(dirname "$0")" && pwd)
rm -rf "$WORK" && mkdir -p "$WORK" || exit 2
BETA='&'
case "$VARIANT" in *_beta0) BETA='const beta = 0' ;; esac
sed -e "s/^const n .*/const n = $N/" -e "s/^const k .*/const k = $K/" -e "s/^const beta .*/$BETA/" \
    "$EXAMPLE" > "$WORK/$VARIANT.neuro" || exit 2
grep -q "^const n = $N\$" "$WORK/$VARIANT.neuro" && grep -q "^const k = $K\$" "$WORK/$VARIANT.neuro" || {
    echo "run_assembly: $EXAMPLE has no 'const n' / 'const k' line to replace" >&2; exit 2; }
# the GPU back ends without plastic synapses yet (branch simtplast): skip, saying why
case " $* " in
*" --backend cuda "*|*" --backend opencl "*)
    if "$NEUROC" "$WORK/$VARIANT.neuro" --emit-only "$WORK/emit" "$@" 2>&1 | grep -q "has plastic synapses"; then
        echo "run_assembly[$VARIANT]: skipped: the GPU back ends have no plastic synapses yet (branch simtplast)"
        exit 77
    fi ;;
esac
exec sh "$HERE/../e2e/run_e2e.sh" "$NEUROC" "$WORK/$VARIANT.neuro" "$HERE/check_assembly.py" "$WORK/run" "$@"
