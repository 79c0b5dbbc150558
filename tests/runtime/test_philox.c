/* test_philox.c -- Philox4x32-10 against the Random123 known-answer vectors, and the
 * uniform conversions: nrt_u01 in (0, 1], nrt_u01_53 in (0, 1], moments of 10^6 draws,
 * nrt_below in range, nrt_log (special values; faithful: equal or next to the C library's
 * log over 10^6 arguments across the whole range, subnormals included).
 */
#include "nrt_philox.h"
#include "nrt_math.h"
#include "tcheck.h"

#include <stdint.h>

struct kat {
    uint32_t ctr[4], key[2], out[4];
};

/* Random123 kat_vectors, "philox4x32 10" lines: CTR (4 words), KEY (2 words), EXPECTED. */
static const struct kat kats[] = {
    {{0x00000000u, 0x00000000u, 0x00000000u, 0x00000000u}, {0x00000000u, 0x00000000u},
     {0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}},
    {{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}, {0xffffffffu, 0xffffffffu},
     {0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}},
    {{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}, {0xa4093822u, 0x299f31d0u},
     {0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}},
};

int main(void)
{
    size_t t;
    int w;
    long i;
    const long n = 1000000;
    double sum = 0, sum2 = 0, mean, var, lo = 2.0, hi = -1.0;

    for (t = 0; t < sizeof kats / sizeof kats[0]; t++) {
        nrt_u32x4 c, r;
        for (w = 0; w < 4; w++)
            c.v[w] = kats[t].ctr[w];
        r = nrt_philox4x32_10(c, kats[t].key[0], kats[t].key[1]);
        for (w = 0; w < 4; w++)
            CHECKF(r.v[w] == kats[t].out[w], "vector %zu word %d: %08lx, expected %08lx", t,
                   w, (unsigned long)r.v[w], (unsigned long)kats[t].out[w]);
    }
    /* nrt_rng is philox with ctr = {element, sub, step, site}, key = {seedkey, stream} */
    {
        nrt_u32x4 r = nrt_rng(0xa4093822u, 0x299f31d0u, 0x243f6a88u, 0x85a308d3u, 0x13198a2eu,
                              0x03707344u);
        CHECK(r.v[0] == 0xd16cfe09u && r.v[3] == 0x24126ea1u);
        CHECK(nrt_seed_key(0x0000000100000002ull) == 3u);
    }

    /* conversion extremes */
    CHECK(nrt_u01(0) > 0.0);
    CHECK(nrt_u01(0) == 1.0 / 16777216.0);
    CHECK(nrt_u01(0xffffffffu) == 1.0);
    CHECK(nrt_u01_53(0, 0) > 0.0);
    CHECK(nrt_u01_53(0xffffffffu, 0xffffffffu) == 1.0);
    CHECK(nrt_below(0, 7) == 0 && nrt_below(0xffffffffu, 7) == 6);

    for (i = 0; i < n / 4; i++) {
        nrt_u32x4 r = nrt_rng(nrt_seed_key(12345), (NRT_STREAM_NEURON_STEP << 24) | 7u,
                              (uint32_t)i, 0, 3, 1);
        for (w = 0; w < 4; w++) {
            double u = nrt_u01(r.v[w]);
            if (u < lo)
                lo = u;
            if (u > hi)
                hi = u;
            sum += u;
            sum2 += u * u;
            CHECK(nrt_below(r.v[w], 1000) < 1000);
        }
    }
    mean = sum / (double)n;
    var = sum2 / (double)n - mean * mean;
    CHECKF(lo > 0.0 && hi <= 1.0, "range [%g, %g]", lo, hi);
    /* sd of the mean: sqrt(1/12 / n); of the variance estimate: sqrt(1/180 / n) */
    CHECKF(fabs(mean - 0.5) < 5.0 * sqrt(1.0 / 12.0 / (double)n), "mean %.6f", mean);
    CHECKF(fabs(var - 1.0 / 12.0) < 5.0 * sqrt(1.0 / 180.0 / (double)n), "variance %.6f",
           var);

    /* nrt_log */
    CHECK(nrt_log(1.0) == 0.0 && !signbit(nrt_log(1.0)));
    CHECK(isinf(nrt_log(0.0)) && nrt_log(0.0) < 0 && isinf(nrt_log(-0.0)));
    CHECK(isnan(nrt_log(-1.0)) && isnan(nrt_log(NAN)) && nrt_log(INFINITY) == INFINITY);
    CHECK(nrt_log(2.0) == log(2.0) && nrt_log(0.5) == -log(2.0));
    {
        long far = 0;
        for (i = 0; i < n; i++) {
            nrt_u32x4 r = nrt_rng(5, 9, (uint32_t)i, 0, 0, 0);
            double x = i % 2 ? nrt_u01_53(r.v[0], r.v[1])
                             : ldexp(nrt_u01_53(r.v[0], r.v[1]), (int)(r.v[2] % 2100) - 1075);
            double a = nrt_log(x), b = log(x);
            if (x > 0 && a != b && nextafter(a, b) != b)
                far++;
        }
        CHECKF(far == 0, "%ld arguments where nrt_log is more than 1 ulp from log", far);
    }
    return tcheck_done("test_philox");
}
