/* rt_set.c -- run-time parameters: `--set P.x=VALUE` of a generated simulator.
 *
 * The generated program lists its run-time parameters (`runtime P.x` in the model) in
 * ctx->params before nrt_init; nrt_init hands each --set to nrt_param_set, which checks
 * the name and the unit and stores the value in internal units; the generated program
 * then copies every params[i].value into its scalar (C) or its nc_scal slot (GPU) before
 * initialising anything. Units are parsed with nrt_units.h, the code neuroc scales
 * literals with, so `--set x=15ms` gives the bits of `x = 15 ms` in the source.
 * A per-neuron parameter (count > 0: of a view, or assigned per neuron) takes one value for
 * its neurons or `@FILE` (nrt_values_file) of one each; the generated program writes them
 * after the population's initialisers, in the order of the --set's (nrt_param_nth).
 */
#include "nrt_units.h"
#include "rt_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a dimension is called, for messages: "a time (ms)" (with_unit) or "a time"; one
 * without a name: "a quantity in UNIT". */
static void dim_words(const signed char *e, const char *unit, int with_unit, char *buf, size_t n)
{
    static const struct {
        signed char e[NRT_UNIT_NDIM];
        const char *what;
    } named[] = {
        {{0, 0, 0, 0, 0, 0}, "a number"},
        {{0, 0, 1, 0, 0, 0}, "a time"},
        {{0, 0, -1, 0, 0, 0}, "a rate"},
        {{1, 0, 0, 0, 0, 0}, "a length"},
        {{2, 1, -3, -1, 0, 0}, "a voltage"},
        {{0, 0, 0, 1, 0, 0}, "a current"},
        {{-2, -1, 3, 2, 0, 0}, "a conductance"},
        {{-2, -1, 4, 2, 0, 0}, "a capacitance"},
        {{2, 1, -3, -2, 0, 0}, "a resistance"},
        {{0, 0, 1, 1, 0, 0}, "a charge"},
        {{-3, 0, 0, 0, 0, 1}, "a concentration"},
        {{0, 0, 0, 0, 1, 0}, "a temperature"},
    };
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
        if (memcmp(named[i].e, e, NRT_UNIT_NDIM) == 0) {
            if (i == 0 || !with_unit)
                snprintf(buf, n, "%s", named[i].what);
            else
                snprintf(buf, n, "%s (%s)", named[i].what, unit);
            return;
        }
    snprintf(buf, n, "a quantity in %s", unit);
}

/* ", " separated names of every run-time parameter into buf. */
static void param_names(const nrt_ctx *ctx, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < ctx->nparams && len < n; i++)
        len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? ", " : "", ctx->params[i].name);
}

/* The run-time parameter whose name is the first len characters of name, or NULL. */
static nrt_param *param_named(const nrt_ctx *ctx, const char *name, size_t len)
{
    for (int i = 0; i < ctx->nparams; i++)
        if (strlen(ctx->params[i].name) == len && memcmp(ctx->params[i].name, name, len) == 0)
            return &ctx->params[i];
    return NULL;
}

/* The unit p was declared in, and one of it in internal units. */
static const char *decl_unit(const nrt_param *p, double *scale)
{
    if (p->decl_unit && p->decl_scale > 0) {
        *scale = p->decl_scale;
        return p->decl_unit;
    }
    *scale = 1;
    return p->unit ? p->unit : "1";
}

/* "v UNIT" as --set takes it, in p's declared unit: "10Hz", "0.5[1/ms]", "3" (a number). */
static void value_text(const nrt_param *p, double v, char *buf, size_t n)
{
    double sc;
    const char *u = decl_unit(p, &sc);
    size_t k = strspn(u, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ");
    if (strcmp(u, "1") == 0)
        snprintf(buf, n, "%.15g", v / sc);
    else if (u[k] == 0)
        snprintf(buf, n, "%.15g%s", v / sc, u);
    else
        snprintf(buf, n, "%.15g[%s]", v / sc, u);
}

static int64_t set_seq;          /* --set's of per-neuron parameters so far (nrt_param.seq) */

/* `--set P.x=@FILE` or `@FILE[unit]` (text: after the @) of a per-neuron parameter: one value
 * per neuron of its target, in the unit the model declared the parameter in or in `unit`. */
static nrt_status param_file(nrt_ctx *ctx, nrt_param *p, const char *arg, const char *text,
                             const char *want)
{
    char path[4096], unit[96], err[96], got[96];
    double scale, *v;
    const char *br = strrchr(text, '[');
    size_t plen = strlen(text);
    if (p->count <= 0) {
        nrt_seterr(ctx, "'--set %s': '%s' is one value%s; '@FILE' gives the values of a per-neuron "
                   "parameter", arg, p->name, p->scope ? p->scope : "");
        return NRT_EINVAL;
    }
    decl_unit(p, &scale);
    if (br && plen > 0 && text[plen - 1] == ']') {     /* @FILE[unit] */
        int e[NRT_UNIT_NDIM] = {0};
        signed char d[NRT_UNIT_NDIM];
        snprintf(unit, sizeof unit, "%.*s", (int)(text + plen - 1 - br - 1), br + 1);
        if (!nrt_unit_parse(unit, e, &scale, err, (int)sizeof err)) {
            nrt_seterr(ctx, "invalid unit in '--set %s': %s", arg, err);
            return NRT_EINVAL;
        }
        for (int k = 0; k < NRT_UNIT_NDIM; k++)
            d[k] = (signed char)e[k];
        if (memcmp(d, p->dim, NRT_UNIT_NDIM) != 0) {
            dim_words(d, unit, 0, got, sizeof got);
            nrt_seterr(ctx, "'--set %s': '%s' is %s, but '%s' is %s", arg, p->name, want, unit, got);
            return NRT_EINVAL;
        }
        plen = (size_t)(br - text);
    }
    if (plen == 0 || plen >= sizeof path) {
        nrt_seterr(ctx, "invalid '--set %s' (expected NAME=@FILE.npy or NAME=@FILE.csv, optionally "
                   "with a unit: NAME=@FILE.npy[pA])", arg);
        return NRT_EINVAL;
    }
    snprintf(path, sizeof path, "%.*s", (int)plen, text);
    nrt_status st = nrt_values_file(ctx, path, p->count, &v);
    if (st != NRT_OK)
        return st;
    for (int64_t j = 0; j < p->count; j++) {
        v[j] *= scale;
        if (!isfinite(v[j]) || (p->is_int && (v[j] != floor(v[j]) || fabs(v[j]) > 2147483647.0))) {
            nrt_seterr(ctx, "%s:%lld: %s", path, (long long)j + 1, isfinite(v[j])
                       ? "an integer parameter takes whole numbers" : "the value is out of range");
            nrt_free(v);
            return NRT_EINVAL;
        }
    }
    if (p->given == 2)            /* a second --set of it: nrt_init's, no copy holds the first */
        nrt_free(p->values);
    p->values = v;
    p->file = text;               /* argv outlives the run */
    p->expr = NULL;
    p->given = 2;
    p->seq = ++set_seq;
    return NRT_OK;
}

/* Whether a --set value is an expression (rt_expr.c) rather than a number and its unit:
 * it names i, or has *, /, parentheses, or a + or - after an operand (not an exponent's),
 * outside the brackets of a unit. */
static int is_expr(const char *t)
{
    const char *q = t + strspn(t, " \t+-");
    for (; *q; q++) {
        if (*q == '[') {          /* unit text: 0.5[1/ms] */
            const char *close = strchr(q, ']');
            if (!close)
                return 0;
            q = close;
            continue;
        }
        if (strchr("*/()", *q) || (*q == 'i' && (q == t || !isalpha((unsigned char)q[-1])) &&
                                   !isalnum((unsigned char)q[1]) && q[1] != '_'))
            return 1;
        if (*q == '+' || *q == '-') {
            const char *b = q;
            while (b > t && (b[-1] == ' ' || b[-1] == '\t'))
                b--;
            int exponent = b == q && b - t >= 2 && (b[-1] == 'e' || b[-1] == 'E') &&
                           (isdigit((unsigned char)b[-2]) || b[-2] == '.');
            if (b > t && (isalnum((unsigned char)b[-1]) || b[-1] == ']' || b[-1] == ')') && !exponent)
                return 1;
        }
    }
    return 0;
}

/* What the SI exponents d are, for a message: "a current (A)"-like words or "m^2 kg s^-3". */
static void dim_of(const int *e, char *buf, size_t n)
{
    static const char *const si[NRT_UNIT_NDIM] = {"m", "kg", "s", "A", "K", "mol"};
    signed char d[NRT_UNIT_NDIM];
    char u[96];
    size_t len = 0;
    u[0] = '\0';
    for (int k = 0; k < NRT_UNIT_NDIM; k++) {
        d[k] = (signed char)e[k];
        if (e[k] && len < sizeof u)
            len += (size_t)snprintf(u + len, sizeof u - len, e[k] == 1 ? "%s%s" : "%s%s^%d",
                                    len ? " " : "", si[k], e[k]);
    }
    dim_words(d, u, 0, buf, n);
}

/* `--set P.x=EXPR`: an expression of the neuron's index i within the target (rt_expr.c), for
 * a per-neuron parameter; a constant one (no i) for any. */
static nrt_status param_expr(nrt_ctx *ctx, nrt_param *p, const char *arg, const char *text,
                             const char *want)
{
    char err[160], got[160];
    int dim[NRT_UNIT_NDIM], is_const = 0;
    double c = 0, *v = (double *)nrt_alloc(ctx, (size_t)(p->count > 0 ? p->count : 1) * sizeof *v,
                                          "per-neuron values");
    if (!v)
        return NRT_ENOMEM;
    if (!nrt_expr_eval(text, ctx->dt, p->real_bytes == 8, p->count, dim, &is_const, v, err,
                       sizeof err)) {
        nrt_seterr(ctx, "invalid expression in '--set %s': %s", arg, err);
        nrt_free(v);
        return NRT_EINVAL;
    }
    signed char d[NRT_UNIT_NDIM];
    for (int k = 0; k < NRT_UNIT_NDIM; k++)
        d[k] = (signed char)dim[k];
    if (memcmp(d, p->dim, NRT_UNIT_NDIM) != 0) {
        dim_of(dim, got, sizeof got);
        nrt_seterr(ctx, "'--set %s': '%s' is %s, but the expression is %s", arg, p->name, want, got);
        nrt_free(v);
        return NRT_EINVAL;
    }
    if (!is_const && p->count <= 0) {
        nrt_seterr(ctx, "'--set %s': '%s' is one value%s%s; the neuron index 'i' belongs to a "
                   "per-neuron parameter", arg, p->name, p->scope ? ", of " : "",
                   p->scope ? p->scope : "");
        nrt_free(v);
        return NRT_EINVAL;
    }
    for (int64_t j = 0; j < (is_const ? 1 : p->count); j++)
        if (!isfinite(v[j]) || (p->is_int && (v[j] != floor(v[j]) || fabs(v[j]) > 2147483647.0))) {
            nrt_seterr(ctx, "'--set %s': the value for i = %lld is %s", arg, (long long)j,
                       isfinite(v[j]) ? "not a whole number (an integer parameter)" : "not finite");
            nrt_free(v);
            return NRT_EINVAL;
        }
    if (is_const) {               /* as a number with its unit */
        c = v[0];
        nrt_free(v);
        p->value = c;
        if (p->count > 0) {
            p->given = 1;
            p->seq = ++set_seq;
        }
        return NRT_OK;
    }
    if (p->given == 2)            /* a second --set of it: nrt_init's, no copy holds the first */
        nrt_free(p->values);
    p->values = v;
    p->file = NULL;
    p->expr = text;
    p->given = 2;
    p->seq = ++set_seq;
    return NRT_OK;
}

/* Contract: see neurort.h. The value is a decimal number (no C hexadecimal floats, which the
 * language does not have) and a unit as the language writes one after a number: a unit
 * name or product ("15ms", "-60 mV", "10Hz", "1/ms"), "[unit text]" ("0.5[1/ms]") or
 * "step"/"steps". */
nrt_status nrt_param_set(nrt_ctx *ctx, const char *arg)
{
    const char *eq = strchr(arg, '=');
    char names[256];
    if (!eq || eq == arg) {
        nrt_seterr(ctx, "invalid '--set %s' (expected NAME=VALUE, e.g. --set P.tau_m=15ms)", arg);
        return NRT_EINVAL;
    }
    nrt_param *p = param_named(ctx, arg, (size_t)(eq - arg));
    if (!p) {
        if (ctx->nparams == 0) {
            nrt_seterr(ctx, "unknown run-time parameter '%.*s': this model has none (a model "
                       "marks them with 'runtime P.x')", (int)(eq - arg), arg);
        } else {
            param_names(ctx, names, sizeof names);
            nrt_seterr(ctx, "unknown run-time parameter '%.*s' (valid: %s)", (int)(eq - arg), arg,
                       names);
        }
        return NRT_EINVAL;
    }
    const char *text = eq + 1;
    char want[96], got[96], err[96], eg[64], unit[96];
    double dsc;
    const char *du = decl_unit(p, &dsc);
    dim_words(p->dim, du, 1, want, sizeof want);
    value_text(p, p->value, eg, sizeof eg);
    if (*text == '@')
        return param_file(ctx, p, arg, text + 1, want);
    if (is_expr(text))
        return param_expr(ctx, p, arg, text, want);
    char *end;
    double num = strtod(text, &end);
    if (end == text || !isfinite(num) || memchr(text, 'x', (size_t)(end - text)) ||
        memchr(text, 'X', (size_t)(end - text))) {
        nrt_seterr(ctx, "invalid value '%s' for '%s' (expected %s, a decimal number and a unit, "
                   "e.g. --set %s=%s)", text, p->name, want, p->name, eg);
        return NRT_EINVAL;
    }
    while (*end == ' ' || *end == '\t')
        end++;
    if (*end == '[') {                            /* 0.5[1/ms], as in the language */
        const char *close = strchr(end, ']');
        if (!close || close[strspn(close + 1, " \t") + 1] != 0 ||
            (size_t)(close - end - 1) >= sizeof unit) {
            nrt_seterr(ctx, "invalid unit in '--set %s': expected '[unit]' at the end", arg);
            return NRT_EINVAL;
        }
        snprintf(unit, sizeof unit, "%.*s", (int)(close - end - 1), end + 1);
    } else
        snprintf(unit, sizeof unit, "%s", end);
    int e[NRT_UNIT_NDIM] = {0};
    double scale = 1.0;
    if (strcmp(unit, "step") == 0 || strcmp(unit, "steps") == 0) {
        e[2] = 1;
        scale = ctx->dt;
    } else if (*unit && !nrt_unit_parse(unit, e, &scale, err, (int)sizeof err)) {
        nrt_seterr(ctx, "invalid unit in '--set %s': %s", arg, err);
        return NRT_EINVAL;
    }
    signed char d[NRT_UNIT_NDIM];
    for (int k = 0; k < NRT_UNIT_NDIM; k++)
        d[k] = (signed char)e[k];
    /* a bare 0 fits every dimension, as in the language */
    if (memcmp(d, p->dim, NRT_UNIT_NDIM) != 0 && !(num == 0 && !*unit)) {
        dim_words(d, unit, 0, got, sizeof got);
        if (!*unit) {
            value_text(p, num * dsc, eg, sizeof eg);
            nrt_seterr(ctx, "'--set %s': '%s' is %s and needs a unit, e.g. %s=%s", arg, p->name,
                       want, p->name, eg);
        } else
            nrt_seterr(ctx, "'--set %s': '%s' is %s, but '%s' is %s", arg, p->name, want, unit, got);
        return NRT_EINVAL;
    }
    double v = num * scale;
    if (!isfinite(v)) {
        nrt_seterr(ctx, "'--set %s': the value is out of range", arg);
        return NRT_EINVAL;
    }
    if (p->is_int && (v != floor(v) || fabs(v) > 2147483647.0)) {
        nrt_seterr(ctx, "'--set %s': '%s' is an integer parameter", arg, p->name);
        return NRT_EINVAL;
    }
    p->value = v;
    if (p->count > 0) {           /* one value for every neuron of the target */
        p->given = 1;
        p->seq = ++set_seq;
    }
    return NRT_OK;
}

/* Contract: see neurort.h. Values in the unit each parameter was declared in. */
void nrt_param_usage(const nrt_ctx *ctx)
{
    if (ctx->nparams == 0)
        return;
    printf("\nrun-time parameters (--set NAME=VALUE; the model's value shown):\n");
    for (int i = 0; i < ctx->nparams; i++) {
        const nrt_param *p = &ctx->params[i];
        double sc;
        const char *u = decl_unit(p, &sc);
        int unit = strcmp(u, "1") != 0;
        printf("  %-24s %.15g%s%s", p->name, p->value / sc, unit ? " " : "", unit ? u : "");
        if (p->count > 0)
            printf("  (%s, %lld neurons)", p->scope ? p->scope : "per neuron", (long long)p->count);
        else if (p->scope)
            printf("  (%s)", p->scope);
        putchar('\n');
    }
}

/* Contract: see rt_internal.h. */
double nrt_param_declared(const nrt_param *p, const char **unit)
{
    double sc;
    *unit = decl_unit(p, &sc);
    return p->value / sc;
}

/* The text of value k of sweep i ("NAME=V0,V1,..."): NAME=Vk into buf; 0 when there is
 * no value k. */
static int sweep_arg(const nrt_ctx *ctx, int i, int64_t k, char *buf, size_t n)
{
    const char *sw = ctx->sweep[i], *eq = strchr(sw, '='), *v;
    int64_t j = 0;
    if (!eq)
        return 0;
    for (v = eq + 1; j < k; j++) {
        v = strchr(v, ',');
        if (!v)
            return 0;
        v++;
    }
    size_t len = strcspn(v, ",");
    if ((size_t)(eq - sw) + 1 + len + 1 > n)
        return 0;
    snprintf(buf, n, "%.*s=%.*s", (int)(eq - sw), sw, (int)len, v);
    return 1;
}

/* The parameter sweep i names, or NULL. */
static nrt_param *sweep_param(const nrt_ctx *ctx, int i)
{
    const char *eq = strchr(ctx->sweep[i], '=');
    return eq ? param_named(ctx, ctx->sweep[i], (size_t)(eq - ctx->sweep[i])) : NULL;
}

/* How many values sweep i lists, each checked as --set checks it; 0 with errmsg. */
static int64_t sweep_count1(nrt_ctx *ctx, int i)
{
    char arg[512];
    int64_t n = 0;
    const char *sw = ctx->sweep[i], *eq = strchr(sw, '=');
    if (!eq || eq == sw || !eq[1]) {
        nrt_seterr(ctx, "invalid '--sweep %s' (expected NAME=V0,V1,..., e.g. --sweep P.tau_m=10ms,20ms)",
                   sw);
        return 0;
    }
    while (sweep_arg(ctx, i, n, arg, sizeof arg)) {
        nrt_param *p = sweep_param(ctx, i);
        nrt_param saved;
        if (p)
            saved = *p;
        if (arg[strlen(arg) - 1] == '=') {
            nrt_seterr(ctx, "invalid '--sweep %s': value %lld is empty", sw, (long long)n);
            return 0;
        }
        if (strchr(arg, '@')) {
            nrt_seterr(ctx, "invalid '--sweep %s': value %lld is a file; a sweep takes numbers with "
                       "units (a file of per-neuron values goes to --set)", sw, (long long)n);
            return 0;
        }
        if (nrt_param_set(ctx, arg) != NRT_OK)   /* checked as --set checks it, then undone */
            return 0;
        if (p->given == 2) {
            nrt_free(p->values);
            *p = saved;
            nrt_seterr(ctx, "invalid '--sweep %s': value %lld depends on i; a sweep takes one "
                       "value per instance (an expression of i goes to --set)", sw, (long long)n);
            return 0;
        }
        *p = saved;
        n++;
    }
    if (n == 0)
        nrt_seterr(ctx, "invalid '--sweep %s' (expected NAME=V0,V1,...)", sw);
    return n;
}

/* Contract: see neurort.h. */
int64_t nrt_sweep_count(nrt_ctx *ctx)
{
    int64_t points = 1;
    for (int i = 0; i < ctx->nsweeps; i++) {
        const int64_t n = sweep_count1(ctx, i);
        if (n == 0)
            return 0;
        for (int j = 0; j < i; j++)
            if (sweep_param(ctx, j) == sweep_param(ctx, i)) {
                nrt_seterr(ctx, "'--sweep %s': '%s' is already swept (one --sweep per parameter; "
                           "several parameters make a grid)", ctx->sweep[i], sweep_param(ctx, i)->name);
                return 0;
            }
        if (n > 1000000 / points) {
            nrt_seterr(ctx, "the --sweep grid has more than 1000000 points");
            return 0;
        }
        ctx->sweep_n[i] = n;
        points *= n;
    }
    return points;
}

/* Contract: see rt_internal.h. */
void nrt_sweep_value(nrt_ctx *ctx, int i, int64_t k, double *v, const char **name)
{
    char arg[512];
    nrt_param *p = sweep_param(ctx, i);
    const char *unit;
    const nrt_param saved = *p;
    *name = p->name;
    *v = 0;
    if (sweep_arg(ctx, i, k, arg, sizeof arg) && nrt_param_set(ctx, arg) == NRT_OK)
        *v = nrt_param_declared(p, &unit);
    *p = saved;
}

/* Contract: see rt_internal.h. The last sweep varies fastest, the seeds faster still. */
int64_t nrt_sweep_index(const nrt_ctx *ctx, int64_t b, int i)
{
    int64_t p = b / (ctx->seeds > 0 ? ctx->seeds : 1);
    for (int j = ctx->nsweeps - 1; j > i; j--)
        p /= ctx->sweep_n[j];
    return p % ctx->sweep_n[i];
}

/* Contract: see neurort.h. */
nrt_status nrt_sweep_apply(nrt_ctx *ctx, int64_t b)
{
    char arg[512];
    for (int i = 0; i < ctx->nsweeps; i++) {
        if (!sweep_arg(ctx, i, nrt_sweep_index(ctx, b, i), arg, sizeof arg)) {
            nrt_seterr(ctx, "--sweep has no value for instance %lld", (long long)b);
            return NRT_EINVAL;
        }
        if (nrt_param_set(ctx, arg) != NRT_OK)
            return NRT_EINVAL;
    }
    return NRT_OK;
}

/* Contract: see neurort.h. */
uint64_t nrt_instance_seed(const nrt_ctx *ctx, int64_t b)
{
    return ctx->seed + (uint64_t)(b % (ctx->seeds > 0 ? ctx->seeds : 1));
}

/* Contract: see neurort.h. */
const nrt_param *nrt_param_nth(const nrt_ctx *ctx, const int *ks, int n, int r)
{
    int64_t after = 0;            /* the r-th given: the smallest seq above the (r-1)-th's */
    const nrt_param *q = NULL;
    for (int round = 0; round <= r; round++) {
        q = NULL;
        for (int j = 0; j < n; j++) {
            const nrt_param *p = &ctx->params[ks[j]];
            if (p->given && p->seq > after && (!q || p->seq < q->seq))
                q = p;
        }
        if (!q)
            return NULL;
        after = q->seq;
    }
    return q;
}

/* Contract: see neurort.h. */
double nrt_param_at(const nrt_param *p, int64_t j)
{
    return p->given == 2 ? p->values[j] : p->value;
}
