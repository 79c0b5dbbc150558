/* test_nrt_math.c -- accuracy and special values of runtime/include/nrt_math.h.
 *
 * Every function is run on random inputs over its whole domain (uniform in each of several
 * ranges, log-uniform over the exponent range, random bit patterns), on special values and
 * on known hard cases, and compared with the long double libm result (double functions) or
 * the double libm result (float functions). The largest error in ulps of the result's format
 * is reported for each; the test fails when one is above its goal (1 ulp for exp, expm1,
 * log, log1p; 2 ulp for the rest) or a special value is wrong.
 *
 * Usage: test_nrt_math [scale]          scale multiplies the number of random inputs (1)
 *        test_nrt_math -x NAME          every float input of NAME's float version (slow)
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nrt_math.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15u;
static uint64_t rnd64(void)
{
    uint64_t x = rng_state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng_state = x;
    return x * 0x2545F4914F6CDD1Du;
}
static double rnd01(void) { return (double)(rnd64() >> 11) * 0x1p-53; }

static double d_of(uint64_t u) { double x; memcpy(&x, &u, 8); return x; }
static uint64_t u_of(double x) { uint64_t u; memcpy(&u, &x, 8); return u; }
static float f_of(uint32_t u) { float x; memcpy(&x, &u, 4); return x; }
static uint32_t uf_of(float x) { uint32_t u; memcpy(&u, &x, 4); return u; }

/* error of y in ulps of the double nearest to ref (ulp of the binade of ref; subnormal ulp
 * below; results beyond the format's range must be inf) */
static double ulp_err_d(double y, long double ref)
{
    int e;
    long double yl, ulp;
    if (isnan(ref)) return isnan(y) ? 0.0 : INFINITY;
    if (isnan(y)) return INFINITY;
    if (isinf(ref)) return (isinf(y) && !signbit(y) == !signbit(ref)) ? 0.0 : INFINITY;
    if (fabsl(ref) >= 0x1p1024L - 0x1p970L) {
        if (isinf(y) && (signbit(y) != 0) == (ref < 0)) return 0.0;
        yl = isinf(y) ? copysignl(0x1p1024L, y) : y;
        return (double)(fabsl(yl - ref) / 0x1p971L);
    }
    yl = isinf(y) ? copysignl(0x1p1024L, y) : y;
    if (ref == 0) {
        if (y == 0) return 0.0;
        return (double)(fabsl(yl) / 0x1p-1074L);
    }
    e = ilogbl(ref);
    if (e < -1022) e = -1022;
    ulp = ldexpl(1.0L, e - 52);
    return (double)(fabsl(yl - ref) / ulp);
}

static double ulp_err_f(float y, double ref)
{
    int e;
    double yl, ulp;
    if (isnan(ref)) return isnan(y) ? 0.0 : INFINITY;
    if (isnan(y)) return INFINITY;
    if (isinf(ref)) return (isinf(y) && !signbit(y) == !signbit(ref)) ? 0.0 : INFINITY;
    if (fabs(ref) >= 0x1p128 - 0x1p103) {
        if (isinf(y) && (signbit(y) != 0) == (ref < 0)) return 0.0;
        yl = isinf(y) ? copysign(0x1p128, y) : y;
        return fabs(yl - ref) / 0x1p104;
    }
    yl = isinf(y) ? copysign(0x1p128, y) : y;
    if (ref == 0) {
        if (y == 0) return 0.0;
        return fabs(yl) / 0x1p-149;
    }
    e = ilogb(ref);
    if (e < -126) e = -126;
    ulp = ldexp(1.0, e - 23);
    return fabs(yl - ref) / ulp;
}

/* ---- the functions under test ---- */
typedef double (*fn_d)(double);
typedef long double (*ref_d)(long double);
typedef float (*fn_f)(float);
typedef double (*ref_f)(double);

static double w_exp(double x) { return nrt_exp(x); }
static double w_expm1(double x) { return nrt_expm1(x); }
static double w_log(double x) { return nrt_log(x); }
static double w_log1p(double x) { return nrt_log1p(x); }
static double w_log10(double x) { return nrt_log10(x); }
static double w_sin(double x) { return nrt_sin(x); }
static double w_cos(double x) { return nrt_cos(x); }
static double w_tan(double x) { return nrt_tan(x); }
static double w_sinh(double x) { return nrt_sinh(x); }
static double w_cosh(double x) { return nrt_cosh(x); }
static double w_tanh(double x) { return nrt_tanh(x); }
static double w_atan(double x) { return nrt_atan(x); }
static float w_expf(float x) { return nrt_expf(x); }
static float w_expm1f(float x) { return nrt_expm1f(x); }
static float w_logf(float x) { return nrt_logf(x); }
static float w_log1pf(float x) { return nrt_log1pf(x); }
static float w_log10f(float x) { return nrt_log10f(x); }
static float w_sinf(float x) { return nrt_sinf(x); }
static float w_cosf(float x) { return nrt_cosf(x); }
static float w_tanf(float x) { return nrt_tanf(x); }
static float w_sinhf(float x) { return nrt_sinhf(x); }
static float w_coshf(float x) { return nrt_coshf(x); }
static float w_tanhf(float x) { return nrt_tanhf(x); }
static float w_atanf(float x) { return nrt_atanf(x); }

typedef struct {
    const char *name;
    fn_d fd;
    ref_d rd;
    fn_f ff;
    ref_f rf;
    double goal;
    double lo, hi;  /* main range for uniform inputs */
    double lo2, hi2; /* a second range */
} ucase;

static const ucase ucases[] = {
    {"exp", w_exp, expl, w_expf, exp, 1.0, -746, 710, -2, 2},
    {"expm1", w_expm1, expm1l, w_expm1f, expm1, 1.0, -50, 710, -1, 1},
    {"log", w_log, logl, w_logf, log, 1.0, 0, 4, 0.5, 2},
    {"log1p", w_log1p, log1pl, w_log1pf, log1p, 1.0, -1, 4, -0.5, 0.5},
    {"log10", w_log10, log10l, w_log10f, log10, 2.0, 0, 100, 0.5, 2},
    {"sin", w_sin, sinl, w_sinf, sin, 2.0, -10, 10, -2e5, 2e5},
    {"cos", w_cos, cosl, w_cosf, cos, 2.0, -10, 10, -2e5, 2e5},
    {"tan", w_tan, tanl, w_tanf, tan, 2.0, -10, 10, -2e5, 2e5},
    {"sinh", w_sinh, sinhl, w_sinhf, sinh, 2.0, -720, 720, -3, 3},
    {"cosh", w_cosh, coshl, w_coshf, cosh, 2.0, -720, 720, -3, 3},
    {"tanh", w_tanh, tanhl, w_tanhf, tanh, 2.0, -25, 25, -1, 1},
    {"atan", w_atan, atanl, w_atanf, atan, 2.0, -4, 4, -0.5, 0.5},
};
#define NUCASES (sizeof ucases / sizeof ucases[0])

static int failures;

/* ---- accuracy of the one-argument functions ---- */
typedef struct {
    double maxerr;
    double worst_x;
    long n;
} stat;

static void acc_d(const ucase *c, double x, stat *s)
{
    double y = c->fd(x);
    double e = ulp_err_d(y, c->rd((long double)x));
    s->n++;
    if (e > s->maxerr || (e != e)) {
        s->maxerr = e;
        s->worst_x = x;
    }
}

static void acc_f(const ucase *c, float x, stat *s)
{
    float y = c->ff(x);
    double e = ulp_err_f(y, c->rf((double)x));
    s->n++;
    if (e > s->maxerr) {
        s->maxerr = e;
        s->worst_x = x;
    }
}

/* hard and special arguments shared by all one-argument functions */
static const double special_d[] = {
    0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 10.0, 100.0, 1e-300, -1e-300, 4.9e-324, -4.9e-324,
    2.2250738585072014e-308, 2.225073858507201e-308, 1.7976931348623157e308, -1.7976931348623157e308,
    709.782712893384, 709.7827128933841, 709.78271289338397, 710.4758600739439, 710.475860073944,
    -708.3964185322641, -708.4, -744.44007192138122, -745.1332191019411, -745.1332191019412,
    -745.13321910194122, 1.5707963267948966, 3.141592653589793, 4.71238898038469,
    6.283185307179586, 0.7853981633974483, 1e5, 1e6, 1e15, 1e22, 1e100, 1e300,
    5.319372648326541e+255, 6381956970095103.0 * 0x1p797, 0x1p1023, 0x1p-1022, 0x1p-1074,
    0.4375, 0.6875, 1.1875, 2.4375, 19.06, 22.0, 0.3465735902799726, -0.3465735902799726,
    0.6931471805599453, 1e-8, -1e-8, 1e-20, 7.450580596923828e-09, 1.4901161193847656e-08,
    0.9999999999999999, 1.0000000000000002, -0.9999999999999999, 1.7071067811865475,
    0.7071067811865476, 1.4142135623730951, 1.414213562373095,
};
static const float special_f[] = {
    0.0f, -0.0f, 1.0f, -1.0f, 0.5f, -0.5f, 2.0f, 10.0f, 100.0f, 1e-38f, 1e-45f, -1e-45f,
    1.17549435e-38f, 3.40282347e38f, -3.40282347e38f, 88.7228394f, 88.7228317f, 88.72284f,
    89.4159851f, 89.41599f, -87.3365479f, -103.278931f, -103.972076f, -103.972084f,
    1.57079637f, 3.14159274f, 4.71238899f, 6.28318548f, 0.785398185f, 1e5f, 1e6f, 1e10f,
    1e20f, 1e38f, 16367173.0f * 0x1p72f, 0x1p127f, 0.4375f, 0.6875f, 1.1875f, 2.4375f, 9.0f,
    0.346573591f, -0.346573591f, 0.693147182f, 1e-4f, 1e-8f, -1e-8f, 0.000244140625f,
    0.99999994f, 1.00000012f, 0.707106769f, 1.41421354f, 8192.0f, 8191.99951f, 8192.00098f,
};

static void run_unary_d(const ucase *c, long nrand, double *out_max)
{
    stat s = {0, 0, 0};
    long i;
    size_t j;
    int k;
    for (j = 0; j < sizeof special_d / sizeof special_d[0]; j++) {
        acc_d(c, special_d[j], &s);
        acc_d(c, -special_d[j], &s);
        /* neighbours */
        acc_d(c, nextafter(special_d[j], INFINITY), &s);
        acc_d(c, nextafter(special_d[j], -INFINITY), &s);
    }
    for (i = 0; i < nrand; i++) {
        /* uniform over the two ranges */
        acc_d(c, c->lo + (c->hi - c->lo) * rnd01(), &s);
        acc_d(c, c->lo2 + (c->hi2 - c->lo2) * rnd01(), &s);
        /* log-uniform magnitude over all exponents, both signs */
        {
            uint64_t u = rnd64();
            uint64_t ex = (rnd64() % 2047u);
            acc_d(c, d_of((u & 0x800fffffffffffffu) | (ex << 52)), &s);
        }
        /* small exponents around 1 */
        {
            uint64_t u = rnd64();
            uint64_t ex = 1023u - 60u + (rnd64() % 72u);
            acc_d(c, d_of((u & 0x800fffffffffffffu) | (ex << 52)), &s);
        }
    }
    /* near multiples of pi/2 (sin, cos, tan) and other sweeps for every function */
    for (k = 1; k < 20000; k++) {
        double m = k * 1.5707963267948966 * (k < 10000 ? 1.0 : 97.0);
        acc_d(c, m, &s);
        acc_d(c, nextafter(m, 0), &s);
        acc_d(c, nextafter(m, INFINITY), &s);
    }
    /* near 1 */
    for (k = -3000; k < 3000; k++) acc_d(c, 1.0 + k * 0x1p-52, &s);
    printf("  %-7s double: max %.3f ulp at x = %.17g  (%ld inputs)%s\n", c->name, s.maxerr,
           s.worst_x, s.n, s.maxerr > c->goal ? "  ABOVE GOAL" : "");
    if (s.maxerr > c->goal) failures++;
    *out_max = s.maxerr;
}

static void run_unary_f(const ucase *c, long nrand, double *out_max)
{
    stat s = {0, 0, 0};
    long i;
    size_t j;
    int k;
    for (j = 0; j < sizeof special_f / sizeof special_f[0]; j++) {
        acc_f(c, special_f[j], &s);
        acc_f(c, -special_f[j], &s);
        acc_f(c, nextafterf(special_f[j], INFINITY), &s);
        acc_f(c, nextafterf(special_f[j], -INFINITY), &s);
    }
    for (i = 0; i < nrand; i++) {
        acc_f(c, (float)(c->lo + (c->hi - c->lo) * rnd01()), &s);
        acc_f(c, (float)(c->lo2 + (c->hi2 - c->lo2) * rnd01()), &s);
        acc_f(c, f_of((uint32_t)rnd64()), &s);
        {
            uint32_t u = (uint32_t)rnd64();
            uint32_t ex = 127u - 30u + (uint32_t)(rnd64() % 40u);
            acc_f(c, f_of((u & 0x807fffffu) | (ex << 23)), &s);
        }
    }
    for (k = 1; k < 20000; k++) {
        float m = (float)(k * 1.5707963267948966 * (k < 10000 ? 1.0 : 97.0));
        acc_f(c, m, &s);
        acc_f(c, nextafterf(m, 0), &s);
        acc_f(c, nextafterf(m, INFINITY), &s);
    }
    /* a dense sweep of [1/4, 4] and of the first Cody-Waite ranges */
    for (k = 0; k < 200000; k++) acc_f(c, f_of(0x3e800000u + (uint32_t)k * 83u), &s);
    printf("  %-7s float:  max %.3f ulp at x = %.9g  (%ld inputs)%s\n", c->name, s.maxerr,
           s.worst_x, s.n, s.maxerr > c->goal ? "  ABOVE GOAL" : "");
    if (s.maxerr > c->goal) failures++;
    *out_max = s.maxerr;
}

/* ---- pow ---- */
static void pow_acc_d(double x, double y, stat *s, double *wy)
{
    double r = nrt_pow(x, y);
    double e = ulp_err_d(r, powl((long double)x, (long double)y));
    s->n++;
    if (e > s->maxerr) {
        s->maxerr = e;
        s->worst_x = x;
        *wy = y;
    }
}
static void pow_acc_f(float x, float y, stat *s, double *wy)
{
    float r = nrt_powf(x, y);
    double e = ulp_err_f(r, pow((double)x, (double)y));
    s->n++;
    if (e > s->maxerr) {
        s->maxerr = e;
        s->worst_x = x;
        *wy = y;
    }
}

/* pow(x, 2), pow(x, 3), pow(x, 4) (their own path, nrt__pow34): x of any finite bit
 * pattern (subnormal, overflowing and underflowing results included), goal 1 ulp */
static void run_pow234(long nrand)
{
    stat s = {0, 0, 0}, t = {0, 0, 0};
    double wy = 0, wyf = 0;
    long i;
    int n;
    for (i = 0; i < nrand; i++)
        for (n = 2; n <= 4; n++) {
            double x = d_of(rnd64() & 0xffefffffffffffffu); /* finite */
            float xf = f_of((uint32_t)rnd64() & 0xff7fffffu);
            pow_acc_d(x, n, &s, &wy);
            pow_acc_d(1.0 + (rnd01() - 0.5), n, &s, &wy);
            pow_acc_f(xf, (float)n, &t, &wyf);
            pow_acc_f((float)(1.0 + (rnd01() - 0.5)), (float)n, &t, &wyf);
        }
    printf("  %-7s double: max %.3f ulp at x = %.17g, y = %.17g  (%ld inputs)%s\n", "pow234",
           s.maxerr, s.worst_x, wy, s.n, s.maxerr > 1.0 ? "  ABOVE GOAL" : "");
    printf("  %-7s float:  max %.3f ulp at x = %.9g, y = %.9g  (%ld inputs)%s\n", "pow234",
           t.maxerr, t.worst_x, wyf, t.n, t.maxerr > 1.0 ? "  ABOVE GOAL" : "");
    if (s.maxerr > 1.0) failures++;
    if (t.maxerr > 1.0) failures++;
}

static void run_pow(long nrand, double *maxd, double *maxf)
{
    stat s = {0, 0, 0}, t = {0, 0, 0};
    double wy = 0, wyf = 0;
    long i;
    int k;
    for (i = 0; i < nrand; i++) {
        double x = rnd01() * 4, y = (rnd01() - 0.5) * 200;
        uint64_t ex;
        pow_acc_d(x, y, &s, &wy);
        pow_acc_d(-x, floor(y), &s, &wy);
        /* any positive x; y such that the result is near the range of doubles */
        ex = rnd64() % 2046u + 1;
        x = d_of((rnd64() & 0x000fffffffffffffu) | (ex << 52));
        y = (rnd01() * 2 - 1) * 1100.0 / (fabs(log2(x)) + 1e-3);
        pow_acc_d(x, y, &s, &wy);
        /* x near 1, large y */
        x = 1.0 + (rnd01() - 0.5) * 1e-6;
        y = (rnd01() - 0.5) * 1.4e9;
        pow_acc_d(x, y, &s, &wy);
        /* random bit patterns */
        pow_acc_d(d_of(rnd64()), d_of(rnd64()), &s, &wy);
        pow_acc_d(d_of(rnd64()) , (double)(int)(rnd64() % 64u) - 32.0, &s, &wy);
        {
            float xf = (float)(rnd01() * 4), yf = (float)((rnd01() - 0.5) * 60);
            uint32_t exf;
            pow_acc_f(xf, yf, &t, &wyf);
            pow_acc_f(-xf, floorf(yf), &t, &wyf);
            exf = (uint32_t)(rnd64() % 254u) + 1;
            xf = f_of(((uint32_t)rnd64() & 0x007fffffu) | (exf << 23));
            yf = (float)((rnd01() * 2 - 1) * 160.0 / (fabs(log2((double)xf)) + 1e-3));
            pow_acc_f(xf, yf, &t, &wyf);
            xf = (float)(1.0 + (rnd01() - 0.5) * 1e-3);
            yf = (float)((rnd01() - 0.5) * 4e5);
            pow_acc_f(xf, yf, &t, &wyf);
            pow_acc_f(f_of((uint32_t)rnd64()), f_of((uint32_t)rnd64()), &t, &wyf);
        }
    }
    /* integer powers must be exact where representable */
    for (k = -40; k <= 40; k++) {
        pow_acc_d(2.0, k, &s, &wy);
        pow_acc_d(10.0, k, &s, &wy);
        pow_acc_d(-3.0, k, &s, &wy);
        pow_acc_f(2.0f, (float)k, &t, &wyf);
        pow_acc_f(10.0f, (float)k, &t, &wyf);
    }
    run_pow234(nrand);
    printf("  %-7s double: max %.3f ulp at x = %.17g, y = %.17g  (%ld inputs)%s\n", "pow",
           s.maxerr, s.worst_x, wy, s.n, s.maxerr > 2.0 ? "  ABOVE GOAL" : "");
    printf("  %-7s float:  max %.3f ulp at x = %.9g, y = %.9g  (%ld inputs)%s\n", "pow",
           t.maxerr, t.worst_x, wyf, t.n, t.maxerr > 2.0 ? "  ABOVE GOAL" : "");
    if (s.maxerr > 2.0) failures++;
    if (t.maxerr > 2.0) failures++;
    *maxd = s.maxerr;
    *maxf = t.maxerr;
}

/* ---- special values: exact results, compared bit for bit (NaN as a class) ---- */
static void same_d(const char *what, double got, double want)
{
    if (isnan(want) ? isnan(got) : (u_of(got) == u_of(want))) return;
    printf("  special value: %s = %.17g (%016llx), want %.17g\n", what, got,
           (unsigned long long)u_of(got), want);
    failures++;
}
static void same_f(const char *what, float got, float want)
{
    if (isnan(want) ? isnan(got) : (uf_of(got) == uf_of(want))) return;
    printf("  special value: %s = %.9g (%08x), want %.9g\n", what, got, uf_of(got), want);
    failures++;
}

static void check_specials(void)
{
    static const double pv[] = {0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0, 2.5, -2.5,
                                0x1p53, -0x1p53, 0x1p53 + 2, 0x1p52 + 1, -(0x1p52 + 1), 1e300,
                                -1e300, 1e-310, -1e-310, INFINITY, -INFINITY, NAN};
    const size_t np = sizeof pv / sizeof pv[0];
    size_t i, j;
    char buf[128];
    const double inf = INFINITY;
    /* pow: every pair of special values against libm (glibc follows C99 Annex F) */
    for (i = 0; i < np; i++)
        for (j = 0; j < np; j++) {
            double x = pv[i], y = pv[j], want = pow(x, y);
            float xf = (float)x, yf = (float)y, wantf = powf(xf, yf);
            double got = nrt_pow(x, y);
            float gotf = nrt_powf(xf, yf);
            snprintf(buf, sizeof buf, "pow(%g, %g)", x, y);
            if (isnan(want) || isinf(want) || want == 0 || want == 1 || want == -1 || isinf(x) ||
                x == 0 || isinf(y) || y == 0)
                same_d(buf, got, want);
            else if (ulp_err_d(got, powl(x, y)) > 1.0) {
                printf("  %s = %.17g, want %.17g\n", buf, got, want);
                failures++;
            }
            if (isnan(wantf) || isinf(wantf) || wantf == 0 || wantf == 1 || wantf == -1 ||
                isinf(xf) || xf == 0 || isinf(yf) || yf == 0)
                same_f(buf, gotf, wantf);
            else if (ulp_err_f(gotf, pow(xf, yf)) > 1.0) {
                printf("  f %s = %.9g, want %.9g\n", buf, gotf, wantf);
                failures++;
            }
        }
    same_d("exp(-inf)", nrt_exp(-inf), 0.0);
    same_d("exp(inf)", nrt_exp(inf), inf);
    same_d("exp(nan)", nrt_exp(NAN), NAN);
    same_d("exp(0)", nrt_exp(0.0), 1.0);
    same_d("exp(1000)", nrt_exp(1000.0), inf);
    same_d("exp(-1000)", nrt_exp(-1000.0), 0.0);
    same_d("expm1(-0)", nrt_expm1(-0.0), -0.0);
    same_d("expm1(-inf)", nrt_expm1(-inf), -1.0);
    same_d("expm1(inf)", nrt_expm1(inf), inf);
    same_d("expm1(nan)", nrt_expm1(NAN), NAN);
    same_d("log(0)", nrt_log(0.0), -inf);
    same_d("log(-0)", nrt_log(-0.0), -inf);
    same_d("log(-1)", nrt_log(-1.0), NAN);
    same_d("log(1)", nrt_log(1.0), 0.0);
    same_d("log(inf)", nrt_log(inf), inf);
    same_d("log(-inf)", nrt_log(-inf), NAN);
    same_d("log(nan)", nrt_log(NAN), NAN);
    same_d("log1p(-1)", nrt_log1p(-1.0), -inf);
    same_d("log1p(-2)", nrt_log1p(-2.0), NAN);
    same_d("log1p(-0)", nrt_log1p(-0.0), -0.0);
    same_d("log1p(inf)", nrt_log1p(inf), inf);
    same_d("log10(0)", nrt_log10(0.0), -inf);
    same_d("log10(-1)", nrt_log10(-1.0), NAN);
    same_d("log10(inf)", nrt_log10(inf), inf);
    for (i = 0; i <= 22; i++) {
        snprintf(buf, sizeof buf, "log10(1e%d)", (int)i);
        same_d(buf, nrt_log10(pow(10.0, (double)i)), (double)i);
        if (i <= 10) same_f(buf, nrt_log10f(powf(10.0f, (float)i)), (float)i);
    }
    same_d("sin(-0)", nrt_sin(-0.0), -0.0);
    same_d("sin(inf)", nrt_sin(inf), NAN);
    same_d("cos(-inf)", nrt_cos(-inf), NAN);
    same_d("cos(0)", nrt_cos(0.0), 1.0);
    same_d("tan(-0)", nrt_tan(-0.0), -0.0);
    same_d("tan(inf)", nrt_tan(inf), NAN);
    same_d("sinh(-0)", nrt_sinh(-0.0), -0.0);
    same_d("sinh(-inf)", nrt_sinh(-inf), -inf);
    same_d("sinh(1000)", nrt_sinh(1000.0), inf);
    same_d("cosh(-inf)", nrt_cosh(-inf), inf);
    same_d("cosh(0)", nrt_cosh(0.0), 1.0);
    same_d("tanh(-0)", nrt_tanh(-0.0), -0.0);
    same_d("tanh(inf)", nrt_tanh(inf), 1.0);
    same_d("tanh(-inf)", nrt_tanh(-inf), -1.0);
    same_d("tanh(nan)", nrt_tanh(NAN), NAN);
    same_d("atan(-0)", nrt_atan(-0.0), -0.0);
    same_d("atan(inf)", nrt_atan(inf), 1.5707963267948966);
    same_d("atan(-inf)", nrt_atan(-inf), -1.5707963267948966);
    same_d("atan(nan)", nrt_atan(NAN), NAN);

    same_f("expf(-inf)", nrt_expf(-inf), 0.0f);
    same_f("expf(inf)", nrt_expf((float)inf), (float)inf);
    same_f("expf(nan)", nrt_expf(NAN), NAN);
    same_f("expf(0)", nrt_expf(0.0f), 1.0f);
    same_f("expf(100)", nrt_expf(100.0f), (float)inf);
    same_f("expf(-200)", nrt_expf(-200.0f), 0.0f);
    same_f("expm1f(-0)", nrt_expm1f(-0.0f), -0.0f);
    same_f("expm1f(-inf)", nrt_expm1f(-(float)inf), -1.0f);
    same_f("logf(0)", nrt_logf(0.0f), -(float)inf);
    same_f("logf(-1)", nrt_logf(-1.0f), NAN);
    same_f("logf(1)", nrt_logf(1.0f), 0.0f);
    same_f("logf(inf)", nrt_logf((float)inf), (float)inf);
    same_f("log1pf(-1)", nrt_log1pf(-1.0f), -(float)inf);
    same_f("log1pf(-0)", nrt_log1pf(-0.0f), -0.0f);
    same_f("log10f(0)", nrt_log10f(0.0f), -(float)inf);
    same_f("sinf(-0)", nrt_sinf(-0.0f), -0.0f);
    same_f("sinf(inf)", nrt_sinf((float)inf), NAN);
    same_f("cosf(0)", nrt_cosf(0.0f), 1.0f);
    same_f("tanf(-0)", nrt_tanf(-0.0f), -0.0f);
    same_f("sinhf(-0)", nrt_sinhf(-0.0f), -0.0f);
    same_f("sinhf(-inf)", nrt_sinhf(-(float)inf), -(float)inf);
    same_f("coshf(inf)", nrt_coshf((float)inf), (float)inf);
    same_f("tanhf(-inf)", nrt_tanhf(-(float)inf), -1.0f);
    same_f("tanhf(-0)", nrt_tanhf(-0.0f), -0.0f);
    same_f("atanf(-0)", nrt_atanf(-0.0f), -0.0f);
    same_f("atanf(inf)", nrt_atanf((float)inf), 1.57079637f);
}

static int exhaustive(const char *name)
{
    size_t i;
    for (i = 0; i < NUCASES; i++)
        if (strcmp(ucases[i].name, name) == 0) {
            stat s = {0, 0, 0};
            uint64_t u;
            for (u = 0; u <= 0xffffffffu; u++) acc_f(&ucases[i], f_of((uint32_t)u), &s);
            printf("%sf exhaustive: max %.4f ulp at x = %.9g (%a)\n", name, s.maxerr, s.worst_x,
                   s.worst_x);
            return 0;
        }
    fprintf(stderr, "no function %s\n", name);
    return 2;
}

int main(int argc, char **argv)
{
    long scale = 1, nrand;
    size_t i;
    double md[NUCASES + 1], mf[NUCASES + 1];
    if (argc == 3 && strcmp(argv[1], "-x") == 0) return exhaustive(argv[2]);
    if (argc > 1) scale = atol(argv[1]);
    if (scale < 1) scale = 1;
    nrand = 250000 * scale;
    printf("nrt_math accuracy (max error in ulps; goal 1 ulp for exp/expm1/log/log1p, else 2):\n");
    for (i = 0; i < NUCASES; i++) {
        run_unary_d(&ucases[i], nrand, &md[i]);
        run_unary_f(&ucases[i], nrand, &mf[i]);
    }
    run_pow(nrand, &md[NUCASES], &mf[NUCASES]);
    check_specials();
    printf("%s: %d failures\n", failures ? "FAILED" : "ok", failures);
    return failures ? 1 : 0;
}
