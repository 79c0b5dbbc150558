"""COBAHH in Brian2, Brian2's own example (examples/COBAHH.py, benchmark 3 of Brette et al.
2007): the peer of examples/cobahh.neuro. 4000 Traub & Miles HH neurons (3200 E, 800 I),
exponential conductances, p = 0.02, exponential Euler at dt 0.1 ms for 1 s; the same
initial state and recordings (all spikes, v of neurons 0, 1 and 3200 every step).
build() makes the network; bench/brian2/peer.py runs it."""
from brian2 import (NeuronGroup, SpikeMonitor, StateMonitor, Synapses, cm, mV, ms, msiemens, nS,
                    second, siemens, ufarad, umetre)

DURATION = 1 * second


def build():
    area = 20000 * umetre**2
    ns = dict(Cm=(1 * ufarad * cm**-2) * area, gl=(5e-5 * siemens * cm**-2) * area,
              El=-60 * mV, EK=-90 * mV, ENa=50 * mV,
              g_na=(100 * msiemens * cm**-2) * area, g_kd=(30 * msiemens * cm**-2) * area,
              VT=-63 * mV, taue=5 * ms, taui=10 * ms, Ee=0 * mV, Ei=-80 * mV)
    eqs = '''
    dv/dt = (gl*(El-v)+ge*(Ee-v)+gi*(Ei-v)-
             g_na*(m*m*m)*h*(v-ENa)-
             g_kd*(n*n*n*n)*(v-EK))/Cm : volt
    dm/dt = alpha_m*(1-m)-beta_m*m : 1
    dn/dt = alpha_n*(1-n)-beta_n*n : 1
    dh/dt = alpha_h*(1-h)-beta_h*h : 1
    dge/dt = -ge*(1./taue) : siemens
    dgi/dt = -gi*(1./taui) : siemens
    alpha_m = 0.32*(mV**-1)*4*mV/exprel((13*mV-v+VT)/(4*mV))/ms : Hz
    beta_m = 0.28*(mV**-1)*5*mV/exprel((v-VT-40*mV)/(5*mV))/ms : Hz
    alpha_h = 0.128*exp((17*mV-v+VT)/(18*mV))/ms : Hz
    beta_h = 4./(1+exp((40*mV-v+VT)/(5*mV)))/ms : Hz
    alpha_n = 0.032*(mV**-1)*5*mV/exprel((15*mV-v+VT)/(5*mV))/ms : Hz
    beta_n = .5*exp((10*mV-v+VT)/(40*mV))/ms : Hz
    '''
    P = NeuronGroup(4000, eqs, threshold='v>-20*mV', refractory=3 * ms,
                    method='exponential_euler', namespace=ns)
    Pe = P[:3200]
    Pi = P[3200:]
    Ce = Synapses(Pe, P, on_pre='ge+=we', namespace=dict(we=6 * nS))
    Ci = Synapses(Pi, P, on_pre='gi+=wi', namespace=dict(wi=67 * nS))
    Ce.connect(p=0.02)
    Ci.connect(p=0.02)
    P.v = 'El + (randn() * 5 - 5)*mV'
    P.ge = '(randn() * 1.5 + 4) * 10.*nS'
    P.gi = '(randn() * 12 + 20) * 10.*nS'
    spikes = SpikeMonitor(P)
    volts = StateMonitor(P, 'v', record=[0, 1, 3200])
    return [P, Ce, Ci, spikes, volts], spikes, 4000
