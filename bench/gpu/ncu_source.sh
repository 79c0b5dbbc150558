#!/usr/bin/env bash
# bench/gpu/ncu_source.sh NEUROC MODEL.neuro SCHEDULE KERNEL-REGEX -- where a kernel's time
# goes, by source line: builds MODEL for CUDA with SCHEDULE and line information (neuroc's
# --nvcc pointed at a wrapper that adds -lineinfo and keeps the .cu under $OUT/src), runs ncu
# --set full on one launch of the kernel, and writes under $OUT (default .):
#   <model>_<schedule>_details.txt   the report's sections (instructions, IPC, stalls)
#   <model>_<schedule>_source.csv.gz per CUDA line and its SASS: warp-stall samples and
#                                    instructions executed
# $SKIP launches of the kernel are skipped first (default 0: the first launch is profiled).
# Run on the machine with the GPU (ncu from the CUDA toolkit). docs/performance-history.md
# ("The block schedule on one SM") and docs/performance.md read its output.
set -uo pipefail
if [ $# -ne 4 ]; then
    echo "usage: $0 NEUROC MODEL.neuro SCHEDULE KERNEL-REGEX" >&2
    exit 2
fi
NEUROC=$1; MODEL=$2; MODE=$3; KERNEL=$4
OUT=${OUT:-.}
export PATH=/usr/local/cuda/bin:$PATH
name=$(basename "$MODEL" .neuro)_$MODE
W=$(mktemp -d)
mkdir -p "$OUT/src"
cat >"$W/nvcc" <<EOW
#!/bin/sh
for a in "\$@"; do case "\$a" in *.cu) cp "\$a" "$OUT/src/";; esac; done
exec nvcc -lineinfo "\$@"
EOW
chmod +x "$W/nvcc"
"$NEUROC" "$MODEL" --backend cuda --gpu-mode "$MODE" --nvcc "$W/nvcc" --no-cache -o "$W/sim" || exit 1
(cd "$W" && ncu --set full --import-source yes --source-folders "$OUT/src" -k "regex:$KERNEL" -s "${SKIP:-0}" -c 1 \
     -o "$W/report" ./sim --quiet >"$W/ncu.log" 2>&1) || { cat "$W/ncu.log"; exit 1; }
ncu --import "$W/report.ncu-rep" --page details >"$OUT/${name}_details.txt" 2>&1
ncu --import "$W/report.ncu-rep" --page source --csv --print-source cuda,sass 2>&1 | gzip >"$OUT/${name}_source.csv.gz"
grep -E "Duration|Executed Instructions  |Issued Ipc Active|Warp Cycles Per Issued" "$OUT/${name}_details.txt"
rm -rf "$W"
