#!/usr/bin/env python3
"""Checker for models/izhikevich_patterns.neuro (dt 0.01 ms) and models/izhikevich_program.neuro
(dt 1 ms): the stdlib Izhikevich neuron against izhikevich_ref.py. Izhikevich (2003) Fig. 2
patterns RS, IB, CH, FS, LTS under I = 10, 500 ms.

At dt 1 ms (the published program's step): every firing time identical to the program's,
run line by line (the program tests v >= 30 at the start of a millisecond, neuroc at the end
of the step before: a neuroc spike reported at t is the program's firing at t + 1 ms). This
holds only for the program's scheme (v in two half-steps with u held, then u once from the
new v); the scheme of neuroc before issue 27 fails it.

At dt 0.01 ms (the scheme, first order, close to the continuous model): against RK4 at
0.005 ms,
 * spike count within 1 (measured: FS 68 against 69, the others equal);
 * the first four spike times: spike j within j (dt + 0.05 ms) of the reference's (each spike
   is reported at the end of its step and reset there, late by [0, dt), and the delay carries
   over; 0.05 ms per spike for the scheme's own error, measured at most 0.14 ms at FS's
   fourth spike);
 * V every 0.1 ms up to 0.5 ms before the first spike within 0.5 mV of the reference (the
   subthreshold trace, where V rises from -65 to -30 mV in 2.5 ms: Euler's first-order error
   at 0.005 ms substeps, measured 0.19 mV; after the first spike the traces differ by the
   spike-time error times slopes of up to 10 mV/ms);
 * the pattern Izhikevich (2003) Fig. 2 shows: RS tonic after one short first ISI (late ISI CV
   < 0.05, first ISI < 0.7 x the late ones); IB an initial burst (first two ISIs < 5 ms) then
   regular single spikes (later ISIs > 25 ms, CV < 0.05); CH repeated bursts (every ISI < 6 ms
   or > 40 ms, at least 4 of each); FS fast without adaptation (> 100 Hz over 100-500 ms, late
   CV < 0.05); LTS fast with adaptation (first ISI < 1/3 of the late ones, > 50 Hz).
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "e2e"))
import izhikevich_ref as ref_mod  # noqa: E402
from spiketimes import check_first_spikes, cv, isis  # noqa: E402
import nrtio  # noqa: E402

T_END = 500.0


def pattern_ok(name, t):
    d = isis(t)
    late = d[len(d) // 2:]
    if len(d) < 4:
        return False, "%d spikes" % len(t)
    fmt = ["%.2f" % x for x in d[:8]]
    if name == "RS":
        return cv(late) < 0.05 and d[0] < 0.7 * min(late), "ISIs %s, late CV %.3f" % (fmt, cv(late))
    if name == "IB":
        rest = d[2:]
        return (max(d[:2]) < 5.0 and min(rest) > 25.0 and cv(rest[1:]) < 0.05,
                "ISIs %s, CV after the burst %.3f" % (fmt, cv(rest[1:])))
    if name == "CH":
        short = [x for x in d if x < 6.0]
        long_ = [x for x in d if x > 40.0]
        return (len(short) >= 4 and len(long_) >= 4 and len(short) + len(long_) == len(d),
                "%d short ISIs, %d long, %d other" % (len(short), len(long_), len(d) - len(short) - len(long_)))
    if name == "FS":
        rate = sum(1 for x in t if x >= 100.0) / 0.4
        return rate > 100.0 and cv(late) < 0.05, "%.0f Hz over 100-500 ms, late CV %.3f" % (rate, cv(late))
    if name == "LTS":
        rate = sum(1 for x in t if x >= 100.0) / 0.4
        return (d[0] < min(late) / 3.0 and rate > 50.0,
                "first ISI %.2f, late %.2f, %.0f Hz" % (d[0], min(late), rate))
    return False, "unknown pattern"


def check_program(chk, out, man):
    for p in ref_mod.PATTERNS:
        name = p[0]
        prog = ref_mod.program(p, int(T_END) + 1)
        want = [t - 1 for t in prog if t - 1 <= T_END]
        got = [int(round(t)) for t in sorted(nrtio.load_recording(out, name + "_spikes.csv", man).t)]
        chk.check(got == want, "%s: firing times (ms) = the 2003 program's - 1 ms" % name,
                  "%d spikes %s" % (len(want), want[:8]), "%d spikes %s" % (len(got), got[:8]))


def check_fine(chk, out, man, dt):
    for p in ref_mod.PATTERNS:
        name = p[0]
        ref, trace = ref_mod.rk4(p, T_END, every=0.1)
        got = sorted(nrtio.load_recording(out, name + "_spikes.csv", man).t)
        chk.check(abs(len(got) - len(ref)) <= 1, "%s: spike count" % name, "%d +- 1" % len(ref), len(got))
        check_first_spikes(chk, name, got, ref, dt, 4)
        ok, desc = pattern_ok(name, got)
        chk.check(ok, "%s: pattern" % name, name, desc)
        st = nrtio.load_recording(out, name + "_V.csv", man)
        pts = []
        for t, v in zip(st.t, st.trace("V", 0)):
            k_rec = int(round(t / 0.1))
            if t <= ref[0] - 0.5 and k_rec in trace:
                pts.append(abs(v - trace[k_rec]))
        dv = max(pts) if pts else float("inf")
        chk.check(len(pts) >= 15 and dv <= 0.5, "%s: V before the first spike (%d points)" % (name, len(pts)),
                  "within 0.5 mV", "max diff %.4f mV" % dv)


def main():
    run = nrtio.open_run("izhikevich_patterns", usage="OUTDIR")
    if run is None:
        return 2
    out, chk, man = run
    dt = man["dt_ms"]
    nrtio.check_manifest(chk, man, model_steps=int(round(T_END / dt)))
    if abs(dt - 1.0) < 1e-12:
        check_program(chk, out, man)
    else:
        check_fine(chk, out, man, dt)
    return chk.finish()


if __name__ == "__main__":
    sys.exit(main())
