#!/bin/sh
# params.sh NEUROC MODEL WORKDIR -- run-time parameters (--set, docs/language.md §12.9) and
# checkpoints: a run with --set P.t_ref=3ms stopped at a checkpoint and resumed without
# --set continues with 3 ms (the checkpoint holds the value): its recordings follow the
# uninterrupted --set run's, differ from the default's, and its manifest says 3 ms;
# --set with --resume is a bad command line.
set -u
NEUROC=$1; MODEL=$2; W=$3
PYTHON=${PYTHON:-python3}
rm -rf "$W" && mkdir -p "$W" || exit 2
"$NEUROC" "$MODEL" --backend c -o "$W/sim" || exit 3
"$W/sim" -q --out "$W/default" || exit 4
"$W/sim" -q --set P.t_ref=3ms --out "$W/full" || exit 4
"$W/sim" -q --set P.t_ref=3ms --out "$W/stop" --checkpoint "$W/ck" --checkpoint-at 87.3ms --stop-after-checkpoint || exit 4
grep -q "^param P.t_ref 3$" "$W/ck/checkpoint.txt" || { echo "FAIL: no 'param P.t_ref 3' in the header" >&2; exit 1; }
"$W/sim" -q --resume "$W/ck" --out "$W/res" || exit 4
"$W/sim" -q --resume "$W/ck" --set P.t_ref=2ms --out "$W/bad" 2>"$W/err.txt"
rc=$?
if [ $rc -ne 2 ] || ! grep -q "keeps the run-time parameters of its checkpoint" "$W/err.txt"; then
    echo "FAIL: --set with --resume: status $rc, $(cat "$W/err.txt")" >&2; exit 1
fi
"$PYTHON" - "$W" <<'PY' || exit 1
import os, sys
sys.path.insert(0, os.environ["CKPT_DIR"])
from check_ckpt import concat_equal, manifest, rows
w = sys.argv[1]
j = lambda *p: os.path.join(w, *p)
if concat_equal(j("full"), j("stop"), j("res")):
    sys.exit("FAIL: --set run + resume differs from the uninterrupted --set run")
if rows(j("full", "spikes.npy")) == rows(j("default", "spikes.npy")):
    sys.exit("FAIL: --set P.t_ref=3ms changed nothing: the test cannot see it")
p = manifest(j("res"))["parameters"]["P.t_ref"]["value"]
if p != 3:
    sys.exit("FAIL: the resumed manifest says P.t_ref = %s" % p)
print("ok: the run-time parameter of the checkpoint carries over (P.t_ref = 3 ms)")
PY
