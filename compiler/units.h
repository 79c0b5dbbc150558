/* units.h -- physical dimensions and the coherent internal unit system.
 *
 * Every quantity is stored in one coherent system (ms, mV, pA, pF, nS, um, GOhm, fC, mM),
 * so generated code contains no conversions: units exist only at compile time. A Dim is a
 * vector of integer exponents over the SI base dimensions plus one slot for the `weight`
 * placeholder, which a projection binds to a concrete dimension.
 */
#ifndef NEUROC_UNITS_H
#define NEUROC_UNITS_H

#include <stdint.h>

/* ORDER: base dimensions; the names table in units.c follows it. */
enum { DIM_L, DIM_M, DIM_T, DIM_I, DIM_K, DIM_N, DIM_W, DIM__COUNT };

typedef struct Dim {
    int8_t e[DIM__COUNT];         /* exponents: length, mass, time, current, temperature,
                                   * amount, weight placeholder */
} Dim;

extern const Dim DIM_NONE;        /* dimensionless */

int dim_eq(Dim a, Dim b);
int dim_is_none(Dim a);
Dim dim_mul(Dim a, Dim b);
Dim dim_div(Dim a, Dim b);
/* 1 if a * b (sign 1) or a / b (sign -1) keeps every exponent in an int8_t: dim_mul and
 * dim_div wrap, so callers with user input check first. */
int dim_fits(Dim a, Dim b, int sign);
Dim dim_pow(Dim a, int num, int den, int *ok);  /* a^(num/den); ok = 0 if not integral
                                                 * or out of range */
Dim dim_time(void);
/* Replace the weight placeholder by `w` (W^k becomes w^k). */
Dim dim_subst_weight(Dim a, Dim w);

/* Largest |exponent| in a unit text ("cm^-2"): keeps exponents and scales finite. */
#define UNIT_MAX_EXP 16

/* Parse unit text such as "mV", "1/ms", "uA/cm^2", "mS/cm^2", "m/s".
 * On success returns 1 and sets *dim and *scale (the internal value of one such unit,
 * e.g. 1 for "mV", 1000 for "V", 1e-3 for "Hz" because rates are per ms).
 * On failure returns 0 and writes a short reason into err. `step` units are rejected
 * here (callers handle them). */
int unit_parse(const char *text, Dim *dim, double *scale, char *err, int errlen);
/* Look up one unit name with optional prefix ("mV", "MOhm", "um", "mM"). */
int unit_lookup(const char *name, Dim *dim, double *scale);

/* Format a dimension in readable units ("mV", "pA", "nS", "mV/ms", "1/ms", "1"). */
void dim_format(Dim d, char *buf, int buflen);

#endif
