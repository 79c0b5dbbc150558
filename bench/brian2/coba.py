"""COBA in Brian2, in the form of the benchmark's Brian script (Brette et al. 2007,
Brian examples/misc/COBA.py, as Brian2 writes it): the peer of examples/coba.neuro. Same
network, dt (0.1 ms), duration (1 s), connectivity (p = 0.02), initial state and
recordings (all spikes, v of neurons 0, 1 and 3200 every step). Conductances are in units
of g_L, as in the script; Brian2 picks its integrator (exponential Euler: v is linear given
the conductances). build() makes the network; bench/brian2/peer.py runs it."""
from brian2 import (NeuronGroup, SpikeMonitor, StateMonitor, Synapses, mV, ms, second)

DURATION = 1 * second


def build():
    taum = 20 * ms
    taue = 5 * ms
    taui = 10 * ms
    Vt = -50 * mV
    Vr = -60 * mV
    El = -60 * mV
    Ee = 0 * mV
    Ei = -80 * mV
    eqs = '''
    dv/dt = (ge*(Ee-v)+gi*(Ei-v)-(v-El))/taum : volt (unless refractory)
    dge/dt = -ge/taue : 1
    dgi/dt = -gi/taui : 1
    '''
    P = NeuronGroup(4000, eqs, threshold='v>Vt', reset='v = Vr', refractory=5 * ms,
                    namespace=dict(taum=taum, taue=taue, taui=taui, Vt=Vt, Vr=Vr, El=El,
                                   Ee=Ee, Ei=Ei))
    P.v = '(randn()*5 - 5)*mV + El'
    P.ge = 'randn()*1.5 + 4'
    P.gi = 'randn()*12 + 20'
    we = 6. / 10.   # excitatory synaptic weight (in units of g_L)
    wi = 67. / 10.  # inhibitory synaptic weight
    Ce = Synapses(P, P, on_pre='ge += we', namespace=dict(we=we))
    Ci = Synapses(P, P, on_pre='gi += wi', namespace=dict(wi=wi))
    Ce.connect('i<3200', p=0.02)
    Ci.connect('i>=3200', p=0.02)
    spikes = SpikeMonitor(P)
    volts = StateMonitor(P, 'v', record=[0, 1, 3200])
    return [P, Ce, Ci, spikes, volts], spikes, 4000
