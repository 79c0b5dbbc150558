"""Helpers the stdlib neuron checkers share (check_adex.py, check_izhikevich.py): interspike
intervals, their coefficient of variation, and the check of the first spike times."""
import math


def isis(t):
    return [b - a for a, b in zip(t, t[1:])]


def cv(x):
    if len(x) < 2:
        return float("nan")
    m = sum(x) / len(x)
    return math.sqrt(sum((y - m) ** 2 for y in x) / len(x)) / m


def check_first_spikes(chk, name, got, ref, dt, need):
    """The first min(4, ...) spike times: spike j (1, 2, ...) within j (dt + 0.05 ms) of the
    reference's (each spike is reported at the end of its step and reset there, late by
    [0, dt), and the delay carries over); `need` spikes must be compared."""
    k = min(4, len(ref), len(got))
    errs = [g - r for g, r in zip(got[:k], ref[:k])]
    chk.check(k == need and all(abs(e) <= (j + 1) * (dt + 0.05) for j, e in enumerate(errs)),
              "%s: first %d spike times" % (name, k),
              " ".join("%.3f" % x for x in ref[:k]) + " (spike j +- j * %.2f ms)" % (dt + 0.05),
              " ".join("%.3f" % x for x in got[:k]) + " (errors %s)" % " ".join("%+.3f" % e for e in errs))
