"""Shared checks for the Vogels-Abbott networks examples/cuba.neuro and examples/coba.neuro
(Brette et al. 2007 benchmarks 2 and 1). Used by check_cuba.py and check_coba.py.

These networks are chaotic, so no spike-by-spike reference exists; the checks are
statistics with ranges:

  * mean rates of E (0..3199), I (3200..3999) and all neurons;
  * mean CV of the ISIs over neurons with >= 3 ISIs (asynchronous irregular regime);
  * fraction of neurons that fired at least once;
  * self-sustained activity: every 100 ms window holds at least half the mean window count.

Where the numbers come from. The benchmark papers and scripts (Brette et al. 2007; Brian2
examples/CUBA.py; ModelDB 83319) state parameters, not rates, so the expected values
were measured with an independent C re-implementation of the same networks under the
neuroc step contract (tests/e2e/reference/va_calibrate.c; exact LIF step, exponential
synapses, 1-step delay, 10 connectivity/initial-state seeds):
    CUBA: E 5.4-6.0 Hz, I 5.6-5.7 Hz, mean ISI CV 0.52-0.55, 82-84 % neurons active
    COBA: E 17.2-22.1 Hz, I 18.4-20.4 Hz, mean ISI CV 1.5-1.7, 85-91 % neurons active
The accepted ranges are about +-50-70 % around these (seed-to-seed spread is ~+-10 %; a
different RNG and float vs double change the realisation, not the statistics) and are
still tight enough to catch the usual failures: a silent or dying network (0 Hz, empty
windows), runaway excitation (rates towards the refractory limit 1/t_ref = 200 Hz),
a sign or unit error in a weight (10x weights or missing inhibition saturate; 0.1x
weights silence COBA and leave CUBA's intrinsically driven neurons at ~19 Hz).
"""

import math
import os

import nrtio

N, NE = 4000, 3200
DT = 0.1
STEPS = 10000
T_S = STEPS * DT * 1e-3

RANGES = {
    "cuba": dict(rate=(3.0, 10.0), cv=(0.3, 1.0), active=0.5, spikes="cuba_spikes.npy", trace="cuba_V.csv",
                 v_lo=-60.0, v_hi=-50.0),
    "coba": dict(rate=(10.0, 35.0), cv=(0.8, 2.5), active=0.5, spikes="coba_spikes.npy", trace="coba_V.csv",
                 v_lo=-80.0, v_hi=-50.0),
}


def run(kind, out):
    R = RANGES[kind]
    chk = nrtio.Checker(kind)
    man = nrtio.load_manifest(out)
    nrtio.check_manifest(chk, man, model_steps=STEPS, dt=DT)
    sp = nrtio.load_recording(out, R["spikes"], man)
    bad = [i for i in sp.i if not 0 <= i < N]
    chk.check(not bad, "indices in range", "0..%d" % (N - 1), "%d out of range" % len(bad))
    by = [[] for _ in range(N)]
    for t, i in zip(sp.t, sp.i):
        if 0 <= i < N:
            by[i].append(t)
    n_e = sum(len(l) for l in by[:NE])
    n_i = sum(len(l) for l in by[NE:])
    rates = {"E": n_e / NE / T_S, "I": n_i / (N - NE) / T_S, "all": (n_e + n_i) / N / T_S}
    lo, hi = R["rate"]
    for k in ("E", "I", "all"):
        chk.check(lo <= rates[k] <= hi, "mean rate %s (Hz)" % k, "%g..%g" % (lo, hi), "%.2f" % rates[k])
    cvs = []
    for l in by:
        l.sort()
        isi = [b - a for a, b in zip(l, l[1:])]
        if len(isi) >= 3:
            m = sum(isi) / len(isi)
            cvs.append(math.sqrt(sum((x - m) ** 2 for x in isi) / len(isi)) / m)
    mcv = sum(cvs) / len(cvs) if cvs else float("nan")
    clo, chi = R["cv"]
    chk.check(clo <= mcv <= chi, "mean ISI CV (neurons with >= 3 ISIs)", "%g..%g" % (clo, chi),
              "%.3f over %d neurons" % (mcv, len(cvs)))
    active = sum(1 for l in by if l) / float(N)
    chk.check(active >= R["active"], "fraction of neurons that fired", ">= %g" % R["active"], "%.3f" % active)
    win = [0] * 10
    for t in sp.t:
        w = int((t - 1e-9) // 100.0)
        if 0 <= w < 10:
            win[w] += 1
    mean_w = sum(win) / 10.0
    chk.check(mean_w > 0 and min(win) >= 0.5 * mean_w, "self-sustained: spikes per 100 ms window",
              ">= half the mean (%.0f) in each" % mean_w, win)
    st = nrtio.load_recording(out, R["trace"], man)
    chk.check(len(st) == STEPS, "V trace rows", STEPS, len(st))
    for n in st.neurons:
        v = st.trace("V", n)
        ok = bool(v) and min(v) >= R["v_lo"] - 25.0 and max(v) < R["v_hi"] + 1e-9
        chk.check(ok, "V of neuron %d stays below threshold after reset" % n,
                  "%.0f <= V < %.0f" % (R["v_lo"] - 25.0, R["v_hi"]),
                  "min %.2f max %.2f" % (min(v), max(v)) if v else "empty")
    return chk.finish()
