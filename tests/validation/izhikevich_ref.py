#!/usr/bin/env python3
"""Independent pure-Python re-implementation of examples/izhikevich.neuro (Izhikevich 2003,
1000 neurons) under neuroc's step contract, with Python's own random numbers:

  each 1 ms step: I = (weights of the spikes of the previous step) + thalamic noise
  (5 N(0,1) for E, 2 N(0,1) for I); two Euler half-steps of 0.5 ms for V with U held, then
  one Euler step of 1 ms for U with the new V (the 2003 program's scheme, the stdlib
  Izhikevich); then if V >= 30 mV: V = c, U += d.

`python3 izhikevich_ref.py [seeds...]` prints the mean E and I rates (Hz) over 1 s per seed;
check_izhikevich.py holds the numbers this gives for seeds 1-4.
"""
import random
import sys


def run(seed, n_e=800, n_i=200, steps=1000):
    rng = random.Random(seed)
    n = n_e + n_i
    a, b, c, d = [], [], [], []
    for k in range(n):
        r = rng.random()
        if k < n_e:
            a.append(0.02); b.append(0.2); c.append(-65 + 15 * r * r); d.append(8 - 6 * r * r)
        else:
            a.append(0.02 + 0.08 * r); b.append(0.25 - 0.05 * r); c.append(-65.0); d.append(2.0)
    # column k: weights from neuron k to all targets
    w = [[(rng.uniform(0, 0.5) if k < n_e else rng.uniform(-1, 0)) for _ in range(n)]
         for k in range(n)]
    v = [-65.0] * n
    u = [b[k] * -65.0 for k in range(n)]
    fired = []
    counts = [0, 0]
    for _ in range(steps):
        inp = [5 * rng.gauss(0, 1) if k < n_e else 2 * rng.gauss(0, 1) for k in range(n)]
        for f in fired:
            col = w[f]
            for k in range(n):
                inp[k] += col[k]
        fired = []
        for k in range(n):
            vk, uk, ik = v[k], u[k], inp[k]
            vk += 0.5 * (0.04 * vk * vk + 5 * vk + 140 - uk + ik)
            vk += 0.5 * (0.04 * vk * vk + 5 * vk + 140 - uk + ik)
            uk += a[k] * (b[k] * vk - uk)
            if vk >= 30:
                vk = c[k]
                uk += d[k]
                fired.append(k)
                counts[0 if k < n_e else 1] += 1
            v[k], u[k] = vk, uk
    return counts[0] / n_e * 1000.0 / steps, counts[1] / n_i * 1000.0 / steps


if __name__ == "__main__":
    seeds = [int(s) for s in sys.argv[1:]] or [1, 2, 3, 4]
    for s in seeds:
        re_, ri = run(s)
        print("seed %d: E %.2f Hz, I %.2f Hz" % (s, re_, ri))
