/* units.c -- dimension algebra, unit parsing and the internal unit system.
 *
 * Sits under sema: literals are scaled into the coherent internal system when checked,
 * declared types become Dims, and diagnostics print Dims back in familiar units.
 * Internal base scales: length 1 um, mass 1e-12 kg, time 1 ms, current 1 pA,
 * temperature 1 K, amount 1e-18 mol; derived: mV, pF, nS, GOhm, fC, and mM = 1.
 */
#include "units.h"

#include "nrt_units.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(UNIT_MAX_EXP == NRT_UNIT_MAX_EXP, "one exponent limit for neuroc and the runtime");

const Dim DIM_NONE = {{0}};

int dim_eq(Dim a, Dim b)
{
    return memcmp(a.e, b.e, sizeof a.e) == 0;
}

int dim_is_none(Dim a)
{
    return dim_eq(a, DIM_NONE);
}

Dim dim_mul(Dim a, Dim b)
{
    for (int i = 0; i < DIM__COUNT; i++)
        a.e[i] = (int8_t)(a.e[i] + b.e[i]);
    return a;
}

Dim dim_div(Dim a, Dim b)
{
    for (int i = 0; i < DIM__COUNT; i++)
        a.e[i] = (int8_t)(a.e[i] - b.e[i]);
    return a;
}

int dim_fits(Dim a, Dim b, int sign)
{
    for (int i = 0; i < DIM__COUNT; i++) {
        int v = a.e[i] + sign * b.e[i];
        if (v > INT8_MAX || v < INT8_MIN)
            return 0;
    }
    return 1;
}

/* a^(num/den); every exponent must stay an integer. */
Dim dim_pow(Dim a, int num, int den, int *ok)
{
    Dim r = DIM_NONE;
    *ok = 1;
    for (int i = 0; i < DIM__COUNT; i++) {
        int v = a.e[i] * num;
        if (den == 0 || v % den != 0 || v / den > INT8_MAX || v / den < INT8_MIN) {
            *ok = 0;
            return a;
        }
        r.e[i] = (int8_t)(v / den);
    }
    return r;
}

Dim dim_time(void)
{
    Dim d = DIM_NONE;
    d.e[DIM_T] = 1;
    return d;
}

Dim dim_subst_weight(Dim a, Dim w)
{
    int k = a.e[DIM_W];
    a.e[DIM_W] = 0;
    for (int i = 0; i < DIM__COUNT; i++)
        a.e[i] = (int8_t)(a.e[i] + k * w.e[i]);
    return a;
}

/* The unit tables and the unit-text parser live in nrt_units.h, which the generated
 * simulators use too (`--set`); these wrap them for Dim. */
_Static_assert(NRT_UNIT_NDIM == DIM_W, "nrt_units.h exponents are the Dim slots before DIM_W");

static Dim dim_of(const int e[NRT_UNIT_NDIM])
{
    Dim d = DIM_NONE;
    for (int k = 0; k < NRT_UNIT_NDIM; k++)
        d.e[k] = (int8_t)e[k];
    return d;
}

/* One unit name with optional prefix. A full-name match wins ("M" molar, "mol"). */
int unit_lookup(const char *name, Dim *dim, double *scale)
{
    int e[NRT_UNIT_NDIM];
    if (!nrt_unit_lookup(name, strlen(name), e, scale))
        return 0;
    *dim = dim_of(e);
    return 1;
}

int unit_parse(const char *text, Dim *dim, double *scale, char *err, int errlen)
{
    int e[NRT_UNIT_NDIM];
    if (!nrt_unit_parse(text, e, scale, err, errlen))
        return 0;
    *dim = dim_of(e);
    return 1;
}



/* Familiar names for common dimensions, in internal units (scale 1). Each must be a unit
 * text unit_parse accepts (the charge fC has no prefix 'f', so it is spelled pA*ms). */
typedef struct Named {
    const char *text;
} Named;

static const char *const familiar[] = {
    "mV", "pA", "nS", "pF", "ms", "um", "GOhm", "pA*ms", "mM", "1/ms", "mV/ms", "pA/ms", "nS/ms",
    "uA/cm^2", "mS/cm^2", "uF/cm^2", "1/mV", "mV^2", "um/ms",
};

void dim_format(Dim d, char *buf, int buflen)
{
    if (dim_is_none(d)) {
        snprintf(buf, (size_t)buflen, "1");
        return;
    }
    for (size_t i = 0; i < sizeof familiar / sizeof familiar[0]; i++) {
        Dim f;
        double sc;
        char e[64];
        if (unit_parse(familiar[i], &f, &sc, e, sizeof e) && dim_eq(f, d)) {
            snprintf(buf, (size_t)buflen, "%s", familiar[i]);
            return;
        }
    }
    /* a product or quotient of two everyday units ("mV*pA", "mV*ms") reads better than
     * base dimensions */
    static const char *const simple[] = {"mV", "pA", "nS", "pF", "ms", "um", "mM"};
    const int ns = (int)(sizeof simple / sizeof simple[0]);
    for (int i = 0; i < ns; i++)
        for (int j = 0; j < ns; j++) {
            Dim a, b;
            double sc;
            char e[64];
            if (!unit_parse(simple[i], &a, &sc, e, sizeof e) ||
                !unit_parse(simple[j], &b, &sc, e, sizeof e))
                continue;
            if (j > i && dim_eq(dim_mul(a, b), d)) {
                snprintf(buf, (size_t)buflen, "%s*%s", simple[i], simple[j]);
                return;
            }
            if (j != i && dim_eq(dim_div(a, b), d)) {
                snprintf(buf, (size_t)buflen, "%s/%s", simple[i], simple[j]);
                return;
            }
        }
    static const char *const names[DIM__COUNT] = {"um", "kg", "ms", "pA", "K", "mol", "weight"};
    int len = 0;
    buf[0] = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < DIM__COUNT; i++) {
            int e = d.e[i];
            if ((pass == 0 && e <= 0) || (pass == 1 && e >= 0))
                continue;
            if (pass == 1 && len == 0)
                len += snprintf(buf + len, (size_t)(buflen - len), "1");
            len += snprintf(buf + len, (size_t)(buflen - len), "%s%s", len ? (pass ? "/" : "*") : "",
                            names[i]);
            int ae = e < 0 ? -e : e;
            if (ae != 1)
                len += snprintf(buf + len, (size_t)(buflen - len), "^%d", ae);
            if (len >= buflen)
                return;
        }
    }
}
