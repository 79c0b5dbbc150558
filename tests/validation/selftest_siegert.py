#!/usr/bin/env python3
"""Self-test of the mean-field reference (siegert.py) against a Monte Carlo simulation of the
same diffusion process (an Ornstein-Uhlenbeck membrane with threshold, reset and refractory
period, Euler-Maruyama at dt 0.01 ms, 30 s), which it must match within 5 % in rate and CV.
Also: the Poisson limit (far below threshold, no refractoriness) has CV 1."""
import math
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import siegert  # noqa: E402


def monte_carlo(mu, sigma, tau, theta, v_r, tau_rp, t_end=60000.0, dt=0.01, seed=5):
    rng = random.Random(seed)
    a = sigma * math.sqrt(dt / tau)
    v, hold, last, isis = v_r, 0, None, []
    nref = int(round(tau_rp / dt))
    for k in range(int(t_end / dt)):
        if hold:
            hold -= 1
            continue
        v += dt * (mu - v) / tau + a * rng.gauss(0.0, 1.0)
        if v >= theta:
            t = k * dt
            if last is not None:
                isis.append(t - last)
            last, v, hold = t, v_r, nref
    m = sum(isis) / len(isis)
    sd = math.sqrt(sum((x - m) ** 2 for x in isis) / len(isis))
    return 1.0 / m, sd / m


def main():
    fails = 0
    case = (21.0, 7.69, 20.0, 20.0, 10.0, 2.0)     # Brunel state C operating point
    r_mc, cv_mc = monte_carlo(*case)
    r_th = siegert.siegert(*case)
    cv_th = siegert.siegert_cv(*case)
    for what, a, b in (("rate", r_th, r_mc), ("CV", cv_th, cv_mc)):
        ok = abs(a - b) <= 0.05 * b
        fails += not ok
        print("[siegert] %s %s: theory %.4g, Monte Carlo %.4g" % ("ok  " if ok else "FAIL", what, a, b))
    cv_p = siegert.siegert_cv(0.0, 5.0, 20.0, 20.0, 10.0, 0.0)
    ok = abs(cv_p - 1.0) < 0.01
    fails += not ok
    print("[siegert] %s Poisson-limit CV: %.4f (expected 1)" % ("ok  " if ok else "FAIL", cv_p))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
