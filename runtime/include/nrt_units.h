/* nrt_units.h -- the unit names and the unit-text parser, shared by neuroc and the runtime.
 *
 * neuroc (compiler/units.c) scales every literal into the coherent internal system with
 * these tables; a generated simulator parses `--set P.x=VALUE UNIT` with the same code
 * (runtime/src/rt_set.c), so a value given on the command line becomes the same double
 * as the same literal in the source. Internal base scales: length 1 um, mass 1e-12 kg,
 * time 1 ms, current 1 pA, temperature 1 K, amount 1e-18 mol.
 * Header-only (static functions), plain C99; exponents are over L M T I K N.
 */
#ifndef NRT_UNITS_H
#define NRT_UNITS_H

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define NRT_UNIT_NDIM 6           /* ORDER: length, mass, time, current, temperature, amount */
#define NRT_UNIT_MAX_EXP 16       /* largest |exponent| in a unit text ("cm^-2") */

/* Every SI factor, base scale and prefix is a power of ten, so the tables hold decimal
 * exponents and a unit's scale is 10^e10 with an integer e10: "mV" is exactly 1 and "Hz"
 * the double nearest 0.001, where multiplying factors would leave rounding noise. */
static const int nrt_unit_base_e10[NRT_UNIT_NDIM] = {-6, -12, -3, -12, 0, -18};

typedef struct nrt_unit_def {
    const char *name;
    signed char e[NRT_UNIT_NDIM]; /* SI dimension */
    int si_e10;                   /* SI factor: 10^si_e10 */
} nrt_unit_def;

static const nrt_unit_def nrt_unit_defs[] = {
    {"s", {0, 0, 1, 0, 0, 0}, 0},
    {"Hz", {0, 0, -1, 0, 0, 0}, 0},
    {"m", {1, 0, 0, 0, 0, 0}, 0},
    {"g", {0, 1, 0, 0, 0, 0}, -3},
    {"V", {2, 1, -3, -1, 0, 0}, 0},
    {"A", {0, 0, 0, 1, 0, 0}, 0},
    {"C", {0, 0, 1, 1, 0, 0}, 0},
    {"S", {-2, -1, 3, 2, 0, 0}, 0},
    {"F", {-2, -1, 4, 2, 0, 0}, 0},
    {"Ohm", {2, 1, -3, -2, 0, 0}, 0},
    {"mol", {0, 0, 0, 0, 0, 1}, 0},
    {"M", {-3, 0, 0, 0, 0, 1}, 3},   /* molar = mol/L */
    {"L", {3, 0, 0, 0, 0, 0}, -3},
    {"K", {0, 0, 0, 0, 1, 0}, 0},
};

typedef struct nrt_unit_prefix {
    const char *p;
    int e10;
} nrt_unit_prefix;

static const nrt_unit_prefix nrt_unit_prefixes[] = {
    {"f", -15}, {"p", -12}, {"n", -9}, {"u", -6}, {"\xc2\xb5", -6}, {"m", -3},
    {"c", -2}, {"k", 3}, {"M", 6}, {"G", 9},
};

static int nrt_unit_base(const char *name, size_t n, int e[NRT_UNIT_NDIM], int *e10)
{
    for (size_t i = 0; i < sizeof nrt_unit_defs / sizeof nrt_unit_defs[0]; i++) {
        const nrt_unit_def *u = &nrt_unit_defs[i];
        if (strlen(u->name) == n && memcmp(u->name, name, n) == 0) {
            *e10 = u->si_e10;
            for (int k = 0; k < NRT_UNIT_NDIM; k++) {
                e[k] = u->e[k];
                *e10 -= u->e[k] * nrt_unit_base_e10[k];
            }
            return 1;
        }
    }
    return 0;
}

/* One unit name of n bytes with an optional prefix ("mV", "MOhm", "um", "mM"); a full-name
 * match wins ("M" molar, "mol"). 1 with the dimension and the internal value of one unit. */
static int nrt_unit_lookup(const char *name, size_t n, int e[NRT_UNIT_NDIM], double *scale)
{
    int e10;
    if (nrt_unit_base(name, n, e, &e10)) {
        *scale = pow(10.0, e10);
        return 1;
    }
    for (size_t i = 0; i < sizeof nrt_unit_prefixes / sizeof nrt_unit_prefixes[0]; i++) {
        size_t pl = strlen(nrt_unit_prefixes[i].p);
        if (n > pl && memcmp(name, nrt_unit_prefixes[i].p, pl) == 0 &&
            nrt_unit_base(name + pl, n - pl, e, &e10)) {
            *scale = pow(10.0, e10 + nrt_unit_prefixes[i].e10);
            return 1;
        }
    }
    return 0;
}

typedef struct nrt_unit_text {
    const char *s;
    char *err;
    int errlen;
} nrt_unit_text;

static void nrt_unit_ws(nrt_unit_text *p)
{
    while (*p->s == ' ' || *p->s == '\t')
        p->s++;
}

static int nrt_unit_expr(nrt_unit_text *p, int e[NRT_UNIT_NDIM], double *sc);

/* term = '(' expr ')' | '1' | name [ '^' ['-'] int ] */
static int nrt_unit_term(nrt_unit_text *p, int e[NRT_UNIT_NDIM], double *sc)
{
    nrt_unit_ws(p);
    if (*p->s == '(') {
        p->s++;
        if (!nrt_unit_expr(p, e, sc))
            return 0;
        nrt_unit_ws(p);
        if (*p->s != ')') {
            snprintf(p->err, (size_t)p->errlen, "expected ')'");
            return 0;
        }
        p->s++;
    } else if (*p->s == '1') {
        p->s++;
        for (int k = 0; k < NRT_UNIT_NDIM; k++)
            e[k] = 0;
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
        if (!nrt_unit_lookup(b, (size_t)(p->s - b), e, sc)) {
            snprintf(p->err, (size_t)p->errlen, "unknown unit '%.*s'", (int)(p->s - b > 31 ? 31 : p->s - b), b);
            return 0;
        }
    }
    nrt_unit_ws(p);
    if (*p->s == '^') {
        p->s++;
        nrt_unit_ws(p);
        int neg = 0;
        if (*p->s == '-') {
            neg = 1;
            p->s++;
        }
        if (*p->s < '0' || *p->s > '9') {
            snprintf(p->err, (size_t)p->errlen, "expected an integer exponent after '^'");
            return 0;
        }
        long k = 0;
        while (*p->s >= '0' && *p->s <= '9' && k <= NRT_UNIT_MAX_EXP)
            k = k * 10 + (*p->s++ - '0');
        if (k > NRT_UNIT_MAX_EXP) {
            snprintf(p->err, (size_t)p->errlen, "unit exponent out of range (at most %d)",
                     NRT_UNIT_MAX_EXP);
            return 0;
        }
        if (neg)
            k = -k;
        for (int d = 0; d < NRT_UNIT_NDIM; d++) {
            long v = e[d] * k;
            if (v > 127 || v < -128) {
                snprintf(p->err, (size_t)p->errlen, "unit exponent out of range");
                return 0;
            }
            e[d] = (int)v;
        }
        *sc = pow(*sc, (double)k);
    }
    return 1;
}

/* expr = term { ('*' | '/') term } */
static int nrt_unit_expr(nrt_unit_text *p, int e[NRT_UNIT_NDIM], double *sc)
{
    if (!nrt_unit_term(p, e, sc))
        return 0;
    for (;;) {
        nrt_unit_ws(p);
        char op = *p->s;
        if (op != '*' && op != '/')
            return 1;
        p->s++;
        int e2[NRT_UNIT_NDIM];
        double s2;
        if (!nrt_unit_term(p, e2, &s2))
            return 0;
        for (int d = 0; d < NRT_UNIT_NDIM; d++) {
            e[d] += op == '*' ? e2[d] : -e2[d];
            if (e[d] > 127 || e[d] < -128) {
                snprintf(p->err, (size_t)p->errlen, "unit exponent out of range");
                return 0;
            }
        }
        if (op == '*')
            *sc *= s2;
        else
            *sc /= s2;
    }
}

/* Parse a whole unit text ("mV", "1/ms", "uA/cm^2", "m/s"): 1 with its dimension and the
 * internal value of one such unit (1 for "mV", 1000 for "V", 1e-3 for "Hz"), else 0 with
 * a short reason in err. */
static int nrt_unit_parse(const char *text, int e[NRT_UNIT_NDIM], double *scale, char *err, int errlen)
{
    nrt_unit_text p = {text, err, errlen};
    if (!nrt_unit_expr(&p, e, scale))
        return 0;
    nrt_unit_ws(&p);
    if (*p.s) {
        snprintf(err, (size_t)errlen, "unexpected '%c' in unit", *p.s);
        return 0;
    }
    return 1;
}

#endif
