#!/usr/bin/env python3
"""Checker for models/refractory.neuro: `refractory` read in `update` (docs/language.md §9).

Replayed step by step with the step order of §9: a neuron is refractory in a step when its
counter is > 0 (step 4); then the dynamics advance unless refractory (5), `update` runs (6),
the spike check (7) sets the counter to R = round(t_ref / dt), a refractory step decreases
it (8). Samples are taken at the end of each step.

Counter: V' = (20 mV - V) / 1 ms from 0 mV, spike when V > 10 mV (7 steps), reset to 0 mV;
`update` counts the refractory steps: the count must equal the replay in every step, i.e.
R steps per spike (R = 5, 15, 25; 2.46 ms rounds to 25 steps).
BrunelLIF: V' = -V / 20 ms unless refractory, `if !refractory { V += J_in }` with J_in =
0.2 mV in every step, threshold 20 mV, reset 10 mV, R = 20: V must stay exactly at 10 mV in
the 20 steps after each spike (the inputs arriving then are discarded) and follow the replay
within rounding.
"""

import math
import os
import sys

DT, STEPS = 0.1, 300


def read_csv(path):
    with open(path) as f:
        next(f)
        return [[float(x) for x in line.split(",")] for line in f if line.strip()]


def spikes(path):
    d = {}
    for t, i in read_csv(path):
        d.setdefault(int(i), []).append(round(t / DT) - 1)    # the step of the spike
    return d


def replay_counter(r):
    v, cnt, n_ref, spk, trace = 0.0, 0, 0, [], []
    for s in range(STEPS):
        refr = cnt > 0
        if not refr:
            v = 20.0 + (v - 20.0) * math.exp(-DT / 1.0)
        if refr:
            n_ref += 1
        if not refr and v > 10.0:
            v, cnt = 0.0, r
            spk.append(s)
        elif refr:
            cnt -= 1
        trace.append(n_ref)
    return spk, trace


def replay_brunel():
    v, cnt, spk, trace = 19.0, 0, [], []
    for s in range(STEPS):
        refr = cnt > 0
        if not refr:
            v = v * math.exp(-DT / 20.0) + 0.2
        if not refr and v >= 20.0:
            v, cnt = 10.0, 20
            spk.append(s)
        elif refr:
            cnt -= 1
        trace.append((v, refr))
    return spk, trace


def main():
    out = sys.argv[1]
    failed = 0

    def check(ok, what, detail=""):
        nonlocal failed
        print("refractory: %s: %s%s" % ("ok" if ok else "FAILED", what, (" (" + detail + ")") if detail else ""))
        failed += not ok

    csp, rows = spikes(os.path.join(out, "C.csv")), read_csv(os.path.join(out, "c.csv"))
    check(len(rows) == STEPS + 1 and rows[0] == [0.0, 0.0, 0.0, 0.0], "the row at t = 0: n_ref = 0 (initial)",
          "got %s" % rows[:1])
    rows = rows[1:]
    check(len(rows) == STEPS, "%d samples of n_ref" % STEPS, "got %d" % len(rows))
    for i, r in enumerate((5, 15, 25)):
        want_spk, want = replay_counter(r)
        got = [row[1 + i] for row in rows]
        bad = [s for s in range(min(len(got), STEPS)) if got[s] != want[s]]
        check(csp.get(i, []) == want_spk, "Counter[%d]: spikes in steps %s" % (i, want_spk), "got %s" % csp.get(i))
        check(not bad, "Counter[%d]: n_ref counts R = %d refractory steps per spike, in every step (%d at the end)"
              % (i, r, want[-1]), "first difference in step %s" % (bad[:1]))
    bsp, rows = spikes(os.path.join(out, "B.csv")), read_csv(os.path.join(out, "b.csv"))
    check(rows[:1] == [[0.0, 19.0]], "BrunelLIF: the row at t = 0, V = 19 mV (initial)", "got %s" % rows[:1])
    rows = rows[1:]
    want_spk, want = replay_brunel()
    check(bsp.get(0, []) == want_spk and len(want_spk) >= 2, "BrunelLIF: spikes in steps %s" % want_spk,
          "got %s" % bsp.get(0))
    frozen = [rows[s][1] for s in range(len(rows)) if want[s][1]]
    check(len(frozen) >= 40 and all(v == 10.0 for v in frozen),
          "BrunelLIF: V = V_r exactly in all %d refractory steps (inputs discarded)" % len(frozen),
          "values %s" % sorted(set(frozen))[:5])
    err = max(abs(rows[s][1] - want[s][0]) for s in range(len(rows)))
    check(err < 1e-6, "BrunelLIF: V follows the replay (within the CSV's 9 digits)", "max |error| %.3g mV" % err)
    print("refractory: %s" % ("PASSED" if not failed else "%d check(s) FAILED" % failed))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
