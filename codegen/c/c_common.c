/* c_common.c -- what every part of the C back end's program shares: the dialect hooks that
 * spell its storage for cg_print.c (per-neuron arrays, propagators, the delay rings, the
 * spike list), the storage type of a value, and the arrays it allocates, which free_all()
 * frees on every way out.
 */
#include <stdarg.h>
#include <string.h>

#include "c_priv.h"

/* The arrays the program allocates, freed by its free_all() on every way out (so that
 * leak checkers see an array that only the dead code used as freed, not as lost). */
static StrBuf owned;

/* Contract: c_priv.h. */
void cgc_own(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_puts(&owned, "nrt_free(");
    sb_vprintf(&owned, fmt, ap);
    sb_puts(&owned, ");\n");
    va_end(ap);
}

/* Contract: c_priv.h. */
void cgc_own_line(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(&owned, fmt, ap);
    sb_putc(&owned, '\n');
    va_end(ap);
}

/* Contract: c_priv.h. */
void cgc_own_reset(void)
{
    sb_free(&owned);
}

/* {===== dialect hooks ===== */

static void c_var(const CgDialect *d, const IrVar *v, StrBuf *out)
{
    if (v->kind == IV_PRE && d->pre_hist)
        sb_printf(out, "%s_h%s[%s]", v->cname, d->pre_after ? "a" : "", d->index);
    else if (v->per_neuron)
        sb_printf(out, "%s[%s]", v->cname, d->index);
    else
        sb_puts(out, v->cname);
}

static void c_prop(const CgDialect *d, const IrExpr *e, StrBuf *out)
{
    const IrProp *p = e->prop;
    int nn = p->n * p->n, k = e->row * p->n + e->col;
    if (p->per_neuron)
        sb_printf(out, "%s[((size_t)%s * 4 + %d) * %d + %d]", p->cname, d->index, e->sub, nn, k);
    else
        sb_printf(out, "%s[%d][%d]", p->cname, e->sub, k);
}

static void c_recv(const CgDialect *d, const IrProj *p, const char *local, Out *o)
{
    StrBuf at = {0};
    if (p->ring_off)
        sb_printf(&at, "%s_slot + (%s - %lld)", p->cname, d->index, (long long)p->ring_off);
    else
        sb_printf(&at, "%s_slot + %s", p->cname, d->index);
    out_line(o, "%s %s = %s_ring[%s];", d->real, local, p->cname, at.s);
    out_line(o, "%s_ring[%s] = 0;", p->cname, at.s);
    sb_free(&at);
}

static void c_spike(const CgDialect *d, const IrPop *pop, Out *o)
{
    (void)pop;
    out_line(o, "nc_spk[nc_ns++] = %s;", d->index);
}

/* Contract: c_priv.h. */
CgDialect cgc_dialect(const IrModel *m, const IrPop *pop)
{
    CgDialect d = cg_dialect(m->dbl, pop);
    d.var = c_var;
    d.prop = c_prop;
    d.recv = c_recv;
    d.spike = c_spike;
    return d;
}

/* ===== dialect hooks =====} */

/* Contract: c_priv.h. */
const char *cgc_storage_type(IrType t)
{
    return t == IRT_REAL ? "real" : "int32_t";
}

/* Contract: c_priv.h. */
void cgc_expr_str(const CgDialect *d, const IrExpr *e, StrBuf *b)
{
    b->len = 0;
    if (b->s)
        b->s[0] = 0;
    cg_expr(d, e, b);
}

/* Contract: c_priv.h. */
void cgc_free_all(Out *o)
{
    out_open(o, "static void free_all(void)");
    out_line(o, "nrt_pool_stop(); /* the threads joined */");
    out_line(o, "/* every array the program allocated (nrt_free ignores those never allocated) */");
    for (const char *l = owned.s; l && *l;) {
        const char *e = strchr(l, '\n');
        out_line(o, "%.*s", (int)(e - l), l);
        l = e + 1;
    }
    out_close(o);
    out_blank(o);
}

/* Contract: c_priv.h. */
void cgc_parts_join(Out *o, const char *pre, const char *name, const char *suf, int delay, const char *lit, const char *expr)
{
    out_open(o, "for (int t = 0; t < (ctx.threads > 1 ? ctx.threads : 1); t++)");
    if (delay) {
        out_open(o, "if (%s%s%s.bad[t])", pre, name, suf);
        if (lit)
            out_line(o, "snprintf(ctx.errmsg, sizeof ctx.errmsg, \"projection %s: delay %%g ms of synapse %%lld -> %%lld is not a usable time\", "
                     "%s%s%s.bd[t], (long long)%s%s%s.bi[t], (long long)%s%s%s.bj[t]);", lit, pre, name, suf, pre, name, suf, pre, name, suf);
        else
            out_line(o, "snprintf(ctx.errmsg, sizeof ctx.errmsg, \"projection %%s: delay %%g ms of synapse %%lld -> %%lld is not a usable time\", "
                     "%s, %s%s%s.bd[t], (long long)%s%s%s.bi[t], (long long)%s%s%s.bj[t]);", expr, pre, name, suf, pre, name, suf, pre, name, suf);
        out_line(o, "return -1;");
        out_close(o);
    }
    out_line(o, "if (%s%s%s.maxd[t] > maxd) maxd = %s%s%s.maxd[t];", pre, name, suf, pre, name, suf);
    out_close(o);
}
