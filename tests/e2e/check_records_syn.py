#!/usr/bin/env python3
"""Checker for models/records_syn.neuro: subsets of a projection's synapses.

`record w of PROJ[pre 0:60]` (every synapse, with its (pre, post) file) must equal the plain
`record w of PROJ` column for column; then every subset ([pre a:b, post c:d], [post c:d],
[sample k]) must hold exactly the full recording's columns of the synapses it selects: for
ranges, the synapses (in connectivity order) with pre in [a, b) and post in [c, d); for a
sample of k, synapses m * nnz / k for m < k. Its <stem>_synapses.npy must give their
(pre, post), and manifest.json must name that file and list the synapse indices. Values are
compared exactly (.npy) or to 1e-8 relative (.csv: 9 significant digits), the rows at t = 0
(the initial values, uniform(20 pA, 120 pA) for SP's w) too.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nrtio  # noqa: E402

DT = 0.1
STEPS = 1000


def pairs(out, man, f):
    rec = nrtio.find_recording(man, f)
    tab = nrtio.load_npy(os.path.join(out, rec["synapses_file"]))
    return rec, list(zip(tab["pre"], tab["post"]))


def columns(st, var):
    return [st.trace(var, n) for n in st.neurons]


def check_subset(chk, out, man, full, all_pairs, f, want, tol=0.0):
    """want: the synapse indices (columns of full) that recording f must hold."""
    rec, got_pairs = pairs(out, man, f)
    chk.check(rec["neurons"] == want and rec["synapses_file"] == f.rsplit(".", 1)[0] + "_synapses.npy",
              f + ": manifest synapses and synapses_file", "%d synapses %s" % (len(want), want[:4]),
              "%d synapses %s, %s" % (len(rec["neurons"]), rec["neurons"][:4], rec["synapses_file"]))
    chk.check(got_pairs == [all_pairs[s] for s in want], f + ": (pre, post) of its synapses",
              [all_pairs[s] for s in want][:3], got_pairs[:3])
    st = nrtio.load_recording(out, f, man)
    ok = st.t == full.t and st.initial is not None and full.initial is not None
    for var in st.variables:   # the rows at t = 0: the synapses' initial values
        ok = ok and all(abs(st.initial[var][rec["neurons"][k]] - full.initial[var][s]) <= tol * max(abs(full.initial[var][s]), 1.0)
                        for k, s in enumerate(want))
    for var in st.variables:
        for k, s in enumerate(want):
            a, b = st.trace(var, rec["neurons"][k]), full.trace(var, s)
            ok = ok and all(abs(x - y) <= tol * max(abs(y), 1.0) for x, y in zip(a, b)) and len(a) == len(b)
    chk.check(ok and len(want) > 0, f + ": values", "the full recording's columns", "equal" if ok else "different")


def main():
    run = nrtio.open_run("records_syn", STEPS, DT)
    if run is None:
        return 2
    out, chk, man = run
    for proj, full_f, all_f, subsets in (
            ("SP", "w_SP.npy", "w_SP_all.npy", [("w_SP_box.npy", (10, 30, 5, 12), None, 0.0),
                                                ("w_SP_col.csv", (0, 60, 3, 4), None, 1e-8),
                                                ("w_SP_sample.npy", None, 25, 0.0)]),
            ("SE", "w_SE.npy", "w_SE_all.npy", [("w_SE_sample.npy", None, 7, 0.0)])):
        full = nrtio.load_recording(out, full_f, man)
        everything = nrtio.load_recording(out, all_f, man)
        nnz = len(full.neurons)
        _, all_pairs = pairs(out, man, all_f)
        chk.check(len(all_pairs) == nnz and nnz > 50 and all_pairs == sorted(all_pairs),
                  proj + ": [pre 0:60] holds every synapse in connectivity order", "%d sorted" % nnz,
                  "%d" % len(all_pairs))
        same = everything.t == full.t and all(columns(everything, v) == columns(full, v) for v in full.variables)
        same = same and everything.initial == full.initial and full.initial is not None
        if proj == "SP":
            w0 = list(full.initial["w"].values())
            chk.check(min(w0) >= 20.0 and max(w0) <= 120.0 and len(set(w0)) > 50, "SP: w at t = 0, the initial uniform(20 pA, 120 pA)",
                      "in [20, 120]", "%g..%g" % (min(w0), max(w0)))
        chk.check(same, proj + ": [pre 0:60] equals the plain recording", "equal", "equal" if same else "different")
        for f, box, k, tol in subsets:
            if box:
                want = [s for s, (p, q) in enumerate(all_pairs)
                        if box[0] <= p < box[1] and box[2] <= q < box[3]]
            else:
                want = [m * nnz // k for m in range(k)]
            check_subset(chk, out, man, full, all_pairs, f, want, tol)
    return chk.finish()


if __name__ == "__main__":
    sys.exit(main())
