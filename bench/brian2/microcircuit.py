"""The cortical microcircuit (Potjans & Diesmann 2014) in Brian2: the peer of
examples/microcircuit.neuro in the threads table (bench/run.sh cpu, SCALING=microcircuit_*).
Its numbers are read from that file, so the two cannot drift apart: population sizes, initial
V per population, every projection's connection probability p (Table 5), weights N(w, 0.1 |w|)
kept at their sign, delays N(1.5, 0.75) ms from E and N(0.75, 0.375) ms from I (at least
0.1 ms), the Poisson drive (K_ext inputs at 8 Hz, each a PSC of w_E), LIF neurons with
exponential current synapses (tau_syn 0.5 ms), dt 0.1 ms, 1 s, every spike recorded.

One difference of form, none of work: neuroc draws fixed_total(K) synapses per projection
with multapses; Brian2 draws each pair with probability K / (N_pre N_post) (`connect(p=...)`,
generated in its C++), the same expected number of synapses, so the same work per spike.
Brian2 picks its own integrator (exact: the equations are linear). SCALE multiplies every
population size and keeps the in-degrees, as neuroc's `scale` does; peer.py sets it from the
model name (microcircuit_0.1 -> 0.1)."""
import math
import os
import re

from brian2 import (NeuronGroup, PoissonInput, SpikeMonitor, Synapses, Hz, ms, mV, pA, pF, nS,
                    second)

# BRIAN2_MC_MS shortens the run (the threads table compares RTFs; at full scale Brian2's
# build and construction take minutes of their own)
DURATION = float(os.environ.get("BRIAN2_MC_MS", "1000")) / 1000 * second
SCALE = 1.0
SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "microcircuit.neuro")
POPS = ["L23E", "L23I", "L4E", "L4I", "L5E", "L5I", "L6E", "L6I"]


def read_model():
    text = open(SRC).read()
    sizes = {p: int(re.search(r"const N_%s = round\((\d+) \* scale\)" % p, text).group(1)) for p in POPS}
    v0 = [(float(a), float(b)) for a, b in re.findall(r"(-?[\d.]+) mV \+ ([\d.]+) mV \* normal\(\)", text)]
    projs = []
    for pre, post, body in re.findall(r"projection \w+ = (\w+) -> (\w+) \{(.*?)\n\}", text, re.S):
        p = -float(re.search(r"log1p\((-?[\d.]+)\)", body).group(1))
        mult = 2.0 if re.search(r"w\s+= max\(2 \* w_E", body) else 1.0
        projs.append((pre, post, p, mult))
    kext = {p: int(k) for p, k in re.findall(r"stimulus ext_(\w+) .*poisson\(drive \* (\d+) \*", text)}
    return sizes, v0, projs, kext


def build():
    sizes, v0, projs, kext = read_model()
    n = {p: int(round(sizes[p] * SCALE)) for p in POPS}
    off, o = {}, 0
    for p in POPS:
        off[p], o = o, o + n[p]
    eqs = '''
    dV/dt = (g_L * (E_L - V) + I_syn) / C : volt (unless refractory)
    dI_syn/dt = -I_syn / tau_s : amp
    '''
    ns = dict(C=250 * pF, g_L=25 * nS, E_L=-65 * mV, tau_s=0.5 * ms)
    allp = NeuronGroup(o, eqs, threshold='V >= -50*mV', reset='V = -65*mV', refractory=2 * ms,
                       method='exact', namespace=ns)
    groups = {p: allp[off[p]:off[p] + n[p]] for p in POPS}
    for p, (mu, sd) in zip(POPS, v0):
        groups[p].V = '(%r + %r * randn()) * mV' % (mu, sd)
    objs = [allp]
    w_E = 87.81 * pA
    for pre, post, p, mult in projs:
        k = round(SCALE * math.log1p(-p) / math.log1p(-1.0 / (float(sizes[pre]) * sizes[post])))
        exc = pre.endswith("E")
        w = mult * w_E if exc else -4 * w_E
        s = Synapses(groups[pre], groups[post], 'w : amp', on_pre='I_syn_post += w',
                     namespace=dict(w0=w, sd=0.1 * abs(w)))
        s.connect(p=min(1.0, k / (float(n[pre]) * n[post])))
        s.w = ('clip(w0 + sd * randn(), 0*pA, inf*pA)' if exc else
               'clip(w0 + sd * randn(), -inf*pA, 0*pA)')
        s.delay = ('clip(1.5*ms + 0.75*ms * randn(), 0.1*ms, inf*ms)' if exc else
                   'clip(0.75*ms + 0.375*ms * randn(), 0.1*ms, inf*ms)')
        objs.append(s)
    for p in POPS:
        objs.append(PoissonInput(groups[p], 'I_syn', kext[p], 8 * Hz, weight=w_E))
    spikes = SpikeMonitor(allp)
    objs.append(spikes)
    return objs, spikes, o
