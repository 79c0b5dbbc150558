/* units.c -- dimension algebra, unit parsing and the internal unit system.
 *
 * Sits under sema: literals are scaled into the coherent internal system when checked,
 * declared types become Dims, and diagnostics print Dims back in familiar units.
 * Internal base scales: length 1 um, mass 1e-12 kg, time 1 ms, current 1 pA,
 * temperature 1 K, amount 1e-18 mol; derived: mV, pF, nS, GOhm, fC, and mM = 1.
 */
#include "units.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const Dim DIM_NONE = {{0}};

/* ORDER: DIM_L .. DIM_N */
static const double base_scale[DIM_N + 1] = {1e-6, 1e-12, 1e-3, 1e-12, 1.0, 1e-18};

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

/* SI definition of each base unit name: exponents over L M T I K N and the SI factor. */
typedef struct UnitDef {
    const char *name;
    int8_t e[6];
    double si;
} UnitDef;

static const UnitDef unit_defs[] = {
    {"s", {0, 0, 1, 0, 0, 0}, 1.0},
    {"Hz", {0, 0, -1, 0, 0, 0}, 1.0},
    {"m", {1, 0, 0, 0, 0, 0}, 1.0},
    {"g", {0, 1, 0, 0, 0, 0}, 1e-3},
    {"V", {2, 1, -3, -1, 0, 0}, 1.0},
    {"A", {0, 0, 0, 1, 0, 0}, 1.0},
    {"C", {0, 0, 1, 1, 0, 0}, 1.0},
    {"S", {-2, -1, 3, 2, 0, 0}, 1.0},
    {"F", {-2, -1, 4, 2, 0, 0}, 1.0},
    {"Ohm", {2, 1, -3, -2, 0, 0}, 1.0},
    {"mol", {0, 0, 0, 0, 0, 1}, 1.0},
    {"M", {-3, 0, 0, 0, 0, 1}, 1000.0},  /* molar = mol/L */
    {"L", {3, 0, 0, 0, 0, 0}, 1e-3},
    {"K", {0, 0, 0, 0, 1, 0}, 1.0},
};

typedef struct Prefix {
    const char *p;
    double f;
} Prefix;

static const Prefix prefixes[] = {
    {"f", 1e-15}, {"p", 1e-12}, {"n", 1e-9}, {"u", 1e-6}, {"\xc2\xb5", 1e-6}, {"m", 1e-3},
    {"c", 1e-2}, {"k", 1e3}, {"M", 1e6}, {"G", 1e9},
};

/* Every SI factor, base scale and prefix is a power of ten, so a unit's scale is 10^e10 with
 * an integer e10: computing it that way makes "mV" exactly 1 and "Hz" the double nearest
 * 0.001, where multiplying the factors would leave rounding noise (-65 mV = -65.00000000000001). */
static int exp10_of(double f)
{
    return (int)lround(log10(f));
}

static int base_lookup(const char *name, size_t n, Dim *dim, int *e10)
{
    for (size_t i = 0; i < sizeof unit_defs / sizeof unit_defs[0]; i++) {
        const UnitDef *u = &unit_defs[i];
        if (strlen(u->name) == n && memcmp(u->name, name, n) == 0) {
            *e10 = exp10_of(u->si);
            *dim = DIM_NONE;
            for (int k = 0; k < 6; k++) {
                dim->e[k] = u->e[k];
                *e10 -= u->e[k] * exp10_of(base_scale[k]);
            }
            return 1;
        }
    }
    return 0;
}

/* One unit name with optional prefix. A full-name match wins ("M" molar, "mol"). */
int unit_lookup(const char *name, Dim *dim, double *scale)
{
    size_t n = strlen(name);
    int e10;
    if (base_lookup(name, n, dim, &e10)) {
        *scale = pow(10.0, e10);
        return 1;
    }
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
        size_t pl = strlen(prefixes[i].p);
        if (n > pl && memcmp(name, prefixes[i].p, pl) == 0 &&
            base_lookup(name + pl, n - pl, dim, &e10)) {
            *scale = pow(10.0, e10 + exp10_of(prefixes[i].f));
            return 1;
        }
    }
    return 0;
}

/* {===== unit text parser: expr = term { ('*' | '/') term } ===== */

typedef struct UParse {
    const char *s;
    char *err;
    int errlen;
} UParse;

static void skip_ws(UParse *p)
{
    while (*p->s == ' ' || *p->s == '\t')
        p->s++;
}

static int parse_uexpr(UParse *p, Dim *d, double *sc);

/* term = '(' expr ')' | '1' | name [ '^' ['-'] int ] */
static int parse_uterm(UParse *p, Dim *d, double *sc)
{
    skip_ws(p);
    if (*p->s == '(') {
        p->s++;
        if (!parse_uexpr(p, d, sc))
            return 0;
        skip_ws(p);
        if (*p->s != ')') {
            snprintf(p->err, (size_t)p->errlen, "expected ')'");
            return 0;
        }
        p->s++;
    } else if (*p->s == '1') {
        p->s++;
        *d = DIM_NONE;
        *sc = 1.0;
    } else {
        const char *b = p->s;
        while ((*p->s >= 'a' && *p->s <= 'z') || (*p->s >= 'A' && *p->s <= 'Z') ||
               (unsigned char)*p->s == 0xc2 || (unsigned char)*p->s == 0xb5)
            p->s++;
        if (p->s == b) {
            snprintf(p->err, (size_t)p->errlen, "expected a unit name");
            return 0;
        }
        char name[32];
        size_t n = (size_t)(p->s - b);
        if (n >= sizeof name)
            n = sizeof name - 1;
        memcpy(name, b, n);
        name[n] = 0;
        if (!unit_lookup(name, d, sc)) {
            snprintf(p->err, (size_t)p->errlen, "unknown unit '%s'", name);
            return 0;
        }
    }
    skip_ws(p);
    if (*p->s == '^') {
        p->s++;
        skip_ws(p);
        int neg = 0;
        if (*p->s == '-') {
            neg = 1;
            p->s++;
        }
        if (*p->s < '0' || *p->s > '9') {
            snprintf(p->err, (size_t)p->errlen, "expected an integer exponent after '^'");
            return 0;
        }
        long k = strtol(p->s, (char **)&p->s, 10);
        if (k > UNIT_MAX_EXP) {
            snprintf(p->err, (size_t)p->errlen, "unit exponent out of range (at most %d)",
                     UNIT_MAX_EXP);
            return 0;
        }
        if (neg)
            k = -k;
        int ok;
        *d = dim_pow(*d, (int)k, 1, &ok);
        *sc = pow(*sc, (double)k);
    }
    return 1;
}

static int parse_uexpr(UParse *p, Dim *d, double *sc)
{
    if (!parse_uterm(p, d, sc))
        return 0;
    for (;;) {
        skip_ws(p);
        char op = *p->s;
        if (op != '*' && op != '/')
            return 1;
        p->s++;
        Dim d2;
        double s2;
        if (!parse_uterm(p, &d2, &s2))
            return 0;
        if (op == '*') {
            *d = dim_mul(*d, d2);
            *sc *= s2;
        } else {
            *d = dim_div(*d, d2);
            *sc /= s2;
        }
    }
}

int unit_parse(const char *text, Dim *dim, double *scale, char *err, int errlen)
{
    UParse p = {text, err, errlen};
    if (!parse_uexpr(&p, dim, scale))
        return 0;
    skip_ws(&p);
    if (*p.s) {
        snprintf(err, (size_t)errlen, "unexpected '%c' in unit", *p.s);
        return 0;
    }
    return 1;
}

/* ===== unit text parser =====} */

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
