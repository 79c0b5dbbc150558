/* c_neuron.c -- the C back end's populations: their storage, their exact propagators and
 * initial state (props_<P>, init_<P>), and their step (step_<P>): the fused per-neuron body,
 * branchy or in select form, then a top-k selection. Projections read their spikes from
 * <P>_spk; arrivals come in through the delay rings (c_proj.c).
 */
#include <stdio.h>

#include "c_priv.h"

static int sel_form(const IrPop *p);

/* Contract: c_priv.h. */
void cgc_pop_storage(Out *o, const IrPop *p, const IrModel *m)
{
    out_line(o, "/* population %s: %s, %lld neurons */", p->name, p->model, (long long)p->size);
    out_line(o, "#define %s_N ((int64_t)%lld)", p->cname, (long long)p->size);
    for (int i = 0; i < p->nvars; i++) {
        IrVar *v = p->vars[i];
        if (v->per_neuron) {
            out_line(o, "static %s *%s; /* %s [%s] */", cgc_storage_type(v->type), v->cname, v->label,
                     v->unit ? v->unit : "1");
        } else {
            CgDialect d = cgc_dialect(m, p);
            StrBuf b = {0};
            if (v->type == IRT_REAL)
                cg_real(&d, v->init, &b);
            else
                sb_printf(&b, "%lld", (long long)v->init);
            out_line(o, "static %s %s = %s; /* %s [%s], settable */", cgc_storage_type(v->type), v->cname, b.s,
                     v->label, v->unit ? v->unit : "1");
            sb_free(&b);
        }
    }
    for (int i = 0; i < p->nprops; i++) {
        IrProp *pr = p->props[i];
        if (pr->per_neuron)
            out_line(o, "static real *%s; /* per neuron: Phi, Psi, Phi_refr, Psi_refr (%dx%d) */",
                     pr->cname, pr->n, pr->n);
        else
            out_line(o, "static real %s[4][%d]; /* Phi, Psi, Phi_refr, Psi_refr (%dx%d) */", pr->cname,
                     pr->n * pr->n, pr->n, pr->n);
    }
    out_line(o, "static int64_t *%s_spk; /* this step's spikes */", p->cname);
    if (p->has_spikes && sel_form(p))
        out_line(o, "static uint8_t *%s_fl; /* this step's spike flags (select form) */", p->cname);
    out_line(o, "static int64_t %s_nspk;", p->cname);
    if (p->has_spikes)
        out_line(o, "static int64_t %s_tn[NRT_MAX_THREADS]; /* each thread's spikes (c_par.c) */", p->cname);
    if (m->mpi)
        out_line(o, "static int64_t %s_lo, %s_hi; /* the neurons this rank steps */", p->cname, p->cname);
    if (p->sfile) {
        StrBuf f = {0};
        cg_cstring(p->sfile, &f);
        out_line(o, "static const char *const %s_sfile = \"%s\";", p->cname, f.s);
        out_line(o, "static int64_t *%s_sfp; /* spike file: CSR by step */", p->cname);
        out_line(o, "static int32_t *%s_sfi;", p->cname);
        sb_free(&f);
    }
    if (p->topk) {
        out_line(o, "static nrt_topk_item *%s_tk; /* top-k candidates */", p->cname);
        out_line(o, "static int64_t %s_tc[NRT_MAX_THREADS]; /* each thread's candidates (c_par.c) */", p->cname);
    }
    out_blank(o);
}

/* Contract: c_priv.h. */
void cgc_one_prop(Out *o, const CgDialect *dd, const IrProp *pr, IrExpr **A, int which)
{
    int nn = pr->n * pr->n;
    StrBuf b = {0};
    out_begin(o);
    out_line(o, "double A[%d], Phi[%d], Psi[%d];", nn, nn, nn);
    for (int k = 0; k < nn; k++) {
        cgc_expr_str(dd, A[k], &b);
        out_line(o, "A[%d] = %s;", k, b.s);
    }
    out_line(o, "if (nrt_propagator(%d, A, dt, Phi, Psi) != NRT_OK) return -1;", pr->n);
    if (pr->per_neuron)
        out_open(o, "for (int k = 0; k < %d; k++)", nn),
            out_line(o, "%s[((size_t)n * 4 + %d) * %d + k] = (real)Phi[k];", pr->cname, which, nn),
            out_line(o, "%s[((size_t)n * 4 + %d) * %d + k] = (real)Psi[k];", pr->cname, which + 1, nn);
    else
        out_open(o, "for (int k = 0; k < %d; k++)", nn),
            out_line(o, "%s[%d][k] = (real)Phi[k];", pr->cname, which),
            out_line(o, "%s[%d][k] = (real)Psi[k];", pr->cname, which + 1);
    out_close(o);
    out_close(o);
    sb_free(&b);
}

/* Contract: c_priv.h. */
void cgc_pop_init(Out *o, const IrPop *p, const IrModel *m)
{
    CgDialect d = cgc_dialect(m, p);
    CgDialect dd = d; /* propagator coefficients are evaluated in double */
    dd.dbl = 1;
    dd.real = "double";
    out_line(o, "/* exact propagators of %s, from the current parameters (load time and after 'set') */",
             p->name);
    out_open(o, "static int props_%s(void)", p->cname);
    for (int i = 0; i < p->nprops; i++) {
        IrProp *pr = p->props[i];
        if (pr->per_neuron) {
            out_open(o, "if (!%s)", pr->cname);
            out_line(o, "%s = nrt_alloc(&ctx, (size_t)%s_N * 4 * %d * sizeof(real), \"%s: propagators\");",
                     pr->cname, p->cname, pr->n * pr->n, p->name);
            out_line(o, "if (!%s) return -1;", pr->cname);
            out_close(o);
            cgc_own("%s", pr->cname);
            out_open(o, "for (int64_t n = 0; n < %s_N; n++)", p->cname);
        }
        cgc_one_prop(o, &dd, pr, pr->A, 0);
        if (pr->A_refr)
            cgc_one_prop(o, &dd, pr, pr->A_refr, 2);
        if (pr->per_neuron)
            out_close(o);
    }
    out_line(o, "return 0;");
    out_close(o);
    out_blank(o);

    out_open(o, "static int init_%s(void)", p->cname);
    for (int i = 0; i < p->nvars; i++) {
        IrVar *v = p->vars[i];
        if (!v->per_neuron)
            continue;
        out_line(o, "%s = nrt_alloc(&ctx, (size_t)%s_N * sizeof *%s, \"%s.%s\");", v->cname, p->cname,
                 v->cname, p->name, v->label);
        out_line(o, "if (!%s) return -1;", v->cname);
        cgc_own("%s", v->cname);
    }
    if (p->has_spikes) {   /* else never written (nor read: its spike count stays 0) */
        out_line(o, "%s_spk = nrt_alloc(&ctx, (size_t)%s_N * sizeof *%s_spk, \"%s: spike list\");", p->cname,
                 p->cname, p->cname, p->name);
        out_line(o, "if (!%s_spk) return -1;", p->cname);
        cgc_own("%s_spk", p->cname);
        if (sel_form(p)) {
            out_line(o, "%s_fl = nrt_alloc(&ctx, (size_t)%s_N, \"%s: spike flags\");", p->cname, p->cname, p->name);
            out_line(o, "if (!%s_fl) return -1;", p->cname);
            cgc_own("%s_fl", p->cname);
        }
    }
    if (p->sfile) {
        out_line(o, "int64_t sf_nnz;");
        out_line(o, "if (nrt_spike_file(&ctx, %s_sfile, %s_N, dt, %s_sfn, &%s_sfp, &%s_sfi, &sf_nnz) != NRT_OK) return -1;",
                 p->cname, p->cname, p->cname, p->cname, p->cname);
    }
    if (p->topk) {
        out_line(o, "%s_tk = nrt_alloc(&ctx, (size_t)%s_N * sizeof *%s_tk, \"%s: top-k candidates\");", p->cname,
                 p->cname, p->cname, p->name);
        out_line(o, "if (!%s_tk) return -1;", p->cname);
        cgc_own("%s_tk", p->cname);
    }
    if (p->init.n) {
        out_line(o, "const int64_t step = 0;");
        out_line(o, "(void)step;");
        out_open(o, "for (int64_t n = 0; n < %s_N; n++)", p->cname);
        cg_block(&d, &p->init, o);
        out_close(o);
    }
    out_line(o, "return props_%s();", p->cname);
    out_close(o);
    out_blank(o);
}

/* j's arrivals are read by p's step: j owns a ring (IrProj.ring) into p. */
static int proj_targets(const IrProj *j, const IrPop *p)
{
    return j->post.pop == p && j->ring == j;
}

/* The end of step_<P> of a top-k population (IrTopk): its candidates among the neurons
 * [nc_lo, nc_hi) (win = 1, key not NaN), in index order at its offset of <P>_tk, their count
 * in <P>_tc[nc_t]; win cleared. With more than one thread, each keeps only its own k first:
 * the order is strict, so the k first of all are among them, and the winners (a set) are
 * the same. */
static void emit_topk_gather(Out *o, const CgDialect *d, const IrPop *p, const IrModel *m, const char *lo)
{
    const IrTopk *tk = p->topk;
    const char *key = tk->key->cname, *win = tk->win->cname, *c = p->cname;
    StrBuf b = {0};
    cg_expr(d, tk->k, &b);
    out_line(o, "/* top-k: this thread's candidates (win = 1, key not NaN), ordered by (key desc, draw desc, n asc) later */");
    out_line(o, "nrt_topk_item *const nc_tk = %s_tk + (nc_lo - %s);", c, lo);
    out_line(o, "int64_t ncand = 0;");
    out_open(o, "for (int64_t n = nc_lo; n < nc_hi; n++)");
    out_open(o, "if (%s[n] && %s[n] == %s[n])", win, key, key);
    out_line(o, "nc_tk[ncand].v = nrt_topk_key_%s(%s[n]);", m->dbl ? "d" : "f", key);
    out_line(o, "nc_tk[ncand].draw = nrt_rng(seedkey, %uu, (uint32_t)n, 0, (uint32_t)step, 0).v[0];", tk->stream);
    out_line(o, "nc_tk[ncand++].idx = (uint32_t)n;");
    out_close(o);
    out_line(o, "%s[n] = 0;", win);
    out_close(o);
    out_open(o, "if (nc_T > 1)");
    out_line(o, "int64_t k = (int64_t)(%s);", b.s);
    out_line(o, "k = k > ncand ? ncand : k < 0 ? 0 : k;");
    out_line(o, "nrt_topk_select(nc_tk, ncand, k);");
    out_line(o, "ncand = k;");
    out_close(o);
    out_line(o, "%s_tc[nc_t] = ncand;", c);
    sb_free(&b);
}

/* topk_<P>(step, T): the candidates of the T threads joined in thread order (the one-thread
 * order), the k winners selected (rt_topk.c) and their win set; then after_<P>(step, t, T):
 * the `after` block of thread t's neurons, listing its spikes as step_<P> does. */
static void emit_topk(Out *o, const CgDialect *d, const IrPop *p, const char *lo, const char *hi)
{
    const IrTopk *tk = p->topk;
    const char *win = tk->win->cname, *c = p->cname;
    StrBuf b = {0};
    cg_expr(d, tk->k, &b);
    out_line(o, "/* top-k of %s: the k first candidates of all threads, on one thread */", p->name);
    out_open(o, "static void topk_%s(int64_t step, int nc_T)", c);
    out_line(o, "const real t = (real)((double)step * dt);");
    out_line(o, "const int64_t ncand = nrt_topk_join(%s_tk, %s - %s, %s_tc, nc_T);", c, hi, lo, c);
    out_line(o, "int64_t k = (int64_t)(%s);", b.s);
    out_line(o, "if (k > ncand) k = ncand;");
    out_line(o, "nrt_topk_select(%s_tk, ncand, k);", c);
    out_line(o, "for (int64_t q = 0; q < k; q++) %s[%s_tk[q].idx] = 1;", win, c);
    out_line(o, "(void)t;");
    out_close(o);
    out_blank(o);
    out_line(o, "/* top-k of %s: its `after` block on thread nc_t's neurons */", p->name);
    out_open(o, "static void after_%s(int64_t step, int nc_t, int nc_T)", c);
    out_line(o, "const real t = (real)((double)step * dt);");
    out_line(o, "const int64_t nc_len = %s - %s;", hi, lo);
    out_line(o, "const int64_t nc_lo = %s + nc_len * nc_t / nc_T, nc_hi = %s + nc_len * (nc_t + 1) / nc_T;", lo, lo);
    if (p->has_spikes) {
        out_line(o, "int64_t *const nc_spk = %s_spk + (nc_lo - %s);", c, lo);
        out_line(o, "int64_t nc_ns = 0;");
    }
    out_open(o, "for (int64_t n = nc_lo; n < nc_hi; n++)");
    cg_block(d, &tk->after, o);
    out_close(o);
    if (p->has_spikes)
        out_line(o, "%s_tn[nc_t] = nc_ns;", c);
    out_line(o, "(void)t; (void)step;");
    out_close(o);
    out_blank(o);
    sb_free(&b);
}

/* {===== the neuron loop in select form ===== */

/* A neuron's `if` blocks cost the C back end more than their arithmetic: gcc vectorises a
 * loop only without branches that store, and the spike list grows inside the loop. Where
 * both sides of every `if` may be evaluated whatever the condition, the loop is emitted in
 * select form instead: each conditional assignment becomes x = c ? new : x, the spike a flag,
 * and a second loop lists the flagged neurons in order. Every value is computed by the same
 * IEEE operations as the branchy form, so the bits are the same (gcc -O3 then runs four
 * neurons per instruction with SSE2; the flags of cg_cc_argv let it). */

/* 1 when e may be evaluated where the model does not ask for it: no integer division or
 * modulo (a zero divisor), no Poisson draw (a loop as long as its mean), no spike-file
 * lookup. */
static int speculable(const IrExpr *e)
{
    if (!e)
        return 1;
    if (e->op == IE_BIN && (e->sub == IB_DIV || e->sub == IB_MOD) && e->type != IRT_REAL)
        return 0;
    if ((e->op == IE_RAND && e->sub == IR_POISSON) || e->op == IE_SFILE)
        return 0;
    for (int i = 0; i < e->nargs; i++)
        if (!speculable(e->args[i]))
            return 0;
    return speculable(e->a) && speculable(e->b) && speculable(e->c);
}

/* A value of type `from` stored as `to` where it may be garbage: no float-to-integer
 * conversion but of a constant (out of range it is undefined behaviour). */
static int storable(IrType to, const IrExpr *e)
{
    return to == IRT_REAL || e->type != IRT_REAL || e->op == IE_CONST;
}

/* 1 when block b (inside `depth` ifs) can take select form. */
static int sel_ok(const IrBlock *b, int depth)
{
    for (int i = 0; i < b->n; i++) {
        const IrStmt *s = b->v[i];
        switch (s->kind) {
        case IS_ASSIGN:
            if (depth && (!speculable(s->e) || !storable(s->var->type, s->e)))
                return 0;
            break;
        case IS_LOCAL:
            if (depth && (!speculable(s->e) || !storable(s->type, s->e)))
                return 0;
            break;
        case IS_SETLOCAL:
            if (depth && !speculable(s->e))
                return 0;
            break;
        case IS_IF:
            if ((depth && !speculable(s->e)) || !sel_ok(&s->body, depth + 1) ||
                !sel_ok(&s->els, depth + 1))
                return 0;
            break;
        case IS_SPIKE:
            break;
        case IS_RECV:
            if (depth)
                return 0;
            break;
        case IS_DELIVER:
            return 0;
        }
    }
    return 1;
}

/* Population p's loop takes select form (not with top-k, whose step reads the spikes). */
static int sel_form(const IrPop *p)
{
    return !p->topk && sel_ok(&p->body, 0);
}

/* Block b in select form under condition `cond` (a C int expression, NULL: always); *k
 * numbers the conditions. */
static void emit_sel(const CgDialect *d, const IrBlock *b, const char *cond, int *k, Out *o)
{
    for (int i = 0; i < b->n; i++) {
        const IrStmt *s = b->v[i];
        StrBuf e = {0}, lhs = {0};
        switch (s->kind) {
        case IS_ASSIGN:
        case IS_SETLOCAL:
            if (s->kind == IS_ASSIGN)
                cg_var_ref(d, s->var, IR_AT_SELF, &lhs);
            else
                sb_puts(&lhs, d->pop->locals[s->local].name);
            if (s->kind == IS_ASSIGN && s->var->type != IRT_REAL && s->e->type != s->var->type) {
                sb_printf(&e, "(%s)(", cg_type_name(d, s->var->type));
                cg_expr(d, s->e, &e);
                sb_putc(&e, ')');
            } else {
                cg_expr(d, s->e, &e);
            }
            if (cond)
                out_line(o, "%s = %s ? %s : %s;", lhs.s, cond, e.s, lhs.s);
            else
                out_line(o, "%s = %s;", lhs.s, e.s);
            break;
        case IS_LOCAL:
            cg_expr(d, s->e, &e);
            out_line(o, "%s %s = %s;", cg_type_name(d, s->type), d->pop->locals[s->local].name, e.s);
            break;
        case IS_IF: {
            const int id = (*k)++;
            char t[32], f[32];
            cg_expr(d, s->e, &e);
            out_line(o, "const int nc_c%d = !!(%s);", id, e.s);
            if (cond) {
                out_line(o, "const int nc_t%d = %s & nc_c%d, nc_f%d = %s & !nc_c%d;", id, cond, id, id, cond, id);
                snprintf(t, sizeof t, "nc_t%d", id);
                snprintf(f, sizeof f, "nc_f%d", id);
            } else {
                snprintf(t, sizeof t, "nc_c%d", id);
                snprintf(f, sizeof f, "!nc_c%d", id);
            }
            emit_sel(d, &s->body, t, k, o);
            emit_sel(d, &s->els, f, k, o);
            break;
        }
        case IS_SPIKE:
            if (cond)
                out_line(o, "nc_fired |= %s;", cond);
            else
                out_line(o, "nc_fired = 1;");
            break;
        case IS_RECV:
            d->recv(d, s->proj, d->pop->locals[s->local].name, o);
            break;
        case IS_DELIVER:
            NC_UNREACHABLE();
        }
        sb_free(&e);
        sb_free(&lhs);
    }
}

/* ===== the neuron loop in select form =====} */

/* Contract: c_priv.h. Thread t of T steps the neurons [nc_lo, nc_hi) of this rank's range
 * (nc_t of nc_T) and lists its spikes at their offset in <P>_spk, their count in <P>_tn[nc_t]
 * (c_par.c), or for a top-k population its candidates (then topk_<P>, after_<P>); `t` is
 * the time. */
void cgc_pop_step(Out *o, const IrPop *p, const IrModel *m)
{
    CgDialect d = cgc_dialect(m, p);
    out_open(o, "static void step_%s(int64_t step, int nc_t, int nc_T)", p->cname);
    out_line(o, "const real t = (real)((double)step * dt);");
    for (int k = 0; k < m->nprojs; k++) {
        IrProj *j = m->projs[k];
        if (proj_targets(j, p))
            out_line(o, "const int64_t %s_slot = (step %% %s_D) * %lld;", j->cname, j->cname,
                     (long long)j->ring_size);
    }
    StrBuf lo = {0}, hi = {0};
    sb_printf(&lo, m->mpi ? "%s_lo" : "0", p->cname);
    sb_printf(&hi, m->mpi ? "%s_hi" : "%s_N", p->cname);
    out_line(o, "const int64_t nc_len = %s - %s;", hi.s, lo.s);
    out_line(o, "const int64_t nc_lo = %s + nc_len * nc_t / nc_T, nc_hi = %s + nc_len * (nc_t + 1) / nc_T;", lo.s, lo.s);
    if (p->has_spikes && !p->topk) {
        out_line(o, "int64_t *const nc_spk = %s_spk + (nc_lo - %s);", p->cname, lo.s);
        out_line(o, "int64_t nc_ns = 0;");
    }
    out_open(o, "for (int64_t n = nc_lo; n < nc_hi; n++)");
    if (sel_form(p)) {
        int k = 0;
        if (p->has_spikes)
            out_line(o, "int nc_fired = 0;");
        emit_sel(&d, &p->body, NULL, &k, o);
        if (p->has_spikes)
            out_line(o, "%s_fl[n] = (uint8_t)nc_fired;", p->cname);
        out_close(o);
        if (p->has_spikes) {
            out_line(o, "for (int64_t n = nc_lo; n < nc_hi; n++)");
            out_line(o, "    if (%s_fl[n]) nc_spk[nc_ns++] = n;", p->cname);
        }
    } else {
        cg_block(&d, &p->body, o);
        out_close(o);
    }
    if (p->topk)
        emit_topk_gather(o, &d, p, m, lo.s);
    else if (p->has_spikes)
        out_line(o, "%s_tn[nc_t] = nc_ns;", p->cname);
    out_line(o, "(void)t;");
    out_close(o);
    out_blank(o);
    if (p->topk)
        emit_topk(o, &d, p, lo.s, hi.s);
    sb_free(&lo);
    sb_free(&hi);
}
