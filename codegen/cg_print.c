/* cg_print.c -- IR expressions and statements as C-family source text (and the helpers its
 * random draws call).
 *
 * Shared by every back end: the C reference, CUDA and OpenCL print the same IR through
 * this one printer, differing only in the CgDialect hooks (storage spelling, spikes,
 * arrivals) and math-function names. Numbers are printed so they round-trip exactly.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"
#include "nrt_math.h"

/* ORDER: IrFn; double and float spellings. Transcendentals are nrt_math.h's (the same bits
 * in C, CUDA and OpenCL); the rest are exact in IEEE arithmetic everywhere. */
static const char *const fn_names[IF__COUNT][2] = {
    {"nrt_exp", "nrt_expf"}, {"nrt_log", "nrt_logf"}, {"sqrt", "sqrtf"}, {"fabs", "fabsf"},
    {"fmin", "fminf"}, {"fmax", "fmaxf"}, {"nc_exprel", "nc_exprel"}, {"nrt_sin", "nrt_sinf"},
    {"nrt_cos", "nrt_cosf"}, {"nrt_tan", "nrt_tanf"}, {"nrt_tanh", "nrt_tanhf"},
    {"floor", "floorf"}, {"ceil", "ceilf"}, {"round", "roundf"}, {"nrt_expm1", "nrt_expm1f"},
    {"nrt_log1p", "nrt_log1pf"}, {"nrt_log10", "nrt_log10f"}, {"nrt_atan", "nrt_atanf"},
    {"nrt_sinh", "nrt_sinhf"}, {"nrt_cosh", "nrt_coshf"}, {"nc_clip", "nc_clip"},
};

const char *cg_fn_name(const CgDialect *d, IrFn fn)
{
    return fn_names[fn][d->dbl ? 0 : 1];
}

void cg_real(const CgDialect *d, double v, StrBuf *out)
{
    if (isinf(v)) {
        sb_puts(out, v > 0 ? "INFINITY" : "(-INFINITY)");
        return;
    }
    if (isnan(v)) {
        sb_puts(out, "NAN");
        return;
    }
    /* the shortest of %g and %f forms that reads back as the same value */
    char buf[64] = "";
    for (int prec = 1; prec <= 17 && !buf[0]; prec++) {
        char t[64];
        snprintf(t, sizeof t, "%.*g", prec, v);
        double back = strtod(t, NULL);
        if (d->dbl ? back == v : (float)back == (float)v)
            memcpy(buf, t, sizeof t);
    }
    if (strchr(buf, 'e') && fabs(v) >= 1e-4 && fabs(v) < 1e15) {
        for (int dec = 0; dec <= 17; dec++) {
            char t[64];
            snprintf(t, sizeof t, "%.*f", dec, v);
            double back = strtod(t, NULL);
            if (d->dbl ? back == v : (float)back == (float)v) {
                if (strlen(t) <= strlen(buf) + 3)
                    memcpy(buf, t, sizeof t);
                break;
            }
        }
    }
    int isint = strchr(buf, '.') == NULL && strchr(buf, 'e') == NULL && strchr(buf, 'n') == NULL;
    if (v < 0)
        sb_putc(out, '(');
    sb_puts(out, buf);
    if (isint)
        sb_puts(out, ".0");
    if (!d->dbl)
        sb_putc(out, 'f');
    if (v < 0)
        sb_putc(out, ')');
}

void cg_cstring(const char *s, StrBuf *out)
{
    for (const char *p = s; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '"' || c == '\\' || c == '?') {
            sb_putc(out, '\\');
            sb_putc(out, (char)c);
        } else if (c < 32 || c >= 127 || (c == '/' && p > s && p[-1] == '*')) {
            sb_printf(out, "\\%03o", c);
        } else {
            sb_putc(out, (char)c);
        }
    }
}

CgDialect cg_dialect(int dbl, const IrPop *pop)
{
    CgDialect d = {0};
    d.dbl = dbl;
    d.real = "real";
    d.index = "n";
    d.rng_elem = "n";
    d.rng_sub = "0";
    d.rng_step = "step";
    d.pre = "i";
    d.post = "j";
    d.edge[0] = "edge_w";
    d.edge[1] = "edge_d";
    d.pop = pop;
    return d;
}

void cg_var_ref(const CgDialect *d, const IrVar *v, int at, StrBuf *out)
{
    CgDialect t = *d;
    switch (v->kind) {
    case IV_SYN:
        t.index = d->syn;
        break;
    case IV_PRE:
        t.index = d->pre_hist ? d->pre_hist : d->pre;
        break;
    case IV_POST:
        t.index = d->post;
        break;
    default:
        if (at == IR_AT_PRE)
            t.index = d->pre_n;
        else if (at == IR_AT_POST)
            t.index = d->post_n;
        break;
    }
    d->var(&t, v, out);
}

static const char *local_name(const CgDialect *d, int id)
{
    return d->pop->locals[id].name;
}

static void paren(const CgDialect *d, const IrExpr *e, StrBuf *out)
{
    int simple = e->op == IE_CONST || e->op == IE_VAR || e->op == IE_LOCAL || e->op == IE_CALL ||
                 e->op == IE_T || e->op == IE_INDEX || e->op == IE_PROP || e->op == IE_RAND ||
                 e->op == IE_EDGE || e->op == IE_SFILE || e->op == IE_STEP || e->op == IE_SERIES;
    if (!simple)
        sb_putc(out, '(');
    cg_expr(d, e, out);
    if (!simple)
        sb_putc(out, ')');
}

void cg_expr(const CgDialect *d, const IrExpr *e, StrBuf *out)
{
    switch (e->op) {
    case IE_CONST:
        if (e->type == IRT_REAL && d->lit)
            d->lit(d, e, out);
        else if (e->type == IRT_REAL)
            cg_real(d, e->val, out);
        else if (e->val < 0)
            sb_printf(out, "(%lld)", (long long)e->val);
        else
            sb_printf(out, "%lld", (long long)e->val);
        return;
    case IE_VAR:
        cg_var_ref(d, e->var, e->at, out);
        return;
    case IE_LOCAL:
        sb_puts(out, local_name(d, e->local));
        return;
    case IE_T:
        sb_puts(out, "t");
        return;
    case IE_DT:
        sb_puts(out, "dt");
        return;
    case IE_INDEX:
        sb_puts(out, d->index);
        return;
    case IE_PRE:
        sb_puts(out, d->pre);
        return;
    case IE_POST:
        sb_puts(out, d->post);
        return;
    case IE_BIN: {
        IrBinop op = (IrBinop)e->sub;
        if (op == IB_POW) {
            sb_puts(out, d->dbl ? "nrt_pow(" : "nrt_powf(");
            cg_expr(d, e->a, out);
            sb_puts(out, ", ");
            cg_expr(d, e->b, out);
            sb_putc(out, ')');
            return;
        }
        if (op == IB_MOD && e->type == IRT_REAL) {
            /* integer operands converted explicitly: CUDA has no fmod(int64_t, double) */
            sb_puts(out, d->dbl ? "fmod(" : "fmodf(");
            if (e->a->type != IRT_REAL)
                sb_printf(out, "(%s)", d->real);
            paren(d, e->a, out);
            sb_puts(out, ", ");
            if (e->b->type != IRT_REAL)
                sb_printf(out, "(%s)", d->real);
            paren(d, e->b, out);
            sb_putc(out, ')');
            return;
        }
        if (op == IB_DIV && e->type == IRT_REAL && e->a->type != IRT_REAL && e->b->type != IRT_REAL) {
            sb_printf(out, "((%s)", d->real);
            paren(d, e->a, out);
            sb_puts(out, " / ");
            paren(d, e->b, out);
            sb_putc(out, ')');
            return;
        }
        paren(d, e->a, out);
        sb_printf(out, " %s ", ir_binop_c[op]);
        paren(d, e->b, out);
        return;
    }
    case IE_NEG:
        sb_putc(out, '-');
        paren(d, e->a, out);
        return;
    case IE_NOT:
        sb_putc(out, '!');
        paren(d, e->a, out);
        return;
    case IE_CALL:
        if (e->sub == IF_ABS && e->type == IRT_INT) {
            sb_puts(out, "nc_iabs(");
        } else {
            sb_puts(out, cg_fn_name(d, (IrFn)e->sub));
            sb_putc(out, '(');
        }
        for (int i = 0; i < e->nargs; i++) {
            if (i)
                sb_puts(out, ", ");
            cg_expr(d, e->args[i], out);
        }
        sb_putc(out, ')');
        return;
    case IE_COND:
        paren(d, e->a, out);
        sb_puts(out, " ? ");
        paren(d, e->b, out);
        sb_puts(out, " : ");
        paren(d, e->c, out);
        return;
    case IE_RAND: {
        if (e->sub == IR_NORMAL_TR) {   /* mean, sd, lo, hi, and which bounds apply */
            sb_puts(out, "nc_normal_tr(");
            if (d->lit)   /* the stream a slot of a family's table, as for the other draws */
                d->lit(d, e, out);
            else
                sb_printf(out, "0x%08xu", e->stream);
            sb_printf(out, ", (uint32_t)(%s), (uint32_t)(%s), (uint32_t)(%s), %uu", d->rng_elem, d->rng_sub,
                      d->rng_step, e->site);
            for (int i = 0; i < 4; i++) {
                sb_puts(out, ", (double)");
                paren(d, e->args[i], out);
            }
            sb_printf(out, ", %d)", e->bounds);
            return;
        }
        /* a Poisson mean known now: its split and e^-mean computed here, as nc_poisson_k would */
        int pm = 0, kmax = 0;
        double lam = e->sub == IR_POISSON && e->a->op == IE_CONST ? e->a->val : 0, pl = 0, e0 = 0;
        if (!d->dbl)
            lam = (double)(float)lam;
        const int split = lam > 0 && cg_poisson_split(lam, &pm, &pl, &e0, &kmax);
        sb_printf(out, "%s%s(", e->sub == IR_NORMAL ? "nc_normal" : split ? "nc_poisson_c"
                  : e->sub == IR_POISSON ? "nc_poisson" : "nc_uniform", d->cold && e->sub != IR_POISSON ? "_cold" : "");
        if (d->lit)
            d->lit(d, e, out);
        else
            sb_printf(out, "0x%08xu", e->stream);
        sb_printf(out, ", (uint32_t)(%s), (uint32_t)(%s), (uint32_t)(%s), %uu", d->rng_elem, d->rng_sub, d->rng_step,
                  e->site);
        if (split) {   /* the first CG_POISSON_TAB cumulative probabilities as constants */
            double F[CG_POISSON_TAB], pk = 0;
            cg_poisson_table(pl, e0, F, &pk);
            sb_printf(out, ", %d, %a, %d", pm, pl, kmax);
            for (int j = 0; j < CG_POISSON_TAB; j++)
                sb_printf(out, ", %a", F[j]);
            sb_printf(out, ", %a)", pk);
            return;
        }
        if (e->sub == IR_POISSON) {
            sb_puts(out, ", (double)");
            paren(d, e->a, out);
        }
        sb_putc(out, ')');
        return;
    }
    case IE_PROP:
        d->prop(d, e, out);
        return;
    case IE_EDGE:
        sb_puts(out, d->edge[e->sub]);
        return;
    case IE_SFILE:
        /* the population's spike file as CSR by step (nc_sf_has: a binary search) */
        sb_printf(out, "nc_sf_has(%s_sfp, %s_sfi, %s_sfn, step, %s)", d->pop ? d->pop->cname : "pop",
                  d->pop ? d->pop->cname : "pop", d->pop ? d->pop->cname : "pop", d->index);
        return;
    case IE_STEP:
        sb_puts(out, d->step ? d->step : "step");
        return;
    case IE_SERIES:
        /* the series' value at this step in this neuron's column (cg_series_helper) */
        sb_printf(out, "nc_series(nc_ser%d_v, nc_ser%d_ns, nc_ser%d_nc, nc_ser%d_k, nc_ser%d_lin, step, %s)",
                  e->sub, e->sub, e->sub, e->sub, e->sub, d->index);
        return;
    }
    NC_UNREACHABLE();
}

/* Contract: see codegen.h. */
const char *cg_type_name(const CgDialect *d, IrType t)
{
    return t == IRT_REAL ? d->real : (t == IRT_INT ? "int64_t" : "int");
}

void cg_block(const CgDialect *d, const IrBlock *b, Out *o)
{
    StrBuf e = {0};
    for (int i = 0; i < b->n; i++) {
        const IrStmt *s = b->v[i];
        e.len = 0;
        if (e.s)
            e.s[0] = 0;
        switch (s->kind) {
        case IS_ASSIGN: {
            StrBuf lhs = {0};
            cg_var_ref(d, s->var, IR_AT_SELF, &lhs);
            cg_expr(d, s->e, &e);
            if (s->var->type == IRT_REAL || s->e->type == s->var->type)
                out_line(o, "%s = %s;", lhs.s, e.s);
            else
                out_line(o, "%s = (%s)(%s);", lhs.s, cg_type_name(d, s->var->type), e.s);
            sb_free(&lhs);
            break;
        }
        case IS_LOCAL:
            cg_expr(d, s->e, &e);
            out_line(o, "%s %s = %s;", cg_type_name(d, s->type), local_name(d, s->local), e.s);
            break;
        case IS_SETLOCAL:
            cg_expr(d, s->e, &e);
            out_line(o, "%s = %s;", local_name(d, s->local), e.s);
            break;
        case IS_IF:
            cg_expr(d, s->e, &e);
            out_open(o, "if (%s)", e.s);
            cg_block(d, &s->body, o);
            if (s->els.n) {
                out_close_with(o, " else {");
                o->indent++;
                cg_block(d, &s->els, o);
            }
            out_close(o);
            break;
        case IS_SPIKE:
            d->spike(d, d->pop, o);
            break;
        case IS_RECV:
            d->recv(d, s->proj, local_name(d, s->local), o);
            break;
        case IS_DELIVER:
            cg_expr(d, s->e, &e);
            d->deliver(d, s->proj, e.s, o);
            break;
        }
    }
    sb_free(&e);
}

/* {===== random draws =====
 * cg_expr prints a draw (IE_RAND) as a call of nc_uniform, nc_normal or nc_poisson; these
 * are the helpers it calls, and the split of a Poisson mean known when compiling, which the
 * printer folds into nc_poisson_c and the helper nc_poisson_k computes the same way. */

/* Contract: codegen.h. */
void cg_rand_helpers(Out *o, const char *qual, const char *cold_qual, int normal_tr)
{
    const char *args = "uint32_t key, uint32_t stream, uint32_t elem, uint32_t sub, uint32_t step, uint32_t site";
    out_line(o, "/* draws from the counter-based generator (nrt_philox.h): the same on every back end */");
    out_open(o, "%s real nc_uniform_k(%s)", qual, args);
    out_line(o, "return (real)nrt_u01(nrt_rng(key, stream, elem, sub, step, site).v[0]);");
    out_close(o);
    out_open(o, "%s double nc_gauss(nrt_u32x4 r)", qual);
    out_line(o, "return sqrt(-2.0 * nrt_log(nrt_u01(r.v[0]))) * nrt_cos(6.283185307179586 * nrt_u01(r.v[1]));");
    out_close(o);
    out_open(o, "%s real nc_normal_k(%s)", qual, args);
    out_line(o, "return (real)nc_gauss(nrt_rng(key, stream, elem, sub, step, site));");
    out_close(o);
    /* docs/language.md §11: a sum of m independent Poisson(lam / m) counts, each found by
     * inversion of a 53-bit uniform (two per Philox block; block j of a draw moves the site
     * by j << 20), in double with + - * / and nrt_exp only, so every back end gets the
     * same count; above 2^22 the rounded normal approximation */
    out_open(o, "%s real nc_poisson_m(%s, int m, double l, double e0, int kmax)", qual, args);
    out_line(o, "double n = 0.0;");
    out_line(o, "nrt_u32x4 r = nrt_rng(key, stream, elem, sub, step, site);");
    out_open(o, "for (int c = 0; c < m; c++)");
    out_line(o, "if (c > 0 && (c & 1) == 0) r = nrt_rng(key, stream, elem, sub, step, site + ((uint32_t)(c >> 1) << 20));");
    out_line(o, "const double u = (c & 1) ? nrt_u01_53(r.v[2], r.v[3]) : nrt_u01_53(r.v[0], r.v[1]);");
    out_line(o, "double p = e0, F = e0;");
    out_line(o, "int k = 0;");
    out_open(o, "while (u > F && k < kmax)");
    out_line(o, "k++;");
    out_line(o, "p = p * l / (double)k;");
    out_line(o, "F += p;");
    out_close(o);
    out_line(o, "n += (double)k;");
    out_close(o);
    out_line(o, "return (real)n;");
    out_close(o);
    /* nc_poisson_m for a mean known when compiling: the cumulative probabilities F0..F7 of
     * counts 0..7 and the probability p7 of 7, computed by cg_poisson_table with the loop's
     * operations, so the count is the loop's, bit for bit, without its divisions; the loop
     * goes on from 7 in the rare draws above it */
    out_open(o, "%s real nc_poisson_t(%s, int m, double l, int kmax, double F0, double F1, double F2, "
             "double F3, double F4, double F5, double F6, double F7, double p7)", qual, args);
    out_line(o, "double n = 0.0;");
    out_line(o, "nrt_u32x4 r = nrt_rng(key, stream, elem, sub, step, site);");
    out_open(o, "for (int c = 0; c < m; c++)");
    out_line(o, "if (c > 0 && (c & 1) == 0) r = nrt_rng(key, stream, elem, sub, step, site + ((uint32_t)(c >> 1) << 20));");
    out_line(o, "const double u = (c & 1) ? nrt_u01_53(r.v[2], r.v[3]) : nrt_u01_53(r.v[0], r.v[1]);");
    out_line(o, "int k = u > F0 ? u > F1 ? u > F2 ? u > F3 ? u > F4 ? u > F5 ? u > F6 ? 7 : 6 : 5 : 4 : 3 : 2 : 1 : 0;");
    out_open(o, "if (k == 7)");
    out_line(o, "double p = p7, F = F7;");
    out_open(o, "while (u > F && k < kmax)");
    out_line(o, "k++;");
    out_line(o, "p = p * l / (double)k;");
    out_line(o, "F += p;");
    out_close(o);
    out_close(o);
    out_line(o, "n += (double)k;");
    out_close(o);
    out_line(o, "return (real)n;");
    out_close(o);
    /* the split, its mean and e^-mean: cg_poisson_split's, for a mean known when compiling */
    out_open(o, "%s real nc_poisson_k(%s, double lam)", qual, args);
    out_line(o, "if (!(lam > 0.0)) return (real)0;");
    out_open(o, "if (lam > 4194304.0)");
    out_line(o, "double n = floor(lam + sqrt(lam) * nc_gauss(nrt_rng(key, stream, elem, sub, step, site)) + 0.5);");
    out_line(o, "return (real)(n > 0.0 ? n : 0.0);");
    out_close(o);
    out_line(o, "const int m = lam <= 65536.0 ? (int)ceil(lam / 8.0) : 8192;");
    out_line(o, "const double l = lam / (double)m;");
    out_line(o, "return nc_poisson_m(key, stream, elem, sub, step, site, m, l, nrt_exp(-l), (int)(l + 12.0 * sqrt(l)) + 30);");
    out_close(o);
    /* fixed arity: OpenCL C has no variadic macros (NVIDIA's compiler rejects them) */
    out_line(o, "#define nc_uniform(a, b, c, d, e) nc_uniform_k(seedkey, a, b, c, d, e)");
    out_line(o, "#define nc_normal(a, b, c, d, e) nc_normal_k(seedkey, a, b, c, d, e)");
    out_line(o, "#define nc_poisson(a, b, c, d, e, f) nc_poisson_k(seedkey, a, b, c, d, e, f)");
    out_line(o, "#define nc_poisson_c(a, b, c, d, e, m, l, kmax, F0, F1, F2, F3, F4, F5, F6, F7, p7) "
             "nc_poisson_t(seedkey, a, b, c, d, e, m, l, kmax, F0, F1, F2, F3, F4, F5, F6, F7, p7)");
    /* docs/language.md §11: a normal truncated to [lo, hi] by redrawing, attempt r at the
     * site + (r << 20) (ir.h, IR_REDRAW_MAX); NaN past the last attempt */
    if (normal_tr) {
        out_open(o, "%s real nc_normal_tr_k(%s, double mu, double sd, double lo, double hi, int b)", qual, args);
        out_open(o, "for (uint32_t r = 0; r < %du; r++)", IR_REDRAW_MAX);
        out_line(o, "const double v = mu + sd * nc_gauss(nrt_rng(key, stream, elem, sub, step, site + (r << 20)));");
        out_line(o, "if ((!(b & 1) || v >= lo) && (!(b & 2) || v <= hi)) return (real)v;");
        out_close(o);
        out_line(o, "return (real)NRT__NAN_D;");
        out_close(o);
        out_line(o, "#define nc_normal_tr(a, b, c, d, e, mu, sd, lo, hi, f) "
                 "nc_normal_tr_k(seedkey, a, b, c, d, e, mu, sd, lo, hi, f)");
    }
    /* construction code (CgDialect.cold): the same draws through one out-of-line copy */
    if (!cold_qual)
        return;
    out_open(o, "%s real nc_uniform_ck(%s)", cold_qual, args);
    out_line(o, "return nc_uniform_k(key, stream, elem, sub, step, site);");
    out_close(o);
    out_open(o, "%s real nc_normal_ck(%s)", cold_qual, args);
    out_line(o, "return nc_normal_k(key, stream, elem, sub, step, site);");
    out_close(o);
    out_line(o, "#define nc_uniform_cold(a, b, c, d, e) nc_uniform_ck(seedkey, a, b, c, d, e)");
    out_line(o, "#define nc_normal_cold(a, b, c, d, e) nc_normal_ck(seedkey, a, b, c, d, e)");
}

/* Contract: codegen.h. */
int cg_poisson_split(double lam, int *m, double *l, double *e0, int *kmax)
{
    if (!(lam > 0.0) || lam > 4194304.0)
        return 0;
    *m = lam <= 65536.0 ? (int)ceil(lam / 8.0) : 8192;
    *l = lam / (double)*m;
    *e0 = nrt_exp(-*l);
    *kmax = (int)(*l + 12.0 * sqrt(*l)) + 30;
    return 1;
}

/* Contract: codegen.h. */
void cg_poisson_table(double l, double e0, double F[CG_POISSON_TAB], double *pk)
{
    double p = e0, f = e0;
    F[0] = f;
    for (int k = 1; k < CG_POISSON_TAB; k++) {
        p = p * l / (double)k;
        f += p;
        F[k] = f;
    }
    *pk = p;
}

/* ===== random draws =====} */
