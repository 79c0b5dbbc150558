#!/bin/sh
# ring_plan.sh NEUROC WORKDIR -- the memory plan counts every delay ring: a projection with a
# 100 s delay (a ring of 1,000,001 slots of 1,000 neurons, 4 GB in float) shows it under
# --dry-run (C), and the GPU's check against 90 % of the device (OpenCL, a device of 1 GB
# by $NEUROC_FAULT_DEVICE_MEM) refuses the model before anything is built.
# Exit: 0 pass; 1 a check failed; 77 the OpenCL part skipped (no device); 3 compile failed.
set -u
NEUROC=$1; WORK=$2
rm -rf "$WORK" && mkdir -p "$WORK" || exit 2
cat >"$WORK/ring.neuro" <<'MODEL'
import "stdlib/neurons.neuro"
import "stdlib/receptors.neuro"
population A = LIF[10]
population B = LIF[1000]
projection slow = A -> B { receptor = Exp -> I_syn; connect = fixed_total(10); w = 1 pA; delay = 100 s }
projection slower = A -> B { receptor = Delta -> I_syn; connect = fixed_total(10); w = 1 pA; delay = min(50 s + 1 s * uniform(), 200 s) }
run 1 ms
MODEL
"$NEUROC" "$WORK/ring.neuro" --backend c -o "$WORK/sim_c" || exit 3
"$WORK/sim_c" --dry-run >"$WORK/plan.txt" 2>&1 || { echo "FAIL: --dry-run: $(cat "$WORK/plan.txt")"; exit 1; }
# ring bytes: slots * 1000 neurons * 4 bytes (float), over 2 row pointers + 10 synapses
slow=$(sed -n 's/^  projection slow  *[0-9]* synapses  *\([0-9]*\) bytes.*/\1/p' "$WORK/plan.txt")
slower=$(sed -n 's/^  projection slower  *[0-9]* synapses  *\([0-9]*\) bytes.*/\1/p' "$WORK/plan.txt")
if [ -z "$slow" ] || [ "$slow" -lt 4000004000 ] || [ -z "$slower" ] || [ "$slower" -lt 2040004000 ]; then
    echo "FAIL: the plan leaves out the delay rings:"; cat "$WORK/plan.txt"; exit 1
fi
echo "ok   --dry-run: projection slow $slow bytes, slower $slower bytes"
"$NEUROC" "$WORK/ring.neuro" --backend opencl -o "$WORK/sim_cl" || exit 3
if ! "$WORK/sim_cl" --list-devices >"$WORK/devices.txt" 2>&1 || [ ! -s "$WORK/devices.txt" ]; then
    echo "skipped: no OpenCL device ($(head -n 1 "$WORK/devices.txt"))"
    exit 77
fi
NEUROC_FAULT_DEVICE_MEM=1000000000 "$WORK/sim_cl" --quiet --out "$WORK/out" 2>"$WORK/err.txt"
rc=$?
if [ $rc -ne 1 ] || ! grep -q "error: the model needs about .* of device memory, more than 90% of the device's .* (largest: projection slow; see --dry-run)" "$WORK/err.txt"; then
    echo "FAIL: status $rc, expected 1 and the device memory check: $(cat "$WORK/err.txt")"; exit 1
fi
echo "ok   OpenCL: $(cat "$WORK/err.txt")"
