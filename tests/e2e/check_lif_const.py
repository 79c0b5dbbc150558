#!/usr/bin/env python3
"""Checker for models/lif_const.neuro: uncoupled LIF neurons with constant currents.

Reference: closed form on the grid, computed independently of any integrator.
Between events V(t) = V_inf + (V0 - V_inf) exp(-t/tau), V_inf = E_L + I_e/g_L, tau = C/g_L.
Grid semantics (the neuroc step contract): step s goes from s*dt to (s+1)*dt; a spike is
detected in the first step whose end value reaches V_th, is recorded at t = (s+1)*dt, V is
reset to V_reset in that same step, and the next n_ref = round(t_ref/dt) steps are frozen
(V stays at V_reset, 'unless refractory'); integration restarts from V_reset in the step
after. State recording samples after phase 3, so the spike step shows V_reset.

Checks: (1) the analytic crossing of every inter-spike segment is not within 1e-6 of a
grid point (so "exact" spike steps are well defined); (2) identical spike steps for every
neuron; (3) recorded V of neurons 0 and 3 equal to the closed form at every grid point to
1e-9 relative.
"""

import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nrtio  # noqa: E402

DT = 0.1
STEPS = 5000
C, G_L, E_L, V_TH, V_RESET, T_REF = 200.0, 10.0, -70.0, -55.0, -65.0, 2.0
N = 5
I_E = [200.0 + 55.0 * i for i in range(N)]
V0 = E_L
TAU = C / G_L


def reference(i_e, n_ref):
    """-> (spike steps, V after phase 3 at every step, list of crossing fractions)."""
    v_inf = E_L + i_e / G_L
    spikes, trace, fracs = [], [], []
    s = 0
    seg_start, seg_v0 = 0, V0          # integration restarted at the start of step seg_start
    # analytic crossing time of this segment, in steps
    def crossing(v0):
        return TAU * math.log((v0 - v_inf) / (V_TH - v_inf)) / DT
    k_cross = crossing(seg_v0)
    fracs.append(k_cross - math.floor(k_cross))
    while s < STEPS:
        k = s + 1 - seg_start                          # steps integrated in this segment
        v = v_inf + (seg_v0 - v_inf) * math.exp(-k * DT / TAU)
        if v >= V_TH:
            spikes.append(s)
            trace.append(V_RESET)
            for _ in range(n_ref):
                s += 1
                if s >= STEPS:
                    break
                trace.append(V_RESET)
            s += 1
            seg_start, seg_v0 = s, V_RESET
            k_cross = crossing(seg_v0)
            fracs.append(k_cross - math.floor(k_cross))
            continue
        trace.append(v)
        s += 1
    return spikes, trace[:STEPS], fracs


def main():
    run = nrtio.open_run("lif_const", STEPS, DT)
    if run is None:
        return 2
    out, chk, man = run
    n_ref = int(round(T_REF / DT))
    sp = nrtio.load_recording(out, "lif_spikes.csv", man)
    got_steps = {}
    for t, i in zip(sp.t, sp.i):
        s = t / DT - 1.0
        if abs(s - round(s)) > 1e-6:
            chk.check(False, "spike time on the grid", "(s+1)*dt", "%r" % t)
        got_steps.setdefault(i, []).append(int(round(s)))
    chk.check(set(got_steps) <= set(range(N)), "spiking indices", "subset of 0..%d" % (N - 1),
              sorted(got_steps))
    refs = {}
    for i in range(N):
        ref_steps, trace, fracs = reference(I_E[i], n_ref)
        refs[i] = trace
        dist = min(min(f, 1.0 - f) for f in fracs)
        chk.check(dist > 1e-6, "neuron %d: analytic crossings away from grid points" % i,
                  "> 1e-6 step", "%.3g step" % dist)
        got = sorted(got_steps.get(i, []))
        ok = got == ref_steps
        chk.check(ok, "neuron %d (I_e = %g pA): spike steps" % (i, I_E[i]),
                  "%d spikes, first %s, last %s" % (len(ref_steps), ref_steps[:3], ref_steps[-1:]),
                  "%d spikes, first %s, last %s" % (len(got), got[:3], got[-1:]))
        if not ok:
            first_bad = next((k for k, (a, b) in enumerate(zip(got, ref_steps)) if a != b),
                             min(len(got), len(ref_steps)))
            chk.info("  first difference at spike #%d: expected step %s, got %s" % (
                first_bad, ref_steps[first_bad] if first_bad < len(ref_steps) else None,
                got[first_bad] if first_bad < len(got) else None))
            for alt in (n_ref - 1, n_ref + 1):
                if reference(I_E[i], alt)[0] == got:
                    chk.info("  hint: the spikes match a refractory period of %d frozen steps "
                             "(contract: round(t_ref/dt) = %d)" % (alt, n_ref))
    st = nrtio.load_recording(out, "lif_V.csv", man)
    chk.check(len(st) == STEPS, "V rows (every step)", STEPS, len(st))
    tgrid_ok = all(abs(t - (k + 1) * DT) <= 1e-9 for k, t in enumerate(st.t))
    chk.check(tgrid_ok, "V sample times", "(s+1)*dt", "first %s" % st.t[:3])
    for n in (0, 3):
        v = st.trace("V", n)
        ref = refs[n]
        worst, where = 0.0, None
        for k, (a, b) in enumerate(zip(v, ref)):
            e = nrtio.rel_err(a, b, 1e-3)
            if e > worst:
                worst, where = e, k
        detail = "%.3g" % worst
        if where is not None and worst > 1e-9:
            detail += " (step %d: got %.12g, expected %.12g)" % (where, v[where], ref[where])
        chk.check(worst <= 1e-9 and len(v) == len(ref), "neuron %d: V vs closed form, max rel error" % n,
                  "<= 1e-9", detail)
    return chk.finish()


if __name__ == "__main__":
    sys.exit(main())
