#!/bin/sh
# run_grid.sh NEUROC MODEL WORKDIR SEED [neuroc args...]
# A --sweep grid with --seeds: compile MODEL (tests/instances/models/grid.neuro), run it once
# as `--sweep S.rate=... --sweep T.C=... --seeds 2 --seed SEED` (2 x 3 points, 12 instances)
# and each instance as its single run `--seed SEED+s --set S.rate=v --set T.C=w`, then check
# with check_grid.py that the folders match, and instances.csv and the manifest say the grid.
# Then the refusals (status 2). Exit status: 0 pass; 3 compile failed; 4 a simulator failed;
# 5 a refusal was not; 77 skipped (a GPU back end without a device); else the checker's.
set -u
NEUROC=$1; MODEL=$2; WORKDIR=$3; SEED=$4
shift 4
PYTHON=${PYTHON:-python3}
HERE=$(cd "$(dirname "$0")" && pwd)
RATES="20Hz,45Hz"; CS="200pF,250pF,300pF"; K=2

rm -rf "$WORKDIR" && mkdir -p "$WORKDIR" || exit 2
case " $* " in
*" --backend cuda "*)
    if [ ! -e /dev/nvidiactl ] && ! nvidia-smi -L >/dev/null 2>&1; then
        echo "grid: skipped: no CUDA device"
        exit 77
    fi ;;
esac
"$NEUROC" "$MODEL" -o "$WORKDIR/sim" "$@" || { echo "grid: FAILED: neuroc" >&2; exit 3; }
case " $* " in
*" --backend cuda "*|*" --backend opencl "*)
    if ! "$WORKDIR/sim" --list-devices >"$WORKDIR/devices.txt" 2>&1 || [ ! -s "$WORKDIR/devices.txt" ]; then
        echo "grid: skipped: no device for $*"
        exit 77
    fi ;;
esac
"$WORKDIR/sim" --sweep "S.rate=$RATES" --sweep "T.C=$CS" --seeds $K --seed "$SEED" \
    --out "$WORKDIR/batch" 2>"$WORKDIR/batch.err"
rc=$?
cat "$WORKDIR/batch.err"
[ $rc -eq 0 ] || { echo "grid: FAILED: the batch exited with $rc" >&2; exit 4; }
b=0
for r in $(echo $RATES | tr , ' '); do
    for c in $(echo $CS | tr , ' '); do
        s=0
        while [ $s -lt $K ]; do
            "$WORKDIR/sim" --seed $((SEED + s)) --set "S.rate=$r" --set "T.C=$c" \
                --out "$WORKDIR/single_$b" --quiet || { echo "grid: FAILED: single run $b" >&2; exit 4; }
            s=$((s + 1)); b=$((b + 1))
        done
    done
done
"$PYTHON" "$HERE/check_grid.py" "$WORKDIR" "$SEED" || exit 1

# refusals: status 2, a clear message, nothing written
refuse() {   # refuse WHAT GREP ARGS...
    what=$1; pat=$2; shift 2
    "$WORKDIR/sim" "$@" --out "$WORKDIR/bad" >"$WORKDIR/err.txt" 2>&1
    rc=$?
    if [ $rc -ne 2 ] || ! grep -q -- "$pat" "$WORKDIR/err.txt" || [ -e "$WORKDIR/bad" ]; then
        echo "grid: FAILED: $what: status $rc: $(cat "$WORKDIR/err.txt")" >&2
        exit 5
    fi
    echo "ok: $what refused"
}
refuse "the same parameter twice" "'S.rate' is already swept" \
    --sweep S.rate=20Hz,40Hz --sweep T.C=200pF --sweep S.rate=30Hz
refuse "--instances against the grid" "'--instances 5' does not match 6 grid points times '--seeds 2' (12 instances" \
    --sweep "S.rate=$RATES" --sweep "T.C=$CS" --seeds 2 --instances 5
refuse "--instances against --seeds" "'--instances 3' does not match 1 grid point times '--seeds 2'" \
    --seeds 2 --instances 3
for k in 0 -1 x 2.5 1000001 ""; do
    refuse "--seeds '$k'" "invalid number of seeds" --seeds "$k"
done
echo "PASS: grid"
