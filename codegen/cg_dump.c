/* cg_dump.c -- --dump=ir: the lowered model as readable text, printed through the same
 * cg_print.c printer as the back ends' code, with dialect hooks that name what they read
 * (arrivals(P), spike, deliver(...)) instead of storage.
 */
#include <stdio.h>
#include <string.h>

#include "codegen.h"

static void dump_var(const CgDialect *d, const IrVar *v, StrBuf *out)
{
    sb_puts(out, v->cname);
    if (v->per_neuron)
        sb_printf(out, "[%s]", d->index);
}

static void dump_prop(const CgDialect *d, const IrExpr *e, StrBuf *out)
{
    static const char *const w[] = {"Phi", "Psi", "Phi_refr", "Psi_refr"};
    sb_printf(out, "%s.%s[%d][%d]", e->prop->cname, w[e->sub], e->row, e->col);
    (void)d;
}

static void dump_recv(const CgDialect *d, const IrProj *p, const char *local, Out *o)
{
    out_line(o, "%s = arrivals(%s)", local, p->name);
    (void)d;
}

static void dump_spike(const CgDialect *d, const IrPop *pop, Out *o)
{
    out_line(o, "spike");
    (void)d;
    (void)pop;
}

static CgDialect dump_dialect(const IrPop *p)
{
    CgDialect d = cg_dialect(1, p);
    d.var = dump_var;
    d.prop = dump_prop;
    d.recv = dump_recv;
    d.spike = dump_spike;
    return d;
}

static void dump_deliver(const CgDialect *d, const IrProj *p, const char *e, Out *o)
{
    out_line(o, "deliver(%s) -> %s", e, p->name);
    (void)d;
}

/* The blocks of a plastic projection, in the order of a step. */
static void dump_plast(Out *o, const IrProj *j)
{
    const IrPlast *pl = j->plast;
    static const char *const kinds[] = {"synapse", "pre", "post"};
    CgDialect d = dump_dialect(pl->scope);
    d.syn = "s";
    d.pre_n = "pre(i)";
    d.post_n = "post(j)";
    d.deliver = dump_deliver;
    CgDialect dh = d;
    dh.pre_hist = "i@synapse";
    out_open(o, "synapse %s of %s", pl->scope->model, j->name);
    IrVar *const *vs[] = {pl->syn, pl->pre, pl->post};
    const int ns[] = {pl->nsyn, pl->npre, pl->npost};
    for (int k = 0; k < 3; k++)
        for (int v = 0; v < ns[k]; v++)
            out_line(o, "%s state %s: %s", kinds[k], vs[k][v]->cname, vs[k][v]->unit ? vs[k][v]->unit : "1");
    for (int k = 0; k < pl->scope->nprops; k++) {
        IrProp *pr = pl->scope->props[k];
        StrBuf b = {0};
        for (int e = 0; e < pr->n * pr->n; e++) {
            if (e)
                sb_puts(&b, ", ");
            cg_expr(&d, pr->A[e], &b);
        }
        out_line(o, "propagator %s (%dx%d): A = [%s]", pr->cname, pr->n, pr->n, b.s);
        sb_free(&b);
    }
    const struct { const char *name; const IrBlock *b; const CgDialect *d; } blocks[] = {
        {"init synapse", &pl->syn_init, &d},  {"init pre", &pl->pre_init, &d},
        {"init post", &pl->post_init, &d},    {"on pre", &pl->on_pre, &dh},
        {"on step", &pl->on_step, &dh},       {"pre dynamics", &pl->pre_step, &d},
        {"post dynamics", &pl->post_step, &d}, {"on post", &pl->on_post, &dh},
        {"on pre & post", &pl->on_prepost, &dh}, {"pre on spike", &pl->pre_spike, &d},
        {"post on spike", &pl->post_spike, &d}, {"synapse dynamics", &pl->syn_step, &dh},
        {"synapse dynamics, event-driven catch-up", &pl->syn_catch, &dh},
    };
    for (size_t k = 0; k < sizeof blocks / sizeof blocks[0]; k++) {
        if (!blocks[k].b->n)
            continue;
        out_open(o, "%s", blocks[k].name);
        cg_block(blocks[k].d, blocks[k].b, o);
        out_close(o);
    }
    out_close(o);
}

/* A population: its variables, propagators, spike file, init and step blocks, top-k. */
static void dump_pop(Out *o, const IrPop *p)
{
    CgDialect d = dump_dialect(p);
    out_open(o, "population %s = %s[%lld]", p->name, p->model, (long long)p->size);
    for (int k = 0; k < p->nvars; k++) {
        IrVar *v = p->vars[k];
        static const char *const kinds[] = {"state", "param", "receptor", "prev", "refractory"};
        char rg[96] = "", lo[32] = "(-inf", hi[32] = "inf)";
        if (v->has_lo)    /* the declared range, `range(lo, hi)` */
            snprintf(lo, sizeof lo, "[%.17g", v->lo);
        if (v->has_hi)
            snprintf(hi, sizeof hi, "%.17g]", v->hi);
        if (v->has_lo || v->has_hi)
            snprintf(rg, sizeof rg, " range %s, %s", lo, hi);
        out_line(o, "%s %s: %s%s%s", kinds[v->kind], v->cname, v->unit ? v->unit : "1",
                 v->per_neuron ? " per-neuron" : "", rg);
    }
    for (int k = 0; k < p->nprops; k++) {
        IrProp *pr = p->props[k];
        StrBuf b = {0};
        for (int e = 0; e < pr->n * pr->n; e++) {
            if (e)
                sb_puts(&b, ", ");
            cg_expr(&d, pr->A[e], &b);
        }
        out_line(o, "propagator %s (%dx%d%s): A = [%s]", pr->cname, pr->n, pr->n,
                 pr->A_refr ? ", refractory variant" : "", b.s);
        sb_free(&b);
    }
    if (p->sfile) {
        const char *slash = strrchr(p->sfile, '/');
        out_line(o, "spike file %s (CSR by step: %s_sfp, %s_sfi)", slash ? slash + 1 : p->sfile, p->cname,
                 p->cname);
    }
    out_open(o, "init");
    cg_block(&d, &p->init, o);
    out_close(o);
    out_open(o, "step");
    cg_block(&d, &p->body, o);
    out_close(o);
    if (p->topk) {
        StrBuf b = {0};
        cg_expr(&d, p->topk->k, &b);
        out_line(o, "topk: among %s != 0 and %s not NaN, the %s largest (key %s, tie stream %#x)",
                 p->topk->win->cname, p->topk->key->cname, b.s, p->topk->key->cname, p->topk->stream);
        sb_free(&b);
        out_open(o, "after topk");
        cg_block(&d, &p->topk->after, o);
        out_close(o);
    }
    out_close(o);
}

/* A projection: its rule, weight and delay, then its plastic blocks. */
static void dump_proj(Out *o, const IrProj *j)
{
    CgDialect d = dump_dialect(j->pre.pop);
    d.index = "i";
    d.rng_elem = "i";
    d.rng_sub = "rank";
    d.rng_step = "0";
    StrBuf w = {0}, dl = {0};
    cg_expr(&d, j->w, &w);
    if (j->delay)
        cg_expr(&d, j->delay, &dl);
    out_line(o, "projection %s: %s[%lld:%lld] -> %s[%lld:%lld] rule %d p %g k %lld autapses %d "
                 "multapses %d w = %s delay = %s%s%s%s",
             j->name, j->pre.pop->name, (long long)j->pre.offset,
             (long long)(j->pre.offset + j->pre.size), j->post.pop->name,
             (long long)j->post.offset, (long long)(j->post.offset + j->post.size), j->rule, j->p,
             (long long)j->k, j->autapses, j->multapses, w.s, j->delay ? dl.s : "1 step",
             j->procedural ? " storage procedural" : "", j->ring != j ? " ring " : "",
             j->ring != j ? j->ring->name : "");
    sb_free(&w);
    sb_free(&dl);
    if (j->plast)
        dump_plast(o, j);
}

/* Contract: codegen.h. */
void cg_dump_ir(IrModel *m, StrBuf *out)
{
    Out o = {0};
    out_line(&o, "model %s: dt %.17g ms, seed %llu, %s", m->name, m->dt, (unsigned long long)m->seed,
             m->dbl ? "double" : "float");
    for (int i = 0; i < m->nseries; i++) {
        const IrSeries *s = &m->series[i];
        const char *slash = strrchr(s->path, '/');
        out_line(&o, "series %s (%s): file %s, values x %.17g, every %lld steps, %s", s->name, s->cname,
                 slash ? slash + 1 : s->path, s->scale, (long long)s->every, s->linear ? "linear" : "held");
    }
    for (int i = 0; i < m->npops; i++)
        dump_pop(&o, m->pops[i]);
    for (int k = 0; k < m->nprojs; k++)
        dump_proj(&o, m->projs[k]);
    for (int r = 0; r < m->nrecs; r++)
        out_line(&o, "record %s of %s[%lld:%lld] %s %lld to \"%s\"",
                 m->recs[r].spikes ? "spikes" : m->recs[r].bin ? "rate" : "state", m->recs[r].view.pop->name,
                 (long long)m->recs[r].view.offset, (long long)(m->recs[r].view.offset + m->recs[r].view.size),
                 m->recs[r].bin ? "bin" : "every", (long long)(m->recs[r].bin ? m->recs[r].bin : m->recs[r].every),
                 m->recs[r].file);
    for (int p = 0; p < m->nphases; p++) {
        const IrPhase *ph = &m->phases[p];
        if (ph->kind == PH_RUN) {
            out_line(&o, "run %lld steps", (long long)ph->steps);
        } else if (ph->kind == PH_ASSIGN) {   /* per neuron n of the view, or synapse s of the projection */
            CgDialect d = dump_dialect(ph->owner);
            char at[32];
            snprintf(at, sizeof at, "%lld", (long long)ph->at);
            d.rng_step = at;
            if (ph->proj) {
                d.syn = "s";
                d.pre_n = "i";
                d.post_n = "j";
                d.rng_elem = "i";
                d.rng_sub = "rank";
            }
            if (ph->proj)
                out_open(&o, "%s (set %d at step %lld) per synapse of %s:", ph->what, ph->id, (long long)ph->at,
                         ph->proj->name);
            else
                out_open(&o, "%s (set %d at step %lld) per neuron of %s[%lld:%lld]:", ph->what, ph->id,
                         (long long)ph->at, ph->view.pop->name, (long long)ph->view.offset,
                         (long long)(ph->view.offset + ph->view.size));
            cg_block(&d, &ph->body, &o);
            out_close(&o);
        } else
            out_line(&o, "set %s = %.17g", m->phases[p].var->cname, m->phases[p].value);
    }
    sb_puts(out, o.buf.s ? o.buf.s : "");
    out_free(&o);
}
