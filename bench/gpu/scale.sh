#!/usr/bin/env bash
# scale.sh NEUROC OUTDIR -- the large models on the machine with the GPU (CUDA): the
# assembly-calculus projection at n = 1e5 (examples/assembly/projection.neuro, 1,000 rounds)
# and n = 1e6 (tests/assembly/models/topk_1e6.neuro, 200 rounds), and procedural
# connectivity at 1/10 and full scale of bench/conn/proc_big.neuro (4.1 M neurons, 2.4e10
# synapses), and the Potjans-Diesmann microcircuit at full scale (examples/microcircuit.neuro:
# construction time and memory). Prints construct and simulate times from each run's manifest; OUTDIR/scale.txt.
set -uo pipefail
NEUROC=$1; OUTDIR=$2
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
W=$(mktemp -d)
: >"$OUTDIR/scale.txt"
one() {   # name model schedule
    local name=$1 model=$2 mode=$3
    if ! "$NEUROC" "$model" --backend cuda --gpu-mode "$mode" -o "$W/$name" >"$W/$name.log" 2>&1; then
        echo "$name: compile failed: $(tail -n 2 "$W/$name.log")" | tee -a "$OUTDIR/scale.txt"; return
    fi
    "$W/$name" --dry-run >"$W/$name.plan" 2>&1
    local t0=$(date +%s.%N)
    if ! timeout 300 "$W/$name" --quiet --out "$W/$name.out" >>"$W/$name.log" 2>&1; then
        echo "$name: run failed: $(tail -n 2 "$W/$name.log")" | tee -a "$OUTDIR/scale.txt"; return
    fi
    local t1=$(date +%s.%N)
    python3 - "$name" "$mode" "$W/$name.out/manifest.json" "$W/$name.plan" "$t0" "$t1" <<'PY' | tee -a "$OUTDIR/scale.txt"
import json, sys
name, mode, man, plan, t0, t1 = sys.argv[1:]
m = json.load(open(man))
t = m['timing_s']; steps = m['completed_steps']
mem = [l.strip() for l in open(plan) if 'total' in l.lower()]
spk = {p['name']: p.get('spikes') for p in m['populations']}
print('%-18s %-6s steps %6d  construct %8.3f s  simulate %8.4f s  per step %9.1f us  wall %6.1f s  %s  spikes %s'
      % (name, mode, steps, t.get('construct', float('nan')), t.get('simulate', float('nan')),
         1e6 * t.get('simulate', float('nan')) / max(steps, 1), float(t1) - float(t0), mem[-1] if mem else '', spk))
PY
}
sed 's/^run 30 steps/run 1000 steps/' "$ROOT/examples/assembly/projection.neuro" >"$W/asm1e5.neuro"
sed 's/^run 20 steps/run 200 steps/' "$ROOT/tests/assembly/models/topk_1e6.neuro" >"$W/asm1e6.neuro"
sed -e 's/^const N_E = 3280000/const N_E = 328000/' -e 's/^const N_I = 820000/const N_I = 82000/' \
    "$ROOT/bench/conn/proc_big.neuro" >"$W/proc_tenth.neuro"
cp "$ROOT/bench/conn/proc_big.neuro" "$W/proc_full.neuro"
for f in asm1e5 asm1e6 proc_tenth proc_full; do
    sed -i "s|^import \"stdlib/|import \"$ROOT/stdlib/|" "$W/$f.neuro"
done
one asm1e5 "$W/asm1e5.neuro" graph
one asm1e5 "$W/asm1e5.neuro" launch
one asm1e6 "$W/asm1e6.neuro" graph
one proc_tenth "$W/proc_tenth.neuro" graph
one proc_full "$W/proc_full.neuro" graph
one microcircuit "$ROOT/examples/microcircuit.neuro" graph
