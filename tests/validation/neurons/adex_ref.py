#!/usr/bin/env python3
"""Independent reference for the stdlib AdEx neuron (Brette & Gerstner 2005), written for the
validation suite from the published equations; it shares no code with neuroc.

  C dV/dt = -g_L (V - E_L) + g_L Delta_T exp((V - V_T)/Delta_T) - w + I
  tau_w dw/dt = a (V - E_L) - w;   V >= V_peak -> V = V_reset, w += b

Classical RK4 at 0.01 ms, and at 0.001 ms (ten substeps) in every 0.01 ms step that starts
with V above V_T, where the exponential takes over; the spike test follows each (sub)step.
As in NEST, V is bounded at V_peak inside the right-hand side (a stage of the step that
crosses V_peak sees V_peak): in continuous time this changes nothing, since V is reset on
reaching V_peak. Halving both steps moves none of the first four spikes of any pattern by
more than 0.013 ms, later ones by up to 0.024 ms in 500 ms (each reset comes at the end of its
0.001 ms substep), and changes no count but the chaotic irregular pattern's (28 -> 27).

`python3 adex_ref.py` prints every pattern's spikes.
"""
import math

# Naud, Marcille, Clopath & Gerstner (2008) Biol Cybern 99:335, Table 1: firing patterns of
# the AdEx model under a current step. C pF, g_L nS, E_L mV, V_T mV, Delta_T mV, a nS,
# tau_w ms, b pA, V_reset mV, I pA. V_peak is the stdlib default (0 mV), t_ref 0.
NAUD = [
    ("tonic",         200, 10, -70, -50, 2,   2,  30,   0, -58, 500),
    ("adapting",      200, 12, -70, -50, 2,   2, 300,  60, -58, 500),
    ("init_burst",    130, 18, -58, -50, 2,   4, 150, 120, -50, 400),
    ("bursting",      200, 10, -58, -50, 2,   2, 120, 100, -46, 210),
    ("delayed",       200, 12, -70, -50, 2, -10, 300,   0, -58, 300),
    ("delayed_burst", 100, 10, -65, -50, 2, -10,  90,  30, -47, 110),
    ("transient",     100, 10, -65, -50, 2,  10,  90, 100, -47, 180),
    ("irregular",     100, 12, -60, -50, 2, -11, 130,  30, -48, 160),
]
# the stdlib defaults (NEST aeif_cond_exp) under 1 nA, the case of issue 27
DEFAULT = ("default_1nA", 281, 30, -70.6, -50.4, 2, 4, 144, 80.5, -60, 1000)
V_PEAK = 0.0


def simulate(p, t_end, every=1.0, h=0.01, sub=10):
    """-> (spike times, [(t, V, w) every `every` ms]) for parameter row p."""
    _, C, gL, EL, VT, DT, a, tw, b, Vr, I = p

    def f(V, w):
        v = V if V < V_PEAK else V_PEAK
        return ((-gL * (v - EL) + gL * DT * math.exp((v - VT) / DT) - w + I) / C,
                (a * (v - EL) - w) / tw)

    def rk4(V, w, k):
        k1v, k1w = f(V, w)
        k2v, k2w = f(V + 0.5 * k * k1v, w + 0.5 * k * k1w)
        k3v, k3w = f(V + 0.5 * k * k2v, w + 0.5 * k * k2w)
        k4v, k4w = f(V + k * k3v, w + k * k3w)
        return (V + k / 6.0 * (k1v + 2 * k2v + 2 * k3v + k4v),
                w + k / 6.0 * (k1w + 2 * k2w + 2 * k3w + k4w))

    V, w = EL, 0.0
    spikes, trace = [], []
    n = int(round(t_end / h))
    rec = int(round(every / h))
    for s in range(n):
        if V <= VT:
            V, w = rk4(V, w, h)
            if V >= V_PEAK:
                spikes.append((s + 1) * h)
                V, w = Vr, w + b
        else:
            for j in range(sub):
                V, w = rk4(V, w, h / sub)
                if V >= V_PEAK:
                    spikes.append(s * h + (j + 1) * h / sub)
                    V, w = Vr, w + b
        if (s + 1) % rec == 0:
            trace.append(((s + 1) * h, V, w))
    return spikes, trace


if __name__ == "__main__":
    for p in NAUD + [DEFAULT]:
        sp, _ = simulate(p, 500.0)
        print("%-14s %3d spikes: %s" % (p[0], len(sp), " ".join("%.3f" % t for t in sp[:12])))
