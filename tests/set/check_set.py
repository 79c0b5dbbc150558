#!/usr/bin/env python3
"""Checker for tests/set/lif_tau.neuro: the spike steps of a run against the closed form
for the membrane time constant the run used.

usage: check_set.py OUTDIR TAU_MS

Reference, independent of any integrator: after a spike (or at the start) V restarts from
E_L and follows V(t) = V_inf + (E_L - V_inf) exp(-t/tau), V_inf = E_L + R_I; it reaches
V_th after T = tau ln(R_I / (R_I - (V_th - E_L))). On the grid (docs/language.md: a spike
is detected in the first step whose end value reaches V_th and recorded at t = (s+1) dt),
the segment starting at step s0 spikes in step s0 + ceil(T/dt) - 1; the n_ref =
t_ref/dt steps after a spike are frozen and integration restarts in the step after them.
The crossing must not lie within 1e-6 of a grid point (so the expected step is well
defined); every spike step must match and the count must be the one that fits the run.
"""
import math
import sys

DT, STEPS = 0.1, 3000
E_L, V_TH, R_I, T_REF = -70.0, -55.0, 20.0, 2.0


def expected(tau):
    t_cross = tau * math.log(R_I / (R_I - (V_TH - E_L))) / DT      # in steps
    frac = t_cross - math.floor(t_cross)
    if min(frac, 1 - frac) < 1e-6:
        sys.exit("check_set: the crossing for tau = %g ms is on the grid; pick another" % tau)
    k = math.ceil(t_cross)            # steps integrated until V >= V_th
    n_ref = int(round(T_REF / DT))
    steps, s0 = [], 0
    while s0 + k - 1 < STEPS:
        s = s0 + k - 1
        steps.append(s)
        s0 = s + 1 + n_ref
    return steps


def main():
    out, tau = sys.argv[1], float(sys.argv[2])
    with open(out + "/spikes.csv") as f:
        rows = f.read().split("\n")[1:]
    got = [int(round(float(r.split(",")[0]) / DT)) - 1 for r in rows if r]
    want = expected(tau)
    if got != want:
        print("FAIL tau = %g ms: spike steps %s, closed form %s" % (tau, got[:8], want[:8]))
        return 1
    print("ok   tau = %g ms: %d spikes at the closed-form steps (first at %.1f ms)"
          % (tau, len(got), (want[0] + 1) * DT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
