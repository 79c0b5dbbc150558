#!/usr/bin/env python3
"""Checker for models/izhikevich.neuro: regular-spiking Izhikevich neuron, I = 10.

Model (Izhikevich 2003, IEEE TNN 14:1569): v' = 0.04 v^2 + 5 v + 140 - u + I,
u' = a (b v - u), v >= 30 -> v = c, u += d; RS: a 0.02, b 0.2, c -65, d 8; v(0) = -65,
u(0) = b v(0).

References:
 1. replica of the compiled scheme, the 2003 program's: per step of dt = 0.1 ms two
    explicit-Euler substeps of dt/2 for v with u held, then one Euler step of dt for u from
    the new v, then the spike test v >= 30 (-> v = c, u += d). Spike steps must be identical.
 2. accurate solution -- classical RK4 at 0.005 ms with the same reset rule (test after each
    RK4 step). The mean ISI of the model must agree within 3 % (the Euler scheme with
    0.05 ms substeps is first order; the measured difference is printed).
Also: tonic regular spiking -- the CV of the ISIs after the first 3 is < 0.05.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nrtio  # noqa: E402

DT = 0.1
STEPS = 10000
A, B, C, D, V_PEAK, I = 0.02, 0.2, -65.0, 8.0, 30.0, 10.0


def f(v, u):
    return 0.04 * v * v + 5.0 * v + 140.0 - u + I, A * (B * v - u)


def scheme_step(v, u, dt=DT, substeps=2, joint=False):
    """One step of the compiled scheme: V in `substeps` Euler substeps of dt/substeps with U
    held, then U in one Euler step of dt from the new V (the 2003 program). joint=True is the
    scheme of neuroc before issue 27 (U advanced in the same substeps, from the old V)."""
    h = dt / substeps
    for _ in range(substeps):
        dv, du = f(v, u)
        v, u = v + h * dv, (u + h * du if joint else u)
    if not joint:
        u += dt * A * (B * v - u)
    return v, u


def scheme_replica(dt=DT, steps=STEPS, substeps=2, joint=False):
    v, u = -65.0, B * -65.0
    spikes = []
    for s in range(steps):
        v, u = scheme_step(v, u, dt, substeps, joint)
        if v >= V_PEAK:
            spikes.append(s)
            v = C
            u += D
    return spikes


def rk4_reference(dt=0.005, t_end=1000.0):
    v, u = -65.0, B * -65.0
    spikes = []
    for s in range(int(round(t_end / dt))):
        k1 = f(v, u)
        k2 = f(v + 0.5 * dt * k1[0], u + 0.5 * dt * k1[1])
        k3 = f(v + 0.5 * dt * k2[0], u + 0.5 * dt * k2[1])
        k4 = f(v + dt * k3[0], u + dt * k3[1])
        v += dt / 6.0 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0])
        u += dt / 6.0 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1])
        if v >= V_PEAK:
            spikes.append((s + 1) * dt)
            v = C
            u += D
    return spikes


def isis(times):
    return [b - a for a, b in zip(times, times[1:])]


def mean(x):
    return sum(x) / len(x) if x else float("nan")


def cv(x):
    m = mean(x)
    return (sum((y - m) ** 2 for y in x) / len(x)) ** 0.5 / m if x else float("nan")


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--reference":
        rep = scheme_replica()
        ref = rk4_reference()
        print("replica: %d spikes, steps %s..., mean ISI %.4f ms" % (len(rep), rep[:5], mean(isis([(s + 1) * DT for s in rep]))))
        print("rk4:     %d spikes, mean ISI %.4f ms, CV(late) %.4f" % (len(ref), mean(isis(ref)), cv(isis(ref)[3:])))
        return 0
    run = nrtio.open_run("izhikevich", STEPS, DT, usage="OUTDIR | --reference")
    if run is None:
        return 2
    out, chk, man = run
    sp = nrtio.load_recording(out, "izh_spikes.csv", man)
    got = sorted(sp.steps(DT))
    rep = scheme_replica()
    ok = got == rep
    chk.check(ok, "spike steps vs replica of the 2003 program's scheme",
              "%d spikes, first %s" % (len(rep), rep[:4]), "%d spikes, first %s" % (len(got), got[:4]))
    if not ok:
        k = next((k for k, (a, b) in enumerate(zip(got, rep)) if a != b), min(len(got), len(rep)))
        chk.info("  first difference at spike #%d: expected step %s, got %s"
                 % (k, rep[k] if k < len(rep) else None, got[k] if k < len(got) else None))
        for alt in (1, 4):
            if scheme_replica(substeps=alt) == got:
                chk.info("  hint: the spikes match %d Euler substep(s) per dt instead of 2" % alt)
        if scheme_replica(joint=True) == got:
            chk.info("  hint: the spikes match U advanced in the two half-steps with V (not once, from the new V)")
    times = [(s + 1) * DT for s in got]
    ref = rk4_reference()
    m_got, m_ref = mean(isis(times)), mean(isis(ref))
    rel = abs(m_got - m_ref) / m_ref if m_ref == m_ref else float("inf")
    chk.check(rel <= 0.03, "mean ISI vs RK4 (0.005 ms) reference", "%.3f ms +- 3%%" % m_ref,
              "%.3f ms (%.2f%%)" % (m_got, 100 * rel))
    late = isis(times)[3:]
    chk.check(len(late) >= 10 and cv(late) < 0.05, "tonic regular spiking: CV of ISIs after the first 3",
              "< 0.05 over >= 10 ISIs", "%.4f over %d ISIs" % (cv(late), len(late)))
    st = nrtio.load_recording(out, "izh_VU.csv", man)
    chk.check(len(st) == 1000, "V, U rows (every 1 ms)", 1000, len(st))
    v = st.trace("V", 0)
    chk.check(bool(v) and max(v) < V_PEAK and min(v) > -90.0, "recorded V after reset stays below the peak",
              "-90 < V < 30", "min %.2f max %.2f" % (min(v), max(v)) if v else "none")
    return chk.finish()


if __name__ == "__main__":
    sys.exit(main())
