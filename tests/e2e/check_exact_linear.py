#!/usr/bin/env python3
"""Checker for models/exact_linear.neuro: 'using exact' on two linear systems.

Reference: analytic solutions at the grid points t = (s+1)*dt (state recorded after the
integration of step s):
  damped rotation  x(t) = e^(-t/tau) (x0 cos wt + y0 sin wt)
                   y(t) = e^(-t/tau) (y0 cos wt - x0 sin wt)
  alpha pair       h(t) = h0 e^(-t/tau_a)
                   g(t) = (g0 + e h0 t/tau_a) e^(-t/tau_a)
Tolerance: 1e-9 relative. x and y pass through zero, so their error is taken relative to
the envelope sqrt(x0^2 + y0^2) e^(-t/tau) (the absolute floor); h and g are positive and
are compared relative to their own value (floor 1e-300). An exact propagator in double
accumulates ~1e-13 relative error over 1000 steps; any RK4 or Euler stand-in, or a
float32 build, misses 1e-9 by orders of magnitude.
"""

import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nrtio  # noqa: E402

DT = 0.1
STEPS = 1000
TAU, W, TAU_A = 25.0, 0.3, 4.0
NEURONS = [0, 1, 2]


def init(i):
    return dict(x=1.0 + 2.0 * i, y=-1.5 * i, h=1.0 + 0.5 * i, g=0.25 * i)


def analytic(i, t):
    p = init(i)
    d = math.exp(-t / TAU)
    c, s = math.cos(W * t), math.sin(W * t)
    x = d * (p["x"] * c + p["y"] * s)
    y = d * (p["y"] * c - p["x"] * s)
    env = math.hypot(p["x"], p["y"]) * d
    ea = math.exp(-t / TAU_A)
    h = p["h"] * ea
    g = (p["g"] + math.e * p["h"] * t / TAU_A) * ea
    return dict(x=x, y=y, h=h, g=g), env


def main():
    run = nrtio.open_run("exact_linear", STEPS, DT)
    if run is None:
        return 2
    out, chk, man = run
    st = nrtio.load_recording(out, "exact.npy", man)
    chk.check(len(st) == STEPS, "rows (every step)", STEPS, len(st))
    chk.check(sorted(st.variables) == ["g", "h", "x", "y"], "variables", "x, y, h, g", st.variables)
    chk.check(st.neurons == NEURONS, "neurons", NEURONS, st.neurons)
    tgrid_ok = all(abs(t - (k + 1) * DT) <= 1e-9 for k, t in enumerate(st.t))
    chk.check(tgrid_ok, "sample times", "(s+1)*dt", "first %s" % st.t[:3])
    for n in NEURONS:
        for var in ("x", "y", "h", "g"):
            if var not in st.data or n not in st.data[var]:
                chk.check(False, "%s of neuron %d present" % (var, n), "a column", "missing")
                continue
            vals = st.trace(var, n)
            worst, where = 0.0, None
            for k, (a, t) in enumerate(zip(vals, st.t)):
                ref, env = analytic(n, (k + 1) * DT)
                floor = env if var in ("x", "y") else 1e-300
                e = nrtio.rel_err(a, ref[var], floor)
                if e > worst:
                    worst, where = e, k
            detail = "%.3g" % worst
            if where is not None and worst > 1e-9:
                ref, _ = analytic(n, (where + 1) * DT)
                detail += " (step %d: got %.15g, expected %.15g)" % (where, vals[where], ref[var])
            chk.check(worst <= 1e-9, "neuron %d %s: max relative error" % (n, var), "<= 1e-9", detail)
    return chk.finish()


if __name__ == "__main__":
    sys.exit(main())
