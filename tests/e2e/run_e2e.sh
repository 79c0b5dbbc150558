#!/bin/sh
# run_e2e.sh NEUROC MODEL CHECKER WORKDIR [extra neuroc args...]
# Compile MODEL with NEUROC, run the simulator into WORKDIR/out, then check the output
# with `python3 CHECKER WORKDIR/out`. Exit status: 0 pass; 2 usage; 3 compile failed;
# 4 simulator failed; 5 output missing; 77 skipped (a GPU back end without a device);
# otherwise the checker's status.
set -u

if [ $# -lt 4 ]; then
    echo "usage: $0 NEUROC MODEL CHECKER WORKDIR [extra neuroc args]" >&2
    exit 2
fi
NEUROC=$1; MODEL=$2; CHECKER=$3; WORKDIR=$4
shift 4
PYTHON=${PYTHON:-python3}
name=$(basename "$MODEL" .neuro)

for f in "$NEUROC" "$MODEL" "$CHECKER"; do
    if [ ! -e "$f" ]; then
        echo "e2e[$name]: ERROR: '$f' does not exist" >&2
        exit 2
    fi
done

rm -rf "$WORKDIR" || { echo "e2e[$name]: ERROR: cannot remove $WORKDIR" >&2; exit 2; }
mkdir -p "$WORKDIR" || { echo "e2e[$name]: ERROR: cannot create $WORKDIR" >&2; exit 2; }

case " $* " in
*" --backend cuda "*|*" --backend=cuda "*)
    if [ ! -e /dev/nvidiactl ] && ! nvidia-smi -L >/dev/null 2>&1; then
        echo "e2e[$name]: skipped: no CUDA device"
        exit 77
    fi ;;
esac
echo "e2e[$name]: compiling: $NEUROC $MODEL -o $WORKDIR/sim $*"
"$NEUROC" "$MODEL" -o "$WORKDIR/sim" "$@"
rc=$?
if [ $rc -ne 0 ]; then
    echo "e2e[$name]: FAILED: neuroc exited with status $rc while compiling $MODEL" >&2
    exit 3
fi
if [ ! -x "$WORKDIR/sim" ]; then
    echo "e2e[$name]: FAILED: neuroc succeeded but produced no executable $WORKDIR/sim" >&2
    exit 3
fi

case " $* " in
*" --backend c "*|*" --backend=c "*) ;;
*" --backend "*|*" --backend="*)
    if ! "$WORKDIR/sim" --list-devices >"$WORKDIR/devices.txt" 2>&1 || [ ! -s "$WORKDIR/devices.txt" ]; then
        echo "e2e[$name]: skipped: no device for $* ($(head -n 1 "$WORKDIR/devices.txt"))"
        exit 77
    fi ;;
esac
echo "e2e[$name]: running: $WORKDIR/sim --out $WORKDIR/out --quiet"
start=$(date +%s)
"$WORKDIR/sim" --out "$WORKDIR/out" --quiet
rc=$?
end=$(date +%s)
if [ $rc -ne 0 ]; then
    echo "e2e[$name]: FAILED: simulator exited with status $rc" >&2
    exit 4
fi
echo "e2e[$name]: simulator finished in $((end - start)) s"
if [ ! -f "$WORKDIR/out/manifest.json" ]; then
    echo "e2e[$name]: FAILED: $WORKDIR/out/manifest.json was not written" >&2
    exit 5
fi

echo "e2e[$name]: checking: $PYTHON $CHECKER $WORKDIR/out"
"$PYTHON" "$CHECKER" "$WORKDIR/out"
rc=$?
if [ $rc -ne 0 ]; then
    echo "e2e[$name]: FAILED: checker $CHECKER reported a mismatch (status $rc)" >&2
    exit $rc
fi
echo "e2e[$name]: PASSED"
exit 0
