#!/usr/bin/env python3
"""Independent references for the stdlib Izhikevich neuron, written for the validation suite
from the published model; they share no code with neuroc.

  v' = 0.04 v^2 + 5 v + 140 - u + I,  u' = a (b v - u)   (v in mV, t in ms)
  v >= 30 mV -> v = c, u += d;  v(0) = -65 mV, u(0) = b v(0)

* rk4(): the continuous model, classical RK4 at 0.005 ms, the reset tested after each step
  (halving the step changes no count of the patterns below and moves none of their first
  four spikes by more than 0.025 ms; later spikes drift by up to 0.28 ms in 500 ms, FS,
  since each reset comes at the end of its step).
* program(): the MATLAB program of Izhikevich (2003), IEEE Trans Neural Netw 14:1569, for one
  neuron under a constant I, line by line: each millisecond t, first the spike test
  (fired = v >= 30 -> firing time t, v = c, u += d), then v += 0.5 (...) twice, then
  u += a (b v - u).

Patterns: Izhikevich (2003) Fig. 2 with the DC input I = 10 of the figure: regular spiking
(RS), intrinsically bursting (IB), chattering (CH), fast spiking (FS), low-threshold spiking
(LTS). (a 1/ms, b, c mV, d mV.)
"""

PATTERNS = [
    ("RS",  0.02, 0.2,  -65, 8),
    ("IB",  0.02, 0.2,  -55, 4),
    ("CH",  0.02, 0.2,  -50, 2),
    ("FS",  0.10, 0.2,  -65, 2),
    ("LTS", 0.02, 0.25, -65, 2),
]
I_DC = 10.0


def rk4(p, t_end, h=0.005, every=1.0):
    """-> (spike times, {t: v} every `every` ms) of the continuous model."""
    _, a, b, c, d = p
    v, u = -65.0, b * -65.0
    spikes, trace = [], {}
    rec = int(round(every / h))
    for s in range(int(round(t_end / h))):
        k1v, k1u = 0.04 * v * v + 5 * v + 140 - u + I_DC, a * (b * v - u)
        v2, u2 = v + 0.5 * h * k1v, u + 0.5 * h * k1u
        k2v, k2u = 0.04 * v2 * v2 + 5 * v2 + 140 - u2 + I_DC, a * (b * v2 - u2)
        v3, u3 = v + 0.5 * h * k2v, u + 0.5 * h * k2u
        k3v, k3u = 0.04 * v3 * v3 + 5 * v3 + 140 - u3 + I_DC, a * (b * v3 - u3)
        v4, u4 = v + h * k3v, u + h * k3u
        k4v, k4u = 0.04 * v4 * v4 + 5 * v4 + 140 - u4 + I_DC, a * (b * v4 - u4)
        v += h / 6.0 * (k1v + 2 * k2v + 2 * k3v + k4v)
        u += h / 6.0 * (k1u + 2 * k2u + 2 * k3u + k4u)
        if v >= 30.0:
            spikes.append((s + 1) * h)
            v, u = c, u + d
        if (s + 1) % rec == 0:
            trace[(s + 1) // rec] = v
    return spikes, trace


def program(p, t_ms):
    """-> firing times (ms, the program's t) for t = 1 .. t_ms."""
    _, a, b, c, d = p
    v, u = -65.0, b * -65.0
    firings = []
    for t in range(1, t_ms + 1):
        if v >= 30:
            firings.append(t)
            v = c
            u = u + d
        v = v + 0.5 * (0.04 * v ** 2 + 5 * v + 140 - u + I_DC)
        v = v + 0.5 * (0.04 * v ** 2 + 5 * v + 140 - u + I_DC)
        u = u + a * (b * v - u)
    return firings


if __name__ == "__main__":
    for p in PATTERNS:
        sp, _ = rk4(p, 500.0)
        print("%-4s rk4 %3d spikes: %s" % (p[0], len(sp), " ".join("%.2f" % t for t in sp[:10])))
        print("%-4s program %3d spikes: %s" % (p[0], len(program(p, 500)), program(p, 500)[:10]))
