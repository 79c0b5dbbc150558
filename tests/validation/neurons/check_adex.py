#!/usr/bin/env python3
"""Checker for models/adex_patterns.neuro (dt 0.1 ms) and models/adex_fine.neuro (dt 0.01 ms):
the stdlib AdEx neuron against adex_ref.py, an independent RK4 integration at 0.01/0.001 ms.

For each of the Naud et al. (2008) patterns and for the stdlib defaults under 1 nA:
 * spike count over 500 ms: equal to the reference's within 1 (within 10 % for the chaotic
   'irregular' pattern); a step of dt moves a spike by less than dt, and a count can change
   only where the last spike falls within that of the end;
 * the first four spike times: spike j (1, 2, ...) within j (dt + 0.05 ms) of the reference's.
   neuroc reports the end of the step in which V crossed V_peak and resets V and w there: each
   spike is late by [0, dt), and that delay carries over to the spikes after it; 0.05 ms per
   spike covers RK4's own error at dt (measured: at dt 0.1 ms, at most +0.34 ms at the fourth
   spike; at dt 0.01 ms, at most 0.03 ms);
 * the subthreshold trace: V every 1 ms up to 1 ms before the first spike within 0.01 mV of
   the reference (measured: below 1e-5 mV at dt 0.1 ms);
 * w finite and within the reference's range +- 5 % over the run (issue 27: w ~ 2e21 pA);
 * the pattern, as Naud et al. show it: tonic (late ISI CV < 0.05, first ISI within 10 % of
   the last: no adaptation), adapting (each of the first six ISIs longer than the one before),
   initial burst (the first two ISIs < 1/4 of the later ones, which are regular), regular
   bursting (every ISI short, < 10 ms, within a burst or long, > 100 ms, between bursts),
   delayed accelerating (first spike after 25 ms, ISIs shrinking), delayed regular bursting
   (first spike after 40 ms, then bursts: ISIs < 10 ms or > 50 ms), transient (one spike),
   irregular (ISI CV > 0.3 after the first burst; tonic firing has ~0); the defaults under 1 nA
   adapt (ISIs growing).
"""
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "e2e"))
import adex_ref  # noqa: E402
from spiketimes import check_first_spikes, cv, isis  # noqa: E402
import nrtio  # noqa: E402

T_END = 500.0


def pattern_ok(name, t):
    """-> (ok, description) of the qualitative pattern of spike times t."""
    d = isis(t)
    if name == "tonic":
        late = d[len(d) // 2:]
        return (len(d) > 20 and cv(late) < 0.05 and abs(d[0] - d[-1]) < 0.1 * d[-1],
                "first ISI %.2f, last %.2f, late CV %.3f" % (d[0], d[-1], cv(late)) if d else "no ISIs")
    if name == "adapting":
        return (len(d) >= 6 and all(d[k + 1] > d[k] for k in range(5)), "ISIs %s" % ["%.1f" % x for x in d[:6]])
    if name == "init_burst":
        late = d[3:]
        return (len(late) >= 3 and max(d[:2]) < 0.25 * min(late) and cv(late) < 0.05,
                "first ISIs %s, late CV %.3f" % (["%.1f" % x for x in d[:3]], cv(late)))
    if name in ("bursting", "delayed_burst"):
        short = [x for x in d if x < 10.0]
        long_ = [x for x in d if x > (100.0 if name == "bursting" else 50.0)]
        first = t[0] if t else float("inf")
        return (len(short) >= 3 and len(long_) >= 2 and len(short) + len(long_) == len(d)
                and (name == "bursting" or first > 40.0),
                "first spike %.1f, %d short ISIs, %d long, %d other" % (first, len(short), len(long_),
                                                                     len(d) - len(short) - len(long_)))
    if name == "delayed":
        return (bool(t) and t[0] > 25.0 and len(d) >= 6 and all(d[k + 1] < d[k] for k in range(5)),
                "first spike %.1f, ISIs %s" % (t[0] if t else float("nan"), ["%.1f" % x for x in d[:6]]))
    if name == "transient":
        return len(t) == 1, "%d spikes" % len(t)
    if name == "irregular":
        late = d[3:]
        return (len(late) > 10 and cv(late) > 0.3,
                "ISIs after the first burst %.1f .. %.1f, CV %.2f" % (min(late), max(late), cv(late))
                if late else "none")
    if name == "default_1nA":
        return (len(d) >= 6 and all(d[k + 1] > d[k] for k in range(5)), "ISIs %s" % ["%.1f" % x for x in d[:6]])
    return False, "unknown pattern"


def main():
    run = nrtio.open_run("adex", usage="OUTDIR")
    if run is None:
        return 2
    out, chk, man = run
    dt = man["dt_ms"]
    nrtio.check_manifest(chk, man, model_steps=int(round(T_END / dt)))
    for p in adex_ref.NAUD + [adex_ref.DEFAULT]:
        name = p[0]
        ref, trace = adex_ref.simulate(p, T_END)
        got = sorted(nrtio.load_recording(out, name + "_spikes.csv", man).t)
        tol_n = max(1, int(0.1 * len(ref))) if name == "irregular" else 1
        chk.check(abs(len(got) - len(ref)) <= tol_n, "%s: spike count" % name,
                  "%d +- %d" % (len(ref), tol_n), len(got))
        check_first_spikes(chk, name, got, ref, dt, min(4, len(ref)))
        ok, desc = pattern_ok(name, got)
        chk.check(ok, "%s: pattern" % name, name, desc)
        st = nrtio.load_recording(out, name + "_Vw.csv", man)
        V, W = st.trace("V", 0), st.trace("w", 0)
        refV = {round(t, 6): v for t, v, _ in trace}
        t_first = ref[0] if ref else T_END
        pts = [(t, v) for t, v in zip(st.t, V) if t <= t_first - 1.0 and round(t, 6) in refV]
        dv = max((abs(v - refV[round(t, 6)]) for t, v in pts), default=float("inf"))
        chk.check(len(pts) >= 4 and dv <= 0.01, "%s: V before the first spike (%d points)" % (name, len(pts)),
                  "within 0.01 mV", "max diff %.1e mV" % dv)
        wr = [w for _, _, w in trace]
        lo, hi = min(wr), max(wr)
        span = 0.05 * max(abs(lo), abs(hi), 1.0)
        ok = all(math.isfinite(w) and lo - span <= w <= hi + span for w in W)
        chk.check(ok, "%s: w stays finite, within the reference's range" % name,
                  "[%.1f, %.1f] pA +- 5%%" % (lo, hi),
                  "[%.1f, %.1f] pA" % (min(W), max(W)) if W else "none")
    return chk.finish()


if __name__ == "__main__":
    sys.exit(main())
