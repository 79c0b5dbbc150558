"""Mean-field (Siegert) firing rate of a LIF neuron driven by Gaussian white noise, and the
self-consistent rate of the Brunel (2000) network: an independent reference in pure Python.

nu = 1 / (tau_rp + tau sqrt(pi) int_{y_r}^{y_th} e^{u^2} (1 + erf u) du),
y = (V - mu) / sigma, mu = C_E J tau (nu_ext + nu (1 - gamma g)),
sigma^2 = J^2 C_E tau (nu_ext + nu (1 + gamma g^2)), gamma = C_I / C_E  (Brunel 2000, eqs. 21-22).
Times in ms, rates in 1/ms, voltages in mV.
"""
import math


def _integrand(u):
    # e^{u^2} (1 + erf u); for u < 0 use erfc(-u) e^{u^2} = erfcx(-u), computed stably
    if u >= 0:
        return math.exp(u * u) * (1.0 + math.erf(u))
    x = -u
    if x < 5.0:
        return math.exp(u * u) * math.erfc(x)
    # asymptotic erfcx(x) = 1/(x sqrt(pi)) (1 - 1/(2x^2) + 3/(4x^4) - 15/(8x^6))
    x2 = x * x
    return (1.0 - 0.5 / x2 + 0.75 / x2 ** 2 - 1.875 / x2 ** 3) / (x * math.sqrt(math.pi))


def siegert(mu, sigma, tau, theta, v_r, tau_rp, n=4000):
    """Output rate (1/ms) for mean input mu and noise sigma (mV): Simpson's rule on [y_r, y_th]."""
    a = (v_r - mu) / sigma
    b = (theta - mu) / sigma
    h = (b - a) / n
    s = _integrand(a) + _integrand(b)
    for k in range(1, n):
        s += (4 if k % 2 else 2) * _integrand(a + k * h)
    integral = s * h / 3.0
    return 1.0 / (tau_rp + tau * math.sqrt(math.pi) * integral)


def siegert_cv(mu, sigma, tau, theta, v_r, tau_rp, n=4000):
    """ISI CV of the same process (Brunel 2000, eq. A.9 / Tuckwell):
    CV^2 = 2 pi (nu tau)^2 int_{y_r}^{y_th} e^{x^2} int_{-inf}^{x} e^{y^2} (1 + erf y)^2 dy dx.
    Trapezoid rule on a grid from y = max(min(y_r, -10), -25) (the inner integrand decays
    like e^{-y^2}; below -25 the outer integrand is < 1e-5 and its integral is neglected)."""
    nu = siegert(mu, sigma, tau, theta, v_r, tau_rp)
    a = (v_r - mu) / sigma
    b = (theta - mu) / sigma
    a = max(a, -25.0)
    lo = min(a, -10.0)
    h = (b - lo) / n
    inner = 0.0
    outer = 0.0
    prev_f = None
    prev_g = None
    for k in range(n + 1):
        y = lo + k * h
        # e^{y^2} (1 + erf y)^2 = erfcx(-y)^2 e^{-y^2} for y < 0
        f = _integrand(y) ** 2 * math.exp(-y * y)
        if prev_f is not None:
            inner += 0.5 * h * (f + prev_f)
        prev_f = f
        g = math.exp(y * y) * inner if y >= a else 0.0
        if prev_g is not None and y > a:
            outer += 0.5 * h * (g + prev_g)
        prev_g = g
    return math.sqrt(2 * math.pi * (nu * tau) ** 2 * outer)


def brunel_point(g, eta, J=0.1, C_E=1000, C_I=250, tau=20.0, theta=20.0, v_r=10.0, tau_rp=2.0):
    """(rate in Hz, ISI CV) of the self-consistent stationary state."""
    gamma = C_I / C_E
    nu_ext = eta * theta / (J * C_E * tau)
    nu = brunel_rate(g, eta, J, C_E, C_I, tau, theta, v_r, tau_rp) / 1000.0
    mu = C_E * J * tau * (nu_ext + nu * (1 - gamma * g))
    sigma = math.sqrt(J * J * C_E * tau * (nu_ext + nu * (1 + gamma * g * g)))
    return nu * 1000.0, siegert_cv(mu, sigma, tau, theta, v_r, tau_rp)


def brunel_rate(g, eta, J=0.1, C_E=1000, C_I=250, tau=20.0, theta=20.0, v_r=10.0, tau_rp=2.0):
    """Self-consistent stationary rate (Hz) of Brunel's network (damped fixed-point iteration)."""
    gamma = C_I / C_E
    nu_thr = theta / (J * C_E * tau)
    nu_ext = eta * nu_thr
    nu = nu_ext
    for _ in range(500):
        mu = C_E * J * tau * (nu_ext + nu * (1 - gamma * g))
        sigma = math.sqrt(J * J * C_E * tau * (nu_ext + nu * (1 + gamma * g * g)))
        new = siegert(mu, sigma, tau, theta, v_r, tau_rp, n=800)
        if abs(new - nu) < 1e-9:
            break
        nu = 0.8 * nu + 0.2 * new
    return nu * 1000.0


if __name__ == "__main__":
    for g, eta in ((5, 2), (3, 2), (6, 4), (4.5, 0.9)):
        print("g %.1f eta %.1f: %.2f Hz, CV %.3f" % ((g, eta) + brunel_point(g, eta)))
