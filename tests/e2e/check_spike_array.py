#!/usr/bin/env python3
"""Checker for models/spike_array.neuro: the stdlib SpikeArray(file = "...") (a string
parameter naming the spike file where the population is made, docs/language.md §4, §5.2).

Each population replays exactly its own file: `a` models/spike_file.csv, `b`
models/spike_array_b.csv (columns in the order of each header). The files are read here with the rules of §5.2 (check_spike_file.step_of: t fires step floor(t / dt),
boundaries within 1e-9 count as the integer; repeats within a step fire once; steps >= 100
dropped), independently of the simulator. `a` (2500 pA, 1 ms) and `b` (-1250 pA, 0.5 ms)
reach the LIF `cell` through all_to_all Delta synapses; V is replayed in double with the
exact LIF update and compared with the recorded (float) V.
"""

import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nrtio  # noqa: E402
from check_spike_file import DT, STEPS, step_of  # noqa: E402

MODELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models")


def file_spikes(path):
    """The (step, index) pairs a spike file fires, in step then index order."""
    pairs, cols = set(), None
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            fields = [x.strip() for x in line.split(",")]
            if cols is None:
                cols = {name: n for n, name in enumerate(fields)}
                continue
            s = step_of(float(fields[cols["time"]]))
            if s < STEPS:
                pairs.add((s, int(fields[cols["index"]])))
    return sorted(pairs)


def expected():
    """Output file -> the (step, index) pairs its population must fire."""
    return {"a.csv": file_spikes(os.path.join(MODELS, "spike_file.csv")),
            "b.npy": file_spikes(os.path.join(MODELS, "spike_array_b.csv"))}


def replay(exp):
    """The Delta current into `cell` per step and its V in double: V' = (g_L (E_L - V) + I) / C,
    the exact update."""
    C, g_L, E_L = 250.0, 16.6667, -70.0
    decay = math.exp(-DT * g_L / C)
    current = [0.0] * STEPS
    for spikes, w, d in ((exp["a.csv"], 2500.0, 10), (exp["b.npy"], -1250.0, 5)):
        for s, _ in spikes:
            if s + d < STEPS:
                current[s + d] += w
    V, ref = E_L, []
    for s in range(STEPS):
        v_inf = E_L + current[s] / g_L
        V = v_inf + (V - v_inf) * decay
        ref.append(V)
    return current, ref


def main():
    run = nrtio.open_run("spike_array", manifest=False)
    if run is None:
        return 2
    out, chk, _ = run
    exp = expected()
    chk.check(exp["b.npy"] == [(0, 5), (5, 4), (10, 3), (33, 0), (44, 2), (70, 1), (99, 5)],
              "this checker's reading of spike_array_b.csv", "7 spikes, 4.4 and 4.45 ms once",
              exp["b.npy"])
    for name, want in sorted(exp.items()):
        sp = nrtio.load_spikes(os.path.join(out, name))
        got = list(zip(sp.steps(DT), [int(i) for i in sp.i]))
        chk.check(got == want, "%s: its own file's spikes, one per (step, neuron), in step order" % name,
                  want, got)
    current, ref = replay(exp)
    v = nrtio.load_state(os.path.join(out, "v.csv")).trace("V", 0)
    err = max(abs(x - y) for x, y in zip(v, ref)) if len(v) == STEPS else float("inf")
    chk.check(err < 2e-3, "cell.V against the replay of both files' arrivals", "max |error| < 2e-3 mV",
              "%g" % err)
    steps = sorted(s for s in range(1, STEPS) if current[s])
    moved = [s for s in range(1, STEPS) if abs(v[s] - v[s - 1]) > 0.3]
    chk.check(moved == steps, "V jumps exactly in the arrival steps (up for a, down for b)", steps, moved)
    return chk.finish()


if __name__ == "__main__":
    sys.exit(main())
