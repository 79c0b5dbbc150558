#!/bin/sh
# stall.sh NEUROC MODEL WORKDIR STEP EXPECT: the cluster schedule when a step's spike words
# do not come. $NEUROC_FAULT_CLUSTER_STALL=STEP makes group 0 stop at STEP as if they had not;
# the other groups then wait 2 s for its next words (nc_mbar_wait) and stop too.
# EXPECT "block": every buffer the step writes is in shared memory, so the run must say so
# and go on in the block schedule, with the C back end's spikes and states bit for bit.
# EXPECT "stop": a buffer in global memory already holds later steps (a ring whose length is
# known at run time), so the run must stop with a clear error and a non-zero exit.
# Exit: 0 as expected; 77 skipped (no CUDA device); otherwise diff.sh's status, or 1.
set -u
if [ $# -ne 5 ]; then
    echo "usage: $0 NEUROC MODEL WORKDIR STEP block|stop" >&2
    exit 2
fi
NEUROC=$1; MODEL=$2; WORK=$3; AT=$4; EXPECT=$5
HERE=$(cd "$(dirname "$0")" && pwd)
tag="stall[$(basename "$MODEL" .neuro)/$AT]"
mkdir -p "$(dirname "$WORK")" || exit 2
if [ "$EXPECT" = block ]; then
    NEUROC_FAULT_CLUSTER_STALL=$AT sh "$HERE/diff.sh" "$NEUROC" "$MODEL" "$WORK" cuda cluster --exact 2>"$WORK.err"
    rc=$?
    cat "$WORK.err" >&2
    [ $rc = 0 ] || exit $rc
    grep -q "warning: the cluster schedule stalled at step $AT: .* the run goes on in the block schedule" "$WORK.err" || {
        echo "$tag: FAILED: the simulator did not say that its cluster stalled" >&2
        exit 1
    }
    echo "$tag: went on in the block schedule, with the C back end's spikes and states"
    exit 0
fi
if [ ! -e /dev/nvidiactl ] && ! nvidia-smi -L >/dev/null 2>&1; then
    echo "$tag: skipped: no CUDA device"
    exit 77
fi
rm -rf "$WORK" && mkdir -p "$WORK" || exit 2
"$NEUROC" "$MODEL" --backend cuda --gpu-mode cluster -o "$WORK/sim" || exit 3
NEUROC_FAULT_CLUSTER_STALL=$AT "$WORK/sim" --out "$WORK/out" --quiet 2>"$WORK.err"
rc=$?
cat "$WORK.err" >&2
[ $rc != 0 ] && grep -q "error: the cluster schedule stalled at step $AT: .*--gpu-mode block" "$WORK.err" || {
    echo "$tag: FAILED: want a clear error and a non-zero exit, got status $rc" >&2
    exit 1
}
echo "$tag: stopped with a clear error"
