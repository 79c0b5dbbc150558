#!/usr/bin/env python3
"""Checker for models/point_models.neuro: the stdlib LIF, LIFCond, RateUnit, Always, CapUnit and
Poisson at their documented defaults, dt 0.1 ms, 1 s. References written for this test from
the models' published definitions (docs/stdlib.md), sharing no code with neuroc.

 * LIF (C 250 pF, g_L 16.6667 nS, E_L -70, V_th -55, V_reset -60 mV, t_ref 2 ms), I_e 260,
   360, 460 pA; LIFCond (the same, E_ex 0, E_in -85 mV) under constant g_ex 4, 8, 12 nS and
   g_in 2 nS. Both are linear with constant coefficients under constant input, so the step
   map is exact: V <- V_inf + (V - V_inf) exp(-dt g_tot / C), V_inf = (g_L E_L + g_ex E_ex +
   g_in E_in + I_e) / g_tot; spike in the first step whose end value is >= V_th, then V_reset
   and round(t_ref/dt) = 20 frozen steps (docs/validation.md, the step contract). Spike steps
   identical; V at every step within 1e-9 relative (rounding over 10^4 steps is ~1e-13; the
   closest crossing is > 1e-6 mV from V_th, printed).
 * RateUnit (tau 10 ms) under I = 0.8 and -0.3: r(t) = max(I, 0) (1 - exp(-t/tau)), within
   1e-12 absolute (the exact propagator: rounding only).
 * Always: every neuron in every step (10^4 each).
 * CapUnit (k 100): inputs (i - 50)/300 (249 positive): the 100 largest, neurons 200..299, fire
   in every step, none other; inputs (i - 269)/300 (30 positive): exactly those 30.
 * Poisson (10 Hz), 2000 neurons: one Bernoulli draw per step, p = rate dt = 0.001. Total
   within 4 sigma of N T rate (binomial); pooled ISI CV within 0.03 of sqrt(1 - p) (geometric
   ISIs; standard error ~0.01); Fano factor of the per-neuron counts within 0.1 of 1 - p
   (standard error ~0.03).
"""
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "e2e"))
import nrtio  # noqa: E402

DT, STEPS = 0.1, 10000
C, G_L, E_L, V_TH, V_RESET, N_REF = 250.0, 16.6667, -70.0, -55.0, -60.0, 20


def lif_grid(g_ex, g_in, i_e, e_ex=0.0, e_in=-85.0):
    """-> (spike steps, V after every step, closest |V - V_th| at a step end)."""
    g = G_L + g_ex + g_in
    v_inf = (G_L * E_L + g_ex * e_ex + g_in * e_in + i_e) / g
    p = math.exp(-DT * g / C)
    v, ref, spikes, vs, margin = E_L, 0, [], [], float("inf")
    for s in range(STEPS):
        if ref > 0:
            ref -= 1
        else:
            v = v_inf + (v - v_inf) * p
            margin = min(margin, abs(v - V_TH))
            if v >= V_TH:
                spikes.append(s)
                v, ref = V_RESET, N_REF
        vs.append(v)
    return spikes, vs, margin


def check_lif(chk, out, man, name, cases):
    sp = nrtio.load_recording(out, name + "_spikes.csv", man).by_neuron(len(cases))
    st = nrtio.load_recording(out, name + "_V.npy", man)
    for k, (g_ex, g_in, i_e) in enumerate(cases):
        want, vs, margin = lif_grid(g_ex, g_in, i_e)
        got = [int(round(t / DT)) - 1 for t in sp[k]]
        chk.check(got == want, "%s[%d]: spike steps" % (name, k),
                  "%d spikes, first %s (closest crossing %.1e mV)" % (len(want), want[:3], margin),
                  "%d spikes, first %s" % (len(got), got[:3]))
        v = st.trace("V", k)
        err = max((abs(a - b) / max(abs(b), 1.0) for a, b in zip(v, vs)), default=float("inf"))
        chk.check(len(v) == STEPS and err <= 1e-9, "%s[%d]: V at every step" % (name, k),
                  "%d values within 1e-9 relative" % STEPS, "%d, largest %.1e" % (len(v), err))


def main():
    run = nrtio.open_run("point_models", STEPS, DT)
    if run is None:
        return 2
    out, chk, man = run
    pops = {p["name"]: p for p in man["populations"]}
    check_lif(chk, out, man, "lif", [(0.0, 0.0, 260.0 + 100.0 * k) for k in range(3)])
    check_lif(chk, out, man, "lifc", [(4.0 + 4.0 * k, 2.0, 0.0) for k in range(3)])

    st = nrtio.load_recording(out, "rate_r.npy", man)
    for k, i_in in enumerate((0.8, -0.3)):
        r = st.trace("r", k)
        err = max((abs(x - max(i_in, 0.0) * (1.0 - math.exp(-t / 10.0))) for t, x in zip(st.t, r)),
                  default=float("inf"))
        chk.check(len(r) == 1000 and err <= 1e-12, "rate[%d] (I = %g): r(t)" % (k, i_in),
                  "max(I, 0) (1 - exp(-t/10 ms)) within 1e-12", "%d rows, largest error %.1e" % (len(r), err))

    al = nrtio.load_recording(out, "always_spikes.npy", man)
    want = sorted((s, n) for s in range(STEPS) for n in range(3))
    got = sorted(zip(al.steps(DT), al.i))
    chk.check(got == want, "Always: every neuron in every step", len(want), len(got))

    for name, lo, total in (("cap", 200, 100), ("cap30", 270, 30)):
        sp = nrtio.load_recording(out, name + "_spikes.npy", man)
        base = 190 if name == "cap" else 260
        want = sorted((s, n - base) for s in range(STEPS) for n in range(lo, base + 20))
        got = sorted(zip(sp.steps(DT), sp.i))
        chk.check(got == want, "%s: neurons %d..%d of the recorded %d..%d fire in every step, the others never"
                  % (name, lo, base + 19, base, base + 19), len(want), len(got))
        chk.check(pops[name]["spikes"] == total * STEPS, "%s: spikes in all (k = 100, %d candidates)"
                  % (name, 249 if name == "cap" else 30), total * STEPS, pops[name]["spikes"])

    n, p = 2000, 10.0 * DT / 1000.0
    po = nrtio.load_recording(out, "poisson_spikes.npy", man)
    mean, sd = n * STEPS * p, math.sqrt(n * STEPS * p * (1 - p))
    chk.check(abs(len(po) - mean) <= 4 * sd, "Poisson: spikes in all", "%.0f +- %.0f" % (mean, 4 * sd), len(po))
    trains = po.by_neuron(n)
    isi = [b - a for tr in trains for a, b in zip(tr, tr[1:])]
    m = sum(isi) / len(isi)
    cv = math.sqrt(sum((x - m) ** 2 for x in isi) / len(isi)) / m
    chk.check(abs(cv - math.sqrt(1 - p)) <= 0.03, "Poisson: pooled ISI CV", "%.4f +- 0.03" % math.sqrt(1 - p),
              "%.4f over %d ISIs" % (cv, len(isi)))
    cnt = [len(tr) for tr in trains]
    mc = sum(cnt) / n
    fano = sum((c - mc) ** 2 for c in cnt) / (n - 1) / mc
    chk.check(abs(fano - (1 - p)) <= 0.1, "Poisson: Fano factor of the counts per neuron", "%.3f +- 0.1" % (1 - p),
              "%.3f" % fano)
    return chk.finish()


if __name__ == "__main__":
    sys.exit(main())
