#!/bin/sh
# run_rates.sh NEUROC WORKDIR [neuroc back-end args...]
# Population rates (`record rate of T bin B`) on one back end: models/tick.neuro's rates
# against the exact replay of its spikers (check_rates.py), their figures on C
# (check_rate_plot.py); on a GPU back end every rate file
# byte-identical to the C back end's (the counts are exact, the division is the runtime's).
# Exit: 0 pass, 1 a check failed, 77 skipped (a GPU back end without a device).
set -u
NEUROC=$1; WORK=$2; shift 2
HERE=$(cd "$(dirname "$0")" && pwd)
PYTHON=${PYTHON:-python3}
rm -rf "$WORK"; mkdir -p "$WORK"
case " $* " in
*" cuda "*)
    if ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ] && [ -z "${NVCC:-}" ]; then
        echo "skipped: no nvcc (CUDA toolkit not installed)"; exit 77
    fi ;;
esac
"$NEUROC" "$HERE/models/tick.neuro" -o "$WORK/sim" "$@" || { echo "FAIL neuroc $*"; exit 1; }
case " $* " in
*" cuda "*)
    if [ ! -e /dev/nvidiactl ] && ! nvidia-smi -L >/dev/null 2>&1; then
        echo "skipped: no CUDA device (the CUDA simulator compiled)"; exit 77
    fi ;;
esac
case " $* " in
*" cuda "*|*" opencl "*)
    if ! "$WORK/sim" --list-devices >"$WORK/devices.txt" 2>&1 || [ ! -s "$WORK/devices.txt" ]; then
        echo "skipped: no device for $* ($(head -n 1 "$WORK/devices.txt"))"; exit 77
    fi ;;
esac
"$WORK/sim" --quiet --out "$WORK/out" || { echo "FAIL the simulator $*"; exit 1; }
"$PYTHON" "$HERE/check_rates.py" "$WORK/out" || { echo "FAIL check_rates.py $*"; exit 1; }
case " $* " in
*" c "*)   # the figures (--plot): a rate_<rec>.svg per rate recording
    "$WORK/sim" --quiet --plot --out "$WORK/plot" || { echo "FAIL --plot"; exit 1; }
    "$PYTHON" "$HERE/check_rate_plot.py" "$WORK/plot" || { echo "FAIL check_rate_plot.py"; exit 1; } ;;
esac
case " $* " in
*" cuda "*|*" opencl "*)
    "$NEUROC" "$HERE/models/tick.neuro" -o "$WORK/sim_c" --backend c || { echo "FAIL neuroc c"; exit 1; }
    "$WORK/sim_c" --quiet --out "$WORK/out_c" || { echo "FAIL the C simulator"; exit 1; }
    for f in rate_all.npy rate_mid.csv rate_one.npy rate_last.csv rate_mid7.npy rate_none.npy spikes.npy c.npy c.csv; do
        cmp "$WORK/out_c/$f" "$WORK/out/$f" || { echo "FAIL $f differs from the C back end's ($*)"; exit 1; }
    done
    echo "ok   every recording byte-identical to the C back end's" ;;
esac
echo "ok   rates $*"
