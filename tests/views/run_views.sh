#!/usr/bin/env bash
# tests/views: declared views in the summary, manifest.json and the figures.
# usage: run_views.sh NEUROC WORKDIR MODE [BACKEND [SCHEDULE]]
#   MODE run:   views.neuro (views_free.neuro with schedule free, examples/cuba.neuro with
#               schedule cluster) on BACKEND (c, opencl,
#               cuda; skipped, 77, without its device) run with --save-connectivity and
#               --plot: check_views.py (views, their spike counts against the recorded base
#               population, the summary's lines, recordings of views, connectivity files)
#               and, for views.neuro, check_plots.py (rasters by view, view rates, small
#               multiples, weight histograms, index.html with views and connectivity)
#   MODE ckpt:  a run stopped at a checkpoint and resumed counts each view's spikes as the
#               whole run does (C)
#   MODE sweep: --sweep x2 --seeds 2 --plot: check_sweep.py (the overview's figures and
#               links, the summary's rates per instance); then `neuroc plot` of the folder
#               draws the same overview again
set -u
NEUROC=$1
W=$2
MODE=$3
B=${4:-c}
S=${5:-}
HERE=$(cd "$(dirname "$0")" && pwd)
PY=${PYTHON:-python3}
rm -rf "$W" && mkdir -p "$W"
MODEL=views
[ "$S" = free ] && MODEL=views_free
SRC="$HERE/$MODEL.neuro"
if [ "$S" = cluster ]; then   # views.neuro's STDP keeps the cluster schedule away: CUBA's views
    MODEL=cuba
    SRC="$HERE/../../examples/cuba.neuro"
fi
ARGS=(--backend "$B")
[ -n "$S" ] && ARGS+=(--gpu-mode "$S")
if [ "$B" = cuda ] && [ ! -e /dev/nvidiactl ] && ! nvidia-smi -L >/dev/null 2>&1; then
    echo "views_$B: skipped: no CUDA device"; exit 77
fi
"$NEUROC" "$SRC" "${ARGS[@]}" -o "$W/sim" 2>"$W/neuroc.err" || { cat "$W/neuroc.err"; exit 1; }
if [ "$B" != c ] && { ! "$W/sim" --list-devices >"$W/devices.txt" 2>&1 || [ ! -s "$W/devices.txt" ]; }; then
    echo "views_$B: skipped: no $B device"; exit 77
fi
case "$MODE" in
run)
    "$W/sim" --out "$W/run" --save-connectivity --plot 2>"$W/run.err" || { cat "$W/run.err"; exit 1; }
    "$PY" "$HERE/check_views.py" "$W/run" "$W/run.err" "$MODEL" || exit 1
    [ "$MODEL" != views ] && exit 0
    exec "$PY" "$HERE/../plots/check_plots.py" "$W/run"
    ;;
ckpt)
    "$W/sim" --out "$W/full" --quiet || exit 1
    "$W/sim" --out "$W/first" --checkpoint "$W/ck" --checkpoint-at 150ms --stop-after-checkpoint --quiet || exit 1
    grep -q '^view_spikes exc ' "$W/ck/checkpoint.txt" || { echo "FAIL: the checkpoint holds no view counts"; exit 1; }
    "$W/sim" --resume "$W/ck" --out "$W/rest" --quiet || exit 1
    exec "$PY" - "$W/full/manifest.json" "$W/rest/manifest.json" <<'PYEOF'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
ok = a["views"] == b["views"] and a["populations"] == b["populations"]
print(("ok    " if ok else "FAIL  ") + "resumed run: the views' counts of the whole run %s" % [v["spikes"] for v in b["views"]])
sys.exit(0 if ok else 1)
PYEOF
    ;;
sweep)
    "$W/sim" --out "$W/sw" --sweep src.rate=10Hz,30Hz,60Hz --sweep 'P.V_th=-55mV,-50mV' --seeds 2 \
        --jobs 2 --plot 2>"$W/sw.err" || { cat "$W/sw.err"; exit 1; }
    "$PY" "$HERE/check_sweep.py" "$W/sw" "$W/sw.err" || exit 1
    rm -f "$W"/sw/sweep_*.svg "$W/sw/index.html"
    "$NEUROC" plot "$W/sw" || { echo "FAIL: neuroc plot of the sweep folder"; exit 1; }
    exec "$PY" "$HERE/check_sweep.py" "$W/sw" "$W/sw.err"
    ;;
esac
echo "unknown mode $MODE"; exit 2
