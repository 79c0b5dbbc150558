#!/usr/bin/env python3
"""Checker for models/spike_file.neuro: spike sources read from a file (spike when from_file).

Contract (docs/language.md §5, "Spike sources from a file"): a spike time t (ms) of neuron i
fires i in step s = floor(t / dt), where t / dt within 1e-9 (relative) of an integer counts
as that integer (so t = 0.3 ms with dt = 0.1 ms is step 3, although 0.3 / 0.1 is
2.9999999999999996 in binary); repeats of (s, i) fire once; steps >= the run's 100 are
dropped. A spike in step s is recorded at t = (s + 1) dt. The .csv and the .npy source
(the same spikes) must give exactly these spikes. Each spike of `src` reaches the LIF `cell`
through all_to_all Delta synapses of 2500 pA, 1 ms (10 steps) later; V is replayed in double
with the exact LIF update and compared with the recorded (float) V.
"""

import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nrtio  # noqa: E402

DT = 0.1
STEPS = 100
HERE = os.path.dirname(os.path.abspath(__file__))


def step_of(t):
    x = t / DT
    r = round(x)
    return int(r) if abs(x - r) <= 1e-9 * max(1.0, abs(x)) else math.floor(x)


def expected_spikes():
    pairs = set()
    with open(os.path.join(HERE, "models", "spike_file.csv")) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#") or line.startswith("time"):
                continue
            t, i = line.split(",")
            s = step_of(float(t))
            if s < STEPS:
                pairs.add((s, int(i)))
    return sorted(pairs)


def main():
    run = nrtio.open_run("spike_file", manifest=False)
    if run is None:
        return 2
    out, chk, _ = run
    exp = expected_spikes()
    chk.check(exp[:3] == [(0, 1), (3, 0), (12, 2)], "the rounding rule of this checker", "(0,1) (3,0) (12,2) first",
              exp[:3])
    for name in ("src.csv", "src2.npy"):
        sp = nrtio.load_spikes(os.path.join(out, name))
        got = list(zip(sp.steps(DT), [int(i) for i in sp.i]))
        chk.check(got == exp, "%s: the file's spikes, one per (step, neuron), in step order" % name, exp, got)
    # the LIF replayed: V' = (g_L (E_L - V) + I) / C, exact update, I = 2500 pA per arrival
    C, g_L, E_L = 250.0, 16.6667, -70.0
    decay = math.exp(-DT * g_L / C)
    arrivals = [0] * STEPS
    for s, _ in exp:
        if s + 10 < STEPS:
            arrivals[s + 10] += 1
    V, ref = E_L, []
    for s in range(STEPS):
        v_inf = E_L + 2500.0 * arrivals[s] / g_L
        V = v_inf + (V - v_inf) * decay
        ref.append(V)
    st = nrtio.load_state(os.path.join(out, "v.csv"))
    v = st.trace("V", 0)
    err = max(abs(a - b) for a, b in zip(v, ref)) if len(v) == STEPS else float("inf")
    chk.check(err < 2e-3, "cell.V against the replay (%d arrivals, each ~1 mV)" % sum(arrivals),
              "max |error| < 2e-3 mV", "%g" % err)
    jumps = [s for s in range(1, STEPS) if v[s] - v[s - 1] > 0.5]
    chk.check(jumps == [s for s in range(STEPS) if arrivals[s]], "V jumps exactly in the arrival steps",
              [s for s in range(STEPS) if arrivals[s]], jumps)
    return chk.finish()


if __name__ == "__main__":
    sys.exit(main())
