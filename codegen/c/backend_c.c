/* backend_c.c -- the C reference back end: one readable, single-threaded C program.
 *
 * The oracle for the GPU back ends. Per step, in the order of docs/language.md §5.5:
 * every population runs its fused per-neuron body (arrivals from the delay rings,
 * receptors, stimuli, integration, threshold, reset), then each projection pushes this
 * step's spikes into its ring at step + delay, then recordings are written.
 * Summation into a ring slot follows (projection, spike index, synapse rank) order.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"


/* The arrays the program allocates, freed by its free_all() on every way out (so that
 * leak checkers see an array that only the dead code used as freed, not as lost). */
static StrBuf owned;

static void own(const char *fmt, ...) NC_PRINTF(1, 2);
static void own(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_puts(&owned, "nrt_free(");
    sb_vprintf(&owned, fmt, ap);
    sb_puts(&owned, ");\n");
    va_end(ap);
}
static const SrcLoc NOLOC = {0, 0, 0, 0};

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
    if (p->post.offset)
        sb_printf(&at, "%s_slot + (%s - %lld)", p->cname, d->index, (long long)p->post.offset);
    else
        sb_printf(&at, "%s_slot + %s", p->cname, d->index);
    out_line(o, "%s %s = %s_ring[%s];", d->real, local, p->cname, at.s);
    out_line(o, "%s_ring[%s] = 0;", p->cname, at.s);
    sb_free(&at);
}

static void c_spike(const CgDialect *d, const IrPop *pop, Out *o)
{
    out_line(o, "%s_spk[%s_nspk++] = %s;", pop->cname, pop->cname, d->index);
}

static int sel_form(const IrPop *p);

static CgDialect dialect(const IrModel *m, const IrPop *pop)
{
    CgDialect d = cg_dialect(m->dbl, pop);
    d.var = c_var;
    d.prop = c_prop;
    d.recv = c_recv;
    d.spike = c_spike;
    return d;
}

/* ===== dialect hooks =====} */

/* {===== distributed runs (--mpi, runtime/include/nrt_mpi.h) =====
 * Each rank steps a contiguous slice [P_lo, P_hi) of every population and keeps the
 * synapses onto its slice, in their single-rank order, with their single-rank draws (rank in
 * the full row). A population is replicated (every rank steps all of it) when synapse code
 * reads its neurons' changing variables as presynaptic neurons, or it selects top-k: its
 * spikes travel once, from rank 0. */

static int reads_pre_state(const IrExpr *e, const IrPop *pre)
{
    if (!e)
        return 0;
    if (e->op == IE_VAR && e->var->kind != IV_PARAM && e->var->kind < IV_SYN &&
        (e->at == IR_AT_PRE || (e->at == IR_AT_SELF && e->var->pop == pre)))
        return 1;
    for (int i = 0; i < e->nargs; i++)
        if (reads_pre_state(e->args[i], pre))
            return 1;
    return reads_pre_state(e->a, pre) || reads_pre_state(e->b, pre) || reads_pre_state(e->c, pre);
}

static int block_reads_pre_state(const IrBlock *b, const IrPop *pre)
{
    for (int k = 0; k < b->n; k++) {
        const IrStmt *s = b->v[k];
        if (reads_pre_state(s->e, pre) || block_reads_pre_state(&s->body, pre) ||
            block_reads_pre_state(&s->els, pre))
            return 1;
    }
    return 0;
}

static int mpi_replicated(const IrModel *m, const IrPop *p)
{
    if (p->topk)
        return 1;
    for (int k = 0; k < m->nprojs; k++) {
        const IrProj *j = m->projs[k];
        if (j->pre.pop != p)
            continue;
        if (j->procedural && (reads_pre_state(j->w, p) || reads_pre_state(j->delay, p)))
            return 1;
        const IrPlast *pl = j->plast;
        if (!pl)
            continue;
        const IrBlock *run[] = {&pl->on_pre, &pl->on_step, &pl->on_post, &pl->on_prepost, &pl->pre_step,
                                &pl->post_step, &pl->pre_spike, &pl->post_spike, &pl->syn_step, &pl->syn_catch};
        for (size_t b = 0; b < sizeof run / sizeof run[0]; b++)
            if (block_reads_pre_state(run[b], p))
                return 1;
    }
    return 0;
}

static void mpi_prelude(Out *o)
{
    out_line(o, "static nrt_mpi *mpi;");
    out_line(o, "static int64_t nc_D = 1; /* steps between spike exchanges: the shortest delay (1 with plasticity) */");
    out_line(o, "static int nc_stop; /* a stop request on any rank, known at the last exchange */");
    out_open(o, "static inline int64_t nc_view(int64_t x, int64_t off, int64_t size)");
    out_line(o, "x -= off;");
    out_line(o, "return x < 0 ? 0 : (x > size ? size : x);");
    out_close(o);
}

/* <c><lo>, <c><hi>: this rank's slice of the post population, as indices of j's post view. */
static void mpi_view(Out *o, const IrProj *j, const char *c, const char *lo, const char *hi)
{
    const char *pc = j->post.pop->cname;
    out_line(o, "%s%s = nc_view(%s_lo, %lld, %lld);", c, lo, pc, (long long)j->post.offset, (long long)j->post.size);
    out_line(o, "%s%s = nc_view(%s_hi, %lld, %lld);", c, hi, pc, (long long)j->post.offset, (long long)j->post.size);
}

/* 1 when `record ... of j` (synapse states) exists: its ranks keep the full rows' layout. */
static int mpi_recorded(const IrModel *m, const IrProj *j)
{
    for (int r = 0; r < m->nrecs; r++)
        if (m->recs[r].proj == j)
            return 1;
    return 0;
}

/* After the full build: keep the synapses onto this rank's slice, `rk` their ranks; for a
 * recorded projection also <c>_grp, the full rows' pointers (synapse s of row i is column
 * <c>_grp[i] + rk[s] of the recording). */
static void mpi_restrict(Out *o, const IrModel *m, const IrProj *j, int file)
{
    const char *c = j->cname, *pc = j->post.pop->cname;
    long long off = (long long)j->post.offset, n = (long long)j->post.size;
    StrBuf grp = {0}, cols = {0};
    sb_printf(&grp, mpi_recorded(m, j) ? "&%s_grp" : "NULL", c);
    sb_printf(&cols, file ? "%s_fw, %s_fd" : "NULL, NULL", c, c);
    out_line(o, "int32_t *rk = NULL; /* per kept synapse: its rank in the full row, which keys its draws */");
    out_line(o, "if (nrt_mpi_restrict(&ctx, &%s, nc_view(%s_lo, %lld, %lld), nc_view(%s_hi, %lld, %lld), &rk, %s, %s) != NRT_OK) return -1;",
             c, pc, off, n, pc, off, n, grp.s, cols.s);
    sb_free(&grp);
    sb_free(&cols);
    if (mpi_recorded(m, j))
        out_line(o, "%s_rk = rk, %s_gnnz = %s_grp[%s.n_pre];", c, c, c, c);
}

/* ===== distributed runs =====} */

static const char *storage_type(IrType t)
{
    return t == IRT_REAL ? "real" : "int32_t";
}

static void expr_str(const CgDialect *d, const IrExpr *e, StrBuf *b)
{
    b->len = 0;
    if (b->s)
        b->s[0] = 0;
    cg_expr(d, e, b);
}

static void emit_prelude(Out *o, const IrModel *m)
{
    out_line(o, "/* %s.c -- generated by neuroc %s from %s.neuro (C reference back end).", m->name,
             NEUROC_VERSION, m->name);
    out_line(o, " * Do not edit: change the model and run neuroc again. */");
    out_line(o, "#include <math.h>");
    out_line(o, "#include <stdint.h>");
    out_line(o, "#include <stdio.h>");
    out_line(o, "#include <stdlib.h>");
    out_line(o, "#include <string.h>");
    out_blank(o);
    out_line(o, "#include \"neurort.h\"");
    out_line(o, "#include \"nrt_math.h\"");
    out_line(o, "#include \"nrt_philox.h\"");
    out_line(o, "#include \"nrt_space.h\"");
    if (m->mpi)
        out_line(o, "#include \"nrt_mpi.h\"");
    out_blank(o);
    out_line(o, "typedef %s real;", m->dbl ? "double" : "float");
    out_line(o, "static const double dt = %.17g; /* ms */", m->dt);
    out_line(o, "static nrt_ctx ctx;");
    out_line(o, "static uint32_t seedkey;");
    out_blank(o);
    const char *f = m->dbl ? "" : "f";
    out_open(o, "static inline real nc_exprel(real x)");
    out_line(o, "return fabs%s(x) < (real)1e-6 ? (real)1 + x / 2 + x * x / 6 : nrt_expm1%s(x) / x;", f, f);
    out_close(o);
    out_open(o, "static inline real nc_clip(real x, real lo, real hi)");
    out_line(o, "return x < lo ? lo : (x > hi ? hi : x);");
    out_close(o);
    out_open(o, "static inline int64_t nc_iabs(int64_t x)");
    out_line(o, "return x < 0 ? -x : x;");
    out_close(o);
    if (m->mpi)
        mpi_prelude(o);
    cg_sf_helper(o, m, "static inline", "");
    cg_rand_helpers(o, "static inline", NULL);
    out_blank(o);
}

static void emit_pop_storage(Out *o, const IrPop *p, const IrModel *m)
{
    out_line(o, "/* population %s: %s, %lld neurons */", p->name, p->model, (long long)p->size);
    out_line(o, "#define %s_N ((int64_t)%lld)", p->cname, (long long)p->size);
    for (int i = 0; i < p->nvars; i++) {
        IrVar *v = p->vars[i];
        if (v->per_neuron) {
            out_line(o, "static %s *%s; /* %s [%s] */", storage_type(v->type), v->cname, v->label,
                     v->unit ? v->unit : "1");
        } else {
            CgDialect d = dialect(m, p);
            StrBuf b = {0};
            if (v->type == IRT_REAL)
                cg_real(&d, v->init, &b);
            else
                sb_printf(&b, "%lld", (long long)v->init);
            out_line(o, "static %s %s = %s; /* %s [%s], settable */", storage_type(v->type), v->cname, b.s,
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
    if (p->topk)
        out_line(o, "static nrt_topk_item *%s_tk; /* top-k candidates */", p->cname);
    out_blank(o);
}

static void emit_one_prop(Out *o, const CgDialect *dd, const IrProp *pr, IrExpr **A, int which)
{
    int nn = pr->n * pr->n;
    StrBuf b = {0};
    out_begin(o);
    out_line(o, "double A[%d], Phi[%d], Psi[%d];", nn, nn, nn);
    for (int k = 0; k < nn; k++) {
        expr_str(dd, A[k], &b);
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

static void emit_pop_init(Out *o, const IrPop *p, const IrModel *m)
{
    CgDialect d = dialect(m, p);
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
            own("%s", pr->cname);
            out_open(o, "for (int64_t n = 0; n < %s_N; n++)", p->cname);
        }
        emit_one_prop(o, &dd, pr, pr->A, 0);
        if (pr->A_refr)
            emit_one_prop(o, &dd, pr, pr->A_refr, 2);
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
        own("%s", v->cname);
    }
    if (p->has_spikes) {   /* else never written (nor read: its spike count stays 0) */
        out_line(o, "%s_spk = nrt_alloc(&ctx, (size_t)%s_N * sizeof *%s_spk, \"%s: spike list\");", p->cname,
                 p->cname, p->cname, p->name);
        out_line(o, "if (!%s_spk) return -1;", p->cname);
        own("%s_spk", p->cname);
        if (sel_form(p)) {
            out_line(o, "%s_fl = nrt_alloc(&ctx, (size_t)%s_N, \"%s: spike flags\");", p->cname, p->cname, p->name);
            out_line(o, "if (!%s_fl) return -1;", p->cname);
            own("%s_fl", p->cname);
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
        own("%s_tk", p->cname);
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

/* The end of build_<j>, its longest delay in `maxd`: j's ring has maxd + 1 slots; a ring
 * shared by merged receptors (IrProj.ring) has the most any of its projections needs and is
 * allocated by the last of them. */
static void ring_alloc(Out *o, const IrProj *j)
{
    const char *r = j->ring->cname;
    if (j->ring->ring_n == 1) {
        out_line(o, "%s_D = maxd + 1;", r);
    } else {
        out_line(o, "if (maxd + 1 > %s_D) %s_D = maxd + 1;", r, r);
        if (!j->ring_last) {
            out_line(o, "return 0; /* the last projection into the ring of %s allocates it */", j->ring->name);
            return;
        }
    }
    out_line(o, "%s_ring = nrt_alloc(&ctx, (size_t)%s_D * %lld * sizeof(real), \"%s: delay ring\");", r, r,
             (long long)j->post.size, j->ring->name);
    out_line(o, "return %s_ring ? 0 : -1;", r);
    own("%s_ring", r);
}

/* The declarations of j's ring, if j owns one. */
static void ring_decl(Out *o, const IrProj *j)
{
    if (j->ring != j)
        return;
    out_line(o, "static int64_t %s_D; /* ring slots: longest delay + 1 */", j->cname);
    out_line(o, "static real *%s_ring; /* arrivals, [slot][post neuron] */", j->cname);
}

/* The k-winners-take-all selection of a top-k population (IrTopk), then its `after` block. */
static void emit_topk(Out *o, const CgDialect *d, const IrPop *p, const IrModel *m)
{
    const IrTopk *tk = p->topk;
    const char *key = tk->key->cname, *win = tk->win->cname, *c = p->cname;
    StrBuf b = {0};
    cg_expr(d, tk->k, &b);
    out_line(o, "/* top-k: the candidates (win = 1, key not NaN) in the order (key desc, draw desc, n asc) */");
    out_line(o, "int64_t ncand = 0;");
    out_open(o, "for (int64_t n = 0; n < %s_N; n++)", c);
    out_open(o, "if (%s[n] && %s[n] == %s[n])", win, key, key);
    out_line(o, "%s_tk[ncand].v = nrt_topk_key_%s(%s[n]);", c, m->dbl ? "d" : "f", key);
    out_line(o, "%s_tk[ncand].draw = nrt_rng(seedkey, %uu, (uint32_t)n, 0, (uint32_t)step, 0).v[0];", c,
             tk->stream);
    out_line(o, "%s_tk[ncand++].idx = (uint32_t)n;", c);
    out_close(o);
    out_line(o, "%s[n] = 0;", win);
    out_close(o);
    out_line(o, "int64_t k = (int64_t)(%s);", b.s);
    out_line(o, "if (k > ncand) k = ncand;");
    out_line(o, "nrt_topk_select(%s_tk, ncand, k);", c);
    out_line(o, "for (int64_t q = 0; q < k; q++) %s[%s_tk[q].idx] = 1;", win, c);
    out_open(o, "for (int64_t n = 0; n < %s_N; n++)", c);
    cg_block(d, &tk->after, o);
    out_close(o);
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

static void emit_pop_step(Out *o, const IrPop *p, const IrModel *m)
{
    CgDialect d = dialect(m, p);
    out_open(o, "static void step_%s(int64_t step)", p->cname);
    out_line(o, "const real t = (real)((double)step * dt);");
    out_line(o, "(void)t;");
    for (int k = 0; k < m->nprojs; k++) {
        IrProj *j = m->projs[k];
        if (proj_targets(j, p))
            out_line(o, "const int64_t %s_slot = (step %% %s_D) * %lld;", j->cname, j->cname,
                     (long long)j->post.size);
    }
    out_line(o, "%s_nspk = 0;", p->cname);
    StrBuf lo = {0}, hi = {0};
    sb_printf(&lo, m->mpi ? "%s_lo" : "0", p->cname);
    sb_printf(&hi, m->mpi ? "%s_hi" : "%s_N", p->cname);
    out_open(o, "for (int64_t n = %s; n < %s; n++)", lo.s, hi.s);
    if (sel_form(p)) {
        int k = 0;
        if (p->has_spikes)
            out_line(o, "int nc_fired = 0;");
        emit_sel(&d, &p->body, NULL, &k, o);
        if (p->has_spikes)
            out_line(o, "%s_fl[n] = (uint8_t)nc_fired;", p->cname);
        out_close(o);
        if (p->has_spikes) {
            out_line(o, "for (int64_t n = %s; n < %s; n++)", lo.s, hi.s);
            out_line(o, "    if (%s_fl[n]) %s_spk[%s_nspk++] = n;", p->cname, p->cname, p->cname);
        }
    } else {
        cg_block(&d, &p->body, o);
        out_close(o);
    }
    sb_free(&lo);
    sb_free(&hi);
    if (p->topk)
        emit_topk(o, &d, p, m);
    out_close(o);
    out_blank(o);
}

/* {===== procedural projections ===== */

/* What the row loops (cg_row_loops) run per synapse of a procedural projection. */
typedef struct ProcBody {
    const IrProj *j;
    const CgDialect *d, *dd;      /* w in real, delay in double */
    int what;                     /* PB_* */
    int mpi;                      /* deliver only into this rank's slice (m->mpi) */
} ProcBody;

enum { PB_BUILD, PB_DELIVER, PB_FILL };

/* `steps` (the delay in steps, >= 1), or a return -1 with errmsg: as emit_proj's build. */
static void proc_delay(Out *o, const ProcBody *pb)
{
    StrBuf b = {0};
    if (!pb->j->delay) {
        out_line(o, "const int32_t dd = 1;");
        return;
    }
    cg_expr(pb->dd, pb->j->delay, &b);
    out_line(o, "const double delay = %s;", b.s);
    out_line(o, "const double steps = round(delay / dt); /* nearest, halves away from zero */");
    out_open(o, "if (!(steps < 1e9))");
    out_line(o, "snprintf(ctx.errmsg, sizeof ctx.errmsg, \"projection %s: delay %%g ms of synapse %%lld -> %%lld is not a usable time\", delay, (long long)i, (long long)j);",
             pb->j->name);
    out_line(o, "return -1;");
    out_close(o);
    out_line(o, "const int32_t dd = steps < 1 ? 1 : (int32_t)steps;");
    sb_free(&b);
}

static void proc_body(Out *o, const void *arg)
{
    const ProcBody *pb = arg;
    const char *c = pb->j->cname;
    StrBuf b = {0};
    if (pb->what != PB_BUILD) {
        cg_expr(pb->d, pb->j->w, &b);
        out_line(o, "const real w = %s;", b.s);
        out_line(o, "(void)w;");
    }
    proc_delay(o, pb);
    if (pb->what == PB_BUILD) {
        out_line(o, "if (dd > maxd) maxd = dd;");
        if (pb->mpi)
            out_line(o, "if (dd < %s_dmin) %s_dmin = dd;", c, c);
    } else if (pb->what == PB_DELIVER) {
        if (pb->mpi)   /* only this rank's targets */
            out_line(o, "if (j >= %s_vlo && j < %s_vhi)", c, c);
        out_line(o, "%s_ring[((step + dd) %% %s_D) * %lld + j] += w;", pb->j->ring->cname, pb->j->ring->cname,
                 (long long)pb->j->post.size);
    } else {
        out_line(o, "const int64_t s = c.row_ptr[i] + rank;");
        out_line(o, "c.col[s] = (int32_t)j;");
        out_line(o, "w_[s] = w;");
        if (pb->j->delay)
            out_line(o, "d_[s] = dd;");
    }
    sb_free(&b);
}

/* Row i's loops with `rank` and `key0` declared around them. */
static void proc_row(Out *o, const ProcBody *pb)
{
    out_begin(o);
    out_line(o, "const uint32_t key0 = seedkey;");
    out_line(o, "int64_t rank = 0;");
    cg_row_loops(o, pb->d, pb->j, proc_body, pb);
    out_close(o);
}

/* A procedural projection (IrProj.procedural): no synapse arrays. build_* walks every row
 * once (the longest delay sizes the ring; a bad delay stops the program as when stored),
 * propagate_* regenerates the rows of this step's spikes and adds into the ring, and
 * save_* (--save-connectivity) writes the synapses as the stored form would hold them. */
static void emit_proc(Out *o, const IrProj *j, const IrModel *m)
{
    const char *c = j->cname;
    CgDialect d = dialect(m, j->pre.pop);
    d.rng_elem = "i";
    d.rng_sub = "rank";
    d.rng_step = "0";
    d.index = "i";
    CgDialect dd = d;
    dd.dbl = 1;
    dd.real = "double";
    ProcBody pb = {j, &d, &dd, PB_BUILD, m->mpi};
    out_line(o, "/* projection %s: %s[%lld:%lld] -> %s[%lld:%lld], procedural (rows regenerated per spike) */",
             j->name, j->pre.pop->name, (long long)j->pre.offset, (long long)(j->pre.offset + j->pre.size),
             j->post.pop->name, (long long)j->post.offset, (long long)(j->post.offset + j->post.size));
    if (j->rule == IR_PAIRS)
        cg_conn_row(o, &d, j, "static", "");   /* for the memory plan's estimate */
    ring_decl(o, j);
    if (m->mpi)
        out_line(o, "static int64_t %s_vlo, %s_vhi, %s_dmin = 64; /* this rank's targets, the shortest delay (capped) */",
                 c, c, c);
    out_blank(o);
    out_open(o, "static int build_%s(void)", c);
    if (m->mpi)
        mpi_view(o, j, c, "_vlo", "_vhi");
    out_line(o, "int64_t maxd = 1;");
    if (j->delay) {
        out_open(o, "for (int64_t i = 0; i < %lld; i++)", (long long)j->pre.size);
        proc_row(o, &pb);
        out_close(o);
    }
    ring_alloc(o, j);
    out_close(o);
    out_blank(o);

    out_line(o, "/* regenerate the rows of this step's spikes of %s, into the ring at step + delay */", j->pre.pop->name);
    out_open(o, "static void propagate_%s(int64_t step)", c);
    out_open(o, "for (int64_t k = 0; k < %s_nspk; k++)", j->pre.pop->cname);
    out_line(o, "const int64_t i = %s_spk[k] - %lld;", j->pre.pop->cname, (long long)j->pre.offset);
    out_line(o, "if (i < 0 || i >= %lld) continue;", (long long)j->pre.size);
    pb.what = PB_DELIVER;
    proc_row(o, &pb);
    out_close(o);
    out_close(o);
    out_blank(o);

    out_line(o, "/* --save-connectivity: the rows, their weights and delays, as stored connectivity holds them */");
    out_open(o, "static int save_%s(void)", c);
    out_line(o, "nrt_csr c = {0};");
    out_line(o, "c.n_pre = %lld;", (long long)j->pre.size);
    out_line(o, "c.n_post = %lld;", (long long)j->post.size);
    out_line(o, "c.row_ptr = nrt_alloc(&ctx, (size_t)(c.n_pre + 1) * sizeof(int64_t), \"connectivity row pointers\");");
    out_line(o, "if (!c.row_ptr) return -1;");
    out_line(o, "c.row_ptr[0] = 0;");
    out_open(o, "for (int64_t i = 0; i < c.n_pre; i++)");
    out_line(o, "const uint32_t key0 = seedkey;");
    out_line(o, "int64_t rank = 0;");
    out_begin(o);
    cg_row_loops(o, &d, j, NULL, NULL);
    out_close(o);
    out_line(o, "c.row_ptr[i + 1] = c.row_ptr[i] + rank;");
    out_close(o);
    out_line(o, "c.nnz = c.row_ptr[c.n_pre];");
    out_line(o, "const size_t n = (size_t)(c.nnz ? c.nnz : 1);");
    out_line(o, "c.col = nrt_alloc(&ctx, n * sizeof(int32_t), \"connectivity columns\");");
    out_line(o, "real *w_ = nrt_alloc(&ctx, n * sizeof(real), \"%s: weights\");", j->name);
    out_line(o, "int32_t *d_ = %s;", j->delay ? "nrt_alloc(&ctx, n * sizeof(int32_t), \"delays\")" : "NULL");
    out_line(o, "int bad = !c.col || !w_%s;", j->delay ? " || !d_" : "");
    out_open(o, "for (int64_t i = 0; i < c.n_pre && !bad; i++)");
    pb.what = PB_FILL;
    proc_row(o, &pb);
    out_close(o);
    out_line(o, "bad = bad || nrt_conn_save(&ctx, \"%s\", &c, w_, (int)sizeof(real), d_) != NRT_OK;", j->name);
    out_line(o, "nrt_csr_free(&c);");
    out_line(o, "nrt_free(w_);");
    out_line(o, "nrt_free(d_);");
    out_line(o, "return bad ? -1 : 0;");
    out_close(o);
    out_blank(o);
}

/* ===== procedural projections =====} */

static void emit_proj(Compiler *cc, Out *o, const IrProj *j, const IrModel *m)
{
    if (j->procedural) {
        emit_proc(o, j, m);
        return;
    }
    CgDialect d = dialect(m, j->pre.pop);
    d.rng_elem = "i";
    d.rng_sub = "rank";
    d.rng_step = "0";
    d.index = "i";
    StrBuf b = {0};
    out_line(o, "/* projection %s: %s[%lld:%lld] -> %s[%lld:%lld] */", j->name, j->pre.pop->name,
             (long long)j->pre.offset, (long long)(j->pre.offset + j->pre.size), j->post.pop->name,
             (long long)j->post.offset, (long long)(j->post.offset + j->post.size));
    out_line(o, "static nrt_csr %s;", j->cname);
    if (j->rule == IR_FROM_FILE) {
        StrBuf f = {0};
        cg_cstring(j->file, &f);
        out_line(o, "static const char *const %s_file = \"%s\";", j->cname, f.s);
        out_line(o, "static double *%s_fw, *%s_fd; /* the file's w and delay columns, or NULL */",
                 j->cname, j->cname);
        sb_free(&f);
        d.edge[0] = arena_printf(&cc->arena, "%s_fw[s]", j->cname);
        d.edge[1] = arena_printf(&cc->arena, "(%s_fd ? %s_fd[s] : 0.0)", j->cname, j->cname);
    }
    if (j->rule == IR_PAIRS)
        cg_conn_row(o, &d, j, "static", "");
    out_line(o, "static real *%s_w;", j->cname);
    out_line(o, "static int32_t *%s_d; /* delays in steps (NULL: all one step) */", j->cname);
    ring_decl(o, j);
    out_blank(o);
    CgDialect dd = d;
    dd.dbl = 1;
    dd.real = "double";
    out_open(o, "static int build_%s(void)", j->cname);
    if (j->rule == IR_FROM_FILE) {
        out_line(o, "if (nrt_conn_file(&ctx, %s_file, %lld, %lld, %d, &%s, &%s_fw, &%s_fd) != NRT_OK) return -1;",
                 j->cname, (long long)j->pre.size, (long long)j->post.size, cg_uses_edge(j->w, 0),
                 j->cname, j->cname, j->cname);
    } else {
        cg_conn_spec(o, j);
        out_line(o, "if (nrt_conn_build(&ctx, &spec, &%s) != NRT_OK) return -1;", j->cname);
    }
    if (m->mpi)
        mpi_restrict(o, m, j, j->rule == IR_FROM_FILE);
    out_line(o, "%s_w = nrt_alloc(&ctx, (size_t)(%s.nnz ? %s.nnz : 1) * sizeof(real), \"%s: weights\");",
             j->cname, j->cname, j->cname, j->name);
    out_line(o, "if (!%s_w) return -1;", j->cname);
    own("%s_w", j->cname);
    if (j->delay) {
        out_line(o, "%s_d = nrt_alloc(&ctx, (size_t)(%s.nnz ? %s.nnz : 1) * sizeof(int32_t), \"%s: delays\");",
                 j->cname, j->cname, j->cname, j->name);
        out_line(o, "if (!%s_d) return -1;", j->cname);
        own("%s_d", j->cname);
    }
    out_line(o, "int64_t maxd = 1;");
    out_open(o, "for (int64_t i = 0; i < %s.n_pre; i++)", j->cname);
    out_open(o, "for (int64_t s = %s.row_ptr[i]; s < %s.row_ptr[i + 1]; s++)", j->cname, j->cname);
    if (m->mpi)
        out_line(o, "const int64_t j = %s.col[s], rank = rk[s]; /* its rank in the full row */", j->cname);
    else
        out_line(o, "const int64_t j = %s.col[s], rank = s - %s.row_ptr[i];", j->cname, j->cname);
    out_line(o, "(void)j; (void)rank;");
    expr_str(&d, j->w, &b);
    out_line(o, "%s_w[s] = %s;", j->cname, b.s);
    if (j->delay) {
        expr_str(&dd, j->delay, &b);
        out_line(o, "const double delay = %s;", b.s);
        out_line(o, "const double steps = round(delay / dt); /* nearest, halves away from zero */");
        out_open(o, "if (!(steps < 1e9))");
        out_line(o, "snprintf(ctx.errmsg, sizeof ctx.errmsg, \"projection %s: delay %%g ms of synapse %%lld -> %%lld is not a usable time\", delay, (long long)i, (long long)j);",
                 j->name);
        out_line(o, "return -1;");
        out_close(o);
        out_line(o, "const int32_t dd = steps < 1 ? 1 : (int32_t)steps;");
        out_line(o, "%s_d[s] = dd;", j->cname);
        out_line(o, "if (dd > maxd) maxd = dd;");
    }
    out_close(o);
    out_close(o);
    if (m->mpi)
        out_line(o, "nrt_free(rk);");
    ring_alloc(o, j);
    out_close(o);
    out_blank(o);

    out_line(o, "/* push this step's spikes of %s into the ring, to arrive at step + delay */", j->pre.pop->name);
    out_open(o, "static void propagate_%s(int64_t step)", j->cname);
    out_open(o, "for (int64_t k = 0; k < %s_nspk; k++)", j->pre.pop->cname);
    out_line(o, "const int64_t i = %s_spk[k] - %lld;", j->pre.pop->cname, (long long)j->pre.offset);
    out_line(o, "if (i < 0 || i >= %lld) continue;", (long long)j->pre.size);
    out_open(o, "for (int64_t s = %s.row_ptr[i]; s < %s.row_ptr[i + 1]; s++)", j->cname, j->cname);
    if (j->delay)
        out_line(o, "const int64_t slot = (step + %s_d[s]) %% %s_D;", j->cname, j->ring->cname);
    else
        out_line(o, "const int64_t slot = (step + 1) %% %s_D;", j->ring->cname);
    out_line(o, "%s_ring[slot * %lld + %s.col[s]] += %s_w[s];", j->ring->cname, (long long)j->post.size,
             j->cname, j->cname);
    out_close(o);
    out_close(o);
    out_close(o);
    out_blank(o);
    sb_free(&b);
}

/* {===== plastic projections ===== */

/* Index spellings of a plastic projection's code (see IrPlast). */
typedef struct PlastNames {
    char pre_n[64], post_n[64];   /* base-population indices of the pre and post neuron */
} PlastNames;

static void c_deliver(const CgDialect *d, const IrProj *p, const char *e, Out *o)
{
    (void)d;
    out_line(o, "%s_ring[dslot * %lld + j] += %s;", p->cname, (long long)p->post.size, e);
}

static CgDialect plast_dialect(const IrModel *m, const IrProj *j, PlastNames *nm, const char *pre_hist)
{
    CgDialect d = dialect(m, j->plast->scope);
    snprintf(nm->pre_n, sizeof nm->pre_n, j->pre.offset ? "(i + %lld)" : "i", (long long)j->pre.offset);
    snprintf(nm->post_n, sizeof nm->post_n, j->post.offset ? "(j + %lld)" : "j", (long long)j->post.offset);
    d.syn = "s";
    d.pre_n = nm->pre_n;
    d.post_n = nm->post_n;
    d.pre_hist = pre_hist;
    d.deliver = c_deliver;
    return d;
}

static void emit_plast_storage(Out *o, const IrProj *j, const IrModel *m)
{
    const IrPlast *pl = j->plast;
    out_line(o, "/* projection %s: %s[%lld:%lld] -> %s[%lld:%lld], plastic synapse %s */", j->name,
             j->pre.pop->name, (long long)j->pre.offset, (long long)(j->pre.offset + j->pre.size),
             j->post.pop->name, (long long)j->post.offset, (long long)(j->post.offset + j->post.size),
             pl->scope->model);
    out_line(o, "static nrt_csr %s;", j->cname);
    out_line(o, "static int32_t *%s_d; /* delays in steps (NULL: all one step) */", j->cname);
    out_line(o, "static int64_t %s_D; /* history slots: longest delay + 1 */", j->cname);
    out_line(o, "static real *%s_ring; /* receptor input, [slot][post neuron] */", j->cname);
    out_line(o, "static int64_t *%s_cptr, *%s_csyn, *%s_cpre; /* column index: synapses onto each post neuron, ascending, and their pre neuron */",
             j->cname, j->cname, j->cname);
    out_line(o, "static int32_t *%s_hist; /* presynaptic spikes of the last D steps, [slot][k] */", j->cname);
    out_line(o, "static int64_t *%s_hist_n;", j->cname);
    out_line(o, "static int64_t *%s_arr, *%s_arr_pre, %s_narr; /* synapses whose spike arrived this step */",
             j->cname, j->cname, j->cname);
    out_line(o, "static unsigned char *%s_fired; /* post neurons that spiked this step */", j->cname);
    if (m->mpi && mpi_recorded(m, j))
        out_line(o, "static int32_t *%s_rk; static int64_t *%s_grp, %s_gnnz; /* the full rows' layout, for recording */",
                 j->cname, j->cname, j->cname);
    for (int k = 0; k < pl->nsyn; k++)
        out_line(o, "static %s *%s; /* %s [%s], per synapse */", storage_type(pl->syn[k]->type),
                 pl->syn[k]->cname, pl->syn[k]->label, pl->syn[k]->unit);
    for (int k = 0; k < pl->npre; k++) {
        out_line(o, "static %s *%s; /* pre.%s [%s], per presynaptic neuron */", storage_type(pl->pre[k]->type),
                 pl->pre[k]->cname, pl->pre[k]->label, pl->pre[k]->unit);
        out_line(o, "static %s *%s_h; /* ... after the dynamics of each of the last D steps, [slot][i] */",
                 storage_type(pl->pre[k]->type), pl->pre[k]->cname);
        if (cg_pre_after(j))
            out_line(o, "static %s *%s_ha; /* ... and after the `on spike` of each, [slot][i] */",
                     storage_type(pl->pre[k]->type), pl->pre[k]->cname);
    }
    for (int k = 0; k < pl->npost; k++)
        out_line(o, "static %s *%s; /* post.%s [%s], per postsynaptic neuron */", storage_type(pl->post[k]->type),
                 pl->post[k]->cname, pl->post[k]->label, pl->post[k]->unit);
    for (int k = 0; k < pl->scope->nprops; k++) {
        IrProp *pr = pl->scope->props[k];
        out_line(o, "static real %s[4][%d]; /* Phi, Psi, Phi_refr, Psi_refr (%dx%d) */", pr->cname,
                 pr->n * pr->n, pr->n, pr->n);
    }
    for (int k = 0; k < pl->scope->nvars; k++) {
        const IrVar *v = pl->scope->vars[k];
        if (v->kind != IV_PARAM)
            continue;
        StrBuf b = {0};
        CgDialect d = dialect(m, pl->scope);
        if (v->type == IRT_REAL)
            cg_real(&d, v->init, &b);
        else
            sb_printf(&b, "%lld", (long long)v->init);
        out_line(o, "static %s %s = %s; /* %s [%s], settable */", storage_type(v->type), v->cname, b.s,
                 v->label, v->unit ? v->unit : "1");
        sb_free(&b);
    }
    out_blank(o);
}

/* Allocate array <base><suffix> of `count` elements at load time. */
static void alloc_line(Out *o, const char *base, const char *suffix, const char *count, const char *what,
                       const char *pname)
{
    out_line(o, "%s%s = nrt_alloc(&ctx, (size_t)(%s) * sizeof *%s%s, \"%s: %s\");", base, suffix, count, base,
             suffix, pname, what);
    out_line(o, "if (!%s%s) return -1;", base, suffix);
    own("%s%s", base, suffix);
}

static void emit_plast_build(Out *o, const IrProj *j, const IrModel *m)
{
    const IrPlast *pl = j->plast;
    const char *c = j->cname;
    long long npre = (long long)j->pre.size, npost = (long long)j->post.size;
    PlastNames nm;
    CgDialect d = plast_dialect(m, j, &nm, NULL);
    d.rng_elem = "i";
    d.rng_sub = "rank";
    d.rng_step = "0";
    CgDialect dd = d; /* delays and propagator coefficients are evaluated in double */
    dd.dbl = 1;
    dd.real = "double";
    StrBuf b = {0};
    StrBuf cnt = {0};
    out_line(o, "/* exact propagators of %s's synapse scopes, from the current parameters (load time and after 'set') */",
             j->name);
    out_open(o, "static int props_%s(void)", c);
    for (int k = 0; k < pl->scope->nprops; k++)
        emit_one_prop(o, &dd, pl->scope->props[k], pl->scope->props[k]->A, 0);
    out_line(o, "return 0;");
    out_close(o);
    out_blank(o);
    out_open(o, "static int build_%s(void)", c);
    cg_conn_spec(o, j);
    out_line(o, "if (nrt_conn_build(&ctx, &spec, &%s) != NRT_OK) return -1;", c);
    if (m->mpi)
        mpi_restrict(o, m, j, 0);
    out_line(o, "const int64_t nnz = %s.nnz ? %s.nnz : 1;", c, c);
    for (int k = 0; k < pl->nsyn; k++)
        alloc_line(o, pl->syn[k]->cname, "", "nnz", pl->syn[k]->label, j->name);
    if (j->delay)
        alloc_line(o, c, "_d", "nnz", "delays", j->name);
    out_line(o, "int64_t maxd = 1;");
    out_open(o, "for (int64_t i = 0; i < %s.n_pre; i++)", c);
    out_open(o, "for (int64_t s = %s.row_ptr[i]; s < %s.row_ptr[i + 1]; s++)", c, c);
    if (m->mpi)
        out_line(o, "const int64_t j = %s.col[s], rank = rk[s]; /* its rank in the full row */", c);
    else
        out_line(o, "const int64_t j = %s.col[s], rank = s - %s.row_ptr[i];", c, c);
    out_line(o, "(void)j; (void)rank;");
    cg_block(&d, &pl->syn_init, o);
    if (j->delay) {
        b.len = 0;
        cg_expr(&dd, j->delay, &b);
        out_line(o, "const double delay = %s;", b.s);
        out_line(o, "const double steps = round(delay / dt); /* nearest, halves away from zero */");
        out_open(o, "if (!(steps < 1e9))");
        out_line(o, "snprintf(ctx.errmsg, sizeof ctx.errmsg, \"projection %s: delay %%g ms of synapse %%lld -> %%lld is not a usable time\", delay, (long long)i, (long long)j);",
                 j->name);
        out_line(o, "return -1;");
        out_close(o);
        out_line(o, "const int32_t dd = steps < 1 ? 1 : (int32_t)steps;");
        out_line(o, "%s_d[s] = dd;", c);
        out_line(o, "if (dd > maxd) maxd = dd;");
    }
    out_close(o);
    out_close(o);
    out_line(o, "%s_D = maxd + 1;", c);
    if (m->mpi && !mpi_recorded(m, j))
        out_line(o, "nrt_free(rk);");
    sb_setf(&cnt, "%s_D * %lld", c, npost);
    alloc_line(o, c, "_ring", cnt.s, "receptor input ring", j->name);
    sb_setf(&cnt, "%lld + 1", npost);
    alloc_line(o, c, "_cptr", cnt.s, "column index", j->name);
    alloc_line(o, c, "_csyn", "nnz", "column index", j->name);
    alloc_line(o, c, "_cpre", "nnz", "column index", j->name);
    out_line(o, "/* the column index: count per post neuron, prefix sums, then fill in synapse order */");
    out_line(o, "for (int64_t s = 0; s < %s.nnz; s++) %s_cptr[%s.col[s] + 1]++;", c, c, c);
    out_line(o, "for (int64_t q = 0; q < %lld; q++) %s_cptr[q + 1] += %s_cptr[q];", npost, c, c);
    out_begin(o);
    sb_setf(&cnt, "%lld + 1", npost);
    out_line(o, "int64_t *fill = nrt_alloc(&ctx, (size_t)(%s) * sizeof *fill, \"%s: column index\");", cnt.s, j->name);
    out_line(o, "if (!fill) return -1;");
    out_line(o, "memcpy(fill, %s_cptr, (size_t)(%s) * sizeof *fill);", c, cnt.s);
    out_open(o, "for (int64_t i = 0; i < %s.n_pre; i++)", c);
    out_open(o, "for (int64_t s = %s.row_ptr[i]; s < %s.row_ptr[i + 1]; s++)", c, c);
    out_line(o, "const int64_t q = fill[%s.col[s]]++;", c);
    out_line(o, "%s_csyn[q] = s;", c);
    out_line(o, "%s_cpre[q] = i;", c);
    out_close(o);
    out_close(o);
    out_line(o, "nrt_free(fill);");
    out_close(o);
    sb_setf(&cnt, "%s_D * %lld", c, npre);
    alloc_line(o, c, "_hist", cnt.s, "spike history", j->name);
    sb_setf(&cnt, "%s_D", c);
    alloc_line(o, c, "_hist_n", cnt.s, "spike history", j->name);
    alloc_line(o, c, "_arr", "nnz", "arrivals", j->name);
    alloc_line(o, c, "_arr_pre", "nnz", "arrivals", j->name);
    sb_setf(&cnt, "%lld", npost);
    alloc_line(o, c, "_fired", cnt.s, "post spikes", j->name);
    for (int k = 0; k < pl->npre; k++) {
        sb_setf(&cnt, "%lld", npre);
        alloc_line(o, pl->pre[k]->cname, "", cnt.s, pl->pre[k]->label, j->name);
        sb_setf(&cnt, "%s_D * %lld", c, npre);
        alloc_line(o, pl->pre[k]->cname, "_h", cnt.s, pl->pre[k]->label, j->name);
        if (cg_pre_after(j))
            alloc_line(o, pl->pre[k]->cname, "_ha", cnt.s, pl->pre[k]->label, j->name);
    }
    for (int k = 0; k < pl->npost; k++) {
        sb_setf(&cnt, "%lld", npost);
        alloc_line(o, pl->post[k]->cname, "", cnt.s, pl->post[k]->label, j->name);
    }
    if (pl->pre_init.n) {
        out_open(o, "for (int64_t i = 0; i < %lld; i++)", npre);
        cg_block(&d, &pl->pre_init, o);
        for (int k = 0; k < pl->npre; k++) {
            out_line(o, "for (int64_t h = 0; h < %s_D; h++) %s_h[h * %lld + i] = %s[i];", c,
                     pl->pre[k]->cname, npre, pl->pre[k]->cname);
            if (cg_pre_after(j))
                out_line(o, "for (int64_t h = 0; h < %s_D; h++) %s_ha[h * %lld + i] = %s[i];", c,
                         pl->pre[k]->cname, npre, pl->pre[k]->cname);
        }
        out_close(o);
    }
    if (pl->post_init.n) {
        out_open(o, "for (int64_t j = 0; j < %lld; j++)", npost);
        cg_block(&d, &pl->post_init, o);
        out_close(o);
    }
    out_line(o, "return props_%s();", c);
    out_close(o);
    out_blank(o);
    sb_free(&b);
    sb_free(&cnt);
}

/* Loop over this step's spikes of `pop` inside the view (off, size): defines `idx`. */
static void open_spikes(Out *o, const IrPop *pop, int64_t off, int64_t size, const char *idx)
{
    out_open(o, "for (int64_t k = 0; k < %s_nspk; k++)", pop->cname);
    out_line(o, "const int64_t %s = %s_spk[k] - %lld;", idx, pop->cname, (long long)off);
    out_line(o, "if (%s < 0 || %s >= %lld) continue;", idx, idx, (long long)size);
}

/* The delay of synapse s in steps, as generated code. */
static const char *delay_of(const IrProj *j, StrBuf *buf)
{
    return j->delay ? sb_setf(buf, "%s_d[s]", j->cname) : "1";
}

/* Define `hi`, the element of the pre { } history a handler of synapse (i, s) reads: the
 * state after the dynamics of step `step - dd + back` (back 0 in phase 1, 1 after the
 * neurons), which is what the synapse sees through its delay dd. */
static void hist_elem(Out *o, const IrProj *j, int back)
{
    StrBuf dl = {0};
    out_line(o, "const int64_t hi = ((step - %s + %d) %% %s_D + %s_D) %% %s_D * %lld + i;",
             delay_of(j, &dl), back, j->cname, j->cname, j->cname, (long long)j->pre.size);
    sb_free(&dl);
}

/* Loop over every synapse (i, s, j), with `hi` for `back` (see hist_elem). */
static void open_all_synapses(Out *o, const IrProj *j, int back)
{
    const char *c = j->cname;
    out_open(o, "for (int64_t i = 0; i < %lld; i++)", (long long)j->pre.size);
    out_open(o, "for (int64_t s = %s.row_ptr[i]; s < %s.row_ptr[i + 1]; s++)", c, c);
    out_line(o, "const int64_t j = %s.col[s];", c);
    hist_elem(o, j, back);
    out_line(o, "(void)j; (void)hi;");
}

/* The arrivals of step `step + ahead`: `on pre` where a spike of steps step + ahead - D + 1 ..
 * step + ahead - 1 reaches a synapse, oldest emission first (the static ring's order),
 * delivering into that step's slot; ahead 1: order pre_first, run in step's learning phase. */
static void emit_arrivals(Out *o, const IrProj *j, const CgDialect *dh, int ahead)
{
    const IrPlast *pl = j->plast;
    const char *c = j->cname;
    long long npre = (long long)j->pre.size;
    out_line(o, "%s_narr = 0;", c);
    if (!pl->on_pre.n && !pl->on_prepost.n)
        return;
    out_line(o, "/* emissions of steps step%s - D + 1 .. step%s - 1, oldest first: the static ring's order */",
             ahead ? " + 1" : "", ahead ? " + 1" : "");
    out_open(o, "for (int64_t k = %s_D - 1; k >= 1; k--)", c);
    out_line(o, "if (k > step%s) continue;", ahead ? " + 1" : "");
    out_line(o, "const int64_t hs = (step%s - k) %% %s_D, dslot = %s %% %s_D;", ahead ? " + 1" : "", c,
             ahead ? "(step + 1)" : "step", c);
    out_line(o, "(void)dslot;");
    out_open(o, "for (int64_t q = 0; q < %s_hist_n[hs]; q++)", c);
    out_line(o, "const int64_t i = %s_hist[hs * %lld + q];", c, npre);
    out_open(o, "for (int64_t s = %s.row_ptr[i]; s < %s.row_ptr[i + 1]; s++)", c, c);
    if (j->delay)
        out_line(o, "if (%s_d[s] != k) continue;", c);
    out_line(o, "const int64_t j = %s.col[s], hi = hs * %lld + i;", c, npre);
    out_line(o, "(void)j; (void)hi;");
    cg_block(dh, &pl->syn_catch, o);
    cg_block(dh, &pl->on_pre, o);
    if (pl->on_prepost.n) {
        out_line(o, "%s_arr_pre[%s_narr] = i;", c, c);
        out_line(o, "%s_arr[%s_narr++] = s;", c, c);
    }
    out_close(o);
    out_close(o);
    out_close(o);
}

/* Store this step's presynaptic spikes for their arrivals (the history slot hs). */
static void emit_keep_spikes(Out *o, const IrProj *j)
{
    const char *c = j->cname;
    out_line(o, "/* this step's presynaptic spikes, for their arrivals */");
    out_line(o, "%s_hist_n[hs] = 0;", c);
    open_spikes(o, j->pre.pop, j->pre.offset, j->pre.size, "i");
    out_line(o, "%s_hist[hs * %lld + %s_hist_n[hs]++] = (int32_t)i;", c, (long long)j->pre.size, c);
    out_close(o);
}

/* Phase 0 (arrivals) and phase 2 (learning) of a plastic projection; docs/language.md §9. In
 * order pre_first the arrivals of step + 1 run in learn_ of step, after the synapse dynamics
 * of the step (the handlers catch up to step + 1), before `on post`; `on post` and `on pre &
 * post` read the pre { } scope after its `on spike` (dp). */
static void emit_plast_step(Out *o, const IrProj *j, const IrModel *m)
{
    const IrPlast *pl = j->plast;
    const char *c = j->cname;
    long long npre = (long long)j->pre.size, npost = (long long)j->post.size;
    int pre_first = !pl->post_first;
    PlastNames nm;
    CgDialect dh = plast_dialect(m, j, &nm, "hi");   /* handlers */
    CgDialect ds = plast_dialect(m, j, &nm, NULL);   /* scopes */
    CgDialect dp = dh;                               /* on post, on pre & post */
    CgDialect da = dh;                               /* the arrivals */
    if (pre_first) {                                 /* handlers see the dynamics of this step */
        dp.pre_hist = j->delay ? "hi" : NULL;
        dp.pre_after = cg_pre_after(j);
        dp.step = da.step = "(step + 1)";
    }
    StrBuf dlb = {0};
    const char *dl = delay_of(j, &dlb);

    if (pre_first)
        out_line(o, "/* %s, phase 0: 'on step' (pre_first: 'on pre' runs in the step before) */", j->name);
    else
        out_line(o, "/* %s, phase 1: 'on pre' where this step's arrivals reach a synapse, then 'on step' */", j->name);
    out_open(o, "static void arrive_%s(int64_t step)", c);
    out_line(o, "const real t = (real)((double)step * dt);");
    out_line(o, "(void)t;");
    if (!pre_first)
        emit_arrivals(o, j, &dh, 0);
    if (pl->on_step.n) {
        open_all_synapses(o, j, 0);
        out_line(o, "const int64_t dslot = (step + %s - 1) %% %s_D; /* delivered after the delay */", dl, c);
        out_line(o, "(void)dslot;");
        cg_block(&dh, &pl->on_step, o);
        out_close(o);
        out_close(o);
    }
    out_close(o);
    out_blank(o);

    if (pre_first)
        out_line(o, "/* %s, phase 2 (pre_first): scope dynamics, synapse dynamics, 'on pre' of the next step's "
                    "arrivals, pre 'on spike', 'on post', 'on pre & post', post 'on spike' */", j->name);
    else
        out_line(o, "/* %s, phases 5-7: scope dynamics, 'on post', 'on pre & post', scope 'on spike', synapse dynamics */",
                 j->name);
    out_open(o, "static void learn_%s(int64_t step)", c);
    out_line(o, "const real t = (real)((double)step * dt);");
    out_line(o, "(void)t;");
    out_line(o, "const int64_t hs = step %% %s_D;", c);
    out_line(o, "(void)hs;");
    if (pl->npre || pl->pre_step.n) {
        out_open(o, "for (int64_t i = 0; i < %lld; i++)", npre);
        cg_block(&ds, &pl->pre_step, o);
        for (int k = 0; k < pl->npre; k++) {
            out_line(o, "%s_h[hs * %lld + i] = %s[i];", pl->pre[k]->cname, npre, pl->pre[k]->cname);
            if (dp.pre_after)
                out_line(o, "%s_ha[hs * %lld + i] = %s[i];", pl->pre[k]->cname, npre, pl->pre[k]->cname);
        }
        out_close(o);
    }
    if (pl->post_step.n) {
        out_open(o, "for (int64_t j = 0; j < %lld; j++)", npost);
        cg_block(&ds, &pl->post_step, o);
        out_close(o);
    }
    if (pre_first) {
        emit_keep_spikes(o, j);
        if (pl->syn_step.n) {
            open_all_synapses(o, j, 1);
            cg_block(&dh, &pl->syn_step, o);
            out_close(o);
            out_close(o);
        }
        emit_arrivals(o, j, &da, 1);
        if (pl->pre_spike.n) {
            open_spikes(o, j->pre.pop, j->pre.offset, j->pre.size, "i");
            cg_block(&ds, &pl->pre_spike, o);
            for (int k = 0; k < pl->npre && dp.pre_after; k++)
                out_line(o, "%s_ha[hs * %lld + i] = %s[i];", pl->pre[k]->cname, npre, pl->pre[k]->cname);
            out_close(o);
        }
    }
    if (pl->on_post.n) {
        open_spikes(o, j->post.pop, j->post.offset, j->post.size, "j");
        out_open(o, "for (int64_t q = %s_cptr[j]; q < %s_cptr[j + 1]; q++)", c, c);
        out_line(o, "const int64_t s = %s_csyn[q], i = %s_cpre[q];", c, c);
        hist_elem(o, j, 1);
        out_line(o, "(void)hi;");
        cg_block(&dp, &pl->syn_catch, o);
        cg_block(&dp, &pl->on_post, o);
        out_close(o);
        out_close(o);
    }
    if (pl->on_prepost.n) {
        open_spikes(o, j->post.pop, j->post.offset, j->post.size, "j");
        out_line(o, "%s_fired[j] = 1;", c);
        out_close(o);
        out_open(o, "for (int64_t q = 0; q < %s_narr; q++)", c);
        out_line(o, "const int64_t s = %s_arr[q], i = %s_arr_pre[q], j = %s.col[s];", c, c, c);
        out_line(o, "if (!%s_fired[j]) continue;", c);
        hist_elem(o, j, 1);
        out_line(o, "(void)hi;");
        cg_block(&dp, &pl->syn_catch, o);
        cg_block(&dp, &pl->on_prepost, o);
        out_close(o);
        open_spikes(o, j->post.pop, j->post.offset, j->post.size, "j");
        out_line(o, "%s_fired[j] = 0;", c);
        out_close(o);
    }
    if (pl->pre_spike.n && !pre_first) {
        open_spikes(o, j->pre.pop, j->pre.offset, j->pre.size, "i");
        cg_block(&ds, &pl->pre_spike, o);
        out_close(o);
    }
    if (pl->post_spike.n) {
        open_spikes(o, j->post.pop, j->post.offset, j->post.size, "j");
        cg_block(&ds, &pl->post_spike, o);
        out_close(o);
    }
    if (pl->syn_step.n && !pre_first) {
        open_all_synapses(o, j, 1);
        cg_block(&dh, &pl->syn_step, o);
        out_close(o);
        out_close(o);
    }
    if (!pre_first)
        emit_keep_spikes(o, j);
    out_close(o);
    out_blank(o);
    if (pl->event) {
        out_line(o, "/* %s: event-driven synapse dynamics, every synapse brought up to `step` steps done */", j->name);
        out_open(o, "static void catchup_%s(int64_t step)", c);
        out_open(o, "for (int64_t i = 0; i < %lld; i++)", npre);
        out_open(o, "for (int64_t s = %s.row_ptr[i]; s < %s.row_ptr[i + 1]; s++)", c, c);
        cg_block(&dh, &pl->syn_catch, o);
        out_close(o);
        out_close(o);
        out_close(o);
        out_blank(o);
    }
    sb_free(&dlb);
}

/* Open `record w, ... of PROJ`: one column per synapse, in CSR order. */
static void emit_syn_record_open(Out *o, const IrRecord *rec, int r, const char *file, int mpi)
{
    const char *jc = rec->proj->cname;
    StrBuf nnzb = {0};   /* --mpi: the full projection's count; each rank holds a part */
    sb_printf(&nnzb, mpi ? "%s_gnnz" : "%s.nnz", jc);
    const char *nnz = nnzb.s;
    StrBuf vars = {0}, units = {0}, pn = {0};
    cg_cstring(rec->proj->name, &pn);
    for (int k = 0; k < rec->nvars; k++) {
        sb_printf(&vars, "%s\"%s\"", k ? ", " : "", rec->vars[k]->label);
        sb_printf(&units, "%s\"%s\"", k ? ", " : "", rec->vars[k]->unit ? rec->vars[k]->unit : "1");
    }
    out_begin(o);
    out_open(o, "if (%s > INT32_MAX)", nnz);
    out_line(o, "snprintf(ctx.errmsg, sizeof ctx.errmsg, \"%s: too many synapses to record\");", file);
    out_line(o, "return -1;");
    out_close(o);
    out_line(o, "rec%d_local = nrt_alloc(&ctx, (size_t)(%s ? %s : 1) * sizeof *rec%d_local, \"recording\");",
             r, nnz, nnz, r);
    out_line(o, "rec%d_row = nrt_alloc(&ctx, (size_t)(%s ? %s : 1) * %d * sizeof *rec%d_row, \"recording\");",
             r, nnz, nnz, rec->nvars, r);
    out_line(o, "if (!rec%d_local || !rec%d_row) return -1;", r, r);
    own("rec%d_local", r);
    own("rec%d_row", r);
    out_line(o, "for (int64_t s = 0; s < %s; s++) rec%d_local[s] = s;", nnz, r);
    out_line(o, "static const char *const vars[] = {%s};", vars.s);
    out_line(o, "static const char *const units[] = {%s};", units.s);
    out_line(o, "%srec%d = nrt_rec_state(&ctx, \"%s\", \"%s\", %d, vars, units, (int)%s, rec%d_local, %lld);",
             mpi ? "if (root) " : "", r, file, pn.s, rec->nvars, nnz, r, (long long)rec->every);
    out_close(o);
    sb_free(&vars);
    sb_free(&units);
    sb_free(&pn);
    sb_free(&nnzb);
}

/* ===== plastic projections =====} */

static void emit_records(Out *o, const IrModel *m)
{
    for (int r = 0; r < m->nrecs; r++) {
        const IrRecord *rec = &m->recs[r];
        StrBuf name = {0};
        cg_cstring(rec->file, &name);
        out_line(o, "static nrt_rec *rec%d; /* \"%s\" */", r, name.s);
        sb_free(&name);
        if (rec->proj) {
            out_line(o, "static double *rec%d_row; /* per synapse */", r);
            out_line(o, "static int64_t *rec%d_local;", r);
        } else if (!rec->spikes) {
            out_line(o, "static double rec%d_row[%d];", r, rec->nvars * rec->nidx);
            StrBuf b = {0};
            for (int k = 0; k < rec->nidx; k++)
                sb_printf(&b, "%s%lld", k ? ", " : "", (long long)rec->idx[k]);
            out_line(o, "static const int64_t rec%d_idx[%d] = {%s};", r, rec->nidx, b.s);
            b.len = 0;
            for (int k = 0; k < rec->nidx; k++)
                sb_printf(&b, "%s%lld", k ? ", " : "", (long long)(rec->idx[k] - rec->view.offset));
            out_line(o, "static const int64_t rec%d_local[%d] = {%s};", r, rec->nidx, b.s);
            sb_free(&b);
        }
    }
    out_blank(o);
    out_open(o, "static int open_records(void)");
    const char *root = m->mpi ? "if (root) " : "";
    if (m->mpi)
        out_line(o, "const int root = nrt_mpi_rank(mpi) == 0; /* rank 0 writes every file */");
    for (int r = 0; r < m->nrecs; r++) {
        const IrRecord *rec = &m->recs[r];
        StrBuf f = {0};
        cg_cstring(rec->file, &f);
        if (rec->proj) {
            emit_syn_record_open(o, rec, r, f.s, m->mpi);
        } else if (rec->spikes) {
            out_line(o, "%srec%d = %s(&ctx, \"%s\", \"%s\", %lld);", root, r, cg_spikes_open(rec), f.s,
                     rec->view.pop->name, (long long)rec->view.size);
        } else {
            StrBuf vars = {0}, units = {0};
            for (int k = 0; k < rec->nvars; k++) {
                sb_printf(&vars, "%s\"%s\"", k ? ", " : "", rec->vars[k]->label);
                sb_printf(&units, "%s\"%s\"", k ? ", " : "", rec->vars[k]->unit ? rec->vars[k]->unit : "1");
            }
            out_begin(o);
            out_line(o, "static const char *const vars[] = {%s};", vars.s);
            out_line(o, "static const char *const units[] = {%s};", units.s);
            out_line(o, "%srec%d = nrt_rec_state(&ctx, \"%s\", \"%s\", %d, vars, units, %d, rec%d_local, %lld);",
                     root, r, f.s, rec->view.pop->name, rec->nvars, rec->nidx, r, (long long)rec->every);
            out_close(o);
            sb_free(&vars);
            sb_free(&units);
        }
        out_line(o, "if (%s!rec%d) return -1;", m->mpi ? "root && " : "", r);
        sb_free(&f);
    }
    out_line(o, "return 0;");
    out_close(o);
    out_blank(o);
}

/* The start of a step (do_step, local_step): plastic arrivals, then every population. */
static void emit_neuron_calls(Out *o, const IrModel *m)
{
    for (int k = 0; k < m->nprojs; k++)
        if (m->projs[k]->plast)
            out_line(o, "arrive_%s(step);", m->projs[k]->cname);
    for (int i = 0; i < m->npops; i++)
        out_line(o, "step_%s(step);", m->pops[i]->cname);
}

/* The step's spikes into the projections (do_step, deliver_step). */
static void emit_delivery_calls(Out *o, const IrModel *m)
{
    for (int k = 0; k < m->nprojs; k++)
        out_line(o, "%s_%s(step);", m->projs[k]->plast ? "learn" : "propagate", m->projs[k]->cname);
}

/* The step's spikes counted, last, once its recordings are written: a step whose recording
 * failed adds nothing to the counts of the manifest and summary (completed steps only). */
static void emit_count_spikes(Out *o, const IrModel *m)
{
    for (int i = 0; i < m->npops; i++)
        out_line(o, "ctx.pops[%d].spikes += %s_nspk;", i, m->pops[i]->cname);
    out_line(o, "return 0;");
}

/* Spike recording r of the step's spike list; the loop counter is named q, and with `guard`
 * the loop runs only where rec<r> is open (rank 0 of a distributed program). */
static void emit_spike_record(Out *o, const IrRecord *rec, int r, const char *q, int guard)
{
    const char *pc = rec->view.pop->cname;
    if (guard)
        out_open(o, "for (int64_t %s = 0; rec%d && %s < %s_nspk; %s++)", q, r, q, pc, q);
    else
        out_open(o, "for (int64_t %s = 0; %s < %s_nspk; %s++)", q, q, pc, q);
    out_line(o, "const int64_t n = %s_spk[%s];", pc, q);
    if (rec->view.offset != 0 || rec->view.size != rec->view.pop->size)
        out_line(o, "if (n < %lld || n >= %lld) continue;", (long long)rec->view.offset,
                 (long long)(rec->view.offset + rec->view.size));
    out_line(o, "if (nrt_rec_spike(rec%d, step, (int32_t)(n - %lld)) != NRT_OK) return -1;", r,
             (long long)rec->view.offset);
    out_close(o);
}

static void emit_step(Out *o, const IrModel *m)
{
    out_line(o, "/* one step, t -> t + dt (docs/language.md, the order of a step) */");
    out_open(o, "static int do_step(int64_t step)");
    emit_neuron_calls(o, m);
    emit_delivery_calls(o, m);
    for (int r = 0; r < m->nrecs; r++) {
        const IrRecord *rec = &m->recs[r];
        if (rec->proj) {
            const char *jc = rec->proj->cname;
            out_open(o, "if (nrt_rec_due(rec%d, step + 1))", r);
            if (rec->proj->plast->event)
                out_line(o, "catchup_%s(step + 1);", jc);
            out_open(o, "for (int64_t s = 0; s < %s.nnz; s++)", jc);
            for (int v = 0; v < rec->nvars; v++)
                out_line(o, "rec%d_row[%d * %s.nnz + s] = (double)%s[s];", r, v, jc, rec->vars[v]->cname);
            out_close(o);
            out_line(o, "if (nrt_rec_state_row(rec%d, step, rec%d_row) != NRT_OK) return -1;", r, r);
            out_close(o);
        } else if (rec->spikes) {
            emit_spike_record(o, rec, r, "k", 0);
        } else {
            out_open(o, "if (nrt_rec_due(rec%d, step + 1))", r);
            out_open(o, "for (int k = 0; k < %d; k++)", rec->nidx);
            out_line(o, "const int64_t n = rec%d_idx[k];", r);
            for (int v = 0; v < rec->nvars; v++) {
                const IrVar *var = rec->vars[v];
                out_line(o, "rec%d_row[%d * %d + k] = (double)%s%s;", r, v, rec->nidx, var->cname,
                         var->per_neuron ? "[n]" : "");
            }
            out_close(o);
            out_line(o, "if (nrt_rec_state_row(rec%d, step, rec%d_row) != NRT_OK) return -1;", r, r);
            out_close(o);
        }
    }
    emit_count_spikes(o, m);
    out_close(o);
    out_blank(o);
}

/* --mpi: do_step's work split at the spike exchange. local_step runs this rank's neurons,
 * hands their spikes to the exchange and samples neuron states (merged into rank 0);
 * deliver_step, once the interval's spikes are exchanged, runs the projections on every
 * rank's spikes of one step and records them, as do_step does. */
static void emit_step_mpi(Out *o, const IrModel *m)
{
    out_line(o, "/* this rank's part of a step: its neurons, its spikes out, neuron states sampled */");
    out_open(o, "static int local_step(int64_t step)");
    emit_neuron_calls(o, m);
    for (int i = 0; i < m->npops; i++) {
        const IrPop *p = m->pops[i];
        if (mpi_replicated(m, p))   /* every rank has them: rank 0 sends them */
            out_line(o, "if (nrt_mpi_push(&ctx, mpi, %s_spk, nrt_mpi_rank(mpi) == 0 ? %s_nspk : 0) != NRT_OK) return -1;",
                     p->cname, p->cname);
        else
            out_line(o, "if (nrt_mpi_push(&ctx, mpi, %s_spk, %s_nspk) != NRT_OK) return -1;", p->cname, p->cname);
    }
    for (int r = 0; r < m->nrecs; r++) {
        const IrRecord *rec = &m->recs[r];
        if (rec->proj || rec->spikes)
            continue;
        const char *pc = rec->view.pop->cname;
        out_open(o, "if ((step + 1) %% %lld == 0)", (long long)rec->every);
        out_open(o, "for (int k = 0; k < %d; k++)", rec->nidx);
        out_line(o, "const int64_t n = rec%d_idx[k];", r);
        out_line(o, "const int own = n >= %s_lo && n < %s_hi;", pc, pc);
        for (int v = 0; v < rec->nvars; v++) {
            const IrVar *var = rec->vars[v];
            out_line(o, "rec%d_row[%d * %d + k] = own ? (double)%s%s : 0.0;", r, v, rec->nidx, var->cname,
                     var->per_neuron ? "[n]" : "");
        }
        out_close(o);
        out_line(o, "if (nrt_mpi_row(&ctx, mpi, rec%d_row, %d) != NRT_OK) return -1;", r, rec->nvars * rec->nidx);
        out_line(o, "if (rec%d && nrt_rec_state_row(rec%d, step, rec%d_row) != NRT_OK) return -1;", r, r, r);
        out_close(o);
    }
    out_line(o, "return 0;");
    out_close(o);
    out_blank(o);

    out_line(o, "/* step k of the exchanged interval: every rank's spikes of `step`, into this rank's synapses */");
    out_open(o, "static int deliver_step(int64_t step, int k)");
    for (int i = 0; i < m->npops; i++)
        out_line(o, "%s_nspk = nrt_mpi_take(mpi, k, %d, %s_spk);", m->pops[i]->cname, i, m->pops[i]->cname);
    emit_delivery_calls(o, m);
    for (int r = 0; r < m->nrecs; r++) {
        const IrRecord *rec = &m->recs[r];
        if (rec->proj) {   /* this rank's synapses at their columns of the full layout, merged */
            const char *jc = rec->proj->cname;
            out_open(o, "if ((step + 1) %% %lld == 0)", (long long)rec->every);
            if (rec->proj->plast->event)
                out_line(o, "catchup_%s(step + 1);", jc);
            out_line(o, "memset(rec%d_row, 0, (size_t)%s_gnnz * %d * sizeof *rec%d_row);", r, jc, rec->nvars, r);
            out_open(o, "for (int64_t i = 0; i < %s.n_pre; i++)", jc);
            out_open(o, "for (int64_t s = %s.row_ptr[i]; s < %s.row_ptr[i + 1]; s++)", jc, jc);
            out_line(o, "const int64_t g = %s_grp[i] + %s_rk[s];", jc, jc);
            for (int v = 0; v < rec->nvars; v++)
                out_line(o, "rec%d_row[%d * %s_gnnz + g] = (double)%s[s];", r, v, jc, rec->vars[v]->cname);
            out_close(o);
            out_close(o);
            out_line(o, "if (nrt_mpi_row(&ctx, mpi, rec%d_row, (int)(%s_gnnz * %d)) != NRT_OK) return -1;", r, jc,
                     rec->nvars);
            out_line(o, "if (rec%d && nrt_rec_state_row(rec%d, step, rec%d_row) != NRT_OK) return -1;", r, r, r);
            out_close(o);
        } else if (rec->spikes) {
            emit_spike_record(o, rec, r, "q", 1);
        }
    }
    emit_count_spikes(o, m);
    out_close(o);
    out_blank(o);
}

/* --mpi: after nrt_init, the ranks, the slices, the checks that need one rank. */
static void emit_mpi_start(Out *o, const IrModel *m)
{
    cg_mpi_start(o);
    for (int i = 0; i < m->npops; i++) {
        const IrPop *p = m->pops[i];
        if (mpi_replicated(m, p))
            out_line(o, "%s_lo = 0, %s_hi = %s_N; /* replicated on every rank */", p->cname, p->cname, p->cname);
        else
            out_line(o, "nrt_mpi_slice(mpi, %s_N, &%s_lo, &%s_hi);", p->cname, p->cname, p->cname);
    }
}

/* --mpi: nc_D, the exchange interval, once every synapse is built. */
static void emit_mpi_interval(Out *o, const IrModel *m)
{
    int plastic = 0;
    out_line(o, "int64_t dmin = 64; /* the interval's cap: exchanges stay frequent enough to stop promptly */");
    for (int k = 0; k < m->nprojs; k++) {
        const IrProj *j = m->projs[k];
        plastic |= j->plast != NULL;
        if (!j->delay)
            out_line(o, "dmin = 1; /* %s */", j->name);
        else if (j->procedural)
            out_line(o, "if (%s_dmin < dmin) dmin = %s_dmin;", j->cname, j->cname);
        else
            out_line(o, "for (int64_t s = 0; s < %s.nnz; s++) if (%s_d[s] < dmin) dmin = %s_d[s];", j->cname,
                     j->cname, j->cname);
    }
    if (plastic)
        out_line(o, "dmin = 1; /* plasticity: every phase sees every rank's spikes of each step */");
    out_line(o, "nc_D = nrt_mpi_min(mpi, dmin);");
}

static void emit_main(Out *o, const IrModel *m)
{
    cg_finite_c(o, m);
    out_open(o, "static void free_all(void)");
    out_line(o, "/* every array the program allocated (nrt_free ignores those never allocated) */");
    for (const char *l = owned.s; l && *l;) {
        const char *e = strchr(l, '\n');
        out_line(o, "%.*s", (int)(e - l), l);
        l = e + 1;
    }
    out_close(o);
    out_blank(o);
    out_open(o, "static int fail(const char *prog)");
    out_line(o, "const int rc = nrt_fail(&ctx, prog);");
    out_line(o, "free_all();");
    if (m->mpi)     /* the other ranks would wait for this one */
        out_line(o, "nrt_mpi_abort(mpi, 1);");
    out_line(o, "return rc;");
    out_close(o);
    out_blank(o);
    cg_main_open(o, m, "c", NULL);
    if (m->mpi)
        emit_mpi_start(o, m);
    for (int i = 0; i < m->nrtparams; i++)
        out_line(o, "%s = (%s)nc_params[%d].value; /* runtime %s */", m->rtparams[i].var->cname,
                 storage_type(m->rtparams[i].var->type), i, m->rtparams[i].name);
    out_line(o, "mem_plan();");
    out_line(o, "st = nrt_mem_check(&ctx, 0);");
    out_line(o, "if (st == NRT_EHELP) return 0;");
    out_line(o, "double t0 = nrt_now();");
    for (int i = 0; i < m->npops; i++)
        out_line(o, "if (init_%s() != 0) return fail(argv[0]);", m->pops[i]->cname);
    out_line(o, "ctx.t_build = nrt_now() - t0;");
    out_line(o, "t0 = nrt_now();");
    for (int k = 0; k < m->nprojs; k++)
        out_line(o, "if (build_%s() != 0) return fail(argv[0]);", m->projs[k]->cname);
    for (int k = 0; k < m->nprojs; k++) {
        if (m->projs[k]->procedural)
            out_line(o, "if (ctx.save_conn && save_%s() != 0) return fail(argv[0]);", m->projs[k]->cname);
        else
            out_line(o, "if (ctx.save_conn && nrt_conn_save(&ctx, \"%s\", &%s, %s_w, (int)sizeof(real), %s_d) != NRT_OK) return fail(argv[0]);",
                     m->projs[k]->name, m->projs[k]->cname, m->projs[k]->cname, m->projs[k]->cname);
    }
    for (int k = 0; k < m->nprojs; k++)   /* the built synapse counts, for --bench */
        if (!m->projs[k]->procedural)
            out_line(o, "nrt_proj_stat(&ctx, %d, %d, (double)%s.nnz);", k, m->projs[k]->pre.pop->id,
                     m->projs[k]->cname);
    if (m->mpi)
        emit_mpi_interval(o, m);
    out_line(o, "ctx.t_construct = nrt_now() - t0;");
    out_line(o, "if (ctx.resume_dir && ckpt_load() != 0) return fail(argv[0]);");
    out_line(o, "if (open_records() != 0) return fail(argv[0]);");
    out_line(o, "t0 = nrt_sim_begin(&ctx);");
    out_line(o, "int64_t step = ctx.start_step; /* 0, or the checkpoint's step (--resume) */");
    out_line(o, "int stop = 0; /* stopped after a checkpoint, or by a signal */");
    int64_t end = 0;
    for (int p = 0; p < m->nphases; p++) {
        const IrPhase *ph = &m->phases[p];
        /* a resumed run skips the phases before the checkpoint's: their effects are in it */
        out_open(o, "if (!stop && ctx.start_phase <= %d)", p);
        if (ph->kind == PH_RUN) {
            end += ph->steps;
            out_line(o, "/* run %lld steps */", (long long)ph->steps);
            if (m->mpi) {   /* intervals of nc_D steps, the spikes exchanged after each */
                out_open(o, "for (; step < %lld && !nc_stop;)", (long long)end);
                out_line(o, "const int64_t e = %lld - step < nc_D ? %lld : step + nc_D;", (long long)end, (long long)end);
                out_line(o, "if (nrt_mpi_begin(&ctx, mpi, (int)(e - step), %d) != NRT_OK) return fail(argv[0]);",
                         m->npops);
                out_open(o, "for (int64_t s = step; s < e; s++)");
                out_line(o, "if (local_step(s) != 0) return fail(argv[0]);");
                out_line(o, "if (ctx.check_finite && (s + 1) %% ctx.check_finite == 0 && check_finite(s) != 0) return fail(argv[0]);");
                out_close(o);
                out_line(o, "nc_stop = nrt_mpi_exchange(&ctx, mpi, ctx.stop_requested);");
                out_line(o, "if (nc_stop < 0) return fail(argv[0]);");
                out_line(o, "for (int64_t s = step; s < e; s++) if (deliver_step(s, (int)(s - step)) != 0) return fail(argv[0]);");
                out_line(o, "step = e;");
                out_line(o, "ctx.step = step;");
                out_line(o, "nrt_progress(&ctx);");
                out_close(o);
                out_line(o, "if (nc_stop) ctx.stop_requested = stop = 1;");
            } else {
                out_open(o, "for (; step < %lld && !ctx.stop_requested; step++)", (long long)end);
                out_line(o, "if (do_step(step) != 0) return fail(argv[0]);");
                out_line(o, "ctx.step = step + 1;");
                out_line(o, "if (ctx.check_finite && (step + 1) %% ctx.check_finite == 0 && check_finite(step) != 0) return fail(argv[0]);");
                out_line(o, "if ((step & 1023) == 0) nrt_progress(&ctx);");
                out_open(o, "if (ctx.step == ctx.ckpt_step)");
                out_line(o, "if (ckpt_save(%d) != 0) return fail(argv[0]);", p);
                out_line(o, "if (ctx.ckpt_stop) { stop = 1; break; }");
                out_close(o);
                out_close(o);
                out_open(o, "if (ctx.stop_requested)");
                out_line(o, "stop = 1;");
                out_line(o, "if (ctx.ckpt_dir && ctx.ckpt_written != ctx.step && ckpt_save(%d) != 0) return fail(argv[0]);", p);
                out_close(o);
            }
            for (int k = 0; k < m->nprojs; k++)
                if (m->projs[k]->plast && m->projs[k]->plast->event)
                    out_line(o, "if (!stop) catchup_%s(step); /* event-driven synapse dynamics: current at the end of the run */",
                             m->projs[k]->cname);
            out_close(o);
        } else {
            const IrVar *v = ph->var;
            CgDialect d = dialect(m, v->pop);
            StrBuf val = {0};
            cg_real(&d, ph->value, &val);
            out_line(o, "/* set %s.%s */", ph->proj ? ph->proj->name : ph->view.pop->name, v->label);
            if (ph->proj) {
                out_line(o, "%s = %s;", v->cname, val.s);
                out_line(o, "if (props_%s() != 0) return fail(argv[0]);", ph->proj->cname);
                out_close(o);
                sb_free(&val);
                continue;
            }
            if (v->per_neuron) {
                out_line(o, "for (int64_t n = %lld; n < %lld; n++) %s[n] = %s;", (long long)ph->view.offset,
                         (long long)(ph->view.offset + ph->view.size), v->cname, val.s);
            } else {
                out_line(o, "%s = %s;", v->cname, val.s);
            }
            out_line(o, "if (props_%s() != 0) return fail(argv[0]);", v->pop->cname);
            out_close(o);
            sb_free(&val);
        }
    }
    out_line(o, "ctx.t_simulate = nrt_sim_end(&ctx, t0);");
    out_line(o, "if (ctx.stop_requested) ctx.interrupted = 1;");
    out_open(o, "if (nrt_finish(&ctx) != NRT_OK)");
    out_line(o, "fprintf(stderr, \"%%s: error: %%s\\n\", argv[0], ctx.errmsg);");
    out_line(o, "free_all();");
    out_line(o, "return 1;");
    out_close(o);
    out_line(o, "nrt_report(&ctx);");
    out_line(o, "free_all();");
    out_line(o, "return ctx.interrupted ? 130 : 0;");
    out_close(o);
}

static const char *src_path(Compiler *cc, const IrModel *m, const BuildOpts *bo)
{
    return arena_printf(&cc->arena, "%s/%s.c", bo->emit_dir, m->name);
}

/* Write <emit_dir>/<model>.c. */
static int emit_c(Compiler *cc, IrModel *m, const BuildOpts *bo)
{
    Out o = {0};
    sb_free(&owned);
    emit_prelude(&o, m);
    for (int i = 0; i < m->npops; i++)
        emit_pop_storage(&o, m->pops[i], m);
    for (int k = 0; k < m->nprojs; k++) {
        if (m->projs[k]->plast) {
            if (m->projs[k]->rule == IR_PAIRS) {   /* prob, within, where: the row function */
                CgDialect d = dialect(m, m->projs[k]->pre.pop);
                cg_conn_row(&o, &d, m->projs[k], "static", "");
            }
            emit_plast_storage(&o, m->projs[k], m);
            emit_plast_build(&o, m->projs[k], m);
            emit_plast_step(&o, m->projs[k], m);
        } else {
            emit_proj(cc, &o, m->projs[k], m);
        }
    }
    cg_mem_plan(&o, m, 0);
    for (int i = 0; i < m->npops; i++) {
        emit_pop_init(&o, m->pops[i], m);
        emit_pop_step(&o, m->pops[i], m);
    }
    emit_records(&o, m);
    if (m->mpi)
        emit_step_mpi(&o, m);
    else
        emit_step(&o, m);
    cg_ckpt_c(cc, &o, m);
    emit_main(&o, m);
    const char *path = src_path(cc, m, bo);
    int rc = out_write_file(&o, path);
    if (rc != 0)
        error_at(cc, NOLOC, "cannot write '%s': %s", path, strerror(errno));
    out_free(&o);
    sb_free(&owned);
    return rc;
}

/* Compile the emitted source with the system C compiler and link the runtime. */
static int build_c(Compiler *cc, IrModel *m, const BuildOpts *bo)
{
    const char *src = src_path(cc, m, bo);
    const char *inc = arena_printf(&cc->arena, "-I%s", bo->include_dir);
    const char *lib = arena_printf(&cc->arena, "%s/libneurort.a", bo->lib_dir);
    const char *mlib = arena_printf(&cc->arena, "%s/libneurort_mpi.a", bo->lib_dir);
    const char *args[] = {inc, src, lib, bo->hdf5_lib, "-lm", "-o", bo->output, NULL};
    const char *args_mpi[] = {inc, src, mlib, lib, bo->hdf5_lib, "-lm", "-o", bo->output, NULL};
    int rc = cg_run(cc, cg_cc_argv(cc, bo, m->mpi ? args_mpi : args), bo->verbose);
    if (rc != 0) {
        error_at(cc, NOLOC, "the C compiler '%s' failed on the generated code (%s)",
                 bo->cc, rc < 0 ? "could not run it" : "see its messages above");
        return -1;
    }
    return 0;
}

/* --explain: the kernel plan of the C program, what runs in one time step. */
static void explain_c(Compiler *cc, const IrModel *m, const char *arch)
{
    printf("kernel plan (c): one thread; each step:");
    for (int k = 0; k < m->nprojs; k++)
        if (m->projs[k]->plast)
            printf(" arrive_%s,", m->projs[k]->name);
    for (int i = 0; i < m->npops; i++)
        printf(" step_%s (%lld neurons%s),", m->pops[i]->name, (long long)m->pops[i]->size,
               m->pops[i]->topk ? ", then top-k selection" : "");
    for (int k = 0; k < m->nprojs; k++)
        printf(" %s_%s%s,", m->projs[k]->plast ? "learn" : "propagate", m->projs[k]->name,
               m->projs[k]->procedural ? " (rows regenerated)" : "");
    printf(" records\n");
}

const Backend backend_c = {
    .name = "c",
    .emit = emit_c,
    .build = build_c,
    .explain = explain_c,
};
