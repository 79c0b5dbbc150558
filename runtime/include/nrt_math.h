/* nrt_math.h -- portable elementary functions, bit-identical on every back end.
 *
 * libm, CUDA's and OpenCL's transcendental functions differ in their last bits, so the same
 * model would spike differently on CPU and GPU. These functions are written once, in the
 * common subset of C11, CUDA C++ and OpenCL C (like nrt_philox.h), from + - * / only,
 * comparisons and integer/bit operations: no libm call, no FMA, no sqrt. Under IEEE-754
 * round-to-nearest with contraction off (C: -ffp-contract=off; nvcc --fmad=false; OpenCL:
 * FP_CONTRACT OFF, set below, and -cl-fp32-correctly-rounded-divide-sqrt) every operation
 * is correctly rounded, so a function gives the same bits for the same input everywhere.
 * Float functions compute in float only (fp64 is optional in OpenCL); the double ones are
 * compiled in OpenCL only where cl_khr_fp64 is there. Subnormals must not be flushed.
 *
 *   nrt_exp  nrt_expm1  nrt_log  nrt_log1p  nrt_log10  nrt_pow
 *   nrt_sin  nrt_cos  nrt_tan  nrt_sinh  nrt_cosh  nrt_tanh  nrt_atan      (double)
 *   the same names with suffix f                                           (float)
 *
 * Accuracy (measured by tests/unit/test_nrt_math.c against long double / double libm over
 * the whole domain): < 1 ulp for exp, expm1, log, log1p, log10, pow, sin, cos, tan, sinh,
 * cosh, tanh; < 1.5 ulp for atan (see the test's table for the measured figures). Special
 * values follow C99 Annex F: +-0, +-inf, NaN, overflow to inf, gradual underflow, pow's
 * special cases. NaN results are NaN, but their sign and payload are not specified (x86 and
 * GPUs make different NaNs), so compare NaNs as a class.
 *
 * Method. No lookup tables except the 2/pi bits of the large-argument reduction. Every
 * function reduces its argument, evaluates one short minimax polynomial (coefficients fitted
 * by Remez for relative error, written as round-tripping decimal literals) and reconstructs,
 * keeping the few leading terms in two-word (hi + lo) arithmetic so the final rounding is
 * the only large error. Exact products without FMA come from splitting a number by masking
 * its low mantissa bits (26 + 27 bits in double, 12 + 12 in float), so hi*hi is exact.
 * Rounding to an integer uses the 1.5*2^52 (1.5*2^23) shift, integers come from its bits.
 *  exp:   x = k ln2 + r (Cody-Waite, |r| <= ln2/2), e^r = 1 + r + r^2 Q(r) with 1 + r summed
 *         exactly; 2^k applied as two exact power-of-two factors (gradual underflow, overflow).
 *  expm1: 2^k ((1 - 2^-k) + (e^r - 1)), both parts in two words, one rounding.
 *  log:   x = 2^e m, m in [sqrt(1/2), sqrt 2), f = m - 1, s = f/(2+f):
 *         log m = f - f^2/2 + s (f^2/2 + R(s^2)) with f^2/2 split exactly; e ln2 in two words.
 *  log1p: the same on u = 1 + x, plus the rounding error of 1 + x divided by u.
 *  log10: log m times 1/ln10 in two words, e log10(2) in two words.
 *  pow:   log|x| to ~2^-66 in two words (log m = 2/3 s (3 + s^2 + R(s^2)), all partial products
 *         exact), y log|x| by an exact product, exp of the two-word result; Annex F cases.
 *  sin, cos, tan: x = k pi/2 + r, Cody-Waite with pi/2 in four parts for |x| < 2^20 (float:
 *         five parts, |x| < 8192), Payne-Hanek with 224 bits of 2/pi beyond (full range);
 *         sin r = r + r^3 S(r^2), cos r = 1 - r^2/2 + r^4 C(r^2) (r^2/2 exact), both kept as
 *         hi + lo; tan = sin/cos or -cos/sin by a two-word division.
 *  sinh, cosh: e^|x| = 2^k u, u in two words, e^-|x| = 2^-k/u (two-word reciprocal),
 *         (2^k u -+ 2^-k / u)/2; tanh: E/(E + 2) with E = expm1(2|x|) in two words.
 *  atan:  reduce by atan(c) + atan((x - c)/(1 + c x)), c in {0, 1/2, 1, 3/2, inf} (fdlibm's
 *         breakpoints), |t| <= 7/16, atan t = t + t^3 A(t^2).
 * Speed: straight-line code with selects (no data-dependent branch except the Payne-Hanek
 * path for huge trigonometric arguments); the polynomials have 4-11 terms; about one
 * division in log/log1p/tan/tanh/atan, two in sinh/cosh/log10-free paths.
 */
#ifndef NRT_MATH_H
#define NRT_MATH_H

#if defined(__OPENCL_VERSION__)
#pragma OPENCL FP_CONTRACT OFF
#if defined(cl_khr_fp64) || defined(__opencl_c_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define NRT_MATH_HAS_DOUBLE 1
#else
#define NRT_MATH_HAS_DOUBLE 0
#endif
#define NRT_MFN static inline
#define NRT_MI32 int
#define NRT_MU32 uint
#define NRT_MI64 long
#define NRT_MU64 ulong
#define NRT_FMA(a, b, c) fma(a, b, c)
#define NRT_FMAF(a, b, c) fma(a, b, c)
#define NRT_F2U(x) as_uint(x)
#define NRT_U2F(x) as_float(x)
#define NRT_D2U(x) as_ulong(x)
#define NRT_U2D(x) as_double(x)
#elif defined(__CUDACC__)
#include <math.h>
#include <stdint.h>
#include <string.h>
#define NRT_FMA(a, b, c) fma(a, b, c)
#define NRT_FMAF(a, b, c) fmaf(a, b, c)
#define NRT_MATH_HAS_DOUBLE 1
#define NRT_MFN static inline __host__ __device__
#define NRT_MI32 int32_t
#define NRT_MU32 uint32_t
#define NRT_MI64 int64_t
#define NRT_MU64 uint64_t
#if defined(__CUDA_ARCH__)
#define NRT_F2U(x) ((NRT_MU32)__float_as_uint(x))
#define NRT_U2F(x) __uint_as_float((unsigned int)(x))
#define NRT_D2U(x) ((NRT_MU64)__double_as_longlong(x))
#define NRT_U2D(x) __longlong_as_double((long long)(x))
#else
#define NRT_MATH_MEMCPY_CAST 1
#endif
#else
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#define NRT_FMA(a, b, c) fma(a, b, c)
#define NRT_FMAF(a, b, c) fmaf(a, b, c)
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD != 0
#error "nrt_math.h needs FLT_EVAL_METHOD == 0 (SSE2 arithmetic, not x87 extended precision)"
#endif
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF /* clang contracts a*b+c by default; gcc -std=c11 does not */
#endif
#define NRT_MATH_HAS_DOUBLE 1
#if defined(__GNUC__)
/* inlined into the neuron loops whatever their size, so gcc can vectorise them (a call in a
 * loop stops it) */
#define NRT_MFN static inline __attribute__((always_inline))
#else
#define NRT_MFN static inline
#endif
#define NRT_MI32 int32_t
#define NRT_MU32 uint32_t
#define NRT_MI64 int64_t
#define NRT_MU64 uint64_t
#define NRT_MATH_MEMCPY_CAST 1
#endif

#if defined(NRT_MATH_MEMCPY_CAST)
NRT_MFN NRT_MU32 nrt__f2u(float x) { NRT_MU32 u; memcpy(&u, &x, sizeof u); return u; }
NRT_MFN float nrt__u2f(NRT_MU32 u) { float x; memcpy(&x, &u, sizeof x); return x; }
NRT_MFN NRT_MU64 nrt__d2u(double x) { NRT_MU64 u; memcpy(&u, &x, sizeof u); return u; }
NRT_MFN double nrt__u2d(NRT_MU64 u) { double x; memcpy(&x, &u, sizeof x); return x; }
#define NRT_F2U(x) nrt__f2u(x)
#define NRT_U2F(x) nrt__u2f(x)
#define NRT_D2U(x) nrt__d2u(x)
#define NRT_U2D(x) nrt__u2d(x)
#endif

/* ---- Payne-Hanek: bits of 2/pi, shared by float and double ---------------------------- */

/* 2/pi = 0.A2F9836E 4E441529 ... (hex), 38 words after two zero words (a 64-bit lead-in so
 * that arguments just above the Cody-Waite range need no special case). */
#define NRT__2OPI_WORDS 0u, 0u, 0xA2F9836Eu, 0x4E441529u, 0xFC2757D1u, 0xF534DDC0u, \
    0xDB629599u, 0x3C439041u, 0xFE5163ABu, 0xDEBBC561u, 0xB7246E3Au, 0x424DD2E0u,      \
    0x06492EEAu, 0x09D1921Cu, 0xFE1DEB1Cu, 0xB129A73Eu, 0xE88235F5u, 0x2EBB4484u,      \
    0xE99C7026u, 0xB45F7E41u, 0x3991D639u, 0x835339F4u, 0x9C845F8Bu, 0xBDF9283Bu,      \
    0x1FF897FFu, 0xDE05980Fu, 0xEF2F118Bu, 0x5A0A6D1Fu, 0x6D367ECFu, 0x27CB09B7u,      \
    0x4F463F66u, 0x9E5FEA2Du, 0x7527BAC7u, 0xEBE5F17Bu, 0x3D0739F7u, 0x8A5292EAu,      \
    0x6BFB5FB1u, 0x1F8D5D08u, 0x56033046u, 0xFC7B6BABu

#if defined(__OPENCL_VERSION__)
__constant uint nrt__2opi_tab[40] = {NRT__2OPI_WORDS};
NRT_MFN NRT_MU32 nrt__2opi(NRT_MI32 i) { return nrt__2opi_tab[i]; }
#else
NRT_MFN NRT_MU32 nrt__2opi(NRT_MI32 i)
{
    static const NRT_MU32 tab[40] = {NRT__2OPI_WORDS};
    return tab[i];
}
#endif

typedef struct nrt__phres {
    NRT_MU64 top, mid;  /* |g| = (top 2^64 + mid) 2^-(128 + shift), top's high bit set */
    NRT_MI32 q;         /* quadrant, 0..3 */
    NRT_MI32 neg;       /* g < 0 */
    NRT_MI32 shift;
} nrt__phres;

/* |x| = m 2^e with m < 2^53 and -62 <= e <= 971: x 2/pi = 4n + q + g, g in [-1/2, 1/2),
 * from the product of m with 224 bits of 2/pi taken from the bit where the result's units of
 * 4 begin (so the integer part never has to be formed). */
NRT_MFN nrt__phres nrt__payne_hanek(NRT_MU64 m, NRT_MI32 e)
{
    nrt__phres res;
    NRT_MI32 pos = e - 2 + 64; /* first table bit of frac(2^(e-2) 2/pi) */
    NRT_MI32 wi = pos >> 5, sh = pos & 31;
    NRT_MU32 b[7], r[7];
    NRT_MU32 ml = (NRT_MU32)m, mh = (NRT_MU32)(m >> 32);
    NRT_MU64 c1 = 0, c2 = 0, top, mid, A, B, C;
    NRT_MI32 t, s, shift = 0;
    for (t = 0; t < 7; t++) {
        NRT_MU64 two = ((NRT_MU64)nrt__2opi(wi + t) << 32) | (NRT_MU64)nrt__2opi(wi + t + 1);
        b[6 - t] = (NRT_MU32)(two >> (32 - sh));
    }
    /* r = m * b mod 2^224, limbs little-endian */
    for (t = 0; t < 7; t++) {
        NRT_MU64 t1 = (NRT_MU64)ml * b[t] + c1;
        NRT_MU64 t2;
        c1 = t1 >> 32;
        t2 = (NRT_MU64)(NRT_MU32)t1 + c2 + (t > 0 ? (NRT_MU64)mh * b[t - 1] : (NRT_MU64)0);
        c2 = t2 >> 32;
        r[t] = (NRT_MU32)t2;
    }
    A = ((NRT_MU64)r[6] << 32) | r[5];
    B = ((NRT_MU64)r[4] << 32) | r[3];
    C = ((NRT_MU64)r[2] << 32) | r[1];
    top = (A << 2) | (B >> 62);
    mid = (B << 2) | (C >> 62);
    res.neg = (NRT_MI32)(top >> 63);
    res.q = (NRT_MI32)((A >> 62) + (top >> 63)) & 3;
    if (res.neg) {
        mid = ~mid + 1u;
        top = ~top + (mid == 0 ? 1u : 0u);
    }
    if (top == 0) {
        top = mid;
        mid = 0;
        shift = 64;
    }
    for (s = 32; s > 0; s >>= 1) {
        if ((top >> (64 - s)) == 0) {
            top = (top << s) | (mid >> (64 - s));
            mid <<= s;
            shift += s;
        }
    }
    res.top = top;
    res.mid = mid;
    res.shift = shift;
    return res;
}

/* ======================================= double ======================================= */
#if NRT_MATH_HAS_DOUBLE

typedef struct nrt__dd {
    double h, l;
} nrt__dd;
typedef struct nrt__dexp {
    double h, hh, l; /* e^x = 2^k (1 + h + hh + l) */
    NRT_MI32 k;
} nrt__dexp;
typedef struct nrt__drem {
    double h, l; /* x = q pi/2 + h + l (mod 2 pi) */
    NRT_MI32 q;
} nrt__drem;

#define NRT__SHIFT_D 6755399441055744.0 /* 1.5 * 2^52 */
#define NRT__INF_D NRT_U2D((NRT_MU64)0x7ff0000000000000u)
#define NRT__NAN_D NRT_U2D((NRT_MU64)0x7ff8000000000000u)
#define NRT__LN2H_D 0.6931471803691238     /* 32 bits: e ln2h exact */
#define NRT__LN2L_D 1.9082149292705877e-10
#define NRT__IVLN2_D 1.4426950408889634
#define NRT__PIO2_1_D 1.5707963267341256   /* pi/2 in four parts of 33, 33, 33, 53 bits */
#define NRT__PIO2_2_D 6.077100506303966e-11
#define NRT__PIO2_3_D 2.0222662487111665e-21
#define NRT__PIO2_4_D 8.4784276603689e-32
#define NRT__PIO2H_D 1.5707963267948966
#define NRT__PIO2L_D 6.123233995736766e-17
#define NRT__2OPI_D 0.6366197723675814
#define NRT__IVLN10H_D 0.4342944771051407  /* 26 bits */
#define NRT__IVLN10L_D 4.798111141615973e-09
#define NRT__IVLN10_D 0.4342944819032518
#define NRT__LG2H_D 0.30102999566361177    /* log10(2), 40 bits */
#define NRT__LG2L_D 3.694239077158931e-13
#define NRT__C23H_D 0.6666666567325592     /* 2/3, 26 bits */
#define NRT__C23L_D 9.934107462565104e-09
#define NRT__C23_D 0.6666666666666666

NRT_MFN double nrt__absd(double x) { return NRT_U2D(NRT_D2U(x) & (NRT_MU64)0x7fffffffffffffffu); }
/* x with its low 27 mantissa bits cleared: 26 significant bits, so hi*hi is exact */
NRT_MFN double nrt__hi26(double x) { return NRT_U2D(NRT_D2U(x) & (NRT_MU64)0xfffffffff8000000u); }
NRT_MFN double nrt__pow2d(NRT_MI32 k) { return NRT_U2D((NRT_MU64)(NRT_MI64)(k + 1023) << 52); }
/* p 2^k for k in [-1076, 1026], one rounding (p 2^(k/2) is exact) */
NRT_MFN double nrt__scaled(double p, NRT_MI32 k)
{
    NRT_MI32 k1 = k / 2;
    return p * nrt__pow2d(k1) * nrt__pow2d(k - k1);
}
/* the rounding error of a*b (p = a*b rounded), exact (no underflow) */
NRT_MFN double nrt__mulerr_d(double a, double b, double p) { return NRT_FMA(a, b, -p); }
/* n/d for two-word n and d (both normalised), two-word result */
NRT_MFN nrt__dd nrt__divdd_d(double nh, double nl, double dh, double dl)
{
    nrt__dd q;
    double qh = nh / dh;
    double p = qh * dh;
    double rem = (((nh - p) - nrt__mulerr_d(qh, dh, p)) + nl) - qh * dl;
    q.h = qh;
    q.l = rem / dh;
    return q;
}

/* e^(xh + xl) = 2^k (1 + h + hh + l), |xh| <= 746, |xl| <= 2^-40 |xh|: h = r, hh + l =
 * e^r - 1 - r with hh = r^2/2 rounded (exact: r^2 = 2 hh + ze) and l the small rest */
NRT_MFN nrt__dexp nrt__expk_d(double xh, double xl)
{
    nrt__dexp E;
    double t = NRT_FMA(xh, NRT__IVLN2_D, NRT__SHIFT_D);
    double kd = t - NRT__SHIFT_D;
    double a = NRT_FMA(-kd, NRT__LN2H_D, xh); /* exact */
    double b = NRT_FMA(kd, NRT__LN2L_D, -xl);
    double rh = a - b;
    double rl = (a - rh) - b;
    double z = rh * rh;
    double ze = NRT_FMA(rh, rh, -z);
    /* e^r - 1 - r - r^2/2 = r^3 (qo(z) + r qe(z)): a minimax fit on [-0.3466, 0.3466] with
     * relative error 2^-57, split into odd and even halves (two short chains) */
    double qe = NRT_FMA(z, NRT_FMA(z, NRT_FMA(z, NRT_FMA(z, 2.088937645126005e-09,
                2.7557349626785204e-07), 2.480158724571911e-05), 0.0013888888888917974),
                0.041666666666666616);
    double qo = NRT_FMA(z, NRT_FMA(z, NRT_FMA(z, NRT_FMA(z, 2.5105181723244168e-08,
                2.755725549478757e-06), 0.0001984126987473612), 0.008333333333326164),
                0.1666666666666667);
    E.k = (NRT_MI32)(NRT_MI64)(NRT_D2U(t) - (NRT_MU64)0x4338000000000000u);
    E.h = rh;
    E.hh = 0.5 * z;
    E.l = NRT_FMA(z * rh, NRT_FMA(rh, qe, qo), NRT_FMA(0.5, ze, NRT_FMA(rl, rh, rl)));
    return E;
}

NRT_MFN double nrt_exp(double x)
{
    nrt__dexp E;
    double h, t;
    x = x > 710.0 ? 710.0 : x;
    x = x < -746.0 ? -746.0 : x;
    E = nrt__expk_d(x, 0.0);
    h = 1.0 + E.h;
    t = (1.0 - h) + E.h;
    return nrt__scaled(h + (t + (E.hh + E.l)), E.k);
}

/* expm1(x) = 2^k S, S = Sh + Sl (|Sl| small), for -40 <= x <= 710 */
NRT_MFN nrt__dexp nrt__expm1k_d(double x)
{
    nrt__dexp E = nrt__expk_d(x, 0.0), S;
    NRT_MI32 kk = E.k > 100 ? 100 : E.k;
    double u = nrt__pow2d(-kk);
    /* c = 1 - 2^-k exactly as ch + cl */
    double ch = 1.0 - u, bb = ch - 1.0;
    double cl = (1.0 - (ch - bb)) + (-u - bb);
    /* S = c + (h + hh + l): |c| >= 1/2 > |h| or c = 0, and |ch + h| > |hh| (fast two-sums) */
    double sh = ch + E.h;
    double se = (ch - sh) + E.h;
    double s2 = sh + E.hh;
    double sl = (((sh - s2) + E.hh) + se) + (cl + E.l);
    S.h = s2 + sl;
    S.l = (s2 - S.h) + sl;
    S.k = E.k;
    return S;
}

NRT_MFN double nrt_expm1(double x)
{
    nrt__dexp S;
    double xc = x > 710.0 ? 710.0 : x;
    xc = xc < -40.0 ? -40.0 : xc;
    S = nrt__expm1k_d(xc);
    xc = nrt__scaled(S.h + S.l, S.k);
    return x == 0.0 ? x : xc;
}

typedef struct nrt__dlog {
    double h, l; /* log x = e ln2 + h + l, |h| <= 0.35 */
    NRT_MI32 e;
} nrt__dlog;

/* x = 2^e m, m in [sqrt(1/2), sqrt(2)); x > 0 finite (subnormals scaled) */
NRT_MFN double nrt__logm_d(double x, NRT_MI32 *e)
{
    NRT_MI32 sub = x < 2.2250738585072014e-308;
    NRT_MU64 ix;
    x = sub ? x * 18014398509481984.0 : x; /* 2^54 */
    ix = NRT_D2U(x) + ((NRT_MU64)0x3ff0000000000000u - (NRT_MU64)0x3fe6a09e667f3bcdu);
    *e = (NRT_MI32)(ix >> 52) - 1023 - (sub ? 54 : 0);
    ix = (ix & (NRT_MU64)0x000fffffffffffffu) + (NRT_MU64)0x3fe6a09e667f3bcdu;
    return NRT_U2D(ix);
}

NRT_MFN nrt__dlog nrt__logk_d(double x)
{
    nrt__dlog L;
    double m = nrt__logm_d(x, &L.e);
    double f = m - 1.0;
    double s = f / (2.0 + f);
    double z = s * s;
    /* R(z) = (2 atanh(s) - 2s)/s on [0, 0.02944], rel. error 2^-51 */
    double R = z * NRT_FMA(z, NRT_FMA(z, NRT_FMA(z, NRT_FMA(z, NRT_FMA(z, NRT_FMA(z,
               0.14617002548531124, 0.15331673738719334), 0.18182890678218225),
               0.22222211111585055), 0.28571428626132167), 0.39999999999899116), 0.666666666666667);
    double f2 = f * f;
    double hh = 0.5 * f2, hl = 0.5 * NRT_FMA(f, f, -f2); /* f^2/2 = hh + hl exactly */
    double Ah = f - hh;
    double Al = (f - Ah) - hh;
    double T = s * ((hh + hl) + R);
    L.h = Ah;
    L.l = Al + (T - hl);
    return L;
}

NRT_MFN double nrt__logfinish_d(nrt__dlog L, double extra)
{
    double ed = (double)L.e;
    double a = ed * NRT__LN2H_D;
    double bh = a + L.h;
    double bl = (a - bh) + L.h;
    return bh + (bl + ((L.l + ed * NRT__LN2L_D) + extra));
}

NRT_MFN double nrt_log(double x)
{
    double r = nrt__logfinish_d(nrt__logk_d(x), 0.0);
    r = x == NRT__INF_D ? x : r;
    r = x == 0.0 ? -NRT__INF_D : r;
    r = x < 0.0 ? NRT__NAN_D : r;
    return x != x ? x + x : r;
}

NRT_MFN double nrt_log1p(double x)
{
    double u = 1.0 + x;
    double bb = u - 1.0;
    double c = (1.0 - (u - bb)) + (x - bb); /* 1 + x = u + c exactly */
    double r = nrt__logfinish_d(nrt__logk_d(u), c / u);
    r = x == NRT__INF_D ? x : r;
    r = x == -1.0 ? -NRT__INF_D : r;
    r = x < -1.0 ? NRT__NAN_D : r;
    r = x == 0.0 ? x : r;
    return x != x ? x + x : r;
}

NRT_MFN double nrt_log10(double x)
{
    nrt__dlog L = nrt__logk_d(x);
    double h = L.h + L.l;
    double l = (L.h - h) + L.l;
    double hh = nrt__hi26(h);
    double hl = (h - hh) + l;
    double yh = hh * NRT__IVLN10H_D; /* exact */
    double yl = hh * NRT__IVLN10L_D + hl * NRT__IVLN10_D;
    double ed = (double)L.e;
    double a = ed * NRT__LG2H_D; /* exact */
    double bh = a + yh;
    double bl = (a - bh) + yh;
    double r = bh + (bl + (yl + ed * NRT__LG2L_D));
    r = x == NRT__INF_D ? x : r;
    r = x == 0.0 ? -NRT__INF_D : r;
    r = x < 0.0 ? NRT__NAN_D : r;
    return x != x ? x + x : r;
}

/* log x for pow, x > 0 finite: two words with relative error about 2^-66.
 * log m = 2 atanh(s) = 2/3 s t, t = 3 + s^2 + R3(s^2), s = (m-1)/(m+1); s, t and s t are
 * carried as a 26-bit head and a tail, so every head product is exact. */
NRT_MFN nrt__dd nrt__logk2_d(double x)
{
    nrt__dd L;
    NRT_MI32 e;
    double m = nrt__logm_d(x, &e);
    double f = m - 1.0, d = m + 1.0;
    double dh = nrt__hi26(d), dl = m - (dh - 1.0); /* d = dh + dl exactly */
    double id = 1.0 / d;
    double s = f * id;
    double sh = nrt__hi26(s);
    double sl = ((f - sh * dh) - sh * dl) * id;
    double z = s * s;
    /* R3(z)/z^2 = (3 atanh(s)/s - 3 - z)/z^2 on [0, 0.02944], rel. error 2^-57.5 (the
     * constant 3/5 carried in two words) */
    double z2 = z * z;
    double R = z2 * (0.6 + z * (0.42857142857144054 + z * (0.3333333333248237 +
               z * (0.2727272750338679 + z * (0.23076892414934008 + z * (0.20002208475518898 +
               z * (0.175593191269533 + z * 0.17585110677983198))))))) +
               z2 * 2.2204460492503132e-17;
    double r = R + sl * (s + sh);
    double sh2 = sh * sh;
    double th = nrt__hi26((3.0 + sh2) + r);
    double tl = r - ((th - 3.0) - sh2);
    double u = sh * th;
    double v = sl * th + tl * s;
    double ph = nrt__hi26(u + v);
    double pl = v - (ph - u);
    double lmh = ph * NRT__C23H_D;
    double lml = ph * NRT__C23L_D + pl * NRT__C23_D;
    double ed = (double)e;
    double a = ed * NRT__LN2H_D;
    double Ah = a + lmh;
    double Al = (a - Ah) + lmh;
    double low = Al + (lml + ed * NRT__LN2L_D);
    L.h = Ah + low;
    L.l = (Ah - L.h) + low;
    return L;
}

/* x^3 or x^4 (four): m^n in two words for x = 2^e m, m in [1, 2), then 2^(n e) with one
 * rounding (twice for a subnormal result); x not NaN. Every pow(x, 3) and pow(x, 4) goes
 * here, so the result does not depend on which path a back end could take. */
NRT_MFN double nrt__pow34_d(double x, NRT_MI32 four)
{
    double ax = nrt__absd(x);
    NRT_MI32 sub = ax < 2.2250738585072014e-308;
    NRT_MU64 ix;
    double m, m2h, m2l, h, l, r;
    NRT_MI32 e, k;
    ax = sub ? ax * 18014398509481984.0 : ax; /* 2^54 */
    ix = NRT_D2U(ax);
    e = (NRT_MI32)(ix >> 52) - 1023 - (sub ? 54 : 0);
    m = NRT_U2D((ix & (NRT_MU64)0x000fffffffffffffu) | (NRT_MU64)0x3ff0000000000000u);
    m2h = m * m;
    m2l = NRT_FMA(m, m, -m2h); /* m^2 = m2h + m2l exactly */
    h = four ? m2h * m2h : m2h * m;
    l = four ? NRT_FMA(m2h, m2h, -h) + 2.0 * m2h * m2l : NRT_FMA(m2h, m, -h) + m2l * m;
    k = (four ? 4 : 3) * e;
    k = k > 2000 ? 2000 : (k < -2000 ? -2000 : k);
    r = nrt__scaled(h + l, k);
    return !four && (NRT_D2U(x) >> 63) ? -r : r;
}

NRT_MFN double nrt_pow(double x, double y)
{
    double ax = nrt__absd(x), ay = nrt__absd(y);
    NRT_MU64 iy = NRT_D2U(y);
    NRT_MI32 ey = (NRT_MI32)((iy >> 52) & 0x7ff) - 1023;
    NRT_MU64 my = (iy & (NRT_MU64)0x000fffffffffffffu) | (NRT_MU64)0x0010000000000000u;
    NRT_MI32 sh = ey < 0 ? 53 : (ey > 52 ? 0 : 52 - ey);
    NRT_MI32 isint = ey > 52 || (ey >= 0 && (my & (((NRT_MU64)1 << sh) - 1u)) == 0);
    NRT_MI32 isodd = isint && ey >= 0 && ey <= 52 && ((my >> sh) & 1u);
    NRT_MI32 negx = (NRT_MI32)(NRT_D2U(x) >> 63);
    nrt__dd L = nrt__logk2_d(ax);
    double zh = y * L.h;
    double zl = nrt__mulerr_d(y, L.h, zh) + y * L.l;
    nrt__dexp E;
    double h, t, r, big;
    zl = nrt__absd(zh) <= 746.0 ? zl : 0.0;
    zh = zh > 710.0 ? 710.0 : zh;
    zh = zh < -746.0 ? -746.0 : zh;
    E = nrt__expk_d(zh, zl);
    h = 1.0 + E.h;
    t = (1.0 - h) + E.h;
    r = nrt__scaled(h + (t + (E.hh + E.l)), E.k);
    r = negx && isodd ? -r : r;
    /* C99 F.9.4.4 */
    r = negx && !isint ? NRT__NAN_D : r;
    big = (ax == 0.0) == (y < 0.0) ? NRT__INF_D : 0.0;
    big = negx && isodd ? -big : big;
    r = ax == 0.0 || ax == NRT__INF_D ? big : r;
    r = ay == NRT__INF_D ? (ax == 1.0 ? 1.0 : ((ax < 1.0) == (y < 0.0) ? NRT__INF_D : 0.0)) : r;
    r = x != x || y != y ? x + y : r;
    /* small integer powers (y is mostly a constant: then only this path is left) */
    r = (y == 3.0 || y == 4.0) && x == x ? nrt__pow34_d(x, y == 4.0) : r;
    r = y == 2.0 ? x * x : r; /* correctly rounded, and C99 F.9.4.4's values */
    return y == 0.0 || x == 1.0 ? 1.0 : r;
}

/* ---- trigonometric ---- */

NRT_MFN nrt__drem nrt__rem_pio2_d(double x)
{
    nrt__drem R;
    double ax = nrt__absd(x);
    if (ax < 1048576.0) { /* Cody-Waite, |k| < 2^20 so k * part is exact */
        double t = x * NRT__2OPI_D + NRT__SHIFT_D;
        double kd = t - NRT__SHIFT_D;
        double a = x - kd * NRT__PIO2_1_D;
        double b = kd * NRT__PIO2_2_D;
        double r1 = a - b, b1 = r1 - a;
        double e1 = (a - (r1 - b1)) + (-b - b1);
        double c = kd * NRT__PIO2_3_D;
        double r2 = r1 - c, b2 = r2 - r1;
        double e2 = (r1 - (r2 - b2)) + (-c - b2);
        double low = (e1 + e2) - kd * NRT__PIO2_4_D;
        R.h = r2 + low;
        R.l = (r2 - R.h) + low;
        R.q = (NRT_MI32)(NRT_MI64)(NRT_D2U(t) - (NRT_MU64)0x4338000000000000u) & 3;
    } else if (ax == NRT__INF_D || x != x) {
        R.h = x - x;
        R.l = 0.0;
        R.q = 0;
    } else { /* Payne-Hanek */
        NRT_MU64 ix = NRT_D2U(ax);
        NRT_MI32 e = (NRT_MI32)(ix >> 52) - 1075;
        nrt__phres P = nrt__payne_hanek((ix & (NRT_MU64)0x000fffffffffffffu) |
                                        (NRT_MU64)0x0010000000000000u, e);
        double gh = (double)(P.top >> 11) * nrt__pow2d(-53 - P.shift);
        double gl = (double)(((P.top & 0x7ffu) << 53) | (P.mid >> 11)) * nrt__pow2d(-117 - P.shift);
        double rh = gh * NRT__PIO2H_D;
        double rl = nrt__mulerr_d(gh, NRT__PIO2H_D, rh) + (gh * NRT__PIO2L_D + gl * NRT__PIO2H_D);
        double h = rh + rl;
        double l = (rh - h) + rl;
        NRT_MI32 neg = P.neg ^ (x < 0.0);
        R.h = neg ? -h : h;
        R.l = neg ? -l : l;
        R.q = (x < 0.0 ? -P.q : P.q) & 3;
    }
    return R;
}

/* sin(h + l) = result.h + result.l, |h| <= pi/4 */
NRT_MFN nrt__dd nrt__ksin_d(double h, double l)
{
    nrt__dd s;
    double z = h * h;
    double S = -0.16666666666666666 + z * (0.008333333333330922 + z * (-0.00019841269836723397 +
               z * (2.755731608632301e-06 + z * (-2.505112878880317e-08 + z * 1.5917927879964185e-10))));
    double tail = (z * h) * S + l * (1.0 - 0.5 * z);
    s.h = h + tail;
    s.l = (h - s.h) + tail;
    return s;
}

NRT_MFN nrt__dd nrt__kcos_d(double h, double l)
{
    nrt__dd c;
    double z = h * h;
    double C = 0.041666666666666664 + z * (-0.0013888888888887387 + z * (2.4801587298750476e-05 +
               z * (-2.7557317264654405e-07 + z * (2.087614492568758e-09 + z * -1.1382543281867233e-11))));
    double hh = nrt__hi26(h), hl = h - hh;
    double zh = 0.5 * hh * hh, zl = 0.5 * hl * (h + hh); /* z/2 = zh + zl, zh exact */
    double w = 1.0 - zh;
    double tail = (((1.0 - w) - zh) - zl) + ((z * z) * C - h * l);
    c.h = w + tail;
    c.l = (w - c.h) + tail;
    return c;
}

NRT_MFN double nrt_sin(double x)
{
    nrt__drem R = nrt__rem_pio2_d(x);
    nrt__dd s = nrt__ksin_d(R.h, R.l), c = nrt__kcos_d(R.h, R.l);
    double r = (R.q & 1) ? c.h : s.h;
    r = (R.q & 2) ? -r : r;
    return nrt__absd(x) < 7.450580596923828e-09 ? x : r; /* 2^-27 */
}

NRT_MFN double nrt_cos(double x)
{
    nrt__drem R = nrt__rem_pio2_d(x);
    nrt__dd s = nrt__ksin_d(R.h, R.l), c = nrt__kcos_d(R.h, R.l);
    double r = (R.q & 1) ? s.h : c.h;
    return ((R.q + 1) & 2) ? -r : r;
}

NRT_MFN double nrt_tan(double x)
{
    nrt__drem R = nrt__rem_pio2_d(x);
    nrt__dd s = nrt__ksin_d(R.h, R.l), c = nrt__kcos_d(R.h, R.l);
    NRT_MI32 odd = R.q & 1;
    nrt__dd q = nrt__divdd_d(odd ? -c.h : s.h, odd ? -c.l : s.l, odd ? s.h : c.h, odd ? s.l : c.l);
    double r = q.h + q.l;
    return nrt__absd(x) < 7.450580596923828e-09 ? x : r;
}

/* ---- hyperbolic ---- */

/* (e^a +- e^-a)/2 for a = |x| */
NRT_MFN double nrt__sinhcosh_d(double x, double sgn)
{
    double a = nrt__absd(x);
    nrt__dexp E;
    double uh, ul, h, l, vh, p, vl, w, wh, wl, dh, b, de, dl;
    NRT_MI32 k2;
    a = a > 711.0 ? 711.0 : a;
    E = nrt__expk_d(a, 0.0);
    uh = 1.0 + E.h;
    ul = ((1.0 - uh) + E.h) + (E.hh + E.l);
    h = uh + ul; /* u = e^a 2^-k = h + l */
    l = (uh - h) + ul;
    vh = 1.0 / h; /* 1/u = vh + vl */
    p = vh * h;
    vl = (((1.0 - p) - nrt__mulerr_d(vh, h, p)) - vh * l) * vh;
    k2 = E.k > 60 ? 60 : E.k;
    w = nrt__pow2d(-2 * k2);
    wh = sgn * vh * w;
    wl = sgn * vl * w;
    dh = h + wh; /* two-sum */
    b = dh - h;
    de = (h - (dh - b)) + (wh - b);
    dl = de + (l + wl);
    return nrt__scaled(dh + dl, E.k - 1);
}

NRT_MFN double nrt_sinh(double x)
{
    double r = nrt__sinhcosh_d(x, -1.0);
    r = x < 0.0 ? -r : r;
    return nrt__absd(x) < 1.4901161193847656e-08 ? x : r; /* 2^-26 */
}

NRT_MFN double nrt_cosh(double x) { return nrt__sinhcosh_d(x, 1.0); }

NRT_MFN double nrt_tanh(double x)
{
    double a = nrt__absd(x);
    nrt__dexp S;
    double p, mh, ml, dh, b, dl, r;
    nrt__dd q;
    a = a > 20.0 ? 20.0 : a;
    S = nrt__expm1k_d(2.0 * a);
    p = nrt__pow2d(S.k);
    mh = S.h * p; /* E = e^(2a) - 1 = mh + ml */
    ml = S.l * p;
    dh = mh + 2.0; /* E + 2 */
    b = dh - mh;
    dl = ((mh - (dh - b)) + (2.0 - b)) + ml;
    r = dh + dl;
    dl = (dh - r) + dl;
    q = nrt__divdd_d(mh, ml, r, dl);
    r = q.h + q.l;
    r = x < 0.0 ? -r : r;
    return nrt__absd(x) < 7.450580596923828e-09 ? x : r;
}

/* ---- atan ---- */

NRT_MFN double nrt_atan(double x)
{
    double a = nrt__absd(x);
    NRT_MI32 id = a < 0.4375 ? 0 : (a < 0.6875 ? 1 : (a < 1.1875 ? 2 : (a < 2.4375 ? 3 : 4)));
    double c = id == 1 ? 0.5 : (id == 2 ? 1.0 : 1.5);
    double ch = id == 1 ? 0.4636476090008061 : (id == 2 ? 0.7853981633974483 :
                (id == 3 ? 0.982793723247329 : 1.5707963267948966));
    double cl = id == 1 ? 2.2698777452961687e-17 : (id == 2 ? 3.061616997868383e-17 :
                (id == 3 ? 1.3903311031230998e-17 : 6.123233995736766e-17));
    double num = id == 4 ? -1.0 : (id == 0 ? a : a - c);
    double den = id == 4 ? a : (id == 0 ? 1.0 : 1.0 + c * a);
    double t = num / den;
    double z = t * t;
    double A = -0.33333333333333326 + z * (0.19999999999988036 + z * (-0.14285714283194398 +
               z * (0.11111110903597274 + z * (-0.09090900298015657 + z * (0.07692089335803581 +
               z * (-0.06663262774796981 + z * (0.05847896466903097 + z * (-0.050347024011573496 +
               z * (0.03784382635806487 + z * -0.017566613159523764)))))))));
    double r;
    ch = id == 0 ? 0.0 : ch;
    cl = id == 0 ? 0.0 : cl;
    r = ch + (t + ((t * z) * A + cl));
    r = NRT_U2D(NRT_D2U(r) | (NRT_D2U(x) & (NRT_MU64)0x8000000000000000u));
    return a < 7.450580596923828e-09 || x != x ? x + 0.0 * x : r;
}

#endif /* NRT_MATH_HAS_DOUBLE */

/* ======================================== float ======================================= */

typedef struct nrt__ff {
    float h, l;
} nrt__ff;
typedef struct nrt__fexp {
    float h, hh, l;
    NRT_MI32 k;
} nrt__fexp;
typedef struct nrt__frem {
    float h, l;
    NRT_MI32 q;
} nrt__frem;

#define NRT__SHIFT_F 12582912.0f /* 1.5 * 2^23 */
#define NRT__INF_F NRT_U2F(0x7f800000u)
#define NRT__NAN_F NRT_U2F(0x7fc00000u)
#define NRT__LN2H_F 0.693145752f /* 15 bits */
#define NRT__LN2L_F 1.42860677e-06f
#define NRT__IVLN2_F 1.44269502f
#define NRT__PIO2_1_F 1.5703125f /* pi/2 in parts of <= 11 bits, then 24 */
#define NRT__PIO2_2_F 0.000483751297f
#define NRT__PIO2_3_F 7.54953362e-08f
#define NRT__PIO2_4_F 2.56328292e-12f
#define NRT__PIO2_5_F 6.12323426e-17f
#define NRT__PIO2H_F 1.57079637f
#define NRT__PIO2L_F -4.37113883e-08f
#define NRT__2OPI_F 0.636619747f
#define NRT__IVLN10H_F 0.434204102f /* 12 bits */
#define NRT__IVLN10L_F 9.03803375e-05f
#define NRT__IVLN10_F 0.434294492f
#define NRT__LG2H_F 0.301025391f /* 15 bits */
#define NRT__LG2L_F 4.60503907e-06f
#define NRT__C23H_F 0.666503906f /* 12 bits */
#define NRT__C23L_F 0.000162760422f
#define NRT__C23_F 0.666666687f

NRT_MFN float nrt__absf(float x) { return NRT_U2F(NRT_F2U(x) & 0x7fffffffu); }
/* 12 significant bits: hi*hi, hi*lo and lo*lo are all exact */
NRT_MFN float nrt__hi12(float x) { return NRT_U2F(NRT_F2U(x) & 0xfffff000u); }
NRT_MFN float nrt__pow2f(NRT_MI32 k) { return NRT_U2F((NRT_MU32)(k + 127) << 23); }
NRT_MFN float nrt__scalef(float p, NRT_MI32 k)
{
    NRT_MI32 k1 = k / 2;
    return p * nrt__pow2f(k1) * nrt__pow2f(k - k1);
}
NRT_MFN float nrt__mulerr_f(float a, float b, float p) { return NRT_FMAF(a, b, -p); }
NRT_MFN nrt__ff nrt__divff_f(float nh, float nl, float dh, float dl)
{
    nrt__ff q;
    float qh = nh / dh;
    float p = qh * dh;
    float rem = (((nh - p) - nrt__mulerr_f(qh, dh, p)) + nl) - qh * dl;
    q.h = qh;
    q.l = rem / dh;
    return q;
}

/* e^(xh + xl) = 2^k (1 + h + hh + l), |xh| <= 104 (as nrt__expk_d) */
NRT_MFN nrt__fexp nrt__expk_f(float xh, float xl)
{
    nrt__fexp E;
    float t = NRT_FMAF(xh, NRT__IVLN2_F, NRT__SHIFT_F);
    float kd = t - NRT__SHIFT_F;
    float a = NRT_FMAF(-kd, NRT__LN2H_F, xh);
    float b = NRT_FMAF(kd, NRT__LN2L_F, -xl);
    float rh = a - b;
    float rl = (a - rh) - b;
    float z = rh * rh;
    float ze = NRT_FMAF(rh, rh, -z);
    /* (e^r - 1 - r - r^2/2)/r^3 on [-0.3466, 0.3466], rel. error 2^-26.5 (of e^r - 1 - r) */
    float Q = NRT_FMAF(rh, NRT_FMAF(rh, NRT_FMAF(rh, NRT_FMAF(rh, 0.000198578025f, 0.00139336044f),
              0.00833336078f), 0.0416664667f), 0.166666672f);
    E.k = (NRT_MI32)(NRT_F2U(t) - 0x4b400000u);
    E.h = rh;
    E.hh = 0.5f * z;
    E.l = NRT_FMAF(z * rh, Q, NRT_FMAF(0.5f, ze, NRT_FMAF(rl, rh, rl)));
    return E;
}

NRT_MFN float nrt_expf(float x)
{
    nrt__fexp E;
    float h, t;
    x = x > 89.0f ? 89.0f : x;
    x = x < -104.0f ? -104.0f : x;
    E = nrt__expk_f(x, 0.0f);
    h = 1.0f + E.h;
    t = (1.0f - h) + E.h;
    return nrt__scalef(h + (t + (E.hh + E.l)), E.k);
}

NRT_MFN nrt__fexp nrt__expm1k_f(float x)
{
    nrt__fexp E = nrt__expk_f(x, 0.0f), S;
    NRT_MI32 kk = E.k > 50 ? 50 : E.k;
    float u = nrt__pow2f(-kk);
    float ch = 1.0f - u, bb = ch - 1.0f;
    float cl = (1.0f - (ch - bb)) + (-u - bb);
    float sh = ch + E.h;
    float se = (ch - sh) + E.h;
    float s2 = sh + E.hh;
    float sl = (((sh - s2) + E.hh) + se) + (cl + E.l);
    S.h = s2 + sl;
    S.l = (s2 - S.h) + sl;
    S.k = E.k;
    return S;
}

NRT_MFN float nrt_expm1f(float x)
{
    nrt__fexp S;
    float xc = x > 89.0f ? 89.0f : x;
    xc = xc < -18.0f ? -18.0f : xc;
    S = nrt__expm1k_f(xc);
    xc = nrt__scalef(S.h + S.l, S.k);
    return x == 0.0f ? x : xc;
}

typedef struct nrt__flog {
    float h, l;
    NRT_MI32 e;
} nrt__flog;

NRT_MFN float nrt__logm_f(float x, NRT_MI32 *e)
{
    NRT_MI32 sub = x < 1.17549435e-38f;
    NRT_MU32 ix;
    x = sub ? x * 16777216.0f : x; /* 2^24 */
    ix = NRT_F2U(x) + (0x3f800000u - 0x3f3504f3u);
    *e = (NRT_MI32)(ix >> 23) - 127 - (sub ? 24 : 0);
    ix = (ix & 0x007fffffu) + 0x3f3504f3u;
    return NRT_U2F(ix);
}

NRT_MFN nrt__flog nrt__logk_f(float x)
{
    nrt__flog L;
    float m = nrt__logm_f(x, &L.e);
    float f = m - 1.0f;
    float s = f / (2.0f + f);
    float z = s * s;
    /* R(z) = (2 atanh(s) - 2s)/s on [0, 0.02944], rel. error 2^-21.7 */
    float R = z * NRT_FMAF(z, NRT_FMAF(z, 0.29580608f, 0.399887621f), 0.666666865f);
    float f2 = f * f;
    float hh = 0.5f * f2, hl = 0.5f * NRT_FMAF(f, f, -f2);
    float Ah = f - hh;
    float Al = (f - Ah) - hh;
    float T = s * ((hh + hl) + R);
    L.h = Ah;
    L.l = Al + (T - hl);
    return L;
}

NRT_MFN float nrt__logfinish_f(nrt__flog L, float extra)
{
    float ed = (float)L.e;
    float a = ed * NRT__LN2H_F;
    float bh = a + L.h;
    float bl = (a - bh) + L.h;
    return bh + (bl + ((L.l + ed * NRT__LN2L_F) + extra));
}

NRT_MFN float nrt_logf(float x)
{
    float r = nrt__logfinish_f(nrt__logk_f(x), 0.0f);
    r = x == NRT__INF_F ? x : r;
    r = x == 0.0f ? -NRT__INF_F : r;
    r = x < 0.0f ? NRT__NAN_F : r;
    return x != x ? x + x : r;
}

NRT_MFN float nrt_log1pf(float x)
{
    float u = 1.0f + x;
    float bb = u - 1.0f;
    float c = (1.0f - (u - bb)) + (x - bb);
    float r = nrt__logfinish_f(nrt__logk_f(u), c / u);
    r = x == NRT__INF_F ? x : r;
    r = x == -1.0f ? -NRT__INF_F : r;
    r = x < -1.0f ? NRT__NAN_F : r;
    r = x == 0.0f ? x : r;
    return x != x ? x + x : r;
}

NRT_MFN float nrt_log10f(float x)
{
    nrt__flog L = nrt__logk_f(x);
    float h = L.h + L.l;
    float l = (L.h - h) + L.l;
    float hh = nrt__hi12(h);
    float hl = (h - hh) + l;
    float yh = hh * NRT__IVLN10H_F;
    float yl = hh * NRT__IVLN10L_F + hl * NRT__IVLN10_F;
    float ed = (float)L.e;
    float a = ed * NRT__LG2H_F;
    float bh = a + yh;
    float bl = (a - bh) + yh;
    float r = bh + (bl + (yl + ed * NRT__LG2L_F));
    r = x == NRT__INF_F ? x : r;
    r = x == 0.0f ? -NRT__INF_F : r;
    r = x < 0.0f ? NRT__NAN_F : r;
    return x != x ? x + x : r;
}

NRT_MFN nrt__ff nrt__logk2_f(float x)
{
    nrt__ff L;
    NRT_MI32 e;
    float m = nrt__logm_f(x, &e);
    float f = m - 1.0f, d = m + 1.0f;
    float dh = nrt__hi12(d), dl = m - (dh - 1.0f);
    float id = 1.0f / d;
    float s = f * id;
    float sh = nrt__hi12(s);
    float sl = ((f - sh * dh) - sh * dl) * id;
    float z = s * s;
    /* R3(z)/z^2 on [0, 0.02944], rel. error 2^-24.4 */
    float R = z * z * (0.600000024f + z * (0.428572983f + z * (0.333071262f + z * 0.286810875f)));
    float r = R + sl * (s + sh);
    float sh2 = sh * sh;
    float th = nrt__hi12((3.0f + sh2) + r);
    float tl = r - ((th - 3.0f) - sh2);
    float u = sh * th;
    float v = sl * th + tl * s;
    float ph = nrt__hi12(u + v);
    float pl = v - (ph - u);
    float lmh = ph * NRT__C23H_F;
    float lml = ph * NRT__C23L_F + pl * NRT__C23_F;
    float ed = (float)e;
    float a = ed * NRT__LN2H_F;
    float Ah = a + lmh;
    float Al = (a - Ah) + lmh;
    float low = Al + (lml + ed * NRT__LN2L_F);
    L.h = Ah + low;
    L.l = (Ah - L.h) + low;
    return L;
}

NRT_MFN float nrt__pow34_f(float x, NRT_MI32 four)
{
    float ax = nrt__absf(x);
    NRT_MI32 sub = ax < 1.17549435e-38f;
    NRT_MU32 ix;
    float m, m2h, m2l, h, l, r;
    NRT_MI32 e, k;
    ax = sub ? ax * 16777216.0f : ax; /* 2^24 */
    ix = NRT_F2U(ax);
    e = (NRT_MI32)(ix >> 23) - 127 - (sub ? 24 : 0);
    m = NRT_U2F((ix & 0x007fffffu) | 0x3f800000u);
    m2h = m * m;
    m2l = NRT_FMAF(m, m, -m2h);
    h = four ? m2h * m2h : m2h * m;
    l = four ? NRT_FMAF(m2h, m2h, -h) + 2.0f * m2h * m2l : NRT_FMAF(m2h, m, -h) + m2l * m;
    k = (four ? 4 : 3) * e;
    k = k > 250 ? 250 : (k < -250 ? -250 : k);
    r = nrt__scalef(h + l, k);
    return !four && (NRT_F2U(x) >> 31) ? -r : r;
}

NRT_MFN float nrt_powf(float x, float y)
{
    float ax = nrt__absf(x), ay = nrt__absf(y);
    NRT_MU32 iy = NRT_F2U(y);
    NRT_MI32 ey = (NRT_MI32)((iy >> 23) & 0xff) - 127;
    NRT_MU32 my = (iy & 0x007fffffu) | 0x00800000u;
    NRT_MI32 sh = ey < 0 ? 24 : (ey > 23 ? 0 : 23 - ey);
    NRT_MI32 isint = ey > 23 || (ey >= 0 && (my & ((1u << sh) - 1u)) == 0);
    NRT_MI32 isodd = isint && ey >= 0 && ey <= 23 && ((my >> sh) & 1u);
    NRT_MI32 negx = (NRT_MI32)(NRT_F2U(x) >> 31);
    nrt__ff L = nrt__logk2_f(ax);
    float zh = y * L.h;
    float zl = nrt__mulerr_f(y, L.h, zh) + y * L.l;
    nrt__fexp E;
    float h, t, r, big;
    zl = nrt__absf(zh) <= 104.0f ? zl : 0.0f;
    zh = zh > 89.0f ? 89.0f : zh;
    zh = zh < -104.0f ? -104.0f : zh;
    E = nrt__expk_f(zh, zl);
    h = 1.0f + E.h;
    t = (1.0f - h) + E.h;
    r = nrt__scalef(h + (t + (E.hh + E.l)), E.k);
    r = negx && isodd ? -r : r;
    r = negx && !isint ? NRT__NAN_F : r;
    big = (ax == 0.0f) == (y < 0.0f) ? NRT__INF_F : 0.0f;
    big = negx && isodd ? -big : big;
    r = ax == 0.0f || ax == NRT__INF_F ? big : r;
    r = ay == NRT__INF_F ? (ax == 1.0f ? 1.0f : ((ax < 1.0f) == (y < 0.0f) ? NRT__INF_F : 0.0f)) : r;
    r = x != x || y != y ? x + y : r;
    r = (y == 3.0f || y == 4.0f) && x == x ? nrt__pow34_f(x, y == 4.0f) : r;
    r = y == 2.0f ? x * x : r;
    return y == 0.0f || x == 1.0f ? 1.0f : r;
}

NRT_MFN nrt__frem nrt__rem_pio2_f(float x)
{
    nrt__frem R;
    float ax = nrt__absf(x);
    if (ax < 8192.0f) { /* Cody-Waite, |k| < 2^13 */
        float t = x * NRT__2OPI_F + NRT__SHIFT_F;
        float kd = t - NRT__SHIFT_F;
        float a = x - kd * NRT__PIO2_1_F;
        float b = kd * NRT__PIO2_2_F;
        float r1 = a - b, b1 = r1 - a;
        float e1 = (a - (r1 - b1)) + (-b - b1);
        float c = kd * NRT__PIO2_3_F;
        float r2 = r1 - c, b2 = r2 - r1;
        float e2 = (r1 - (r2 - b2)) + (-c - b2);
        float d = kd * NRT__PIO2_4_F;
        float r3 = r2 - d, b3 = r3 - r2;
        float e3 = (r2 - (r3 - b3)) + (-d - b3);
        float low = ((e1 + e2) + e3) - kd * NRT__PIO2_5_F;
        R.h = r3 + low;
        R.l = (r3 - R.h) + low;
        R.q = ((NRT_MI32)(NRT_F2U(t) - 0x4b400000u)) & 3;
    } else if (ax == NRT__INF_F || x != x) {
        R.h = x - x;
        R.l = 0.0f;
        R.q = 0;
    } else {
        NRT_MU32 ix = NRT_F2U(ax);
        NRT_MI32 e = (NRT_MI32)(ix >> 23) - 150;
        nrt__phres P = nrt__payne_hanek((NRT_MU64)((ix & 0x007fffffu) | 0x00800000u), e);
        float gh = (float)(NRT_MU32)(P.top >> 40) * nrt__pow2f(-24 - P.shift);
        float gl = (float)(NRT_MU32)((P.top >> 16) & 0xffffffu) * nrt__pow2f(-48 - P.shift);
        float rh = gh * NRT__PIO2H_F;
        float rl = nrt__mulerr_f(gh, NRT__PIO2H_F, rh) + (gh * NRT__PIO2L_F + gl * NRT__PIO2H_F);
        float h = rh + rl;
        float l = (rh - h) + rl;
        NRT_MI32 neg = P.neg ^ (x < 0.0f);
        R.h = neg ? -h : h;
        R.l = neg ? -l : l;
        R.q = (x < 0.0f ? -P.q : P.q) & 3;
    }
    return R;
}

NRT_MFN nrt__ff nrt__ksin_f(float h, float l)
{
    nrt__ff s;
    float z = h * h;
    float S = -0.166666672f + z * (0.00833333191f + z * (-0.000198400812f + z * 2.72493367e-06f));
    float tail = (z * h) * S + l * (1.0f - 0.5f * z);
    s.h = h + tail;
    s.l = (h - s.h) + tail;
    return s;
}

NRT_MFN nrt__ff nrt__kcos_f(float h, float l)
{
    nrt__ff c;
    float z = h * h;
    float C = 0.0416666679f + z * (-0.00138888881f + z * (2.48005981e-05f + z * -2.73006236e-07f));
    float hh = nrt__hi12(h), hl = h - hh;
    float zh = 0.5f * hh * hh, zl = 0.5f * hl * (h + hh);
    float w = 1.0f - zh;
    float tail = (((1.0f - w) - zh) - zl) + ((z * z) * C - h * l);
    c.h = w + tail;
    c.l = (w - c.h) + tail;
    return c;
}

NRT_MFN float nrt_sinf(float x)
{
    nrt__frem R = nrt__rem_pio2_f(x);
    nrt__ff s = nrt__ksin_f(R.h, R.l), c = nrt__kcos_f(R.h, R.l);
    float r = (R.q & 1) ? c.h : s.h;
    r = (R.q & 2) ? -r : r;
    return nrt__absf(x) < 0.000244140625f ? x : r; /* 2^-12 */
}

NRT_MFN float nrt_cosf(float x)
{
    nrt__frem R = nrt__rem_pio2_f(x);
    nrt__ff s = nrt__ksin_f(R.h, R.l), c = nrt__kcos_f(R.h, R.l);
    float r = (R.q & 1) ? s.h : c.h;
    return ((R.q + 1) & 2) ? -r : r;
}

NRT_MFN float nrt_tanf(float x)
{
    nrt__frem R = nrt__rem_pio2_f(x);
    nrt__ff s = nrt__ksin_f(R.h, R.l), c = nrt__kcos_f(R.h, R.l);
    NRT_MI32 odd = R.q & 1;
    nrt__ff q = nrt__divff_f(odd ? -c.h : s.h, odd ? -c.l : s.l, odd ? s.h : c.h, odd ? s.l : c.l);
    float r = q.h + q.l;
    return nrt__absf(x) < 0.000244140625f ? x : r;
}

NRT_MFN float nrt__sinhcosh_f(float x, float sgn)
{
    float a = nrt__absf(x);
    nrt__fexp E;
    float uh, ul, h, l, vh, p, vl, w, wh, wl, dh, b, de, dl;
    NRT_MI32 k2;
    a = a > 90.0f ? 90.0f : a;
    E = nrt__expk_f(a, 0.0f);
    uh = 1.0f + E.h;
    ul = ((1.0f - uh) + E.h) + (E.hh + E.l);
    h = uh + ul;
    l = (uh - h) + ul;
    vh = 1.0f / h;
    p = vh * h;
    vl = (((1.0f - p) - nrt__mulerr_f(vh, h, p)) - vh * l) * vh;
    k2 = E.k > 30 ? 30 : E.k;
    w = nrt__pow2f(-2 * k2);
    wh = sgn * vh * w;
    wl = sgn * vl * w;
    dh = h + wh;
    b = dh - h;
    de = (h - (dh - b)) + (wh - b);
    dl = de + (l + wl);
    return nrt__scalef(dh + dl, E.k - 1);
}

NRT_MFN float nrt_sinhf(float x)
{
    float r = nrt__sinhcosh_f(x, -1.0f);
    r = x < 0.0f ? -r : r;
    return nrt__absf(x) < 0.000244140625f ? x : r;
}

NRT_MFN float nrt_coshf(float x) { return nrt__sinhcosh_f(x, 1.0f); }

NRT_MFN float nrt_tanhf(float x)
{
    float a = nrt__absf(x);
    nrt__fexp S;
    float p, mh, ml, dh, b, dl, r;
    nrt__ff q;
    a = a > 10.0f ? 10.0f : a;
    S = nrt__expm1k_f(2.0f * a);
    p = nrt__pow2f(S.k);
    mh = S.h * p;
    ml = S.l * p;
    dh = mh + 2.0f;
    b = dh - mh;
    dl = ((mh - (dh - b)) + (2.0f - b)) + ml;
    r = dh + dl;
    dl = (dh - r) + dl;
    q = nrt__divff_f(mh, ml, r, dl);
    r = q.h + q.l;
    r = x < 0.0f ? -r : r;
    return nrt__absf(x) < 0.000244140625f ? x : r;
}

NRT_MFN float nrt_atanf(float x)
{
    float a = nrt__absf(x);
    NRT_MI32 id = a < 0.4375f ? 0 : (a < 0.6875f ? 1 : (a < 1.1875f ? 2 : (a < 2.4375f ? 3 : 4)));
    float c = id == 1 ? 0.5f : (id == 2 ? 1.0f : 1.5f);
    float ch = id == 1 ? 0.463647604f : (id == 2 ? 0.785398185f : (id == 3 ? 0.982793748f : 1.57079637f));
    float cl = id == 1 ? 5.01215869e-09f : (id == 2 ? -2.18556941e-08f :
               (id == 3 ? -2.51314241e-08f : -4.37113883e-08f));
    float num = id == 4 ? -1.0f : (id == 0 ? a : a - c);
    float den = id == 4 ? a : (id == 0 ? 1.0f : 1.0f + c * a);
    float t = num / den;
    float z = t * t;
    float A = -0.333333343f + z * (0.19999963f + z * (-0.142834246f + z * (0.110585824f +
              z * (-0.0853423104f + z * 0.0482667349f))));
    float r;
    ch = id == 0 ? 0.0f : ch;
    cl = id == 0 ? 0.0f : cl;
    r = ch + (t + ((t * z) * A + cl));
    r = NRT_U2F(NRT_F2U(r) | (NRT_F2U(x) & 0x80000000u));
    return a < 0.000244140625f || x != x ? x + 0.0f * x : r;
}

#endif
