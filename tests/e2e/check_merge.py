#!/usr/bin/env python3
"""Checker for models/merge.neuro: merged receptors give what separate instances give.

Reference: the model stepped here with one receptor state per input, none merged, in the
order of a step (docs/language.md): arrivals and stimuli are added to the receptor states,
the port I is their sum, V advances exactly over the step with I held,
    V <- e^(-dt/tau_m) V + tau_m (1 - e^(-dt/tau_m)) I / C,
V is recorded, then each state decays by e^(-dt/tau). A spike of source i in step s reaches
target j in step s + d: a: d = 3 + i + j, w = 10 (1 + i) + 5 j pA; b: d = 1, w = -7 pA;
c: d = 10, w = 20 pA; slow (tau 5 ms): d = 5, w = 15 pA; the stimulus kick adds 30 (1 + j) pA
in step 200. Source i fires in the steps s with (s + 1) % (23 + 10 i) == 0.
Tolerance: 1e-9 of the largest |V| (merging changes only the rounding; a lost or doubled
input, a wrong delay or a state decaying with the wrong tau is off by far more).
"""

import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nrtio  # noqa: E402

DT = 0.1
STEPS = 500
NSRC, NDST = 3, 4
TAU_M, CAP, TAU_S, TAU_SLOW = 10.0, 250.0, 2.0, 5.0


def reference():
    fires = {s: [i for i in range(NSRC) if (s + 1) % (23 + 10 * i) == 0] for s in range(STEPS)}
    # arrivals[(input, j)][step]
    arr = {}

    def add(g, j, step, w):
        if step < STEPS:
            arr.setdefault((g, j), [0.0] * STEPS)[step] += w

    for s in range(STEPS):
        for i in fires[s]:
            for j in range(NDST):
                add("a", j, s + 3 + i + j, 10.0 * (1 + i) + 5.0 * j)
                add("b", j, s + 1, -7.0)
                add("c", j, s + 10, 20.0)
                add("slow", j, s + 5, 15.0)
    for j in range(NDST):
        add("kick", j, 200, 30.0 * (1 + j))
    taus = {"a": TAU_S, "b": TAU_S, "c": TAU_S, "kick": TAU_S, "slow": TAU_SLOW}
    phi = math.exp(-DT / TAU_M)
    psi = TAU_M * (1.0 - phi)
    v = [[0.0] * STEPS for _ in range(NDST)]
    for j in range(NDST):
        state = {g: 0.0 for g in taus}
        x = 0.0
        for k in range(STEPS):
            for g in taus:
                state[g] += arr.get((g, j), [0.0] * STEPS)[k]
            current = sum(state.values())
            x = phi * x + psi * current / CAP
            v[j][k] = x
            for g in taus:
                state[g] *= math.exp(-DT / taus[g])
    return fires, v


def main():
    run = nrtio.open_run("merge", STEPS, DT)
    if run is None:
        return 2
    out, chk, man = run
    fires, ref = reference()
    sp = nrtio.load_recording(out, "merge_src.csv", man)
    want = [(s, i) for s in range(STEPS) for i in fires[s]]
    got = list(zip(sp.steps(DT), sp.i))
    chk.check(got == want, "source spikes (step, index)", "%d spikes, first %s" % (len(want), want[:3]),
              "%d spikes, first %s" % (len(got), got[:3]))
    st = nrtio.load_recording(out, "merge_v.npy", man)
    for j in range(NDST):
        vals = st.trace("V", j)
        if len(vals) != STEPS:
            chk.check(False, "target %d: rows" % j, STEPS, len(vals))
            continue
        scale = max(abs(r) for r in ref[j])
        worst, where = 0.0, 0
        for k in range(STEPS):
            e = abs(vals[k] - ref[j][k]) / scale
            if e > worst:
                worst, where = e, k
        chk.check(scale > 1.0 and worst <= 1e-9, "target %d: V against separate receptor states" % j,
                  "max |error| <= 1e-9 of max |V| (> 1 mV)",
                  "%.3g (step %d: got %.15g, expected %.15g; max |V| %.3g mV)"
                  % (worst, where, vals[where], ref[j][where], scale))
    return chk.finish()


if __name__ == "__main__":
    sys.exit(main())
