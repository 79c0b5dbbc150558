#!/usr/bin/env python3
"""Checker for models/hh.neuro: one Hodgkin-Huxley (1952) squid-axon neuron, I_ext = 10 uA/cm^2.

Reference: an independent pure-Python RK4 integration of the standard HH equations at
dt = 0.001 ms (10x finer than the model's 0.01 ms), spike times = upward crossings of 0 mV
by linear interpolation between grid points.

Equations and parameters (Hodgkin & Huxley 1952, J Physiol 117:500-544, in the modern
convention with V the membrane potential and rest at -65 mV, as in Brian2's
examples/compartmental/hodgkin_huxley_1952.py, NEURON's hh.mod and Dayan & Abbott 2001):
  C dV/dt = I_ext - g_Na m^3 h (V - E_Na) - g_K n^4 (V - E_K) - g_L (V - E_L)
  C = 1 uF/cm^2, g_Na = 120, g_K = 36, g_L = 0.3 mS/cm^2, E_Na = 50, E_K = -77,
  E_L = -54.387 mV
  alpha_m = 0.1 (V+40) / (1 - exp(-(V+40)/10))   beta_m = 4 exp(-(V+65)/18)
  alpha_h = 0.07 exp(-(V+65)/20)                 beta_h = 1 / (1 + exp(-(V+35)/10))
  alpha_n = 0.01 (V+55) / (1 - exp(-(V+55)/10))  beta_n = 0.125 exp(-(V+65)/80)
(rates in 1/ms, V in mV). The removable singularities of alpha_m at V = -40 and alpha_n at
V = -55 are handled with the limit (0.1*10 = 1 and 0.01*10 = 0.1) and a Taylor expansion
close to them. Initial state: V = -65 mV, gates at their steady state.

Expected: regular firing at ~68 Hz for 10 uA/cm^2 (the HH f-I curve jumps from 0 to ~50 Hz
at the rheobase of ~6.2 uA/cm^2 and rises slowly, Type II; e.g. Dayan & Abbott 2001 Fig. 5.11,
Gerstner et al. "Neuronal Dynamics" ch. 2.2 Fig. 2.5). The reference computed here gives the
number actually compared (printed by `check_hh.py --reference`).

Tolerances: same spike count; |t_neuroc - t_ref| <= 0.02 ms per spike (neuroc reports the
end of the 0.01 ms step in which V crossed 0 mV, so t_neuroc - t_ref lies in [0, 0.01) ms
up to integration error); steady firing rate in [60, 75] Hz.
"""

import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nrtio  # noqa: E402

DT_MODEL = 0.01
T_END = 100.0
I_EXT = 10.0
C, G_NA, G_K, G_L = 1.0, 120.0, 36.0, 0.3
E_NA, E_K, E_L = 50.0, -77.0, -54.387


def _x_over_1_minus_exp(u):
    """u / (1 - exp(-u)), continuous at u = 0 (value 1)."""
    if abs(u) < 1e-6:
        return 1.0 + u / 2.0 + u * u / 12.0
    return u / (1.0 - math.exp(-u))


def rates(v):
    am = _x_over_1_minus_exp((v + 40.0) / 10.0)            # 0.1 (v+40)/(1-exp(-(v+40)/10))
    bm = 4.0 * math.exp(-(v + 65.0) / 18.0)
    ah = 0.07 * math.exp(-(v + 65.0) / 20.0)
    bh = 1.0 / (1.0 + math.exp(-(v + 35.0) / 10.0))
    an = 0.1 * _x_over_1_minus_exp((v + 55.0) / 10.0)      # 0.01 (v+55)/(1-exp(-(v+55)/10))
    bn = 0.125 * math.exp(-(v + 65.0) / 80.0)
    return am, bm, ah, bh, an, bn


def deriv(v, m, h, n, i_ext):
    am, bm, ah, bh, an, bn = rates(v)
    i_ion = G_NA * m * m * m * h * (v - E_NA) + G_K * n * n * n * n * (v - E_K) + G_L * (v - E_L)
    return ((i_ext - i_ion) / C, am * (1 - m) - bm * m, ah * (1 - h) - bh * h, an * (1 - n) - bn * n)


def reference(dt=0.001, t_end=T_END, i_ext=I_EXT):
    v = -65.0
    am, bm, ah, bh, an, bn = rates(v)
    m, h, n = am / (am + bm), ah / (ah + bh), an / (an + bn)
    spikes = []
    steps = int(round(t_end / dt))
    for s in range(steps):
        k1 = deriv(v, m, h, n, i_ext)
        k2 = deriv(v + 0.5 * dt * k1[0], m + 0.5 * dt * k1[1], h + 0.5 * dt * k1[2], n + 0.5 * dt * k1[3], i_ext)
        k3 = deriv(v + 0.5 * dt * k2[0], m + 0.5 * dt * k2[1], h + 0.5 * dt * k2[2], n + 0.5 * dt * k2[3], i_ext)
        k4 = deriv(v + dt * k3[0], m + dt * k3[1], h + dt * k3[2], n + dt * k3[3], i_ext)
        vn = v + dt / 6.0 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0])
        m += dt / 6.0 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1])
        h += dt / 6.0 * (k1[2] + 2 * k2[2] + 2 * k3[2] + k4[2])
        n += dt / 6.0 * (k1[3] + 2 * k2[3] + 2 * k3[3] + k4[3])
        if v < 0.0 <= vn:
            spikes.append(s * dt + dt * (0.0 - v) / (vn - v))
        v = vn
    return spikes


def steady_rate(spikes, skip=2):
    """Firing rate (Hz) from the mean ISI after the first `skip` spikes."""
    isis = [b - a for a, b in zip(spikes[skip:], spikes[skip + 1:])]
    return 1000.0 / (sum(isis) / len(isis)) if isis else 0.0


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--reference":
        ref = reference()
        print("reference spikes (ms):", ", ".join("%.4f" % t for t in ref))
        print("count %d, steady rate %.2f Hz" % (len(ref), steady_rate(ref)))
        return 0
    run = nrtio.open_run("hh", int(round(T_END / DT_MODEL)), DT_MODEL, usage="OUTDIR | --reference")
    if run is None:
        return 2
    out, chk, man = run
    sp = nrtio.load_recording(out, "hh_spikes.csv", man)
    got = sorted(t for t, i in zip(sp.t, sp.i) if i == 0)
    chk.check(len(got) == len(sp.t), "all spikes from neuron 0", len(sp.t), len(got))
    ref = reference()
    chk.info("reference (RK4, dt 0.001 ms): %d spikes, first at %.4f ms, steady rate %.2f Hz"
             % (len(ref), ref[0] if ref else float("nan"), steady_rate(ref)))
    chk.check(len(got) == len(ref), "spike count", len(ref), len(got))
    worst = 0.0
    for k, (a, b) in enumerate(zip(got, ref)):
        d = a - b
        worst = max(worst, abs(d))
        if abs(d) > 0.02:
            chk.check(False, "spike %d time (ms)" % k, "%.4f +- 0.02" % b, "%.4f (diff %+.4f)" % (a, d))
    chk.check(worst <= 0.02, "max |t_neuroc - t_ref| over %d spikes (ms)" % min(len(got), len(ref)),
              "<= 0.02", "%.5f" % worst)
    rate = steady_rate(got)
    chk.check(60.0 <= rate <= 75.0, "steady firing rate (Hz)", "60..75 (reference %.2f)" % steady_rate(ref),
              "%.2f" % rate)
    # the trace is recorded too: V must stay within the physiological HH envelope
    st = nrtio.load_recording(out, "hh_V.csv", man)
    v = st.trace("V", 0)
    chk.check(len(v) == 1000, "V rows (every 0.1 ms for 100 ms)", 1000, len(v))
    if v:
        chk.check(-80.0 < min(v) < -70.0 and 30.0 < max(v) < 50.0, "V range (mV)",
                  "min in (-80,-70), max in (30,50)", "min %.2f, max %.2f" % (min(v), max(v)))
    return chk.finish()


if __name__ == "__main__":
    sys.exit(main())
