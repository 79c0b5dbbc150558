/* c_famthr.c -- --threads: the members of procedural projection families delivered on the
 * pool (cgc_par_pfam in c_par.c decides which; docs/architecture.md, "Threads").
 *
 * The one-thread delivery adds, for each member in projection order, the rows of its spikes
 * in spike order, each row in row order (deliver_units). On T threads the step's items, the
 * (member, spike) pairs in that order, are cut into T contiguous shares of about equal cost
 * (a row's cost: 1 + its synapses, about, nc_pf_rw); thread t regenerates its share's rows
 * into its buffers by the thread owning each post (rows_fam<f>), then thread u adds its
 * buffers of threads 0 .. T-1 in order (nc_pf_put): each ring element gets its values in the
 * one-thread order, whatever T. Every projection of such a member's ring is such a member
 * (cgc_par_pfam), so nothing else adds into these rings in between. The families' own
 * functions, and rows_fam<f> (a member's rows into the buffers), are c_family.c's.
 */
#include <stdlib.h>

#include "c_priv.h"

/* The members delivered on the threads, in projection order: their projections. */
static int pf_members(const IrModel *m, const IrProj **v)
{
    const CgFamPlan *P = cgc_fam_the_plan();
    int n = 0;
    for (int k = 0; k < m->nprojs && P->c; k++)
        if (P->c[k].fam >= 0 && cgc_par_pfam(m, m->projs[k])) {
            if (v)
                v[n] = m->projs[k];
            n++;
        }
    return n;
}

/* The spike-list bounds (pre population, neuron) the members' spikes start and end at: b's
 * index in v (added if new), n of them. */
static int pf_bound(const IrPop **pv, int64_t *vv, int *n, const IrPop *p, int64_t v)
{
    for (int b = 0; b < *n; b++)
        if (pv[b] == p && vv[b] == v)
            return b;
    pv[*n] = p;
    vv[*n] = v;
    return (*n)++;
}

/* nc_pfm[], the bounds nc_pf_bv[], the step's arrays and nc_pf_push (before the families'
 * rows_fam<f>). */
static void emit_pf_tables(Out *o, const IrProj **v, int n)
{
    const CgFamPlan *P = cgc_fam_the_plan();
    const IrPop **pv = xmalloc(2 * (size_t)n * sizeof *pv);
    int64_t *vv = xmalloc(2 * (size_t)n * sizeof *vv);
    int nb = 0;
    out_line(o, "/* --threads: the members of procedural families delivered on the threads, in projection order");
    out_line(o, " * (c_famthr.c, pf_deliver): family, member, the bounds of its spikes in nc_pf_bv */");
    out_open(o, "static const struct { int f, q, lo, hi; } nc_pfm[%d] =", n);
    for (int i = 0; i < n; i++) {
        const IrProj *j = v[i];
        const int lo = pf_bound(pv, vv, &nb, j->pre.pop, j->pre.offset);
        const int hi = pf_bound(pv, vv, &nb, j->pre.pop, j->pre.offset + j->pre.size);
        out_line(o, "{%d, %d, %d, %d},", P->c[j->id].fam, P->c[j->id].q, lo, hi);
    }
    out_close_with(o, ";");
    out_line(o, "/* a spike list and a neuron: this step's first spike at or after it in nc_pf_bk */");
    out_open(o, "static const struct { int64_t *const *spk; const int64_t *nspk; int64_t v; } nc_pf_bv[%d] =", nb);
    for (int b = 0; b < nb; b++)
        out_line(o, "{&%s_spk, &%s_nspk, %lld},", pv[b]->cname, pv[b]->cname, (long long)vv[b]);
    out_close_with(o, ";");
    out_line(o, "static int64_t nc_pf_bk[%d];", nb);
    out_line(o, "static int64_t nc_pf_k0[%d], nc_pf_n[%d]; /* member m's spikes of the step: the first, the count */", n, n);
    out_line(o, "static int64_t nc_pf_rw[%d], nc_pf_cw[%d]; /* a row's cost; the cost of the step's items before member m */",
             n, n + 1);
    out_line(o, "static int64_t nc_pf_r0, nc_pf_r1; /* the round's items: their costs [r0, r1) of the step's */");
    out_line(o, "#ifndef NC_PF_ROUND /* a round's cost at most: the buffers' entries, about (tests: --cflags -DNC_PF_ROUND=N) */");
    out_line(o, "#define NC_PF_ROUND ((int64_t)1 << 24)");
    out_line(o, "#endif");
    out_line(o, "static nrt_pbuf *nc_pf_b; /* T x T buffers: [t T + u], thread t's entries onto thread u's posts */");
    out_blank(o);
    out_line(o, "/* an entry onto post p (of the ring's row) in slot, thread t's to thread u; a marker (post -1,");
    out_line(o, " * slot m) first where the ring is not that of u's last entry: member m's ring from there on */");
    out_open(o, "static inline void nc_pf_push(nrt_pbuf *nc_b, const void **last, const void *ring, int m, int u, int64_t p, int64_t slot, double w)");
    out_open(o, "if (last[u] != ring)");
    out_line(o, "last[u] = ring;");
    out_line(o, "nrt_pbuf_push(&nc_b[u], -1, m, 0.0);");
    out_close(o);
    out_line(o, "nrt_pbuf_push(&nc_b[u], p, slot, w);");
    out_close(o);
    out_blank(o);
    free(pv);
    free(vv);
}

/* Contract: c_priv.h. */
void cgc_fam_par_head(Out *o, const IrModel *m)
{
    const int n = pf_members(m, NULL);
    if (!n)
        return;
    const IrProj **v = xmalloc((size_t)n * sizeof *v);
    pf_members(m, v);
    emit_pf_tables(o, v, n);
    free(v);
}

/* A switch over the families on the threads of member m (`mv`), `line` per family f
 * (printf format with %d for f, used up to 4 times), inside a function. */
static void pf_switch(Out *o, const IrModel *m, const char *mv, const char *line)
{
    const CgFamPlan *P = cgc_fam_the_plan();
    out_open(o, "switch (nc_pfm[%s].f)", mv);
    for (int f = 0; f < P->nfam; f++)
        if (cgc_par_pfam(m, m->projs[P->first[f]]))
            out_line(o, line, f, f, f, f);
    out_line(o, "default: break;");
    out_close(o);
}

/* pf_start(): the rows' costs and the buffers (after the builds); nc_pf_ring, nc_pf_rows,
 * nc_pf_put (the pool's two regions) and pf_deliver(step), which runs them or, on one thread,
 * deliver_units. */
static void emit_pf_regions(Out *o, const IrModel *m, int n)
{
    out_line(o, "/* --threads: the rows' costs (1 + the synapses of a row, about) and the buffers, after the builds */");
    out_open(o, "static int pf_start(void)");
    out_open(o, "for (int m = 0; m < %d; m++)", n);
    out_line(o, "nrt_conn_spec spec;");
    out_line(o, "double nnz = 0, n_pre = 1;");
    out_line(o, "memset(&spec, 0, sizeof spec);");
    pf_switch(o, m, "m", "case %d: spec_fam%d(&nc_fam%d[nc_pfm[m].q], &spec); n_pre = (double)nc_fam%d[nc_pfm[m].q].n_pre; break;");
    out_line(o, "(void)nrt_conn_bytes(&spec, 0, &nnz);");
    out_line(o, "nc_pf_rw[m] = 1 + (int64_t)(nnz / (n_pre > 0 ? n_pre : 1));");
    out_close(o);
    out_line(o, "if (ctx.threads > 1 && !(nc_pf_b = nrt_pbufs_new(&ctx, ctx.threads))) return -1;");
    out_line(o, "return 0;");
    out_close(o);
    out_blank(o);
    out_line(o, "/* the ring member m adds into, and its width */");
    out_open(o, "static void nc_pf_ring(int m, real **ring, int64_t *width)");
    pf_switch(o, m, "m", "case %d: *ring = *nc_fam%d[nc_pfm[m].q].ring, *width = nc_fam%d[nc_pfm[m].q].width; break;");
    out_close(o);
    out_blank(o);
    out_line(o, "/* member m's spikes of the step before cost B: thread t's are [cut(B_t), cut(B_t+1)), B_t = W t / T */");
    out_open(o, "static int64_t nc_pf_cut(int m, int64_t B)");
    out_line(o, "const int64_t x = B - nc_pf_cw[m];");
    out_line(o, "const int64_t c = x <= 0 ? 0 : (x + nc_pf_rw[m] - 1) / nc_pf_rw[m];");
    out_line(o, "return c < nc_pf_n[m] ? c : nc_pf_n[m];");
    out_close(o);
    out_blank(o);
    out_line(o, "/* thread t's share of the round's (member, spike) items: their rows into its buffers */");
    out_open(o, "static void nc_pf_rows(void *arg, int t, int T)");
    out_line(o, "const int64_t step = *(const int64_t *)arg;");
    out_line(o, "nrt_pbuf *const nc_b = nc_pf_b + (int64_t)t * T;");
    out_line(o, "const void *last[NRT_MAX_THREADS];");
    out_line(o, "for (int u = 0; u < T; u++) nc_b[u].n = 0, last[u] = NULL;");
    out_line(o, "const int64_t R = nc_pf_r1 - nc_pf_r0, B0 = nc_pf_r0 + R * t / T, B1 = nc_pf_r0 + R * (t + 1) / T;");
    out_line(o, "int lo = 0, hi = %d; /* the first member with items at or after B0 */", n);
    out_open(o, "while (lo < hi)");
    out_line(o, "const int mid = lo + (hi - lo) / 2;");
    out_line(o, "if (nc_pf_cw[mid + 1] <= B0) lo = mid + 1; else hi = mid;");
    out_close(o);
    out_open(o, "for (int m = lo; m < %d && nc_pf_cw[m] < B1; m++)", n);
    out_line(o, "const int64_t a = nc_pf_k0[m] + nc_pf_cut(m, B0), b = nc_pf_k0[m] + nc_pf_cut(m, B1);");
    out_line(o, "if (a >= b) continue;");
    pf_switch(o, m, "m", "case %d: rows_fam%d(step, nc_pfm[m].q, m, a, b, nc_b, last, T); break;");
    out_close(o);
    out_close(o);
    out_blank(o);
    out_line(o, "/* thread u adds the entries onto its posts, of threads 0 .. T-1 in order: the one-thread order */");
    out_open(o, "static void nc_pf_put(void *arg, int u, int T)");
    out_line(o, "real *ring = NULL;");
    out_line(o, "int64_t width = 0;");
    out_line(o, "(void)arg;");
    out_open(o, "for (int t = 0; t < T; t++)");
    out_line(o, "const nrt_pbuf *const b = nc_pf_b + (int64_t)t * T + u;");
    out_open(o, "for (int64_t x = 0; x < b->n; x++)");
    out_line(o, "const nrt_pent e = b->e[x];");
    out_line(o, "if (e.post < 0) nc_pf_ring(e.slot, &ring, &width); /* a marker: member e.slot's ring */");
    out_line(o, "else ring[(int64_t)e.slot * width + e.post] += (real)e.w;");
    out_close(o);
    out_close(o);
    out_close(o);
    out_blank(o);
}

/* pf_deliver(step): the step's items counted, then the two regions for each round of them (a
 * burst's rows in several rounds, in order, so that the buffers stay bounded); with one thread
 * (or one item) the runs of members on the threads through deliver_units, as one thread
 * delivers them. */
static void emit_pf_deliver(Out *o, const IrModel *m, int n)
{
    const CgFamPlan *P = cgc_fam_the_plan();
    out_line(o, "/* --threads: this step's rows of the members of nc_pfm[] (c_famthr.c, pf_deliver) */");
    out_open(o, "static int pf_deliver(int64_t step)");
    out_line(o, "for (int b = 0; b < (int)(sizeof nc_pf_bk / sizeof nc_pf_bk[0]); b++)");
    out_line(o, "    nc_pf_bk[b] = nc_spk_lower(*nc_pf_bv[b].spk, *nc_pf_bv[b].nspk, nc_pf_bv[b].v);");
    out_line(o, "int64_t cw = 0, items = 0;");
    out_open(o, "for (int m = 0; m < %d; m++)", n);
    out_line(o, "nc_pf_k0[m] = nc_pf_bk[nc_pfm[m].lo];");
    out_line(o, "nc_pf_n[m] = nc_pf_bk[nc_pfm[m].hi] - nc_pf_k0[m];");
    out_line(o, "nc_pf_cw[m] = cw;");
    out_line(o, "cw += nc_pf_n[m] * nc_pf_rw[m];");
    out_line(o, "items += nc_pf_n[m];");
    out_close(o);
    out_line(o, "nc_pf_cw[%d] = cw;", n);
    out_line(o, "/* one thread, or one row: the one-thread delivery */");
    out_open(o, "if (!nc_pf_b || items < 2)");
    for (int u = 0; u < P->nu;) {
        if (!cgc_par_pfam(m, m->projs[P->first[P->u[u].f]])) {
            u++;
            continue;
        }
        int e = u;
        while (e < P->nu && cgc_par_pfam(m, m->projs[P->first[P->u[e].f]]))
            e++;
        out_line(o, "deliver_units(step, 0, %d, %d);", u, e);
        u = e;
    }
    out_line(o, "return 0;");
    out_close(o);
    out_open(o, "for (nc_pf_r0 = 0; nc_pf_r0 < cw; nc_pf_r0 = nc_pf_r1) /* rounds of items in order: bounded buffers */");
    out_line(o, "nc_pf_r1 = cw - nc_pf_r0 > NC_PF_ROUND ? nc_pf_r0 + NC_PF_ROUND : cw;");
    out_line(o, "nrt_pool_run(nc_pf_rows, &step, (double)(nc_pf_r1 - nc_pf_r0));");
    out_line(o, "if (nrt_pbufs_check(&ctx, nc_pf_b, ctx.threads) != NRT_OK) return -1;");
    out_line(o, "nrt_pool_run(nc_pf_put, NULL, (double)(nc_pf_r1 - nc_pf_r0));");
    out_close(o);
    out_line(o, "return 0;");
    out_close(o);
    out_blank(o);
}

/* Contract: c_priv.h. */
void cgc_fam_par_tail(Out *o, const IrModel *m)
{
    const int n = pf_members(m, NULL);
    if (!n)
        return;
    emit_pf_regions(o, m, n);
    emit_pf_deliver(o, m, n);
}
