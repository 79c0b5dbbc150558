"""Spike-train statistics shared by the validation checkers (pure Python, standard library)."""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
import nrtio  # noqa: E402,F401


def by_neuron(t, idx, lo, hi, t0=0.0, t1=float("inf")):
    """Spike times per neuron for neurons lo <= i < hi (re-indexed from 0) within [t0, t1)."""
    d = {}
    for tt, ii in zip(t, idx):
        if lo <= ii < hi and t0 <= tt < t1:
            d.setdefault(ii - lo, []).append(tt)
    for v in d.values():
        v.sort()
    return d


def mean_rate(trains, n, duration_ms):
    """Population rate in Hz: spikes / (neurons * seconds)."""
    return sum(len(v) for v in trains.values()) / (n * duration_ms / 1000.0)


def mean_cv(trains, min_spikes=5):
    """Mean ISI coefficient of variation over neurons with at least min_spikes spikes."""
    cvs = []
    for v in trains.values():
        if len(v) < min_spikes:
            continue
        isi = [b - a for a, b in zip(v, v[1:])]
        m = sum(isi) / len(isi)
        var = sum((x - m) ** 2 for x in isi) / len(isi)
        if m > 0:
            cvs.append(math.sqrt(var) / m)
    return (sum(cvs) / len(cvs) if cvs else float("nan")), len(cvs)


def synchrony(trains, n, t0, t1, bin_ms):
    """Golomb's chi: sqrt(var(population mean count) / mean(var(individual count))) in bins
    of bin_ms; ~1/sqrt(n) for independent neurons, 1 for full synchrony."""
    nb = int((t1 - t0) / bin_ms)
    pop = [0.0] * nb
    var_sum = 0.0
    for k in range(n):
        c = [0] * nb
        for tt in trains.get(k, ()):
            b = int((tt - t0) / bin_ms)
            if 0 <= b < nb:
                c[b] += 1
        m = sum(c) / nb
        var_sum += sum((x - m) ** 2 for x in c) / nb
        for b in range(nb):
            pop[b] += c[b]
    pm = [x / n for x in pop]
    mm = sum(pm) / nb
    vpop = sum((x - mm) ** 2 for x in pm) / nb
    vind = var_sum / n
    return math.sqrt(vpop / vind) if vind > 0 else float("nan")


def population_fano(t, idx, lo, hi, t0, t1, bin_ms):
    """Fano factor (variance / mean) of the population spike count in bins of bin_ms."""
    nb = int((t1 - t0) / bin_ms)
    c = [0] * nb
    for tt, ii in zip(t, idx):
        if lo <= ii < hi:
            b = int((tt - t0) / bin_ms)
            if 0 <= b < nb:
                c[b] += 1
    m = sum(c) / nb
    return (sum((x - m) ** 2 for x in c) / nb) / m if m > 0 else float("nan")
