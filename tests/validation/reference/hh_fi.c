/* hh_fi.c -- independent reference for the f-I curves of the stdlib HH (Hodgkin & Huxley
 * 1952) and TraubMiles (COBAHH) neurons: classic RK4 at a fine step, spikes at upward
 * crossings of the threshold (0 mV for HH, -20 mV for TraubMiles) located by linear
 * interpolation. Written from the published equations, sharing no code with neuroc.
 *
 * usage: hh_fi hh|traub DT_MS T0_MS T1_MS I1 [I2 ...]
 *   HH currents in uA/cm^2, TraubMiles currents in pA. Prints one line per current:
 *   "I count first_spike_ms" with count the spikes in [T0, T1).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* x / (1 - exp(-x / k)) * ... written through a stable helper: x / (exp(x) - 1) -> 1 at 0 */
static double xexpm1(double x) { return fabs(x) < 1e-7 ? 1.0 - x / 2.0 : x / expm1(x); }

typedef struct { double v, m, h, n; } st;

static int traub;
static double I_app;

static void rates(double v, double *am, double *bm, double *ah, double *bh, double *an, double *bn)
{
    if (!traub) {
        *am = 1.0 * xexpm1(-(v + 40.0) / 10.0);          /* 0.1 (v+40) / (1 - e^{-(v+40)/10}) */
        *bm = 4.0 * exp(-(v + 65.0) / 18.0);
        *ah = 0.07 * exp(-(v + 65.0) / 20.0);
        *bh = 1.0 / (1.0 + exp(-(v + 35.0) / 10.0));
        *an = 0.1 * xexpm1(-(v + 55.0) / 10.0);           /* 0.01 (v+55) / (1 - e^{-(v+55)/10}) */
        *bn = 0.125 * exp(-(v + 65.0) / 80.0);
    } else {
        double u = v + 63.0;                              /* v - V_T */
        *am = 0.32 * 4.0 * xexpm1((13.0 - u) / 4.0);     /* 0.32 (13-u) / (e^{(13-u)/4} - 1) */
        *bm = 0.28 * 5.0 * xexpm1((u - 40.0) / 5.0);     /* 0.28 (u-40) / (e^{(u-40)/5} - 1) */
        *ah = 0.128 * exp((17.0 - u) / 18.0);
        *bh = 4.0 / (1.0 + exp((40.0 - u) / 5.0));
        *an = 0.032 * 5.0 * xexpm1((15.0 - u) / 5.0);
        *bn = 0.5 * exp((10.0 - u) / 40.0);
    }
}

static st deriv(st s)
{
    double am, bm, ah, bh, an, bn;
    st d;
    rates(s.v, &am, &bm, &ah, &bh, &an, &bn);
    d.m = am * (1 - s.m) - bm * s.m;
    d.h = ah * (1 - s.h) - bh * s.h;
    d.n = an * (1 - s.n) - bn * s.n;
    if (!traub) {   /* uA/cm^2, uF/cm^2: dV/dt in mV/ms */
        double ii = 120.0 * s.m * s.m * s.m * s.h * (s.v - 50.0) + 36.0 * pow(s.n, 4) * (s.v + 77.0) +
                    0.3 * (s.v + 54.387);
        d.v = (I_app - ii) / 1.0;
    } else {        /* nS, mV, pA, pF */
        double ii = 10.0 * (s.v + 60.0) + 20000.0 * s.m * s.m * s.m * s.h * (s.v - 50.0) +
                    6000.0 * pow(s.n, 4) * (s.v + 90.0);
        d.v = (I_app - ii) / 200.0;
    }
    return d;
}

static st axpy(st a, double k, st b)
{
    st r = {a.v + k * b.v, a.m + k * b.m, a.h + k * b.h, a.n + k * b.n};
    return r;
}

int main(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: hh_fi hh|traub DT_MS T0_MS T1_MS I1 [I2 ...]\n");
        return 2;
    }
    traub = strcmp(argv[1], "traub") == 0;
    double dt = atof(argv[2]), t0 = atof(argv[3]), t1 = atof(argv[4]);
    double vth = traub ? -20.0 : 0.0;
    for (int k = 5; k < argc; k++) {
        I_app = atof(argv[k]);
        st s;
        double am, bm, ah, bh, an, bn;
        s.v = traub ? -60.0 : -65.0;
        rates(s.v, &am, &bm, &ah, &bh, &an, &bn);
        s.m = am / (am + bm);
        s.h = ah / (ah + bh);
        s.n = an / (an + bn);
        long steps = lround(t1 / dt);
        int count = 0;
        double first = -1;
        for (long i = 0; i < steps; i++) {
            st k1 = deriv(s), k2 = deriv(axpy(s, dt / 2, k1)), k3 = deriv(axpy(s, dt / 2, k2)),
               k4 = deriv(axpy(s, dt, k3));
            st ns = {s.v + dt / 6 * (k1.v + 2 * k2.v + 2 * k3.v + k4.v),
                     s.m + dt / 6 * (k1.m + 2 * k2.m + 2 * k3.m + k4.m),
                     s.h + dt / 6 * (k1.h + 2 * k2.h + 2 * k3.h + k4.h),
                     s.n + dt / 6 * (k1.n + 2 * k2.n + 2 * k3.n + k4.n)};
            if (s.v < vth && ns.v >= vth) {
                double tc = i * dt + dt * (vth - s.v) / (ns.v - s.v);
                if (first < 0)
                    first = tc;
                if (tc >= t0 && tc < t1)
                    count++;
            }
            s = ns;
        }
        printf("%.6g %d %.6f\n", I_app, count, first);
    }
    return 0;
}
