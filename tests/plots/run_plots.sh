#!/usr/bin/env bash
# tests/plots: figures of a real run.
# usage: run_plots.sh NEUROC WORKDIR [screenshot | progress | hdf5 with|without | backend B]
#   1. plots.neuro compiled and run with --plot; check_plots.py holds every SVG and
#      index.html to the recordings (marks = spikes, rate staircases = binned counts, traces
#      = samples, axes recovered from the ticks);
#   2. `neuroc plot DIR` with NEUROC_PLOT_MAX_MARKS=1000 redraws the large rasters as
#      densities, checked bin by bin;
#   3. an interrupted run (SIGINT) is plotted too; `neuroc plot` refuses a folder without a
#      manifest (exit 1) and a bad command line (exit 2);
#   with `hdf5 with` instead: h5.neuro's SONATA files against its .npy files (check_h5.py),
#   and their figures drawn by ./sim --plot; neuroc plot draws the others and says so; `hdf5 without`: neuroc
#   refuses .h5 recordings;
#   with `backend B` instead: the same figures from a CUDA or OpenCL simulator (skipped, 77,
#   without its device);
#   with `progress` instead: the progress display on a pseudo-terminal (a bar), on a pipe
#   (plain lines) and with --quiet (check_progress.py);
#   with `screenshot` instead: Chromium (Debian's chromium), when installed, takes a headless
#   screenshot of index.html, which must show the figures (check_png.py); skipped with a
#   message where chromium is absent.
set -u
NEUROC=$1
W=$2
HERE=$(cd "$(dirname "$0")" && pwd)
PY=${PYTHON:-python3}
fail=0
rm -rf "$W" && mkdir -p "$W"

if [ "${3:-}" = hdf5 ]; then
    # built without HDF5 ($4 = without): neuroc refuses .h5 recordings, saying why
    if [ "${4:-}" = without ]; then
        "$NEUROC" "$HERE/h5.neuro" -o "$W/h5" 2>"$W/h5.err"; rc=$?
        if [ $rc = 1 ] && grep -q "error: recording file 'p.h5': this neuroc was built without HDF5" "$W/h5.err"; then
            echo "plots_hdf5: neuroc without HDF5 refuses .h5 recordings (HDF5 files themselves not checked)"
            exit 0
        fi
        echo "FAIL: neuroc without HDF5 exited with $rc:"; cat "$W/h5.err"; exit 1
    fi
    "$NEUROC" "$HERE/h5.neuro" -o "$W/h5" 2>"$W/h5.err" || { cat "$W/h5.err"; exit 1; }
    "$W/h5" --out "$W/h5run" --quiet --plot || { echo "FAIL: the .h5 run"; exit 1; }
    "$PY" "$HERE/check_h5.py" "$W/h5run"; rc=$?
    [ $rc = 77 ] && exit 77
    [ $rc = 0 ] || fail=1
    if "$PY" -c "import h5py" 2>/dev/null; then
        "$PY" "$HERE/check_plots.py" "$W/h5run" >"$W/h5plots.log" || { cat "$W/h5plots.log"; fail=1; }
    else
        echo "note: no h5py: the figures of the .h5 recordings are not checked"
    fi
    # neuroc has no HDF5 reader (it must run where libhdf5 is absent): it draws the rest
    rm -f "$W"/h5run/*.svg && "$NEUROC" plot "$W/h5run" 2>/dev/null &&
        "$PY" "$HERE/check_plots.py" "$W/h5run" --no-h5 >"$W/h5plots2.log" || { echo "FAIL: neuroc plot of a run with .h5"; cat "$W/h5plots2.log"; fail=1; }
    exit $fail
fi
if [ "${3:-}" = backend ]; then
    # the figures of a GPU simulator's run (--plot in its nrt_finish), on backend $4
    B=${4:-opencl}
    if [ "$B" = cuda ] && [ ! -e /dev/nvidiactl ] && ! nvidia-smi -L >/dev/null 2>&1; then
        echo "plots_$B: skipped: no CUDA device"; exit 77
    fi
    "$NEUROC" "$HERE/plots.neuro" --backend "$B" -o "$W/sim" 2>"$W/neuroc.err" || { cat "$W/neuroc.err"; exit 1; }
    if ! "$W/sim" --list-devices >"$W/devices.txt" 2>&1 || [ ! -s "$W/devices.txt" ]; then
        echo "plots_$B: skipped: no $B device"; exit 77
    fi
    "$W/sim" --out "$W/run" --plot --quiet || { echo "FAIL: the $B simulator with --plot"; exit 1; }
    exec "$PY" "$HERE/check_plots.py" "$W/run"
fi
if [ "${3:-}" = progress ]; then
    sed 's/^run 300 ms/run 1000 s/' "$HERE/plots.neuro" > "$W/long.neuro"
    "$NEUROC" "$W/long.neuro" -o "$W/long" 2>/dev/null || { echo "FAIL: compiling long.neuro"; exit 1; }
    exec "$PY" "$HERE/check_progress.py" "$W/long" "$W"
fi
"$NEUROC" "$HERE/plots.neuro" -o "$W/sim" 2>"$W/neuroc.err" || { cat "$W/neuroc.err"; exit 1; }
"$W/sim" --out "$W/run" --plot 2>"$W/run.err"
rc=$?
if [ "${3:-}" = screenshot ]; then
    CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
    if [ -n "$CHROMIUM" ]; then
        timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars \
            --window-size=1000,1300 --screenshot="$W/shot.png" "file://$W/run/index.html" \
            >"$W/chromium.log" 2>&1
        if [ -s "$W/shot.png" ]; then
            "$PY" "$HERE/check_png.py" "$W/shot.png" || fail=1
        else
            echo "FAIL: chromium wrote no screenshot"; tail -5 "$W/chromium.log"; fail=1
        fi
    else
        echo "skipped: no chromium: the headless screenshot of index.html is not checked (apt-get install chromium)"
    fi
    exit $fail
fi
grep -q "plots: $W/run/index.html" "$W/run.err" || { echo "FAIL: the summary does not name index.html"; cat "$W/run.err"; fail=1; }
[ $rc = 0 ] || { echo "FAIL: ./sim --plot exited with $rc"; cat "$W/run.err"; exit 1; }
"$PY" "$HERE/check_plots.py" "$W/run" || fail=1

cp -r "$W/run" "$W/dens"
rm -f "$W"/dens/*.svg "$W/dens/index.html"
NEUROC_PLOT_MAX_MARKS=1000 "$NEUROC" plot "$W/dens" || { echo "FAIL: neuroc plot"; fail=1; }
"$PY" "$HERE/check_plots.py" "$W/dens" --density 1000 || fail=1

# an interrupted run: SIGINT after a while; its folder is plotted all the same
sed 's/^run 300 ms/run 1000 s/' "$HERE/plots.neuro" > "$W/long.neuro"
"$NEUROC" "$W/long.neuro" -o "$W/long" 2>/dev/null || { echo "FAIL: compiling long.neuro"; exit 1; }
"$W/long" --out "$W/int" --plot -q &
pid=$!
sleep 1
kill -INT $pid
wait $pid
rc=$?
if [ $rc != 130 ]; then echo "FAIL: the interrupted run exited with $rc, not 130"; fail=1; fi
grep -q '"interrupted": true' "$W/int/manifest.json" || { echo "FAIL: manifest not interrupted"; fail=1; }
"$PY" "$HERE/check_plots.py" "$W/int" >"$W/int.log" || { cat "$W/int.log"; fail=1; }
grep -q "stopped early" "$W/int/index.html" || { echo "FAIL: index.html does not say the run stopped early"; fail=1; }

"$NEUROC" plot "$W/nothing" 2>"$W/err1"; rc=$?
[ $rc = 1 ] && grep -q "no readable manifest.json" "$W/err1" || { echo "FAIL: neuroc plot of no run: $rc"; cat "$W/err1"; fail=1; }
"$NEUROC" plot 2>/dev/null; rc=$?
[ $rc = 2 ] || { echo "FAIL: neuroc plot without a folder exited with $rc, not 2"; fail=1; }

[ $fail = 0 ] && echo "plots: all checks passed"
exit $fail
