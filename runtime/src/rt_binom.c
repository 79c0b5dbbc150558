/* rt_binom.c -- exact binomial variates from the keyed generator (nrt_philox.h), for the
 * row lengths of fixed_total connectivity (rt_conn.c, nrt_conn_total_rows).
 *
 * nrt_binomial(key0, stream, element, n, p) draws its uniforms from
 *     x = nrt_rng(key0, stream, element, c, 0, 1)     c = 0, 1, 2, ..
 * two per call (nrt_u01_53 of words 0-1, then 2-3), so a variate is a function of its key
 * alone. Site 1 keeps these draws apart from the connectivity draws of the same stream
 * (site 0). The method, with q = 1 - p and p <= 1/2 (else n - Binomial(n, q)):
 *   n p < 10   inversion (the sequential search from 0, f(x + 1) = f(x) (n - x) p / ((x + 1) q),
 *              f(0) = q^n): a uniform u, x the first index whose cumulative probability
 *              reaches u. The search stops at min(n, n p + 10 sqrt(n p q + 1)) and starts
 *              over with a new u beyond it (a tail of probability below 1e-20).
 *   n p >= 10  BTRS, transformed rejection with squeeze (W. Hoermann, "The generation of
 *              binomial random variates", J. Statist. Comput. Simul. 46 (1993) 101-110):
 *              k = floor((2a / us + b) u + c) from u uniform on (-1/2, 1/2], us = 1/2 - |u|,
 *              accepted at once inside the squeeze (us >= 0.07, v <= v_r), else when
 *              log(v alpha / (a / us^2 + b)) <= log(f(k) / f(m)), m the mode, the ratio of
 *              binomial probabilities written with Stirling's series (fc below) so that it
 *              keeps full precision for n up to 2^53. Both methods are exact up to rounding.
 * Everything runs on the host in double with the C library's log and sqrt: every back end
 * takes the counts from here, so they agree by construction.
 */
#include "rt_internal.h"
#include "nrt_philox.h"

#include <math.h>

typedef struct Unif {
    uint32_t key0, stream, element, c;
    int have;
    double spare;
} Unif;

/* The next uniform in (0, 1] of the variate's key. */
static double unif(Unif *g)
{
    nrt_u32x4 x;
    if (g->have) {
        g->have = 0;
        return g->spare;
    }
    x = nrt_rng(g->key0, g->stream, g->element, g->c++, 0, 1);
    g->spare = nrt_u01_53(x.v[2], x.v[3]);
    g->have = 1;
    return nrt_u01_53(x.v[0], x.v[1]);
}

/* log(k!) less its Stirling approximation (k + 1/2) log(k + 1) - (k + 1) + log(2 pi) / 2. */
static double fc(double k)
{
    const double k1 = k + 1, k1sq = k1 * k1;
    if (k <= 9)
        return lgamma(k1) - ((k + 0.5) * log(k1) - k1 + 0.91893853320467274178);
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / k1sq) / k1sq) / k1;
}

/* Inversion, n p < 10, p <= 1/2. */
static int64_t binom_inv(Unif *g, int64_t n, double p)
{
    const double q = 1 - p, s = p / q, a = ((double)n + 1) * s;
    const double f0 = exp((double)n * log1p(-p));
    double bound = (double)n * p + 10 * sqrt((double)n * p * q + 1);
    if (bound > (double)n)
        bound = (double)n;
    for (;;) {
        double u = unif(g), f = f0;
        int64_t x = 0;
        while (u > f) {
            u -= f;
            x++;
            if ((double)x > bound)
                break;
            f *= a / (double)x - s;
        }
        if ((double)x <= bound)
            return x;
    }
}

/* BTRS, n p >= 10, p <= 1/2. */
static int64_t binom_btrs(Unif *g, int64_t n, double p)
{
    const double nd = (double)n, q = 1 - p, r = p / q;
    const double spq = sqrt(nd * p * q);
    const double b = 1.15 + 2.53 * spq, a = -0.0873 + 0.0248 * b + 0.01 * p;
    const double c = nd * p + 0.5, vr = 0.92 - 4.2 / b, alpha = (2.83 + 5.1 / b) * spq;
    const double m = floor((nd + 1) * p);
    for (;;) {
        const double u = unif(g) - 0.5, v = unif(g), us = 0.5 - fabs(u);
        const double k = floor((2 * a / us + b) * u + c);
        double lv, lf;
        if (!(k >= 0 && k <= nd))       /* also us = 0 (k infinite) */
            continue;
        if (us >= 0.07 && v <= vr)
            return (int64_t)k;
        lv = log(v * alpha / (a / (us * us) + b));
        lf = (m + 0.5) * log((m + 1) / (r * (nd - m + 1))) +
             (nd + 1) * log((nd - m + 1) / (nd - k + 1)) +
             (k + 0.5) * log(r * (nd - k + 1) / (k + 1)) +
             fc(m) + fc(nd - m) - fc(k) - fc(nd - k);
        if (lv <= lf)
            return (int64_t)k;
    }
}

/* Contract (neurort.h). */
int64_t nrt_binomial(uint32_t key0, uint32_t stream, uint32_t element, int64_t n, double p)
{
    Unif g = {key0, stream, element, 0, 0, 0};
    int flip = 0;
    int64_t k;
    if (n <= 0 || !(p > 0))
        return 0;
    if (p >= 1)
        return n;
    if (p > 0.5) {
        p = 1 - p;
        flip = 1;
    }
    k = (double)n * p < 10 ? binom_inv(&g, n, p) : binom_btrs(&g, n, p);
    return flip ? n - k : k;
}
