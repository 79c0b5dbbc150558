#!/bin/sh
# run_ckpt.sh NEUROC MODEL WORKDIR T N PERTURB... -- [neuroc args...]
# Compile MODEL into WORKDIR/sim with the neuroc args, then run check_ckpt.py (checkpoint
# at T of N steps; PERTURB: arrays whose zeroing must change the result). Exit 77
# (skipped) for a GPU back end without a device.
set -u
NEUROC=$1; MODEL=$2; WORK=$3; T=$4; N=$5
shift 5
PERTURB=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do PERTURB="$PERTURB $1"; shift; done
[ $# -gt 0 ] && shift
PYTHON=${PYTHON:-python3}
HERE=$(dirname "$0")
case " $* " in
*" --backend cuda "*)
    if [ ! -e /dev/nvidiactl ] && ! nvidia-smi -L >/dev/null 2>&1; then
        echo "skipped: no CUDA device"; exit 77
    fi ;;
esac
rm -rf "$WORK" && mkdir -p "$WORK" || exit 2
"$NEUROC" "$MODEL" -o "$WORK/sim" "$@" || { echo "FAIL: neuroc $MODEL $*" >&2; exit 3; }
case " $* " in
*" --backend cuda "*|*" --backend opencl "*)
    if ! "$WORK/sim" --list-devices >"$WORK/devices.txt" 2>&1 || [ ! -s "$WORK/devices.txt" ]; then
        echo "skipped: no device for $* ($(head -n 1 "$WORK/devices.txt"))"; exit 77
    fi ;;
esac
# shellcheck disable=SC2086
exec "$PYTHON" "$HERE/check_ckpt.py" "$WORK/sim" "$WORK/run" "$T" "$N" $PERTURB
