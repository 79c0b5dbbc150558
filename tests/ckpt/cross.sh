#!/bin/sh
# cross.sh NEUROC MODELS_DIR WORKDIR BACKEND -- a checkpoint of the C back end resumed by a
# BACKEND (opencl, cuda; block schedule) simulator: lif_delays continues bit for bit (the
# stopped C run's recordings followed by the GPU run's equal the uninterrupted C run's, and
# the final states are identical), while the stdp model, whose spike histories the GPU
# holds in another layout, is refused with a message that names the back ends. Exit 77
# without a device.
set -u
NEUROC=$1; MODELS=$2; WORK=$3; B=$4
PYTHON=${PYTHON:-python3}
HERE=$(dirname "$0")
if [ "$B" = cuda ] && [ ! -e /dev/nvidiactl ] && ! nvidia-smi -L >/dev/null 2>&1; then
    echo "skipped: no CUDA device"; exit 77
fi
rm -rf "$WORK" && mkdir -p "$WORK" || exit 2
for m in lif_delays stdp; do
    "$NEUROC" "$MODELS/$m.neuro" --backend c -o "$WORK/c_$m" || exit 3
    "$NEUROC" "$MODELS/$m.neuro" --backend "$B" --gpu-mode block -o "$WORK/g_$m" || exit 3
done
if ! "$WORK/g_lif_delays" --list-devices >"$WORK/devices.txt" 2>&1 || [ ! -s "$WORK/devices.txt" ]; then
    echo "skipped: no $B device ($(head -n 1 "$WORK/devices.txt"))"; exit 77
fi
W=$WORK
"$W/c_lif_delays" -q --out "$W/full" --checkpoint "$W/ckF" --checkpoint-at 2000steps || exit 4
"$W/c_lif_delays" -q --out "$W/stop" --checkpoint "$W/ck" --checkpoint-at 87.3ms --stop-after-checkpoint || exit 4
"$W/g_lif_delays" -q --resume "$W/ck" --out "$W/res" --checkpoint "$W/ckE" --checkpoint-at 2000steps || exit 4
"$PYTHON" - "$W" <<'PY' || exit 1
import os, sys
sys.path.insert(0, os.environ.get("CKPT_DIR", "."))
from check_ckpt import concat_equal
w = sys.argv[1]
bad = concat_equal(os.path.join(w, "full"), os.path.join(w, "stop"), os.path.join(w, "res"))
if bad:
    sys.exit("FAIL: C checkpoint resumed on the GPU differs from the C run in %s" % bad)
for f in sorted(os.listdir(os.path.join(w, "ckF"))):
    a = open(os.path.join(w, "ckF", f), "rb").read()
    b = open(os.path.join(w, "ckE", f), "rb").read()
    if f == "checkpoint.txt":   # the same but for the back end's name (and so the checksum)
        a = b"\n".join(l for l in a.split(b"\n") if not l.startswith((b"backend", b"checksum")))
        b = b"\n".join(l for l in b.split(b"\n") if not l.startswith((b"backend", b"checksum")))
    if a != b:
        sys.exit("FAIL: final state %s differs between the C run and the C->GPU resumed run" % f)
print("ok: C checkpoint resumed on the GPU == the uninterrupted C run, final state identical")
PY
"$W/c_stdp" -q --out "$W/s" --checkpoint "$W/cks" --checkpoint-at 100ms --stop-after-checkpoint || exit 4
"$W/g_stdp" -q --resume "$W/cks" --out "$W/sr" 2>"$W/err.txt"
rc=$?
if [ $rc -ne 1 ] || ! grep -q "written by the c back end, which holds this model's state in another layout" "$W/err.txt"; then
    echo "FAIL: the GPU resumed a plastic C checkpoint (status $rc): $(cat "$W/err.txt")" >&2
    exit 1
fi
echo "ok: refused: $(cat "$W/err.txt")"
