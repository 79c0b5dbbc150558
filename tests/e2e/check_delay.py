#!/usr/bin/env python3
"""Checker for models/delay.neuro: spike transmission with per-connection delays.

Contract: a spike detected in step s is recorded at t = (s+1)*dt and reaches the receptor
input of its target in step s + d exactly, d = max(1, round(delay/dt)); the Delta
receptor puts the weight into port I in that step, and 'update { x += I }' adds it to x,
which is recorded after phase 3. So x_j = 0 for steps < s + d_j and x_j = w_j from step
s + d_j on (recorded at t = (s + d_j + 1)*dt).
Expected: s = 49 (t = 5.0 ms); fan: d_j = 2 + 3j, w_j = 1 + j mV (j = 0..4); short: d = 1,
w = 7 mV.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nrtio  # noqa: E402

DT = 0.1
STEPS = 100
S_SPIKE = 49


def check_trace(chk, label, x, d, w):
    arrival = S_SPIKE + d
    expected = [0.0 if s < arrival else w for s in range(STEPS)]
    jumps = [s for s in range(len(x)) if x[s] != (x[s - 1] if s > 0 else 0.0)]
    ok = len(x) == STEPS and all(abs(a - b) <= 1e-12 for a, b in zip(x, expected))
    chk.check(ok, "%s: jump of %g mV in step s_spike + d = %d + %d = %d" % (label, w, S_SPIKE, d, arrival),
              "one jump at step %d (t = %.1f ms)" % (arrival, (arrival + 1) * DT),
              "jumps at steps %s, final x = %s" % (jumps, x[-1] if x else None))


def main():
    run = nrtio.open_run("delay", STEPS, DT)
    if run is None:
        return 2
    out, chk, man = run
    sp = nrtio.load_recording(out, "delay_src.csv", man)
    chk.check(sp.steps(DT) == [S_SPIKE] and sp.i == [0], "source spikes (step, index)",
              [(S_SPIKE, 0)], list(zip(sp.steps(DT), sp.i)))
    st = nrtio.load_recording(out, "delay_x.csv", man)
    for j in range(5):
        d = max(1, int(round(0.1 * (2 + 3 * j) / DT)))
        check_trace(chk, "fan target %d" % j, st.trace("x", j), d, 1.0 + j)
    st1 = nrtio.load_recording(out, "delay_x1.csv", man)
    check_trace(chk, "short (0.02 ms) target", st1.trace("x", 0), 1, 7.0)
    return chk.finish()


if __name__ == "__main__":
    sys.exit(main())
