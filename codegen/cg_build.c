/* cg_build.c -- what back ends share around the text: running the toolchain, and the
 * --dump=ir form of the lowered model (printed through the same cg_print layer).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "codegen.h"

int cg_run(Compiler *cc, char *const argv[], int verbose)
{
    (void)cc;
    if (verbose) {
        for (int i = 0; argv[i]; i++)
            fprintf(stderr, "%s%s", i ? " " : "", argv[i]);
        fputc('\n', stderr);
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        execvp(argv[0], argv);
        fprintf(stderr, "neuroc: error: cannot run '%s'\n", argv[0]);
        _exit(127);
    }
    int st;
    if (waitpid(pid, &st, 0) < 0)
        return -1;
    if (WIFEXITED(st))
        return WEXITSTATUS(st) == 127 ? -1 : WEXITSTATUS(st);
    return -1;
}

static const char *rule_name(IrRule r)
{
    switch (r) {
    case IR_ALL_TO_ALL: return "NRT_ALL_TO_ALL";
    case IR_ONE_TO_ONE: return "NRT_ONE_TO_ONE";
    case IR_FIXED_PROB: return "NRT_FIXED_PROB";
    case IR_FIXED_INDEGREE: return "NRT_FIXED_INDEGREE";
    }
    NC_UNREACHABLE();
}

/* The nrt_conn_spec of projection j as C statements declaring `spec` (host programs of
 * every back end: rt_conn.c and rt_gpu_conn.c take the same spec). */
void cg_conn_spec(Out *o, const IrProj *j)
{
    out_line(o, "nrt_conn_spec spec = {0};");
    out_line(o, "spec.rule = %s;", rule_name(j->rule));
    out_line(o, "spec.n_pre = %lld;", (long long)j->pre.size);
    out_line(o, "spec.n_post = %lld;", (long long)j->post.size);
    out_line(o, "spec.p = %.17g;", j->p);
    out_line(o, "spec.k = %lld;", (long long)j->k);
    out_line(o, "spec.autapses = %d;", j->autapses);
    out_line(o, "spec.multapses = %d;", j->multapses);
    out_line(o, "spec.same_base = %d;", j->pre.pop == j->post.pop);
    out_line(o, "spec.pre_offset = %lld;", (long long)j->pre.offset);
    out_line(o, "spec.post_offset = %lld;", (long long)j->post.offset);
    out_line(o, "spec.seed = ctx.seed;");
    out_line(o, "spec.proj_id = %du;", j->id);
}

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

void cg_dump_ir(IrModel *m, StrBuf *out)
{
    Out o = {0};
    out_line(&o, "model %s: dt %.17g ms, seed %llu, %s", m->name, m->dt, (unsigned long long)m->seed,
             m->dbl ? "double" : "float");
    for (int i = 0; i < m->npops; i++) {
        IrPop *p = m->pops[i];
        CgDialect d = dump_dialect(p);
        out_open(&o, "population %s = %s[%lld]", p->name, p->model, (long long)p->size);
        for (int k = 0; k < p->nvars; k++) {
            IrVar *v = p->vars[k];
            static const char *const kinds[] = {"state", "param", "receptor", "prev", "refractory"};
            out_line(&o, "%s %s: %s%s", kinds[v->kind], v->cname, v->unit ? v->unit : "1",
                     v->per_neuron ? " per-neuron" : "");
        }
        for (int k = 0; k < p->nprops; k++) {
            IrProp *pr = p->props[k];
            StrBuf b = {0};
            for (int e = 0; e < pr->n * pr->n; e++) {
                if (e)
                    sb_puts(&b, ", ");
                cg_expr(&d, pr->A[e], &b);
            }
            out_line(&o, "propagator %s (%dx%d%s): A = [%s]", pr->cname, pr->n, pr->n,
                     pr->A_refr ? ", refractory variant" : "", b.s);
            sb_free(&b);
        }
        out_open(&o, "init");
        cg_block(&d, &p->init, &o);
        out_close(&o);
        out_open(&o, "step");
        cg_block(&d, &p->body, &o);
        out_close(&o);
        out_close(&o);
    }
    for (int k = 0; k < m->nprojs; k++) {
        IrProj *j = m->projs[k];
        CgDialect d = dump_dialect(j->pre.pop);
        d.index = "i";
        d.rng_elem = "i";
        d.rng_sub = "rank";
        d.rng_step = "0";
        StrBuf w = {0}, dl = {0};
        cg_expr(&d, j->w, &w);
        if (j->delay)
            cg_expr(&d, j->delay, &dl);
        out_line(&o, "projection %s: %s[%lld:%lld] -> %s[%lld:%lld] rule %d p %g k %lld autapses %d "
                     "multapses %d w = %s delay = %s",
                 j->name, j->pre.pop->name, (long long)j->pre.offset,
                 (long long)(j->pre.offset + j->pre.size), j->post.pop->name,
                 (long long)j->post.offset, (long long)(j->post.offset + j->post.size), j->rule, j->p,
                 (long long)j->k, j->autapses, j->multapses, w.s, j->delay ? dl.s : "1 step");
        sb_free(&w);
        sb_free(&dl);
        if (j->plast)
            dump_plast(&o, j);
    }
    for (int r = 0; r < m->nrecs; r++)
        out_line(&o, "record %s of %s[%lld:%lld] every %lld to \"%s\"", m->recs[r].spikes ? "spikes" : "state",
                 m->recs[r].view.pop->name, (long long)m->recs[r].view.offset,
                 (long long)(m->recs[r].view.offset + m->recs[r].view.size), (long long)m->recs[r].every,
                 m->recs[r].file);
    for (int p = 0; p < m->nphases; p++) {
        if (m->phases[p].kind == PH_RUN)
            out_line(&o, "run %lld steps", (long long)m->phases[p].steps);
        else
            out_line(&o, "set %s = %.17g", m->phases[p].var->cname, m->phases[p].value);
    }
    sb_puts(out, o.buf.s ? o.buf.s : "");
    out_free(&o);
}
