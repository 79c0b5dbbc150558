#!/usr/bin/env python3
"""check_edges.py NEUROC WORKDIR -- malformed edge files stop the simulator with status 1
and a message "FILE:LINE: problem" (for .npy, LINE is the row; header problems are line 1).

The model is compiled once per format (the file must exist then); each case rewrites the
file and runs the simulator again.
"""
import os
import subprocess
import sys

import numpy as np

MODEL = """import "stdlib/neurons.neuro"
import "stdlib/receptors.neuro"
population A = LIF[5]
population B = LIF[8]
projection E = A -> B {{ receptor = ExpCurr -> I_syn; connect = from_file("{f}") }}
run 1 ms
"""

CSV_CASES = [
    ("pre,post,w\n0,1,1\n2,x,1\n", "edges.csv:3: column 2 ('post') is not a number: 'x'"),
    ("0,1,2\n\n# note\n0,1\n", "edges.csv:4: 2 columns, but the file has 3"),
    ("pre,post,w\n0,1,1\n5,7,1\n", "edges.csv:3: pre index 5 is not a neuron of the presynaptic target (0 .. 4)"),
    ("0,8,1\n", "edges.csv:1: post index 8 is not a neuron of the postsynaptic target (0 .. 7)"),
    ("pre,target,w\n0,1,1\n", "edges.csv:1: unknown column name 'target' (columns are pre, post, w, delay)"),
    ("pre,post\n0,1\n", "edges.csv:1: no weight column, and the projection gives no 'w'"),
    ("0,1,1,-2\n", "edges.csv:1: the delay is not a finite time >= 0"),
    ("0,1,1\n0,2,-1e300\n", "edges.csv:2: the weight -1e+300 is beyond float's range"),
    ("0,1,1,2,3\n", "edges.csv:1: expected 2 to 4 columns (pre,post[,w[,delay]]), got 5"),
    ("# nothing\n", "edges.csv:1: no edges (and no header)"),
]


def npy_cases(path):
    yield (lambda: open(path, "wb").write(b"pre,post\n0,1\n"),
           "edges.npy:1: not a NumPy .npy file")
    yield (lambda: np.save(path, np.zeros((3, 5))),
           "edges.npy:1: expected a 2-D array of 2 to 4 columns")
    yield (lambda: np.save(path, np.zeros((3, 3), dtype=np.complex128)),
           "edges.npy:1: unsupported .npy dtype")
    yield (lambda: np.save(path, np.array([[0, 1, 1.0], [4, 9, 1.0]])),
           "edges.npy:2: post index 9 is not a neuron of the postsynaptic target (0 .. 7)")
    yield (lambda: np.save(path, np.array([[0, 1, 1.0], [4, 2, 3.5e38]])),
           "edges.npy:2: the weight 3.5e+38 is beyond float's range")
    yield (lambda: np.save(path, np.array([(0, 1)], dtype=[("pre", "<i4"), ("to", "<i4")])),
           "edges.npy:1: .npy field 'to' of type '<i4'")
    yield (lambda: np.save(path, np.asfortranarray(np.ones((4, 3)))),
           "edges.npy:1: Fortran-ordered arrays are not supported")

    def truncated():
        np.save(path, np.ones((4, 3)))
        with open(path, "r+b") as f:
            f.truncate(os.path.getsize(path) - 30)
    yield (truncated, "edges.npy:3: the file ends early: 4 rows announced, 2 present")


def main(argv):
    if len(argv) != 3:
        print(__doc__)
        return 2
    neuroc, work = argv[1], argv[2]
    os.makedirs(work, exist_ok=True)
    failed = 0

    def run(sim, f, expect):
        nonlocal failed
        p = subprocess.run([sim, "--quiet", "--out", os.path.join(work, "out")],
                           capture_output=True, text=True)
        msg = p.stderr.strip().replace(os.path.join(work, ""), "")
        ok = p.returncode == 1 and expect in msg
        print(("ok    " if ok else "FAIL  ") + "%s: status %d: %s" % (f, p.returncode, msg))
        if not ok:
            print("      expected status 1 and: " + expect)
            failed += 1

    for f, cases in (("edges.csv", None), ("edges.npy", None)):
        path = os.path.join(work, f)
        open(path, "w").write("0,1,1\n")
        if f.endswith(".npy"):
            np.save(path, np.array([[0, 1, 1.0]]))
        model = os.path.join(work, "m_" + f.replace(".", "_") + ".neuro")
        open(model, "w").write(MODEL.format(f=f))
        sim = os.path.join(work, "sim_" + f.replace(".", "_"))
        if subprocess.run([neuroc, model, "--backend", "c", "-o", sim]).returncode != 0:
            print("FAIL  neuroc " + model)
            return 1
        if f.endswith(".csv"):
            for text, expect in CSV_CASES:
                open(path, "w").write(text)
                run(sim, f, expect)
        else:
            for write, expect in npy_cases(path):
                write()
                run(sim, f, expect)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
