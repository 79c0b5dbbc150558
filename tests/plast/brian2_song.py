# Reference statistics for tests/plast/check_song.py (not run by CI: CI does not depend on
# Brian2). Brian2 2.9.0 with numpy < 2.3 in a venv; the cython target; about 3-5 min a seed on
# 2 shared cores:  for s in 1 2 3 4 5 6; do python3 brian2_song.py $s 100; done
# Prints one RESULT line per seed: the values of BRIAN2 in check_song.py.
import sys, time
from brian2 import *
seed_ = int(sys.argv[1]); dur = float(sys.argv[2]) if len(sys.argv) > 2 else 100
prefs.codegen.target = 'cython'
seed(seed_)
N = 1000; taum = 10*ms; taupre = 20*ms; taupost = taupre; Ee = 0*mV; vt = -54*mV; vr = -60*mV
El = -74*mV; taue = 5*ms; F = 15*Hz; gmax = .01; dApre = .01
dApost = -dApre * taupre / taupost * 1.05
dApost *= gmax; dApre *= gmax
eqs_neurons = '''
dv/dt = (ge * (Ee-v) + El - v) / taum : volt
dge/dt = -ge / taue : 1
'''
poisson_input = PoissonGroup(N, rates=F)
neurons = NeuronGroup(1, eqs_neurons, threshold='v>vt', reset='v = vr', method='euler')
S = Synapses(poisson_input, neurons,
             '''w : 1
                dApre/dt = -Apre / taupre : 1 (event-driven)
                dApost/dt = -Apost / taupost : 1 (event-driven)''',
             on_pre='''ge += w
                    Apre += dApre
                    w = clip(w + Apost, 0, gmax)''',
             on_post='''Apost += dApost
                     w = clip(w + Apre, 0, gmax)''',
             )
S.connect()
S.w = 'rand() * gmax'
sm = SpikeMonitor(neurons)
t0 = time.time()
run(dur*second)
st = np.asarray(sm.t / second)
w = np.asarray(S.w) / gmax
print("seed %d dur %g wall %.0f s" % (seed_, dur, time.time() - t0))
print("RESULT seed=%d rate_all=%.4f rate_last20=%.4f frac_lo=%.4f frac_hi=%.4f mean_w=%.4f"
      % (seed_, len(st) / dur, np.sum(st >= dur - 20) / 20.0, np.mean(w < 0.1), np.mean(w > 0.9), np.mean(w)))
np.save("brian2_w_%d.npy" % seed_, w)
