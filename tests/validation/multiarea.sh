#!/bin/sh
# multiarea.sh NEUROC WORKDIR PYTHON DATA_DIR -- the multi-area model (examples/multiarea) at
# reduced scale on the C back end: areas V1 and V2 (16 populations, 137 projections, the other
# 30 areas replaced by Poisson input), 1 % of the neurons and of the in-degrees with the
# reference code's DC, ground state, 1.5 s; check_rates.py --check on the last second. The
# data set (CC BY-NC-SA, not in the repository) is DATA_DIR: without it the test is skipped
# (status 77) with a message. -O1 keeps the C compiler at about 10 s for 137 projections.
# Exit: 0 pass; 77 skipped; 3 generate/compile failed; 4 run failed; 1 check failed.
set -u
NEUROC=$1; WORK=$2; PY=$3; DATA=$4
EX=$(cd "$(dirname "$0")/../../examples/multiarea" && pwd)
if [ ! -f "$DATA/params.json" ] || [ ! -f "$DATA/synapses.csv" ]; then
    echo "validation_multiarea: skipped: the data set is not at $DATA (examples/multiarea/README.md)"
    exit 77
fi
rm -rf "$WORK" && mkdir -p "$WORK" || exit 2
"$PY" "$EX/generate.py" "$DATA" "$WORK/multiarea.neuro" --scale 0.01 --areas V1,V2 --t-sim 1500 ||
    { echo "validation_multiarea: FAILED: generate.py" >&2; exit 3; }
"$NEUROC" "$WORK/multiarea.neuro" --backend c --cflags -O1 -o "$WORK/sim" 2>"$WORK/neuroc.err" ||
    { cat "$WORK/neuroc.err" >&2; echo "validation_multiarea: FAILED: neuroc" >&2; exit 3; }
"$WORK/sim" --quiet --out "$WORK/out" || { echo "validation_multiarea: FAILED: run" >&2; exit 4; }
"$PY" "$EX/check_rates.py" "$WORK/out" --data "$DATA" --t-min 500 --check || exit 1
