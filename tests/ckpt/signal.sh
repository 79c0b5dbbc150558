#!/bin/sh
# signal.sh NEUROC MODEL WORKDIR LENGTH [neuroc args...] -- SIGTERM writes a checkpoint:
# MODEL with its `run` made LENGTH long (e.g. "60 s") runs with --checkpoint DIR and no
# --checkpoint-at; once its recording V.npy (a row per step) has flushed its first buffer
# (1 MiB: tens of thousands of steps, whatever the machine's speed) it gets SIGTERM, exits
# with 130 and leaves a checkpoint of the step it stopped at; resuming that checkpoint
# continues the recordings and ends in the uninterrupted run's final state (check_ckpt.py's
# comparisons). Exit 77 for a GPU back end without a device.
set -u
NEUROC=$1; MODEL=$2; WORK=$3; LEN=$4
shift 4
PYTHON=${PYTHON:-python3}
case " $* " in
*" --backend cuda "*)
    if [ ! -e /dev/nvidiactl ] && ! nvidia-smi -L >/dev/null 2>&1; then
        echo "skipped: no CUDA device"; exit 77
    fi ;;
esac
rm -rf "$WORK" && mkdir -p "$WORK" || exit 2
name=$(basename "$MODEL" .neuro)
sed "s/^run .*/run $LEN/" "$MODEL" > "$WORK/$name.neuro"
"$NEUROC" "$WORK/$name.neuro" -o "$WORK/sim" "$@" || exit 3
case " $* " in
*" --backend cuda "*|*" --backend opencl "*)
    if ! "$WORK/sim" --list-devices >"$WORK/devices.txt" 2>&1 || [ ! -s "$WORK/devices.txt" ]; then
        echo "skipped: no device ($(head -n 1 "$WORK/devices.txt"))"; exit 77
    fi ;;
esac
"$WORK/sim" -q --out "$WORK/stop" --checkpoint "$WORK/ck" 2>"$WORK/stop.err" &
pid=$!
while kill -0 $pid 2>/dev/null && [ "$(wc -c <"$WORK/stop/V.npy" 2>/dev/null || echo 0)" -lt 4096 ]; do
    sleep 0.05
done
kill -TERM $pid 2>/dev/null
wait $pid
rc=$?
if [ $rc -ne 130 ]; then
    echo "FAIL: the simulator exited with $rc, not 130 after SIGTERM (run too short? $LEN)" >&2
    cat "$WORK/stop.err" >&2
    exit 1
fi
"$PYTHON" - "$WORK" <<'PY' || exit 1
import os, subprocess, sys
sys.path.insert(0, os.environ["CKPT_DIR"])
from check_ckpt import concat_equal, manifest, same_dir
w = sys.argv[1]
m = manifest(os.path.join(w, "stop"))
hdr = dict(l.split(" ", 1) for l in open(os.path.join(w, "ck", "checkpoint.txt")).read().splitlines()[1:]
           if l.split(" ", 1)[0] in ("step", "total_steps"))
step, n = int(hdr["step"]), int(hdr["total_steps"])
if not (m["interrupted"] and m["completed_steps"] == step == m.get("checkpoint_step") and 0 < step < n):
    sys.exit("FAIL: stopped run: %s, checkpoint step %d of %d" % (m, step, n))
full = [os.path.join(w, "sim"), "-q", "--out", os.path.join(w, "full"), "--checkpoint",
        os.path.join(w, "ckF"), "--checkpoint-at", "%dsteps" % n]
subprocess.run(full, check=True)
subprocess.run([os.path.join(w, "sim"), "-q", "--resume", os.path.join(w, "ck"), "--out",
                os.path.join(w, "res"), "--checkpoint", os.path.join(w, "ckE"), "--checkpoint-at",
                "%dsteps" % n], check=True)
bad = concat_equal(os.path.join(w, "full"), os.path.join(w, "stop"), os.path.join(w, "res"))
if bad:
    sys.exit("FAIL: SIGTERM checkpoint + resume differs from the full run in %s" % bad)
same_dir(os.path.join(w, "ckF"), os.path.join(w, "ckE"), "final state")
print("ok: SIGTERM at step %d of %d wrote a checkpoint; resumed == uninterrupted" % (step, n))
PY
