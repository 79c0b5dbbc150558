/* test_fmt.c -- rt_fmt.c's nrt_fmt_g9 and nrt_fmt_fixed against glibc's snprintf "%.9g" and
 * "%.*f": the same bytes and return value for millions of values: random bit patterns over
 * the whole exponent range, float values (what a `real = float` model records), decimal
 * ties at the ninth digit and at each number of decimals (exact binary halves), the edges
 * where %g switches notation or the exponent gains a digit, integers, signed zeros,
 * infinities, NaN, subnormals, and output buffers too small to hold the text.
 */
#define _POSIX_C_SOURCE 200809L

#include "rt_internal.h"
#include "tcheck.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static uint64_t state = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)   /* splitmix64 */
{
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double from_bits(uint64_t b)
{
    double x;
    memcpy(&x, &b, sizeof x);
    return x;
}

static long bad;

static void same_g9(double x)
{
    char a[64], b[64];
    int na = nrt_fmt_g9(a, sizeof a, x), nb = snprintf(b, sizeof b, "%.9g", x);
    if ((na != nb || strcmp(a, b) != 0) && bad++ < 20)
        fprintf(stderr, "%%.9g of %a: '%s' (%d), snprintf '%s' (%d)\n", x, a, na, b, nb);
    CHECK(na == nb && strcmp(a, b) == 0);
}

static void same_fixed(double x, int d)
{
    char a[80], b[80];
    int na = nrt_fmt_fixed(a, sizeof a, x, d), nb = snprintf(b, sizeof b, "%.*f", d, x);
    if ((na != nb || strcmp(a, b) != 0) && bad++ < 20)
        fprintf(stderr, "%%.%df of %a: '%s' (%d), snprintf '%s' (%d)\n", d, x, a, na, b, nb);
    CHECK(na == nb && strcmp(a, b) == 0);
}

int main(void)
{
    long i;
    int d, k;
    /* random bit patterns: every exponent, sign and mantissa */
    for (i = 0; i < 2000000; i++)
        same_g9(from_bits(next()));
    /* values of ordinary size (the recordings' mV, nS, pA), doubles and floats */
    for (i = 0; i < 2000000; i++) {
        double x = ldexp((double)(next() >> 11), -53) * pow(10.0, (double)(next() % 24) - 12.0);
        if (next() & 1)
            x = -x;
        same_g9(x);
        same_g9((double)(float)x);
    }
    /* ties and near-ties at the ninth significant digit: q.5 * 10^k for 9-digit q */
    for (i = 0; i < 200000; i++) {
        const double q = (double)(100000000 + next() % 900000000) + 0.5;
        for (k = -12; k <= 12; k += 3) {
            const double x = q * pow(10.0, (double)k);
            same_g9(x);
            same_g9(nextafter(x, 0.0));
            same_g9(nextafter(x, INFINITY));
        }
    }
    /* notation edges: 1e-5, 1e-4, 1e9 and the numbers that round up to them */
    for (k = -40; k <= 40; k++) {
        const double p = pow(10.0, (double)k);
        same_g9(p);
        same_g9(nextafter(p, 0.0));
        same_g9(nextafter(p, INFINITY));
        same_g9(p * 0.9999999995);
        same_g9(p * 0.99999999949);
        same_g9(-p);
    }
    {
        const double special[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, DBL_MIN, DBL_MAX,
                                  DBL_TRUE_MIN, 1.0, -1.0, 65.0, -70.0, 0.1, 123456789.0,
                                  999999999.0, 999999999.5, 1e300, 1e-300};
        for (i = 0; i < (long)(sizeof special / sizeof special[0]); i++) {
            same_g9(special[i]);
            for (d = 0; d <= 18; d++)
                same_fixed(special[i], d);
        }
    }
    /* fixed decimals: the recordings' times (step * dt) and random values */
    for (d = 0; d <= 12; d++) {
        for (i = 1; i < 200000; i += 7) {
            same_fixed((double)i * 0.1, d);
            same_fixed((double)i * 0.025, d);
            same_fixed((double)i * 0.01, d);
        }
        for (i = 0; i < 200000; i++) {
            const double x = ldexp((double)(next() >> 11), -53) * pow(10.0, (double)(next() % 20) - 6.0);
            same_fixed(x, d);
            same_fixed(-x, d);
            /* binary halves: exact ties at d decimals */
            same_fixed(((double)(next() % 100000) + 0.5) / pow(10.0, (double)d), d);
        }
    }
    /* a buffer too small: the same truncated text and the full length */
    {
        char a[6], b[6];
        volatile size_t cap = sizeof a; /* not known to the compiler: no truncation warning */
        int na = nrt_fmt_g9(a, cap, -1.23456789e-7), nb = snprintf(b, cap, "%.9g", -1.23456789e-7);
        CHECK(na == nb && strcmp(a, b) == 0);
        na = nrt_fmt_fixed(a, cap, 123456.25, 2);
        nb = snprintf(b, cap, "%.*f", 2, 123456.25);
        CHECK(na == nb && strcmp(a, b) == 0);
    }
    return tcheck_done("test_fmt");
}
