"""HH batch in Brian2: the peer of the suite's hh_1e4 row (examples/hh_batch.neuro for 50 ms,
5,000 steps). 10,000 independent Hodgkin-Huxley neurons (stdlib HH: squid axon per unit
area), neuron i driven by the DC current 50 uA/cm^2 * i / N, at rest (-65 mV, gates at
steady state) at t = 0, integrated with RK4 at dt 0.01 ms; spikes at upward crossings of
0 mV (Brian2's threshold with `refractory` = the same condition). The same rate functions
(exprel where the model has it). build() makes the network; bench/brian2/peer.py runs it."""
from brian2 import (NeuronGroup, SpikeMonitor, cm, mV, ms, msiemens, ufarad, uamp)

DURATION = 50 * ms
DT = 0.01 * ms


def build():
    N = 10000
    ns = dict(Cm=1 * ufarad / cm**2, gNa=120 * msiemens / cm**2, gK=36 * msiemens / cm**2,
              gL=0.3 * msiemens / cm**2, ENa=50 * mV, EK=-77 * mV, EL=-54.387 * mV,
              I_max=50 * uamp / cm**2, N=N)
    eqs = '''
    dv/dt = (I_ext - gNa*m**3*h*(v - ENa) - gK*n**4*(v - EK) - gL*(v - EL)) / Cm : volt
    dm/dt = a_m*(1 - m) - b_m*m : 1
    dh/dt = a_h*(1 - h) - b_h*h : 1
    dn/dt = a_n*(1 - n) - b_n*n : 1
    a_m = 1/exprel(-(v/mV + 40)/10)/ms : Hz
    b_m = 4*exp(-(v/mV + 65)/18)/ms : Hz
    a_h = 0.07*exp(-(v/mV + 65)/20)/ms : Hz
    b_h = 1/(1 + exp(-(v/mV + 35)/10))/ms : Hz
    a_n = 0.1/exprel(-(v/mV + 55)/10)/ms : Hz
    b_n = 0.125*exp(-(v/mV + 65)/80)/ms : Hz
    I_ext : amp/meter**2 (constant)
    '''
    G = NeuronGroup(N, eqs, threshold='v > 0*mV', refractory='v > 0*mV', method='rk4',
                    namespace=ns)
    G.v = -65 * mV
    G.m = 'a_m/(a_m + b_m)'
    G.h = 'a_h/(a_h + b_h)'
    G.n = 'a_n/(a_n + b_n)'
    G.I_ext = 'I_max*i/N'
    spikes = SpikeMonitor(G)
    return [G, spikes], spikes, N
