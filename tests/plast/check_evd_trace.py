#!/usr/bin/env python3
"""Checker for models/evd_trace.neuro: event-driven per-synapse dynamics.

Projection `evd` (Elig: e' = -e/tau_e, `on pre { e += 1 }`, `on post { w += a e }`) is
integrated event-driven, `clk` (the same model, `dynamics using clock`) clock-driven.
Replayed in steps (docs/language.md §9, the default order pre_first): a presynaptic spike of
step p reaches the synapse in step a = p + d (d: the delay in steps) and bumps e at the end
of step a - 1, after the dynamics of that step; a postsynaptic spike of step q reads e at
the end of step q, after the dynamics of step q and after the bumps of the arrivals of step
q + 1; per-synapse dynamics of step k decay e by exp(-dt/tau(k)), tau = 15 ms before step
1500 (150 ms, then `set tau_e = 30 ms`), 30 ms after. So a post spike at t_post = (q + 1) dt
sees exp(-(t_post - t_a)/tau) of an arrival at t_a = a dt. A record at t reads the state
after step t/dt - 1.
Checks: evd against the closed form within 1e-12 relative (double); clk against evd within
1e-12 relative (clock-driven rounds once per step: at most 3000 steps x ~2^-53).
"""

import math

import numpy as np

import plastcheck as pc

DT = 0.1
N = 20
T_SET = 1500                      # first step with tau_e = 30 ms
TAU1, TAU2 = 15.0, 30.0
A = 0.05
TOL = 1e-12


def steps(out, name):
    return {k: [int(round(t / DT)) - 1 for t in v] for k, v in pc.spikes(out, name).items()}


def decay(a, b):
    """Factor of steps a .. b - 1 of the trace's dynamics."""
    n1 = max(0, min(b, T_SET) - a)
    n2 = max(0, b - max(a, T_SET))
    return math.exp(-(n1 * DT / TAU1 + n2 * DT / TAU2))


def replay(pre, post, d, ends):
    """(w, e) of one synapse after steps ends[r] - 1, for each r."""
    arr = sorted(p + d for p in pre)
    res = []
    for end in ends:
        w = 0.5
        for q in post:
            if q < end:
                w += A * sum(decay(a, q + 1) for a in arr if a <= q + 1)
        e = sum(decay(a, end) for a in arr if a <= end)
        res.append((w, e))
    return res


def rel(x, y):
    return abs(x - y) / max(abs(y), 1e-300) if y else abs(x)


def main():
    out = pc.outdir()
    chk = pc.Checker("evd_trace")
    pre, post = steps(out, "A.csv"), steps(out, "B.csv")
    ev = np.load(out + "/evd.npy")
    ck = np.load(out + "/clk.npy")
    chk.check(ev["t"][0] == 0 and ck["t"][0] == 0 and np.all(ev["e"][0] == 0) and np.array_equal(ev["w"][0], ck["w"][0]),
              "the rows at t = 0: the initial states (t = 0, e = 0, w as initialised)", "t = %g" % ev["t"][0])
    ev, ck = ev[1:], ck[1:]                     # the samples at the ends of steps
    ends = [int(round(t / DT)) for t in ev["t"]]
    chk.check(len(ends) == 12 and ev["w"].shape[1] == N * N, "12 samples of %d synapses" % (N * N),
              "got %s" % (ev["w"].shape,))
    chk.check(sum(len(v) for v in post.values()) > 40 and sum(len(v) for v in pre.values()) > 40,
              "pre and post neurons spiked")
    worst_w = worst_e = worst_ck = 0.0
    for i in range(N):
        for j in range(N):
            s = i * N + j
            ref = replay(pre.get(i, []), post.get(j, []), 1 + i % 4, ends)
            for r, (w, e) in enumerate(ref):
                worst_w = max(worst_w, rel(float(ev["w"][r][s]), w))
                worst_e = max(worst_e, rel(float(ev["e"][r][s]), e))
                for v in ("w", "e"):
                    worst_ck = max(worst_ck, rel(float(ck[v][r][s]), float(ev[v][r][s])))
    chk.check(worst_w <= TOL, "event-driven w against the closed form within %g relative" % TOL, "worst %.3g" % worst_w)
    chk.check(worst_e <= TOL, "event-driven e against the closed form within %g relative" % TOL, "worst %.3g" % worst_e)
    chk.check(worst_ck <= TOL, "clock-driven (using clock) against event-driven within %g relative" % TOL,
              "worst %.3g" % worst_ck)
    return chk.status()


if __name__ == "__main__":
    raise SystemExit(main())
