#!/bin/sh
# valgrind (docs/robustness.md, "Fuzzing"): neuroc on a few models (front end, code
# generation, the C compiler run as a child) and a generated C simulator under
#   valgrind --error-exitcode=1 --leak-check=full
# Any invalid access, use of uninitialised memory or definite/possible leak fails.
#   valgrind.sh NEUROC WORK MODEL...      (the simulator of the first model is run)
set -u
NEUROC=$1
WORK=$2
shift 2
if ! command -v valgrind >/dev/null 2>&1; then
    echo "valgrind: skipped: valgrind is not installed (.ci/run installs it)"
    exit 77
fi
rm -rf "$WORK" && mkdir -p "$WORK" || exit 2
vg="valgrind -q --error-exitcode=1 --leak-check=full"
sim=""
for m in "$@"; do
    n=$(basename "$m" .neuro)
    $vg "$NEUROC" "$m" --dump=ir >"$WORK/$n.ir" || { echo "valgrind: FAILED: neuroc $m --dump=ir"; exit 1; }
    $vg "$NEUROC" "$m" --backend c -o "$WORK/$n" || { echo "valgrind: FAILED: neuroc $m"; exit 1; }
    [ -n "$sim" ] || sim=$n
done
$vg "$WORK/$sim" --out "$WORK/out" --quiet || { echo "valgrind: FAILED: the simulator of $sim"; exit 1; }
echo "valgrind: PASSED ($# models, simulator $sim)"
