"""CUBA in Brian2, in the form of Brian2's own example (examples/CUBA.py): the peer of
examples/cuba.neuro. Same network, dt (0.1 ms), duration (1 s), connectivity (p = 0.02,
E -> all, I -> all), initial state, and the same recordings: all spikes and v of neurons
0, 1 and 3200 every step. build() makes the network; bench/brian2/peer.py runs it."""
from brian2 import (NeuronGroup, SpikeMonitor, StateMonitor, Synapses, mV, ms, second)

DURATION = 1 * second


def build():
    taum = 20 * ms
    taue = 5 * ms
    taui = 10 * ms
    Vt = -50 * mV
    Vr = -60 * mV
    El = -49 * mV
    eqs = '''
    dv/dt  = (ge+gi-(v-El))/taum : volt (unless refractory)
    dge/dt = -ge/taue : volt
    dgi/dt = -gi/taui : volt
    '''
    P = NeuronGroup(4000, eqs, threshold='v>Vt', reset='v = Vr', refractory=5 * ms,
                    method='exact', namespace=dict(taum=taum, taue=taue, taui=taui, Vt=Vt,
                                                   Vr=Vr, El=El))
    P.v = 'Vr + rand() * (Vt - Vr)'
    P.ge = 0 * mV
    P.gi = 0 * mV
    we = (60 * 0.27 / 10) * mV  # excitatory synaptic weight (voltage)
    wi = (-20 * 4.5 / 10) * mV  # inhibitory synaptic weight
    Ce = Synapses(P, P, on_pre='ge += we', namespace=dict(we=we))
    Ci = Synapses(P, P, on_pre='gi += wi', namespace=dict(wi=wi))
    Ce.connect('i<3200', p=0.02)
    Ci.connect('i>=3200', p=0.02)
    spikes = SpikeMonitor(P)
    volts = StateMonitor(P, 'v', record=[0, 1, 3200])
    return [P, Ce, Ci, spikes, volts], spikes, 4000
