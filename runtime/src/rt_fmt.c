/* rt_fmt.c -- printf's "%.9g" and "%.*f" for the CSV recordings, without printf.
 *
 * A CSV state recording writes a row per step and a number per recorded value; snprintf
 * costs a few hundred nanoseconds a number, which made formatting a large part of a small
 * network's run (and of a batch's drains). These functions give exactly the bytes glibc's
 * snprintf gives (correct rounding of the binary value, ties to even) for finite values in
 * the range where a 128-bit integer holds the exact product, and call snprintf elsewhere.
 *
 * The exact step: x = m * 2^e with m < 2^53; q = round(x * 10^k) is computed in integers
 * (m * 10^k shifted right, or m * 2^e divided by 10^-k) with the remainder deciding the
 * rounding, so no decimal digit is ever guessed.
 */
#include "rt_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

__extension__ typedef unsigned __int128 u128;

static const uint64_t pow10_u64[20] = {
    1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
    100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
    10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull,
    100000000000000000ull, 1000000000000000000ull, 10000000000000000000ull};

/* q = round-half-even(a * 10^k) for finite a > 0, |k| <= 19; 0 when the exact product does
 * not fit the integers used here (the caller falls back to snprintf), else 1. */
static int round_scaled(double a, int k, uint64_t *q)
{
    int ex;
    const double f = frexp(a, &ex);           /* a = f * 2^ex, 0.5 <= f < 1 */
    const uint64_t m = (uint64_t)ldexp(f, 53); /* exact: a = m * 2^e */
    const int e = ex - 53;
    u128 n, d, r, qq;
    if (k < -19 || k > 19)
        return 0;
    if (k >= 0) {
        n = (u128)m * pow10_u64[k];           /* < 2^117 */
        if (e >= 0) {
            if (e > 10 || (n << e) >> e != n)
                return 0;
            qq = n << e;
            r = 0;
            d = 1;
        } else {
            if (-e >= 127)
                return 0;
            d = (u128)1 << -e;
            qq = n >> -e;
            r = n & (d - 1);
        }
    } else {
        d = pow10_u64[-k];
        if (e >= 0) {
            if (e > 70)
                return 0;
            n = (u128)m << e;                 /* < 2^123 */
        } else {
            if (-e > 60)
                return 0;
            n = m;
            d <<= -e;                         /* < 2^124 */
        }
        qq = n / d;
        r = n % d;
    }
    if (r > d - r || (r == d - r && (qq & 1)))  /* above half, or a tie to even */
        qq++;
    if (qq >> 63)
        return 0;
    *q = (uint64_t)qq;
    return 1;
}

/* The decimal digits of q (< 10^19), most significant first; returns how many. */
static int digits_of(uint64_t q, char *out)
{
    char t[20];
    int n = 0, i;
    do {
        t[n++] = (char)('0' + q % 10);
        q /= 10;
    } while (q);
    for (i = 0; i < n; i++)
        out[i] = t[n - 1 - i];
    return n;
}

/* Contract: see rt_internal.h. */
int nrt_fmt_g9(char *out, size_t n, double x)
{
    char dg[20], buf[40], *p = buf;
    uint64_t q;
    int ex, k, nd, i, tries;
    const double a = fabs(x);
    if (!(a > 0) || !isfinite(a) || a < 1e-300 || a > 1e300)
        return snprintf(out, n, "%.9g", x);
    ex = (int)floor(log10(a));
    for (tries = 0;; tries++) {                /* the exponent of the value rounded to 9 digits */
        k = 8 - ex;
        if (tries > 3 || !round_scaled(a, k, &q))
            return snprintf(out, n, "%.9g", x);
        if (q >= 1000000000ull)
            ex++;
        else if (q < 100000000ull)
            ex--;
        else
            break;
    }
    digits_of(q, dg);                          /* nine digits */
    for (nd = 9; nd > 1 && dg[nd - 1] == '0'; nd--)
        ;
    if (signbit(x))
        *p++ = '-';
    if (ex < -4 || ex >= 9) {                  /* d.ddde+XX */
        *p++ = dg[0];
        if (nd > 1) {
            *p++ = '.';
            memcpy(p, dg + 1, (size_t)(nd - 1));
            p += nd - 1;
        }
        *p++ = 'e';
        *p++ = ex < 0 ? '-' : '+';
        k = ex < 0 ? -ex : ex;
        if (k >= 100)
            *p++ = (char)('0' + k / 100);
        *p++ = (char)('0' + k / 10 % 10);
        *p++ = (char)('0' + k % 10);
    } else if (ex >= 0) {                      /* the integer part keeps its zeros */
        memcpy(p, dg, (size_t)(ex + 1));
        p += ex + 1;
        if (nd > ex + 1) {
            *p++ = '.';
            memcpy(p, dg + ex + 1, (size_t)(nd - ex - 1));
            p += nd - ex - 1;
        }
    } else {                                   /* 0.000ddd */
        *p++ = '0';
        *p++ = '.';
        for (i = 0; i < -ex - 1; i++)
            *p++ = '0';
        memcpy(p, dg, (size_t)nd);
        p += nd;
    }
    *p = '\0';
    if ((size_t)(p - buf) >= n)
        return snprintf(out, n, "%s", buf);
    memcpy(out, buf, (size_t)(p - buf) + 1);
    return (int)(p - buf);
}

/* Contract: see rt_internal.h. */
int nrt_fmt_fixed(char *out, size_t n, double x, int decimals)
{
    char dg[20], buf[48], *p = buf;
    uint64_t q;
    int nd, i;
    const double a = fabs(x);
    if (decimals < 0 || decimals > 18 || !isfinite(a) || a >= 1e17 ||
        (a > 0 && !round_scaled(a, decimals, &q)))
        return snprintf(out, n, "%.*f", decimals, x);
    if (!(a > 0))
        q = 0;
    if (signbit(x))
        *p++ = '-';
    nd = digits_of(q, dg);
    if (nd <= decimals) {                      /* 0.00ddd: pad to decimals + 1 digits */
        memmove(dg + decimals + 1 - nd, dg, (size_t)nd);
        memset(dg, '0', (size_t)(decimals + 1 - nd));
        nd = decimals + 1;
    }
    memcpy(p, dg, (size_t)(nd - decimals));
    p += nd - decimals;
    if (decimals > 0) {
        *p++ = '.';
        for (i = nd - decimals; i < nd; i++)
            *p++ = dg[i];
    }
    *p = '\0';
    if ((size_t)(p - buf) >= n)
        return snprintf(out, n, "%s", buf);
    memcpy(out, buf, (size_t)(p - buf) + 1);
    return (int)(p - buf);
}
