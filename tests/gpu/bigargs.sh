#!/bin/sh
# bigargs.sh NEUROC PYTHON WORKDIR BACKEND SCHEDULE N [stdp]: tests/gpu/bigargs.py's chain of N
# populations (N projections; stdp: plastic, weights and V recorded), whose kernels take more
# argument bytes than every device accepts, must be compiled in table mode (NC_UNPACK) and
# give the C back end's spikes, weights and states bit for bit (diff.sh --exact).
set -u
NEUROC=$1; PYTHON=$2; WORK=$3; BACKEND=$4; MODE=$5; N=$6; KIND=${7:-static}
HERE=$(cd "$(dirname "$0")" && pwd)
rm -rf "$WORK" && mkdir -p "$WORK" || exit 2
model=$WORK/bigargs$N.neuro
"$PYTHON" "$HERE/bigargs.py" "$N" "$KIND" >"$model" || exit 2
"$NEUROC" "$model" --backend "$BACKEND" --emit-only "$WORK/src" >/dev/null || exit 3
if ! grep -q "^ *NC_UNPACK;" "$WORK/src"/*.c[lu]; then
    echo "bigargs[$N/$BACKEND]: FAILED: the program is not in table mode" >&2
    exit 1
fi
exec sh "$HERE/diff.sh" "$NEUROC" "$model" "$WORK/diff" "$BACKEND" "$MODE" --exact
