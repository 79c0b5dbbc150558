/* nrt_math_cases.h -- deterministic inputs for the cross-back-end checks of nrt_math.h.
 *
 * Used by test_nrt_math_cl.c (C against OpenCL) and nrt_math_nvcc.cu (CUDA device against
 * host), in C and in CUDA C++. For each function, NRT_CASES_N inputs: special values and
 * hard cases first, then random ones (uniform over the main range, log-uniform over every
 * exponent, around 1, raw bit patterns).
 */
#ifndef NRT_MATH_CASES_H
#define NRT_MATH_CASES_H

#include <math.h>
#include <stdint.h>
#include <string.h>

enum {
    NRT_C_EXP, NRT_C_EXPM1, NRT_C_LOG, NRT_C_LOG1P, NRT_C_LOG10, NRT_C_SIN, NRT_C_COS,
    NRT_C_TAN, NRT_C_SINH, NRT_C_COSH, NRT_C_TANH, NRT_C_ATAN, NRT_C_POW, NRT_C_COUNT
};
static const char *const nrt_case_names[NRT_C_COUNT] = {
    "exp", "expm1", "log", "log1p", "log10", "sin", "cos", "tan", "sinh", "cosh", "tanh",
    "atan", "pow"};
/* main uniform range of each function */
static const double nrt_case_range[NRT_C_COUNT][2] = {
    {-746, 710}, {-50, 710}, {0, 4}, {-1, 4}, {0, 100}, {-1e6, 1e6}, {-1e6, 1e6}, {-1e6, 1e6},
    {-720, 720}, {-720, 720}, {-25, 25}, {-4, 4}, {0, 4}};

#define NRT_CASES_N 4096

static uint64_t nrt_case_rng(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1Du;
}
static double nrt_case_u01(uint64_t *s) { return (double)(nrt_case_rng(s) >> 11) * (1.0 / 9007199254740992.0); }
static double nrt_case_bits_d(uint64_t u) { double x; memcpy(&x, &u, 8); return x; }
static float nrt_case_bits_f(uint32_t u) { float x; memcpy(&x, &u, 4); return x; }

static const double nrt_case_special[] = {
    0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 3.0, -3.0, 10.0, 1e-300, 4.9e-324, 2.2250738585072014e-308,
    1.7976931348623157e308, 709.782712893384, 710.4758600739439, -708.4, -745.1332191019411,
    -745.2, 1.5707963267948966, 3.141592653589793, 0.7853981633974483, 1e5, 1e6, 1048576.0,
    1e15, 1e22, 1e300, 5.319372648326541e+255, 0.4375, 2.4375, 22.0, 0.3465735902799726, 1e-8,
    0.9999999999999999, 1.0000000000000002, 88.72283935546875, -103.97208, 8192.0, 3e38,
    INFINITY, -INFINITY, NAN};
#define NRT_CASE_NSPECIAL ((int)(sizeof nrt_case_special / sizeof nrt_case_special[0]))

/* inputs of function fn: x[i] (and y[i] for pow) */
static void nrt_cases_d(int fn, double *x, double *y)
{
    uint64_t s = 0x9E3779B97F4A7C15u ^ (uint64_t)(fn + 1) * 0xBF58476D1CE4E5B9u;
    int i;
    for (i = 0; i < NRT_CASES_N; i++) {
        double v;
        int kind = i < 2 * NRT_CASE_NSPECIAL ? 4 : (int)(nrt_case_rng(&s) % 4u);
        uint64_t u = nrt_case_rng(&s);
        if (kind == 4)
            v = (i & 1 ? -1 : 1) * nrt_case_special[i / 2];
        else if (kind == 0)
            v = nrt_case_range[fn][0] + (nrt_case_range[fn][1] - nrt_case_range[fn][0]) * nrt_case_u01(&s);
        else if (kind == 1)
            v = nrt_case_bits_d((u & 0x800fffffffffffffu) | ((nrt_case_rng(&s) % 2047u) << 52));
        else if (kind == 2)
            v = nrt_case_bits_d((u & 0x800fffffffffffffu) | ((963u + nrt_case_rng(&s) % 72u) << 52));
        else
            v = nrt_case_bits_d(u);
        x[i] = v;
        y[i] = 0.0;
        if (fn == NRT_C_POW) {
            uint64_t w = nrt_case_rng(&s);
            switch (w % 5u) {
            case 4: y[i] = (double)(2u + (unsigned)(w / 5u % 3u)); break; /* nrt__pow34 */
            case 0: y[i] = (nrt_case_u01(&s) - 0.5) * 200; break;
            case 1: y[i] = (double)(int64_t)(nrt_case_rng(&s) % 65u) - 32.0; break;
            case 2: y[i] = (nrt_case_u01(&s) - 0.5) * 1e4; break;
            default: y[i] = nrt_case_bits_d(nrt_case_rng(&s)); break;
            }
            if (i < 2 * NRT_CASE_NSPECIAL) y[i] = nrt_case_special[(i * 7) % NRT_CASE_NSPECIAL];
        }
    }
}

static void nrt_cases_f(int fn, float *x, float *y)
{
    uint64_t s = 0xD1B54A32D192ED03u ^ (uint64_t)(fn + 1) * 0xBF58476D1CE4E5B9u;
    int i;
    for (i = 0; i < NRT_CASES_N; i++) {
        float v;
        int kind = i < 2 * NRT_CASE_NSPECIAL ? 4 : (int)(nrt_case_rng(&s) % 4u);
        uint32_t u = (uint32_t)nrt_case_rng(&s);
        if (kind == 4)
            v = (float)((i & 1 ? -1 : 1) * nrt_case_special[i / 2]);
        else if (kind == 0)
            v = (float)(nrt_case_range[fn][0] + (nrt_case_range[fn][1] - nrt_case_range[fn][0]) * nrt_case_u01(&s));
        else if (kind == 1)
            v = nrt_case_bits_f((u & 0x807fffffu) | ((uint32_t)(nrt_case_rng(&s) % 255u) << 23));
        else if (kind == 2)
            v = nrt_case_bits_f((u & 0x807fffffu) | ((uint32_t)(97u + nrt_case_rng(&s) % 40u) << 23));
        else
            v = nrt_case_bits_f(u);
        x[i] = v;
        y[i] = 0.0f;
        if (fn == NRT_C_POW) {
            uint64_t w = nrt_case_rng(&s);
            switch (w % 5u) {
            case 4: y[i] = (float)(2u + (unsigned)(w / 5u % 3u)); break;
            case 0: y[i] = (float)((nrt_case_u01(&s) - 0.5) * 60); break;
            case 1: y[i] = (float)((int)(nrt_case_rng(&s) % 65u) - 32); break;
            case 2: y[i] = (float)((nrt_case_u01(&s) - 0.5) * 1e3); break;
            default: y[i] = nrt_case_bits_f((uint32_t)nrt_case_rng(&s)); break;
            }
            if (i < 2 * NRT_CASE_NSPECIAL) y[i] = (float)nrt_case_special[(i * 7) % NRT_CASE_NSPECIAL];
        }
    }
}

/* the function under test, by id (x, y: arguments) */
#define NRT_CASE_DISPATCH(fn, a, b, sfx)                                                    \
    ((fn) == NRT_C_EXP ? nrt_exp##sfx(a) : (fn) == NRT_C_EXPM1 ? nrt_expm1##sfx(a) :        \
     (fn) == NRT_C_LOG ? nrt_log##sfx(a) : (fn) == NRT_C_LOG1P ? nrt_log1p##sfx(a) :        \
     (fn) == NRT_C_LOG10 ? nrt_log10##sfx(a) : (fn) == NRT_C_SIN ? nrt_sin##sfx(a) :        \
     (fn) == NRT_C_COS ? nrt_cos##sfx(a) : (fn) == NRT_C_TAN ? nrt_tan##sfx(a) :            \
     (fn) == NRT_C_SINH ? nrt_sinh##sfx(a) : (fn) == NRT_C_COSH ? nrt_cosh##sfx(a) :        \
     (fn) == NRT_C_TANH ? nrt_tanh##sfx(a) : (fn) == NRT_C_ATAN ? nrt_atan##sfx(a) :        \
     nrt_pow##sfx(a, b))

#endif
