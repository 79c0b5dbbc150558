/* c_par.c -- the C back end's threads (./sim --threads N, the pool of runtime/src/rt_pool.c):
 * which phases of a step run on every thread, and the region functions that run them.
 *
 * Bits do not depend on N by construction. Neuron phase: thread t of T steps the neurons
 * [lo + len t / T, lo + len (t + 1) / T) of each population (neurons are independent within
 * a step; draws are keyed by neuron and step) and lists its spikes at its own offset of the
 * spike list, joined in thread order afterwards (nrt_spikes_join): the one-thread order.
 * Delivery of stored static projections: thread t adds into the posts it owns (nrt_split),
 * each row's synapses in row order, so every post's sum is the one-thread sum; after a warm-up
 * the owners of each ring move to equal shares of its measured events (emit_own,
 * nrt_own_balance), which keeps every sum's writer and order. Procedural
 * projections (a ring of their own): thread t regenerates the rows of a contiguous share of
 * the spikes into buffers by target thread, then each thread adds its buffers in thread order
 * (c_proc.c, nrt_pbuf). Plastic projections split their synapses by post the same way
 * (c_plast.c), top-k populations gather candidates per thread and select on one (c_neuron.c).
 * `set` blocks per neuron split by neuron range (nc_set<p>); the recordings and the other
 * set phases run on the calling thread.
 */
#include <stdlib.h>
#include <string.h>

#include "c_priv.h"

/* 1 when block b writes only per-neuron variables (of the neuron stepped). */
static int writes_own(const IrBlock *b)
{
    for (int i = 0; i < b->n; i++) {
        const IrStmt *s = b->v[i];
        if (s->kind == IS_ASSIGN && !s->var->per_neuron)
            return 0;
        if (s->kind == IS_IF && (!writes_own(&s->body) || !writes_own(&s->els)))
            return 0;
    }
    return 1;
}

/* Contract: c_priv.h. */
int cgc_par_pop(const IrPop *p)
{
    return writes_own(&p->body) && (!p->topk || writes_own(&p->topk->after));
}

/* A stored static projection: its delivery is partitioned by post (nrt_split). */
static int par_kind(const IrProj *j)
{
    return !j->plast && !j->procedural;
}

/* The model's decisions (cgc_par_proj): par[k] for projection k. */
static struct {
    const IrModel *m;
    unsigned char *par;
} Q;

/* A ring's sums in projection order, and a family's one delivery function: every projection
 * of a ring, and every member of a family, is delivered on the threads or none is. */
static void plan(const IrModel *m)
{
    const int n = m->nprojs;
    unsigned char *bad = xmalloc((size_t)(n ? n : 1));
    free(Q.par);
    Q.par = xmalloc((size_t)(n ? n : 1));
    Q.m = m;
    for (int k = 0; k < n; k++)
        Q.par[k] = (unsigned char)par_kind(m->projs[k]);
    for (int changed = 1; changed;) {
        changed = 0;
        for (int pass = 0; pass < 2; pass++) {   /* rings (by owner), then families */
            memset(bad, 0, (size_t)(n ? n : 1));
            for (int k = 0; k < n; k++) {
                const int g = pass ? cgc_fam_of(m->projs[k]) : m->projs[k]->ring->id;
                if (g >= 0 && !Q.par[k])
                    bad[g] = 1;
            }
            for (int k = 0; k < n; k++) {
                const int g = pass ? cgc_fam_of(m->projs[k]) : m->projs[k]->ring->id;
                if (g >= 0 && Q.par[k] && bad[g])
                    Q.par[k] = 0, changed = 1;
            }
        }
    }
    free(bad);
}

/* Contract: c_priv.h. */
int cgc_par_proj(const IrModel *m, const IrProj *j)
{
    if (Q.m != m)
        plan(m);
    return Q.par[j->id];
}

/* Contract: c_priv.h. */
void cgc_par_reset(void)
{
    free(Q.par);
    Q.par = NULL;
    Q.m = NULL;
}

/* Contract: c_priv.h. */
int cgc_par_proc(const IrProj *j)
{
    return j->procedural && !j->plast && j->ring == j && j->ring_n == 1 && !cgc_fam_member(j);
}

/* 1 when a top-k population of m runs on the threads; *n: their neurons. */
static int par_topk(const IrModel *m, int64_t *n)
{
    int any = 0;
    for (int i = 0; i < m->npops; i++)
        if (m->pops[i]->topk && cgc_par_pop(m->pops[i])) {
            any = 1;
            if (n)
                *n += m->pops[i]->size;
        }
    return any;
}

/* 1 when m's delivery owners move after the warm-up (nrt_own_balance): a projection is
 * delivered on the threads, and no --mpi (its ranks keep the equal ranges). */
static int own_on(const IrModel *m)
{
    int any = 0;
    for (int k = 0; k < m->nprojs; k++)
        any |= cgc_par_proj(m, m->projs[k]);
    return any && !m->mpi;
}

/* 1 when population p is the source of a projection delivered on the threads (own_on). */
static int own_src(const IrModel *m, const IrPop *p)
{
    for (int k = 0; k < m->nprojs; k++)
        if (m->projs[k]->pre.pop == p && cgc_par_proj(m, m->projs[k]))
            return 1;
    return 0;
}

/* The delivery owners by the warm-up's events (own_on): its spike counts, own_start() at the
 * end of construction, own_count() each warm-up step, own_balance() once after it. */
static void emit_own(Out *o, const IrModel *m)
{
    int n = 0;
    out_line(o, "/* --threads: the delivery owners from the events of the first steps (nrt_own_balance) */");
    out_line(o, "static int64_t nc_warm, nc_wsteps; /* warm-up steps left to count (0: none), and all */");
    for (int i = 0; i < m->npops; i++)
        if (own_src(m, m->pops[i]))
            out_line(o, "static int32_t *%s_wc; /* its neurons' spikes in the warm-up */", m->pops[i]->cname);
    out_open(o, "static int own_start(void)");
    out_line(o, "if (ctx.threads <= 1 || (nc_warm = nc_wsteps = nrt_own_warmup(dt)) == 0) return 0;");
    for (int i = 0; i < m->npops; i++) {
        const IrPop *p = m->pops[i];
        if (!own_src(m, p))
            continue;
        out_line(o, "%s_wc = nrt_alloc(&ctx, %lldu * sizeof(int32_t), \"threads: warm-up spikes\");", p->cname,
                 (long long)(p->size ? p->size : 1));
        out_line(o, "if (!%s_wc) return -1;", p->cname);
        cgc_own("%s_wc", p->cname);
    }
    out_line(o, "return 0;");
    out_close(o);
    out_blank(o);
    out_open(o, "static void own_count(void)");
    for (int i = 0; i < m->npops; i++)
        if (own_src(m, m->pops[i]))
            out_line(o, "for (int64_t k = 0; k < %s_nspk; k++) %s_wc[%s_spk[k]]++;", m->pops[i]->cname,
                     m->pops[i]->cname, m->pops[i]->cname);
    out_close(o);
    out_blank(o);
    for (int k = 0; k < m->nprojs; k++)
        n += cgc_par_proj(m, m->projs[k]);
    out_open(o, "static int own_balance(int64_t step)");
    out_line(o, "static nrt_own_part v[%d];", n);
    out_line(o, "int n = 0;");
    for (int k = 0; k < m->nprojs; k++) {
        const IrProj *j = m->projs[k];
        if (!cgc_par_proj(m, j) || cgc_fam_member(j))
            continue;
        out_line(o, "v[n++] = (nrt_own_part){&%s_ring, %lld, %lld, &%s, &%s_sp, %s_wc + %lld};", j->ring->cname,
                 (long long)j->ring->ring_size, (long long)cg_ring_base(j), j->cname, j->cname, j->pre.pop->cname,
                 (long long)j->pre.offset);
    }
    cgc_fam_own_parts(o, m);
    out_line(o, "const nrt_status st = nrt_own_balance(&ctx, v, n, nc_wsteps);");
    for (int i = 0; i < m->npops; i++)
        if (own_src(m, m->pops[i]))
            out_line(o, "nrt_free(%s_wc), %s_wc = NULL;", m->pops[i]->cname, m->pops[i]->cname);
    out_line(o, "return st == NRT_OK ? 0 : -1;");
    out_close(o);
    out_blank(o);
}

/* Contract: c_priv.h. After --save-connectivity (the rows in their own order): the rows of
 * every projection delivered on the threads with ranks (unsorted rows) moved into thread
 * order (nrt_split_group), so that a thread reads its synapses of a row together. */
void cgc_par_group(Out *o, const IrModel *m)
{
    if (!own_on(m))
        return;
    for (int k = 0; k < m->nprojs; k++) {
        const IrProj *j = m->projs[k];
        if (cgc_par_proj(m, j) && !cgc_fam_member(j))
            out_line(o, "if (nrt_split_group(&ctx, &%s, &%s_sp, %s_w, (int)sizeof(real), %s_d) != NRT_OK) return fail(argv[0]);",
                     j->cname, j->cname, j->cname, j->cname);
    }
    cgc_fam_group(o, m);
}

/* Contract: c_priv.h. */
void cgc_par_own_start(Out *o, const IrModel *m)
{
    if (own_on(m))
        out_line(o, "if (own_start() != 0) return fail(argv[0]); /* --threads: delivery owners */");
}

/* Contract: c_priv.h. */
void cgc_par_regions(Out *o, const IrModel *m)
{
    int any = 0;
    out_line(o, "/* the neuron phase on thread t of T (docs/architecture.md, threads) */");
    out_open(o, "static void nc_neurons(void *arg, int t, int T)");
    out_line(o, "const int64_t step = *(const int64_t *)arg;");
    for (int i = 0; i < m->npops; i++)
        if (cgc_par_pop(m->pops[i]))
            out_line(o, "step_%s(step, t, T);", m->pops[i]->cname);
    out_line(o, "(void)step; (void)t; (void)T;");
    out_close(o);
    out_blank(o);
    if (par_topk(m, NULL)) {
        out_line(o, "/* the `after` block of the top-k populations on thread t of T, after their selection */");
        out_open(o, "static void nc_after(void *arg, int t, int T)");
        out_line(o, "const int64_t step = *(const int64_t *)arg;");
        for (int i = 0; i < m->npops; i++)
            if (m->pops[i]->topk && cgc_par_pop(m->pops[i]))
                out_line(o, "after_%s(step, t, T);", m->pops[i]->cname);
        out_close(o);
        out_blank(o);
    }
    for (int k = 0; k < m->nprojs; k++)
        any |= cgc_par_proj(m, m->projs[k]);
    if (!any)
        return;
    out_line(o, "/* the delivery of the stored static projections on thread t: the posts it owns */");
    out_open(o, "static void nc_deliver(void *arg, int t, int T)");
    out_line(o, "const int64_t step = *(const int64_t *)arg;");
    out_line(o, "(void)T;");
    for (int k = 0, u, n; k < m->nprojs; k += n ? n : 1) {
        n = cgc_fam_unit(k, &u);   /* a family's run of members: one call */
        if (!cgc_par_proj(m, m->projs[k]))
            continue;
        if (n)
            out_line(o, "deliver_units(step, t, %d, %d);", u, u + 1);
        else
            out_line(o, "propagate_%s(step, t);", m->projs[k]->cname);
    }
    out_close(o);
    out_blank(o);
    if (own_on(m))
        emit_own(o, m);
}

/* Contract: c_priv.h. */
void cgc_par_neurons(Out *o, const IrModel *m)
{
    int64_t n = 0;
    for (int i = 0; i < m->npops; i++)
        if (cgc_par_pop(m->pops[i]))
            n += m->pops[i]->size;
    out_line(o, "nrt_pool_run(nc_neurons, &step, %lld.0); /* neurons */", (long long)n);
    for (int i = 0; i < m->npops; i++) {
        const IrPop *p = m->pops[i];
        if (!cgc_par_pop(p))
            out_line(o, "step_%s(step, 0, 1); /* on one thread */", p->cname);
    }
    int64_t ntk = 0;
    for (int i = 0; i < m->npops; i++)   /* top-k: the selection on one thread */
        if (m->pops[i]->topk)
            out_line(o, "topk_%s(step, %s);", m->pops[i]->cname, cgc_par_pop(m->pops[i]) ? "ctx.threads" : "1");
    if (par_topk(m, &ntk))
        out_line(o, "nrt_pool_run(nc_after, &step, %lld.0); /* top-k: after */", (long long)ntk);
    for (int i = 0; i < m->npops; i++)
        if (m->pops[i]->topk && !cgc_par_pop(m->pops[i]))
            out_line(o, "after_%s(step, 0, 1); /* on one thread */", m->pops[i]->cname);
    for (int i = 0; i < m->npops; i++) {
        const IrPop *p = m->pops[i];
        if (!p->has_spikes)
            continue;   /* its count stays 0 */
        if (cgc_par_pop(p) && m->mpi)
            out_line(o, "%s_nspk = nrt_spikes_join(%s_spk, %s_hi - %s_lo, %s_tn, ctx.threads);", p->cname,
                     p->cname, p->cname, p->cname, p->cname);
        else if (cgc_par_pop(p))
            out_line(o, "%s_nspk = nrt_spikes_join(%s_spk, %s_N, %s_tn, ctx.threads);", p->cname, p->cname,
                     p->cname, p->cname);
        else
            out_line(o, "%s_nspk = %s_tn[0];", p->cname, p->cname);
    }
}

/* Contract: c_priv.h. */
void cgc_par_deliver(Out *o, const IrModel *m)
{
    int any = 0;
    for (int k = 0; k < m->nprojs; k++)
        any |= cgc_par_proj(m, m->projs[k]);
    if (any && own_on(m))
        out_line(o, "if (nc_warm > 0) own_count();");
    if (any) {   /* the synapses of the step's spikes, about */
        out_begin(o);
        out_line(o, "double work = 0;");
        for (int k = 0, u, n; k < m->nprojs; k += n ? n : 1) {
            const IrProj *j = m->projs[k];
            n = cgc_fam_unit(k, &u);
            if (!cgc_par_proj(m, j))
                continue;
            if (n)
                out_line(o, "work += work_units(%d, %d);", u, u + 1);
            else
                out_line(o, "work += (double)%s_nspk * (double)%s.nnz / %lld.0;", j->pre.pop->cname, j->cname,
                         (long long)(j->pre.size ? j->pre.size : 1));
        }
        out_line(o, "nrt_pool_run(nc_deliver, &step, work);");
        out_close(o);
    }
    for (int k = 0, u, n; k < m->nprojs; k += n ? n : 1) {
        const IrProj *j = m->projs[k];
        if ((n = cgc_fam_unit(k, &u)) != 0) {   /* a family's run of members, on one thread */
            if (!cgc_par_proj(m, j))
                out_line(o, "deliver_units(step, 0, %d, %d);", u, u + 1);
            continue;
        }
        if (cgc_par_proc(j)) {   /* rows by spike, then the ring by post: two regions */
            const char *c = j->cname, *pre = j->pre.pop->cname;
            out_open(o, "if (%s_pb && %s_nspk > 1)", c, pre);
            out_line(o, "nrt_pool_run(rows_%s, &step, (double)%s_nspk * 1e4); /* rows: long, as a rule */", c, pre);
            out_line(o, "if (nrt_pbufs_check(&ctx, %s_pb, ctx.threads) != NRT_OK) return -1;", c);
            out_line(o, "nrt_pool_run(put_%s, &step, (double)%s_nspk * 1e4);", c, pre);
            out_close(o);
            out_open(o, "else");
            out_line(o, "propagate_%s(step);", c);
            out_close(o);
        } else if (j->plast && m->mpi) {   /* the pre { } work; learn_ in local_step where D > 1 (cgc_step_mpi) */
            out_line(o, "learn_pre_%s(step);", j->cname);
            out_line(o, "if (nc_D == 1) learn_%s(step);", j->cname);
        } else if (!cgc_par_proj(m, j)) {
            out_line(o, "%s_%s(step);", j->plast ? "learn" : "propagate", j->cname);
        }
    }
    if (any && own_on(m))
        out_line(o, "if (nc_warm > 0 && --nc_warm == 0 && own_balance(step + 1) != 0) return -1;");
}

/* Contract: c_priv.h. */
void cgc_par_mem(Out *o, const IrModel *m)
{
    out_line(o, "/* the memory plan's synapse index of --threads (nrt_split), for the threads the pool will start */");
    out_open(o, "static void mem_threads(void)");
    out_line(o, "const int T = nrt_pool_threads(&ctx);");
    out_line(o, "double b = 0;");
    out_line(o, "if (T <= 1) return;");
    for (int k = 0; k < m->nprojs; k++) {
        const IrProj *j = m->projs[k];
        if (cgc_fam_member(j) || !(j->plast || cgc_par_proj(m, j)))
            continue;
        if (j->rule == IR_FROM_FILE) {   /* its rows' order is the file's: the ranks not counted */
            out_line(o, "b += %lld.0 * (T + 1) * sizeof(int64_t); /* %s */", (long long)j->pre.size, j->name);
            continue;
        }
        out_begin(o);
        cg_conn_spec(o, j);
        out_line(o, "b += nrt_split_bytes(&spec, T); /* %s */", j->name);
        out_close(o);
    }
    cgc_fam_mem_split(o, m);
    out_line(o, "if (b > 0) nrt_mem_add(&ctx, \"threads: synapse index\", -1, b);");
    out_close(o);
    out_blank(o);
}

/* Contract: c_priv.h. Under 2,048 values a row is gathered inline, as the pool would run it
 * on one thread anyway; with --mpi the rows are merged per rank (c_host.c). */
int cgc_par_rec(const IrRecord *rec)
{
    if (rec->spikes || rec->bin)
        return 0;
    if (rec->proj)
        return !rec->syn_sel;
    return (int64_t)rec->nidx * rec->nvars >= 2048;
}

/* Contract: c_priv.h. Each value of a row has its own place (variable v, element k at
 * v N + k): the bytes do not depend on who gathers them. */
void cgc_par_records(Out *o, const IrModel *m)
{
    for (int r = 0; r < m->nrecs && !m->mpi; r++) {
        const IrRecord *rec = &m->recs[r];
        if (!cgc_par_rec(rec))
            continue;
        out_line(o, "/* a row of recording %d: thread t's range of its values */", r);
        out_open(o, "static void nc_rec%d(void *arg, int t, int T)", r);
        out_line(o, "(void)arg;");
        if (rec->proj) {
            const char *jc = rec->proj->cname;
            out_open(o, "for (int64_t s = %s.nnz * t / T; s < %s.nnz * (t + 1) / T; s++)", jc, jc);
            for (int v = 0; v < rec->nvars; v++)
                out_line(o, "rec%d_row[%d * %s.nnz + s] = (double)%s[s];", r, v, jc, rec->vars[v]->cname);
        } else {
            out_open(o, "for (int64_t k = %dLL * t / T; k < %dLL * (t + 1) / T; k++)", rec->nidx, rec->nidx);
            out_line(o, "const int64_t n = rec%d_idx[k];", r);
            for (int v = 0; v < rec->nvars; v++) {
                const IrVar *var = rec->vars[v];
                out_line(o, "rec%d_row[%d * %d + k] = (double)%s%s;", r, v, rec->nidx, var->cname,
                         var->per_neuron ? "[n]" : "");
            }
        }
        out_close(o);
        out_close(o);
        out_blank(o);
    }
}

/* Contract: c_priv.h. */
int cgc_par_set(const IrModel *m, const IrPhase *ph)
{
    return ph->kind == PH_ASSIGN && !ph->proj && !m->mpi && writes_own(&ph->body) && ph->view.size >= 2048;
}

/* Contract: c_priv.h. Each neuron's new values are its own (its locals, its draws keyed by
 * neuron), so the neurons of a part are those of the one-thread loop. */
void cgc_par_sets(Out *o, const IrModel *m)
{
    for (int p = 0; p < m->nphases; p++) {
        const IrPhase *ph = &m->phases[p];
        if (!cgc_par_set(m, ph))
            continue;
        char at[32];
        snprintf(at, sizeof at, "%lld", (long long)ph->at);
        CgDialect d = cgc_dialect(m, ph->owner);
        d.rng_step = at;
        const long long lo = (long long)ph->view.offset, len = (long long)ph->view.size;
        out_line(o, "/* phase %d, %s, on thread t of T: its range of the neurons */", p, ph->what);
        out_open(o, "static void nc_set%d(void *arg, int t, int T)", p);
        out_line(o, "(void)arg;");
        out_open(o, "for (int64_t n = %lld + %lldLL * t / T; n < %lld + %lldLL * (t + 1) / T; n++)", lo, len, lo, len);
        cg_block(&d, &ph->body, o);
        out_close(o);
        out_close(o);
        out_blank(o);
    }
}
