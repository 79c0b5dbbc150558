"""Helpers for the plasticity checkers: read recordings, report checks, decay traces.

Independent of neuroc: the rules are written here from their published definitions, in
continuous time, and fed with the spike times the simulator recorded.
"""

import json
import math
import os
import sys

import numpy as np


class Checker:
    def __init__(self, name):
        self.name = name
        self.failed = 0

    def check(self, ok, what, detail=""):
        print("%s: %s: %s%s" % (self.name, "ok" if ok else "FAILED", what, (" (" + detail + ")") if detail else ""))
        if not ok:
            self.failed += 1

    def status(self):
        print("%s: %s" % (self.name, "PASSED" if not self.failed else "%d check(s) FAILED" % self.failed))
        return 1 if self.failed else 0


def outdir():
    if len(sys.argv) != 2:
        sys.exit("usage: %s OUTDIR" % os.path.basename(sys.argv[0]))
    return sys.argv[1]


def spikes(out, name):
    """{neuron index: sorted spike times (ms)} from a spike .csv recording."""
    d = {}
    with open(os.path.join(out, name)) as f:
        next(f)
        for line in f:
            t, i = line.split(",")
            d.setdefault(int(i), []).append(float(t))
    return d


def last_row(out, name, var="w"):
    """The last sample of per-synapse state `var` in a .npy recording, and its time."""
    a = np.load(os.path.join(out, name))
    return a[var][-1].astype(float), float(a["t"][-1])


def manifest(out):
    with open(os.path.join(out, "manifest.json")) as f:
        return json.load(f)


def clip(w, lo, hi):
    return min(max(w, lo), hi)


class Trace:
    """A trace that decays exponentially with tau between jumps."""

    def __init__(self, tau):
        self.tau, self.v, self.t = tau, 0.0, 0.0

    def at(self, t):
        self.v *= math.exp(-(t - self.t) / self.tau)
        self.t = t
        return self.v
