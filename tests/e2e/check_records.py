#!/usr/bin/env python3
"""Checker for models/records.neuro: receptor-state recordings and recording windows.

Receptor states (`record I of a`, docs/language.md §12.6) against their closed forms: a state
of time constant tau that receives x in step k holds x e^(-(s - k + 1) dt / tau) at the end of
step s >= k (the arrivals are added before the receptor dynamics advance over the step).
Source i fires in step 49 + 30 i. a: w = 10 (1 + i) + j pA, delay 1 + j steps, and b: 5 pA,
1 step, share one state (merged; a is the lead): `record I of b` is the same state. g
(ExpCond, tau 5 ms) onto dst[1:3]: 2 (1 + i) nS, 1 step. kick (tau 3 ms): 30 (1 + j) pA in
step 100. Tolerance 1e-12 of the largest value (1e-8 for g, written to .csv) (the simulator multiplies by e^(-dt/tau) each
step; a lost, doubled or late input is off by far more).
Input ports (`record J of acc`): the port's value in step s is the sum of what arrives in it:
d's weights 3 (1 + j) + i pA in step 49 + 30 i + 2 + i, and the stimulus bias, 0.5 pA in steps
40-59; x sums J. Exact (every value is a sum of a few halves).
The row at t = 0 (docs/language.md 12.6): every state recording's first row holds the values
after initialisation: V = 1 (1 + j) mV, receptor states, ports and x 0; a window from 0 ms
has it, one that starts later does not.
Windows (`from A to B`): exactly the rows and spikes of the full recordings of the steps
A/dt <= s < B/dt (times in (A, B]), every's grid kept; manifest "window_steps": [A/dt, B/dt].
"""

import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nrtio  # noqa: E402

DT = 0.1
STEPS = 200
FIRE = [49, 79]


def closed_form(arrivals, tau, s):
    """arrivals: [(step, x)]; the state at the end of step s."""
    return sum(x * math.exp(-(s - k + 1) * DT / tau) for k, x in arrivals if k <= s)


def check_trace(chk, what, got, arrivals, tau, tol=1e-12):
    want = [closed_form(arrivals, tau, s) for s in range(STEPS)]
    if len(got) != STEPS:
        chk.check(False, what + ": rows", STEPS, len(got))
        return
    scale = max(abs(v) for v in want)
    worst = max(abs(g - w) for g, w in zip(got, want)) / scale
    chk.check(scale > 1.0 and worst <= tol, what + " against the closed form",
              "max |error| <= %g of %.6g" % (tol, scale), "%.3g" % worst)


def same_rows(chk, what, full, win, keep):
    """win must be exactly the rows of full (a State) whose step s passes keep(s)."""
    rows = [k for k, t in enumerate(full.t) if keep(int(round(t / DT)) - 1)]
    chk.check(win.t == [full.t[k] for k in rows], what + ": the window's times",
              "%d rows from t = %s" % (len(rows), full.t[rows[0]] if rows else None),
              "%d rows from t = %s" % (len(win.t), win.t[0] if win.t else None))
    ok = all(win.trace(v, n) == [full.trace(v, n)[k] for k in rows]
             for v in full.variables for n in full.neurons)
    chk.check(ok, what + ": the window's values", "those of the full recording", "equal" if ok else "different")


def main():
    run = nrtio.open_run("records", STEPS, DT)
    if run is None:
        return 2
    out, chk, man = run
    load = lambda f: nrtio.load_recording(out, f, man)  # noqa: E731
    sp = load("src.csv")
    chk.check(list(zip(sp.steps(DT), sp.i)) == [(49, 0), (79, 1)], "source spikes (step, index)",
              [(49, 0), (79, 1)], list(zip(sp.steps(DT), sp.i)))

    a, b = load("a_I.npy"), load("b_I.npy")
    for j in range(3):
        arr = [(FIRE[i] + 1 + j, 10.0 * (1 + i) + j) for i in range(2)] + [(FIRE[i] + 1, 5.0) for i in range(2)]
        check_trace(chk, "a (and merged b): I of dst %d" % j, a.trace("I", j), arr, 2.0)
        same = b.trace("I", j) == a.trace("I", j)
        chk.check(same, "b's I of dst %d is its lead a's" % j, "equal", "equal" if same else "different")
    g = load("g_g.csv")
    chk.check(g.variables == ["g"] and g.neurons == [0, 1], "g: columns (dst[1:3])", "g[0], g[1]",
              "%s %s" % (g.variables, g.neurons))
    for j in range(2):
        check_trace(chk, "g: g of dst[1:3] %d" % j, g.trace("g", j), [(FIRE[i] + 1, 2.0 * (1 + i)) for i in range(2)],
                    5.0, 1e-8)   # .csv: 9 significant digits
    kick = load("kick_I.npy")
    for j in range(3):
        check_trace(chk, "kick: I of dst %d" % j, kick.trace("I", j), [(100, 30.0 * (1 + j))], 3.0)
    rec = nrtio.find_recording(man, "g_g.csv")
    chk.check(rec.get("population") == "dst" and rec.get("units", {}).get("g") == "nS", "g: manifest",
              "population dst, g in nS", "%s, %s" % (rec.get("population"), rec.get("units")))

    port = load("acc_J.npy")
    xj = load("acc_xJ.csv")
    for j in range(2):
        want = [0.5 if 40 <= s < 60 else 0.0 for s in range(STEPS)]
        for i in range(2):
            want[FIRE[i] + 2 + i] += 3.0 * (1 + j) + i
        chk.check(port.trace("J", j) == want, "acc_J: the port J of acc %d, the sum of its arrivals" % j,
                  "arrivals at steps %s" % [FIRE[i] + 2 + i for i in range(2)],
                  "%s at steps %s" % ("equal" if port.trace("J", j) == want else "different",
                                      [s for s, v in enumerate(port.trace("J", j)) if v > 0.5]))
        cum = [sum(want[:s + 1]) for s in range(STEPS)]
        got = (xj.trace("x", j), xj.trace("J", j))
        ok = got == ([cum[s] for s in range(9, STEPS, 10)], [want[s] for s in range(9, STEPS, 10)])
        chk.check(ok, "acc_xJ.csv: x and J of acc %d every 1 ms" % j, "x = the sum of J", "equal" if ok else "different")
    for f, var, init in (("v.npy", "V", [1.0, 2.0, 3.0]), ("a_I.npy", "I", [0.0] * 3), ("g_g.csv", "g", [0.0] * 2),
                         ("kick_I.npy", "I", [0.0] * 3), ("acc_J.npy", "J", [0.0] * 2), ("acc_xJ.csv", "x", [0.0] * 2),
                         ("v_first.npy", "V", [1.0, 2.0, 3.0])):
        st = load(f)
        got = [st.initial[var][n] for n in st.neurons] if st.initial else None
        chk.check(got == init, f + ": the row at t = 0 (the initial values)", init, got)
    for f in ("a_I_win.npy", "v_win.npy"):
        chk.check(load(f).initial is None, f + ": no row at t = 0 (the window starts later)", None, "a row")
    same_rows(chk, "v_first (from 0 ms to 1 ms)", load("v.npy"), load("v_first.npy"), lambda s: s < 10)
    same_rows(chk, "a_I_win (every 0.5 ms from 6 ms to 12 ms)", a, load("a_I_win.npy"),
              lambda s: 60 <= s < 120 and (s + 1) % 5 == 0)
    same_rows(chk, "v_win (from 7.5 ms to 9 ms)", load("v.npy"), load("v_win.npy"), lambda s: 75 <= s < 90)
    ws = load("src_win.csv")
    chk.check(list(zip(ws.steps(DT), ws.i)) == [(79, 1)], "src_win (from 5 ms to 10 ms): the spikes of steps 50-99",
              [(79, 1)], list(zip(ws.steps(DT), ws.i)))
    for f, w in (("a_I_win.npy", [60, 120]), ("v_win.npy", [75, 90]), ("src_win.csv", [50, 100]), ("v_first.npy", [0, 10]),
                 ("v.npy", None)):
        got = nrtio.find_recording(man, f).get("window_steps")
        chk.check(got == w, f + ": manifest window_steps", w, got)
    return chk.finish()


if __name__ == "__main__":
    sys.exit(main())
