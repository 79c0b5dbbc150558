/* test_units.c -- units.c in isolation: unit names with every prefix, unit texts, scales
 * into the internal system (ms, mV, pA, pF, nS, um, GOhm, fC, mM), dimension algebra and
 * dim_format.  Expected scales are written out here from the SI definitions, not taken
 * from units.c's tables.
 *   test_units
 */
#include "units.h"
#include "../front/unit.h"

/* exponents over L M T I K N */
static Dim mkdim(int l, int m, int t, int i, int k, int n)
{
    Dim d = DIM_NONE;
    d.e[DIM_L] = (int8_t)l;
    d.e[DIM_M] = (int8_t)m;
    d.e[DIM_T] = (int8_t)t;
    d.e[DIM_I] = (int8_t)i;
    d.e[DIM_K] = (int8_t)k;
    d.e[DIM_N] = (int8_t)n;
    return d;
}

/* Each base unit: its dimension and the internal value of one such unit, worked out by
 * hand from the internal units (1 ms, 1 um, 1e-12 kg, 1 pA, 1 K, 1e-18 mol; so mV, nS, pF,
 * GOhm, fC, mM and um^3 for volume). */
typedef struct Base {
    const char *name;
    int e[6];
    double internal;
} Base;

static const Base bases[] = {
    {"s", {0, 0, 1, 0, 0, 0}, 1e3},       /* 1 s = 1000 ms */
    {"Hz", {0, 0, -1, 0, 0, 0}, 1e-3},    /* 1/s = 0.001 per ms */
    {"m", {1, 0, 0, 0, 0, 0}, 1e6},       /* 1 m = 1e6 um */
    {"g", {0, 1, 0, 0, 0, 0}, 1e9},       /* 1 g = 1e-3 kg = 1e9 x 1e-12 kg */
    {"V", {2, 1, -3, -1, 0, 0}, 1e3},     /* 1 V = 1000 mV */
    {"A", {0, 0, 0, 1, 0, 0}, 1e12},      /* 1 A = 1e12 pA */
    {"C", {0, 0, 1, 1, 0, 0}, 1e15},      /* 1 C = 1e15 fC */
    {"S", {-2, -1, 3, 2, 0, 0}, 1e9},     /* 1 S = 1e9 nS */
    {"F", {-2, -1, 4, 2, 0, 0}, 1e12},    /* 1 F = 1e12 pF */
    {"Ohm", {2, 1, -3, -2, 0, 0}, 1e-9},  /* 1 Ohm = 1e-9 GOhm */
    {"mol", {0, 0, 0, 0, 0, 1}, 1e18},    /* 1 mol = 1e18 x 1e-18 mol */
    {"M", {-3, 0, 0, 0, 0, 1}, 1e3},      /* 1 M = 1 mol/L = 1000 mM */
    {"L", {3, 0, 0, 0, 0, 0}, 1e15},      /* 1 L = 1e-3 m^3 = 1e15 um^3 */
    {"K", {0, 0, 0, 0, 1, 0}, 1.0},
};

typedef struct Pre {
    const char *p;
    double f;
} Pre;

static const Pre pres[] = {
    {"p", 1e-12}, {"n", 1e-9}, {"u", 1e-6}, {"\xc2\xb5", 1e-6}, {"m", 1e-3},
    {"c", 1e-2},  {"k", 1e3},  {"M", 1e6},  {"G", 1e9},
};

static void test_lookup(void)
{
    for (size_t b = 0; b < sizeof bases / sizeof bases[0]; b++) {
        const Base *B = &bases[b];
        Dim want = mkdim(B->e[0], B->e[1], B->e[2], B->e[3], B->e[4], B->e[5]);
        Dim d;
        double sc = 0;
        CHECK(unit_lookup(B->name, &d, &sc));
        CHECK(dim_eq(d, want));
        CHECK_NEAR(sc, B->internal);
        for (size_t p = 0; p < sizeof pres / sizeof pres[0]; p++) {
            char name[16];
            snprintf(name, sizeof name, "%s%s", pres[p].p, B->name);
            sc = 0;
            d = DIM_NONE;
            int ok = unit_lookup(name, &d, &sc);
            if (!ok)
                fprintf(stderr, "unit_lookup(\"%s\") failed\n", name);
            CHECK(ok);
            CHECK(dim_eq(d, want));
            CHECK_NEAR(sc, pres[p].f * B->internal);
            /* the same through the unit-text parser */
            char err[64];
            sc = 0;
            CHECK(unit_parse(name, &d, &sc, err, sizeof err));
            CHECK(dim_eq(d, want));
            CHECK_NEAR(sc, pres[p].f * B->internal);
        }
    }
    Dim d;
    double sc;
    CHECK(!unit_lookup("", &d, &sc));
    CHECK(!unit_lookup("x", &d, &sc));
    CHECK(!unit_lookup("mm2", &d, &sc));
    CHECK(!unit_lookup("step", &d, &sc));     /* handled by callers, not a unit */
    CHECK(!unit_lookup("k", &d, &sc));        /* a prefix alone */
    CHECK(!unit_lookup("VV", &d, &sc));
    CHECK(!unit_lookup("Ohms", &d, &sc));
}

/* unit_parse on a text; returns the scale (NaN on failure) and checks the dimension. */
static double parse(const char *text, Dim want)
{
    Dim d;
    double sc;
    char err[96];
    if (!unit_parse(text, &d, &sc, err, sizeof err)) {
        fprintf(stderr, "unit_parse(\"%s\"): %s\n", text, err);
        return NAN;
    }
    if (!dim_eq(d, want))
        fprintf(stderr, "unit_parse(\"%s\"): wrong dimension\n", text);
    CHECK(dim_eq(d, want));
    return sc;
}

static void test_parse(void)
{
    Dim volt = mkdim(2, 1, -3, -1, 0, 0), amp = mkdim(0, 0, 0, 1, 0, 0);
    Dim time = mkdim(0, 0, 1, 0, 0, 0), len = mkdim(1, 0, 0, 0, 0, 0);
    Dim area = mkdim(2, 0, 0, 0, 0, 0), ohm = mkdim(2, 1, -3, -2, 0, 0);
    Dim siem = mkdim(-2, -1, 3, 2, 0, 0), farad = mkdim(-2, -1, 4, 2, 0, 0);
    Dim conc = mkdim(-3, 0, 0, 0, 0, 1);

    CHECK_NEAR(parse("V", volt), 1000);
    CHECK_NEAR(parse("mV", volt), 1);
    CHECK_NEAR(parse("s", time), 1000);
    CHECK_NEAR(parse("ms", time), 1);
    CHECK_NEAR(parse("Hz", dim_div(DIM_NONE, time)), 0.001);
    CHECK_NEAR(parse("1/ms", dim_div(DIM_NONE, time)), 1);
    CHECK_NEAR(parse("1/s", dim_div(DIM_NONE, time)), 0.001);
    CHECK_NEAR(parse("nA", amp), 1000);
    CHECK_NEAR(parse("pA", amp), 1);
    CHECK_NEAR(parse("uF/cm^2", dim_div(farad, area)), 0.01);   /* in pF/um^2 */
    CHECK_NEAR(parse("mS/cm^2", dim_div(siem, area)), 0.01);    /* in nS/um^2 */
    CHECK_NEAR(parse("uA/cm^2", dim_div(amp, area)), 0.01);     /* in pA/um^2 */
    CHECK_NEAR(parse("m/s", dim_div(len, time)), 1000);         /* in um/ms */
    CHECK_NEAR(parse("mM", conc), 1);
    CHECK_NEAR(parse("M", conc), 1000);                         /* molar, not mega */
    CHECK_NEAR(parse("MOhm", ohm), 0.001);                      /* mega, in GOhm */
    CHECK_NEAR(parse("GOhm", ohm), 1);
    CHECK_NEAR(parse("um", len), 1);
    CHECK_NEAR(parse("\xc2\xb5m", len), 1);
    CHECK_NEAR(parse("cm", len), 10000);
    CHECK_NEAR(parse("mm", len), 1000);
    CHECK_NEAR(parse("1", DIM_NONE), 1);
    CHECK_NEAR(parse("cm^-2", dim_div(DIM_NONE, area)), 1e-8);
    CHECK_NEAR(parse("1/mV", dim_div(DIM_NONE, volt)), 1);
    CHECK_NEAR(parse("1/V", dim_div(DIM_NONE, volt)), 0.001);
    CHECK_NEAR(parse("mV/ms", dim_div(volt, time)), 1);
    CHECK_NEAR(parse("V/s", dim_div(volt, time)), 1);
    CHECK_NEAR(parse("nS*mV", amp), 1);                         /* coherent: nS mV = pA */
    CHECK_NEAR(parse("pF*mV/ms", amp), 1);
    CHECK_NEAR(parse("GOhm*pA", volt), 1);
    CHECK_NEAR(parse("pA*ms", mkdim(0, 0, 1, 1, 0, 0)), 1);     /* fC */
    CHECK_NEAR(parse("mV / ( ms * mV )", dim_div(DIM_NONE, time)), 1);
    CHECK_NEAR(parse("(mV)^2", dim_mul(volt, volt)), 1);
    CHECK_NEAR(parse("mV^2", dim_mul(volt, volt)), 1);
    CHECK_NEAR(parse("V^2", dim_mul(volt, volt)), 1e6);
    CHECK_NEAR(parse("mol/L", conc), 1000);
    CHECK_NEAR(parse("mmol/L", conc), 1);
    CHECK_NEAR(parse("kg", mkdim(0, 1, 0, 0, 0, 0)), 1e12);
    CHECK_NEAR(parse("kHz", dim_div(DIM_NONE, time)), 1);

    /* the everyday units are exactly 1, and rates exactly the double nearest 0.001 */
    static const char *const ones[] = {"mV", "ms", "pA", "nS", "pF", "um", "GOhm", "mM"};
    for (size_t i = 0; i < sizeof ones / sizeof ones[0]; i++) {
        Dim dd;
        double s1 = 0;
        CHECK(unit_lookup(ones[i], &dd, &s1));
        CHECK(s1 == 1.0);
    }
    CHECK(parse("Hz", dim_div(DIM_NONE, time)) == 0.001);
    CHECK(parse("V", volt) == 1000.0);
    CHECK(-65 * parse("mV", volt) == -65.0);

    /* errors, with their reasons */
    Dim d;
    double sc;
    char err[96];
    CHECK(!unit_parse("mV/", &d, &sc, err, sizeof err));
    CHECK_STR(err, "expected a unit name");
    CHECK(!unit_parse("foo", &d, &sc, err, sizeof err));
    CHECK_STR(err, "unknown unit 'foo'");
    CHECK(!unit_parse("m^x", &d, &sc, err, sizeof err));
    CHECK_STR(err, "expected an integer exponent after '^'");
    CHECK(!unit_parse("", &d, &sc, err, sizeof err));
    CHECK_STR(err, "expected a unit name");
    CHECK(!unit_parse("(mV", &d, &sc, err, sizeof err));
    CHECK_STR(err, "expected ')'");
    CHECK(!unit_parse("mV)", &d, &sc, err, sizeof err));
    CHECK_STR(err, "unexpected ')' in unit");
    CHECK(!unit_parse("mV ms", &d, &sc, err, sizeof err));
    CHECK_STR(err, "unexpected 'm' in unit");
    CHECK(!unit_parse("step", &d, &sc, err, sizeof err));
    CHECK_STR(err, "unknown unit 'step'");
    CHECK(!unit_parse("m^", &d, &sc, err, sizeof err));
    CHECK(!unit_parse("m^99", &d, &sc, err, sizeof err));       /* out of range */
    CHECK_STR(err, "unit exponent out of range (at most 16)");
    CHECK_NEAR(parse("cm^-16", mkdim(-16, 0, 0, 0, 0, 0)), 1e-64);
    CHECK(!unit_parse("m^-99999999999", &d, &sc, err, sizeof err));
    CHECK(!unit_parse("2", &d, &sc, err, sizeof err));
}

static void test_algebra(void)
{
    Dim volt = mkdim(2, 1, -3, -1, 0, 0), amp = mkdim(0, 0, 0, 1, 0, 0);
    Dim siem = mkdim(-2, -1, 3, 2, 0, 0), time = dim_time();
    CHECK(dim_is_none(DIM_NONE));
    CHECK(!dim_is_none(volt));
    CHECK(dim_eq(dim_mul(siem, volt), amp));
    CHECK(dim_eq(dim_div(amp, siem), volt));
    CHECK(dim_is_none(dim_div(volt, volt)));
    CHECK(dim_eq(time, mkdim(0, 0, 1, 0, 0, 0)));
    int ok = 0;
    Dim sq = dim_pow(volt, 2, 1, &ok);
    CHECK(ok);
    CHECK(dim_eq(sq, dim_mul(volt, volt)));
    Dim r = dim_pow(sq, 1, 2, &ok);             /* sqrt(mV^2) = mV */
    CHECK(ok);
    CHECK(dim_eq(r, volt));
    dim_pow(volt, 1, 2, &ok);                   /* sqrt(mV): not integral */
    CHECK(!ok);
    dim_pow(volt, 1, 0, &ok);                   /* zero denominator */
    CHECK(!ok);
    dim_pow(volt, 60, 1, &ok);                  /* T^-180 does not fit an exponent */
    CHECK(!ok);
    r = dim_pow(volt, -1, 1, &ok);
    CHECK(ok);
    CHECK(dim_eq(r, dim_div(DIM_NONE, volt)));
    r = dim_pow(volt, 0, 1, &ok);
    CHECK(ok);
    CHECK(dim_is_none(r));
    r = dim_pow(DIM_NONE, 1, 3, &ok);           /* a plain number: any root */
    CHECK(ok);
    CHECK(dim_is_none(r));

    /* weight placeholder */
    Dim w = DIM_NONE;
    w.e[DIM_W] = 1;
    CHECK(dim_eq(dim_subst_weight(w, amp), amp));
    Dim w2 = dim_mul(w, w);
    CHECK(dim_eq(dim_subst_weight(w2, amp), dim_mul(amp, amp)));
    Dim wt = dim_div(w, time);                  /* weight/ms with weight = nS */
    CHECK(dim_eq(dim_subst_weight(wt, siem), dim_div(siem, time)));
    Dim winv = dim_div(DIM_NONE, w);
    CHECK(dim_is_none(dim_subst_weight(dim_mul(winv, w), volt)));
    CHECK(dim_eq(dim_subst_weight(winv, volt), dim_div(DIM_NONE, volt)));
    CHECK(dim_eq(dim_subst_weight(volt, amp), volt)); /* no placeholder: unchanged */
    CHECK(dim_eq(dim_subst_weight(w, DIM_NONE), DIM_NONE));
}

static const char *fmt(Dim d)
{
    static char buf[96];
    dim_format(d, buf, sizeof buf);
    return buf;
}

static const char *fmt_text(const char *unit)
{
    Dim d;
    double sc;
    static char err[96];
    if (!unit_parse(unit, &d, &sc, err, sizeof err))
        return err;
    return fmt(d);
}

static void test_format(void)
{
    CHECK_STR(fmt(DIM_NONE), "1");
    CHECK_STR(fmt_text("V"), "mV");
    CHECK_STR(fmt_text("nA"), "pA");
    CHECK_STR(fmt_text("uS"), "nS");
    CHECK_STR(fmt_text("uF"), "pF");
    CHECK_STR(fmt_text("s"), "ms");
    CHECK_STR(fmt_text("cm"), "um");
    CHECK_STR(fmt_text("MOhm"), "GOhm");
    CHECK_STR(fmt_text("C"), "pA*ms");           /* no prefix f: fC is not a unit text */
    CHECK_STR(fmt_text("M"), "mM");
    CHECK_STR(fmt_text("Hz"), "1/ms");
    CHECK_STR(fmt_text("V/s"), "mV/ms");
    CHECK_STR(fmt_text("pA/ms"), "pA/ms");
    CHECK_STR(fmt_text("nS/ms"), "nS/ms");
    CHECK_STR(fmt_text("pA/um^2"), "uA/cm^2");
    CHECK_STR(fmt_text("nS/um^2"), "mS/cm^2");
    CHECK_STR(fmt_text("pF/um^2"), "uF/cm^2");
    CHECK_STR(fmt_text("1/V"), "1/mV");
    CHECK_STR(fmt_text("V*V"), "mV^2");
    CHECK_STR(fmt_text("m/s"), "um/ms");
    CHECK_STR(fmt_text("V*A"), "mV*pA");             /* two everyday units before base dims */
    CHECK_STR(fmt_text("mV*s"), "mV*ms");
    CHECK_STR(fmt_text("mM/ms"), "mM/ms");
    CHECK_STR(fmt_text("cm^2"), "um^2");             /* a square stays a square */
    CHECK_STR(fmt_text("K"), "K");
    CHECK_STR(fmt_text("mol"), "mol");
    Dim w = DIM_NONE;
    w.e[DIM_W] = 1;
    CHECK_STR(fmt(w), "weight");
    CHECK_STR(fmt(dim_div(w, dim_time())), "weight/ms");
    /* the output always parses back to the same dimension, where it is a unit text */
    static const char *const texts[] = {"mV*ms", "pA*mV", "nS/mV", "1/ms^2", "mV/ms^2",
                                        "pA/pF", "um^3", "mM/ms", "pF*mV", "1/pA"};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        Dim d, d2;
        double sc;
        char err[96], buf[96];
        CHECK(unit_parse(texts[i], &d, &sc, err, sizeof err));
        dim_format(d, buf, sizeof buf);
        int ok = unit_parse(buf, &d2, &sc, err, sizeof err) && dim_eq(d, d2);
        if (!ok)
            fprintf(stderr, "dim_format(%s) = \"%s\" does not parse back\n", texts[i], buf);
        CHECK(ok);
    }
    /* a short buffer is truncated, not overrun */
    char tiny[4];
    Dim odd = DIM_NONE;
    odd.e[DIM_L] = 5;
    odd.e[DIM_M] = -3;
    odd.e[DIM_K] = 2;
    dim_format(odd, tiny, sizeof tiny);
    CHECK(strlen(tiny) < sizeof tiny);
}

int main(void)
{
    test_lookup();
    test_parse();
    test_algebra();
    test_format();
    return unit_report("test_units");
}
