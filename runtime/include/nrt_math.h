/* nrt_math.h -- portable elementary functions, bit-identical on every back end.
 *
 * libm, CUDA's and OpenCL's transcendental functions differ in their last bits, so the same
 * model would spike differently on CPU and GPU. These functions are written once, in the
 * common subset of C11, CUDA C++ and OpenCL C (like nrt_philox.h), from + - * /, explicit
 * fma() (NRT_FMA), comparisons and integer/bit operations: no other libm call, no sqrt. fma
 * is correctly rounded in C99 libm, CUDA and OpenCL C alike, a single instruction on CPUs
 * with FMA (the C back end compiles with -mfma there: codegen/cg_build.c) and on GPUs, a
 * slower libm call on CPUs without. Under IEEE-754 round-to-nearest with contraction off
 * (C: -ffp-contract=off; nvcc --fmad=false; OpenCL: FP_CONTRACT OFF, set below, and
 * -cl-fp32-correctly-rounded-divide-sqrt) every operation is correctly rounded, so a
 * function gives the same bits for the same input everywhere.
 * Float functions compute in float only (fp64 is optional in OpenCL); the double ones are
 * compiled in OpenCL only where cl_khr_fp64 is there. Subnormals must not be flushed.
 *
 *   nrt_exp  nrt_expm1  nrt_log  nrt_log1p  nrt_log10  nrt_pow
 *   nrt_sin  nrt_cos  nrt_tan  nrt_sinh  nrt_cosh  nrt_tanh  nrt_atan      (double)
 *   the same names with suffix f                                           (float)
 *
 * Accuracy (measured by tests/unit/test_nrt_math.c against long double / double libm over
 * the whole domain): < 1 ulp for exp, expm1, log, log1p, log10, pow, sin, cos, tan, sinh,
 * cosh, tanh (pow(x, 2), pow(x, 3), pow(x, 4): < 1 ulp over every finite x, measured 0.72);
 * < 1.5 ulp for atan (see the test's table for the measured figures). Special
 * values follow C99 Annex F: +-0, +-inf, NaN, overflow to inf, gradual underflow, pow's
 * special cases. NaN results are NaN, but their sign and payload are not specified (x86 and
 * GPUs make different NaNs), so compare NaNs as a class.
 *
 * Method. No lookup tables except the 2/pi bits of the large-argument reduction. Every
 * function reduces its argument, evaluates one short minimax polynomial (coefficients fitted
 * by Remez for relative error, written as round-tripping decimal literals) and reconstructs,
 * keeping the few leading terms in two-word (hi + lo) arithmetic so the final rounding is
 * the only large error. Exact products come from fma (a*b = p + fma(a, b, -p)); a few paths
 * off the hot ones (pow's logarithm, cos, log10) still split a number by masking its low
 * mantissa bits (26 + 27 bits in double, 12 + 12 in float), so hi*hi is exact. Polynomials
 * are evaluated by fma Horner steps (exp's in two halves, odd and even, for latency).
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
 *         y = 2: x*x; y = 3, 4: m^y in two words for x = 2^e m, then 2^(y e) (nrt__pow34;
 *         a constant y leaves only this path after inlining: HH's n^4).
 *  sin, cos, tan: x = k pi/2 + r, Cody-Waite with pi/2 in four parts for |x| < 2^20 (float:
 *         five parts, |x| < 8192), Payne-Hanek with 224 bits of 2/pi beyond (full range);
 *         sin r = r + r^3 S(r^2), cos r = 1 - r^2/2 + r^4 C(r^2) (r^2/2 exact), both kept as
 *         hi + lo; tan = sin/cos or -cos/sin by a two-word division.
 *  sinh, cosh: e^|x| = 2^k u, u in two words, e^-|x| = 2^-k/u (two-word reciprocal),
 *         (2^k u -+ 2^-k / u)/2; tanh: E/(E + 2) with E = expm1(2|x|) in two words.
 *  atan:  reduce by atan(c) + atan((x - c)/(1 + c x)), c in {0, 1/2, 1, 3/2, inf} (fdlibm's
 *         breakpoints), |t| <= 7/16, atan t = t + t^3 A(t^2).
 * The double functions are in nrt_math_d.h, the float ones in nrt_math_f.h, both included at
 * the end of this file. Under gcc every function is always inlined: a call left in a neuron
 * loop stops its vectorisation.
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

/* The functions, in two halves (each included once, here; a device program pastes the three
 * files in this order after defining NRT_MATH_PASTED). */
#if !defined(NRT_MATH_PASTED)
#include "nrt_math_d.h"
#include "nrt_math_f.h"
#endif

#endif
