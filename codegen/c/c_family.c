/* c_family.c -- projection families: static projections (stored or procedural) that are the
 * same but for their constants, emitted once (docs/architecture.md, "Projection families").
 *
 * The plan (which projections are members, their keys, the slots of their constants, the
 * runs of consecutive members) is cg_family.c's, shared with the GPU back ends; this file
 * prints w and delay in the C dialect and writes, per family that the plan makes:
 * one table nc_fam<f>[] of their constants (sizes, offsets, the rule's numbers, the
 * slots, the ring each adds into, names), and one build, delivery, memory plan, save and
 * statistic function that loop over a range of members. A member keeps its projection id
 * (its RNG streams, its place in --bench), its names (messages, stages,
 * --save-connectivity), and its ring (a pointer in the table), so the program builds the same
 * network and adds the same values in the same order: the host calls the families'
 * functions for the runs of consecutive members (nc_units[]), in projection order, a stretch
 * of projections that are all members at a time (cgc_fam_seg). With --threads, stored members
 * deliver by post (nc_fam<f>_sp, c_par.c), procedural ones by the step's (member, spike)
 * pairs into per-thread buffers, then by post (c_famthr.c, pf_deliver).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "c_priv.h"

/* The plan (cg_family.c): P.c[k] per projection, NULL when families are off. */
static CgFamPlan P;
typedef CgFamCand Cand;

/* The dialects of build_<J>'s w (d) and delay (dd), as cgc_proj prints them. */
static void build_dialects(const IrModel *m, const IrProj *j, CgDialect *d, CgDialect *dd)
{
    *d = cgc_dialect(m, j->pre.pop);
    d->rng_elem = "i";
    d->rng_sub = "rank";
    d->rng_step = "0";
    d->index = "i";
    *dd = *d;
    dd->dbl = 1;
    dd->real = "double";
}

static void fam_dialects(void *user, const IrModel *m, const IrProj *j, CgDialect *d, CgDialect *dd)
{
    (void)user;
    build_dialects(m, j, d, dd);
}

/* Contract: c_priv.h. The C ranks of --mpi (c_mpi.c) take every member: a stored one keeps
 * the synapses onto the rank's neurons of every row it builds (emit_build_mpi), a procedural
 * one adds its regenerated rows into them only and walks its rows for the shortest delay too
 * (emit_proc_build_deliver), as the single projections do (c_proj.c, c_proc.c). */
void cgc_fam_plan(Compiler *cc, const IrModel *m)
{
    const CgFamHooks h = {fam_dialects, NULL, NULL};
    cg_fam_plan(cc, m, &h, &P);
}

/* Contract: c_priv.h. */
void cgc_fam_explain(const IrModel *m)
{
    if (!P.nfam)
        return;
    int n[2] = {0, 0}, all[2] = {0, 0};   /* members and static projections: stored, procedural */
    for (int k = 0; k < m->nprojs; k++) {
        const IrProj *j = m->projs[k];
        n[j->procedural] += P.c[k].fam >= 0;
        all[j->procedural] += !j->plast;
    }
    printf("projection families (c): %d of %d stored ", n[0], all[0]);
    if (all[1])
        printf("and %d of %d procedural ", n[1], all[1]);
    printf("projections in %d famil%s (", P.nfam, P.nfam == 1 ? "y" : "ies");
    for (int f = 0; f < P.nfam; f++) {
        const int k0 = P.first[f];
        printf("%s%d like %s", f ? ", " : "", P.size[f], m->projs[k0]->name);
    }
    printf("), a table and one build and delivery each (--proj-tables=off: one per projection)");
    int pf = 0;
    for (int k = 0; k < m->nprojs; k++)
        pf += P.c[k].fam >= 0 && cgc_par_pfam(m, m->projs[k]);
    if (pf)   /* pf_deliver */
        printf("; --threads: %d procedural member%s delivered on every thread, the step's (member, spike) pairs "
               "shared out, then each thread's posts", pf, pf == 1 ? "" : "s");
    printf("\n");
}

/* Contract: c_priv.h. */
const CgFamPlan *cgc_fam_the_plan(void)
{
    return &P;
}

/* Contract: c_priv.h. */
void cgc_fam_reset(void)
{
    memset(&P, 0, sizeof P);
}

/* Contract: c_priv.h. */
int cgc_fam_member(const IrProj *j)
{
    return cg_fam_of(&P, j) >= 0;
}

/* Contract: c_priv.h. */
int cgc_fam_of(const IrProj *j)
{
    return cg_fam_of(&P, j);
}

/* Contract: c_priv.h. */
int cgc_fam_unit(int k, int *u)
{
    return cg_fam_unit(&P, k, u);
}

/* Contract: c_priv.h. */
int cgc_fam_seg(const IrModel *m, int k, int *u0, int *u1)
{
    (void)m;
    return cg_fam_seg(&P, k, u0, u1);
}

/* Contract: c_priv.h. */
int cgc_fam_mem_seg(Out *o, const IrModel *m, int k)
{
    int u0, u1, n = cgc_fam_seg(m, k, &u0, &u1);
    if (n)
        out_line(o, "mem_units(%d, %d);", u0, u1);
    return n;
}

/* The table's type and its rows, one per member (projection k0 the first). */
static void emit_table(Out *o, const IrModel *m, int f, int k0)
{
    const Cand *c0 = &P.c[k0];
    const IrProj *j0 = m->projs[k0];
    out_line(o, "/* projection family %d (c_family.c): %d %s projections like %s that differ only in", f,
             P.size[f], j0->procedural ? "procedural" : "stored", j0->name);
    out_line(o, " * constants; build_fam%d, deliver_fam%d, ... loop over its members' rows */", f, f);
    out_open(o, "typedef struct nc_fam%d_t", f);
    out_line(o, "const char *name, *st_conn, *st_vals, *mem; /* messages, stages, the memory plan */");
    out_line(o, "uint32_t id; /* the projection's: its RNG streams, its statistics */");
    out_line(o, "int64_t n_pre, n_post, pre_off, post_off, k;");
    out_line(o, "double p;");
    out_line(o, "real **ring; /* the delay ring it adds into, at offset roff of rows of width */");
    out_line(o, "int64_t *D, width, roff;");
    out_line(o, "int alloc; /* the last projection into the ring: allocates it */");
    out_line(o, "int par; int64_t slo, shi; /* --threads: delivered by thread t's ring neurons, [slo, shi) in its posts (c_par.c) */");
    out_line(o, "const char *ring_what;");
    out_line(o, "double slots; /* the memory plan's ring slots */");
    if (j0->procedural)
        out_line(o, "int64_t aut; uint32_t cs; double lp; /* the row loops': autapse offset, stream, log1p(-p) */");
    cg_fam_slot_fields(o, c0);
    char tail[32];
    snprintf(tail, sizeof tail, " nc_fam%d_t;", f);
    out_close_with(o, tail);
    out_open(o, "static const nc_fam%d_t nc_fam%d[%d] =", f, f, P.size[f]);
    for (int k = k0; k < m->nprojs; k++) {
        const Cand *c = &P.c[k];
        const IrProj *j = m->projs[k];
        if (c->fam != f)
            continue;
        const int alloc = j->ring->ring_n == 1 || j->ring_last;
        StrBuf b = {0};
        sb_printf(&b, "{\"%s\", \"%s: connectivity\", \"%s: synapse values\", \"projection %s%s\", %du, ", j->name,
                  j->name, j->name, j->name, j->procedural ? " (procedural)" : "", j->id);
        sb_printf(&b, "%lld, %lld, %lld, %lld, %lld, %.17g, ", (long long)j->pre.size, (long long)j->post.size,
                  (long long)j->pre.offset, (long long)j->post.offset, (long long)j->k, j->p);
        sb_printf(&b, "&%s_ring, &%s_D, %lld, %lld, %d, ", j->ring->cname, j->ring->cname,
                  (long long)j->ring->ring_size, cg_ring_base(j), alloc);
        sb_printf(&b, "%d, %lld, %lld, ", cgc_par_proj(m, j), -cg_ring_base(j),
                  (long long)j->ring->ring_size - cg_ring_base(j));
        if (alloc)
            sb_printf(&b, "\"%s: delay ring\", ", j->ring->name);
        else
            sb_puts(&b, "NULL, ");
        sb_printf(&b, "%.1f", cg_mem_slots(m, j));
        if (j->procedural)   /* as cg_row_loops prints them for j */
            sb_printf(&b, ", %lld, 0x%08xu, %.17g", (long long)(j->pre.offset - j->post.offset),
                      (3u << 24) | ((uint32_t)j->id & 0xFFFFFFu),
                      j->rule == IR_FIXED_PROB && j->p > 0 && j->p < 1 ? log1p(-j->p) : 0.0);
        cg_fam_slot_inits(&b, c);
        out_line(o, "%s},", b.s);
        sb_free(&b);
    }
    out_close_with(o, ";");
    if (j0->procedural) {
        if (j0->rule == IR_FIXED_TOTAL)
            out_line(o, "static int64_t *nc_fam%d_rp[%d]; /* row pointers: the row lengths (nrt_conn_total_rows) */",
                     f, P.size[f]);
        out_blank(o);
        return;
    }
    out_line(o, "static nrt_csr nc_fam%d_c[%d];", f, P.size[f]);
    out_line(o, "static nrt_split nc_fam%d_sp[%d]; /* --threads: each member's synapses by thread */", f, P.size[f]);
    out_line(o, "static real *nc_fam%d_w[%d];", f, P.size[f]);
    if (j0->delay)
        out_line(o, "static int32_t *nc_fam%d_d[%d]; /* delays in steps */", f, P.size[f]);
    out_blank(o);
}

/* Synapse s (row i) of a stored member inside the loops over its rows: its weight and delay
 * drawn (`rank`: the C text of its rank in the full row, which keys the draws, with the end
 * of its line), the ring's length in `maxd`; `bad`: the lines (split at newlines) run where a
 * delay is not a usable time. */
static void emit_syn_vals(Out *o, const IrProj *j0, const Cand *c0, const char *rank, const char *bad)
{
    out_line(o, "const int64_t j = nc_c->col[s], rank = %s", rank);
    out_line(o, "(void)j; (void)rank;");
    out_line(o, "nc_w[s] = %s;", c0->wt);
    if (!j0->delay)
        return;
    out_line(o, "const double delay = %s;", c0->dt);
    out_line(o, "const double steps = round(delay / dt); /* nearest, halves away from zero */");
    out_open(o, "if (!(steps < 1e9))");
    for (const char *l = bad, *e; *l; l = *e ? e + 1 : e) {
        e = strchr(l, '\n');
        if (!e)
            e = l + strlen(l);
        out_line(o, "%.*s", (int)(e - l), l);
    }
    out_close(o);
    out_line(o, "const int32_t dd = steps < 1 ? 1 : (int32_t)steps;");
    out_line(o, "nc_d[s] = dd;");
    out_line(o, "if (dd > maxd) maxd = dd;");
}

/* vals_fam<f>(arg, t, T): the weights and delays of member nc_fv<f>.q, part t of its rows
 * (nrt_rows_part) on the pool. A synapse's draws are keyed by its row and rank, so every value
 * is the same on any thread; each part keeps its longest delay and its first unusable delay,
 * which build_fam<f> combines in part order: the one-thread result and message. */
static void emit_vals(Out *o, const IrProj *j0, const Cand *c0, int f)
{
    out_line(o, "static struct { int q; int64_t maxd[NRT_MAX_THREADS], bad[NRT_MAX_THREADS], bi[NRT_MAX_THREADS], "
             "bj[NRT_MAX_THREADS]; double bd[NRT_MAX_THREADS]; } nc_fv%d;", f);
    out_open(o, "static void vals_fam%d(void *arg, int t, int T)", f);
    out_line(o, "const nc_fam%d_t *F = &nc_fam%d[nc_fv%d.q];", f, f, f);
    out_line(o, "const nrt_csr *nc_c = &nc_fam%d_c[nc_fv%d.q];", f, f);
    out_line(o, "real *nc_w = nc_fam%d_w[nc_fv%d.q];", f, f);
    if (j0->delay)
        out_line(o, "int32_t *nc_d = nc_fam%d_d[nc_fv%d.q];", f, f);
    out_line(o, "int64_t maxd = 1, i0, i1;");
    out_line(o, "(void)arg; (void)F;");
    out_line(o, "nrt_rows_part(nc_c, t, T, &i0, &i1);");
    out_line(o, "nc_fv%d.bad[t] = 0;", f);
    out_open(o, "for (int64_t i = i0; i < i1; i++)");
    out_open(o, "for (int64_t s = nc_c->row_ptr[i]; s < nc_c->row_ptr[i + 1]; s++)");
    char bad[160];
    snprintf(bad, sizeof bad, "nc_fv%d.bad[t] = 1, nc_fv%d.bi[t] = i, nc_fv%d.bj[t] = j, nc_fv%d.bd[t] = delay;\ngoto done;", f, f, f, f);
    emit_syn_vals(o, j0, c0, "s - nc_c->row_ptr[i];", bad);
    out_close(o);
    out_close(o);
    if (j0->delay)
        out_line(o, "done:");
    out_line(o, "nc_fv%d.maxd[t] = maxd;", f);
    out_close(o);
    out_blank(o);
}

/* The opening of build_fam<f>: member q's connectivity built (and, where `cut` names the post
 * population, cut to this rank's slice of it, with rk[s] the kept synapse's rank in its full
 * row: --mpi), then its weights' and delays' arrays. */
static void emit_build_open(Out *o, const IrProj *j0, int f, const char *cut)
{
    out_open(o, "static int build_fam%d(int a, int b)", f);
    out_open(o, "for (int q = a; q < b; q++)");
    out_line(o, "const nc_fam%d_t *F = &nc_fam%d[q];", f, f);
    out_line(o, "nrt_csr *nc_c = &nc_fam%d_c[q];", f);
    out_line(o, "char what[300];");
    out_line(o, "double ts = nrt_now(); /* construction stages (nrt_stage) */");
    out_line(o, "nrt_conn_spec spec;");
    out_line(o, "spec_fam%d(F, &spec);", f);
    out_line(o, "if (nrt_conn_build(&ctx, &spec, nc_c) != NRT_OK) return -1;");
    if (cut) {
        out_line(o, "int32_t *rk = NULL; /* per kept synapse: its rank in the full row, which keys its draws */");
        out_line(o, "if (nrt_mpi_restrict(&ctx, nc_c, nc_view(%s_lo, F->post_off, F->n_post), nc_view(%s_hi, F->post_off, F->n_post), &rk, NULL, NULL, NULL) != NRT_OK) return -1;",
                 cut, cut);
    }
    out_line(o, "ts = nrt_stage(&ctx, F->st_conn, ts);");
    out_line(o, "snprintf(what, sizeof what, \"%%s: weights\", F->name);");
    out_line(o, "real *nc_w = nc_fam%d_w[q] = nrt_alloc(&ctx, (size_t)(nc_c->nnz ? nc_c->nnz : 1) * sizeof(real), what);", f);
    out_line(o, "if (!nc_w) return -1;");
    if (j0->delay) {
        out_line(o, "snprintf(what, sizeof what, \"%%s: delays\", F->name);");
        out_line(o, "int32_t *nc_d = nc_fam%d_d[q] = nrt_alloc(&ctx, (size_t)(nc_c->nnz ? nc_c->nnz : 1) * sizeof(int32_t), what);", f);
        out_line(o, "if (!nc_d) return -1;");
    }
}

/* The end of build_fam<f>: the ring's length from the longest delay `maxd`, the ring allocated
 * by the last member into it. */
static void emit_build_close(Out *o)
{
    out_line(o, "if (maxd + 1 > *F->D) *F->D = maxd + 1;");
    out_line(o, "if (!F->alloc) continue; /* the last projection into the ring allocates it */");
    out_line(o, "*F->ring = nrt_alloc(&ctx, (size_t)*F->D * F->width * sizeof(real), F->ring_what);");
    out_line(o, "if (!*F->ring) return -1;");
    out_close(o);
    out_line(o, "return 0;");
    out_close(o);
    out_blank(o);
}

/* build_fam<f>(a, b) of a distributed simulator (--mpi): members a .. b - 1 built as build_<J>
 * builds one there (c_proj.c): the whole rows, cut to the synapses onto this rank's slice of
 * the post population (nrt_mpi_restrict), whose values are keyed by their ranks in the whole
 * rows (rk), on one thread; the member's synapses by thread (--threads) among the ring's
 * neurons of this rank's slice. */
static void emit_build_mpi(Out *o, const IrProj *j0, const Cand *c0, int f)
{
    const char *pc = j0->post.pop->cname;
    emit_build_open(o, j0, f, pc);
    out_line(o, "int64_t maxd = 1;");
    out_open(o, "for (int64_t i = 0; i < nc_c->n_pre; i++)");
    out_open(o, "for (int64_t s = nc_c->row_ptr[i]; s < nc_c->row_ptr[i + 1]; s++)");
    emit_syn_vals(o, j0, c0, "rk[s]; /* its rank in the full row */",
                  "snprintf(ctx.errmsg, sizeof ctx.errmsg, \"projection %s: delay %g ms of synapse %lld -> %lld is not a usable time\", "
                  "F->name, delay, (long long)i, (long long)j);\nnrt_free(rk);\nreturn -1;");
    out_close(o);
    out_close(o);
    out_line(o, "nrt_free(rk);");
    out_line(o, "(void)nrt_stage(&ctx, F->st_vals, ts);");
    out_line(o, "const int64_t l0 = %s_lo - F->post_off, h0 = %s_hi - F->post_off; /* the slice, in the member's posts */", pc, pc);
    out_line(o, "const int64_t sl = l0 < F->slo ? F->slo : l0 > F->shi ? F->shi : l0, sh = h0 < F->slo ? F->slo : h0 > F->shi ? F->shi : h0;");
    out_line(o, "if (F->par && nrt_split_build(&ctx, nc_c, sl, sh, ctx.threads, &nc_fam%d_sp[q]) != NRT_OK) return -1;", f);
    emit_build_close(o);
}

/* Contract: c_priv.h. */
void cgc_fam_mpi_dmin(Out *o, const IrModel *m)
{
    for (int f = 0; f < P.nfam; f++) {
        const IrProj *j0 = m->projs[P.first[f]];
        if (!j0->delay)
            out_line(o, "dmin = 1; /* projection family %d */", f);
        else if (j0->procedural)   /* its members' walks (build_fam<f>) */
            out_line(o, "if (nc_fam%d_dmin < dmin) dmin = nc_fam%d_dmin; /* projection family %d */", f, f, f);
        else
            out_line(o, "for (int q = 0; q < %d; q++) for (int64_t s = 0; s < nc_fam%d_c[q].nnz; s++) if (nc_fam%d_d[q][s] < dmin) dmin = nc_fam%d_d[q][s]; /* projection family %d */",
                     P.size[f], f, f, f, f);
    }
}

/* build_fam<f>(a, b): members a .. b - 1 built as build_<J> builds one (c_proj.c), the values
 * on the pool (vals_fam<f>). */
static void emit_build(Out *o, const IrModel *m, const IrProj *j0, const Cand *c0, int f)
{
    if (m->mpi) {
        emit_build_mpi(o, j0, c0, f);
        return;
    }
    emit_vals(o, j0, c0, f);
    emit_build_open(o, j0, f, NULL);
    if (!j0->delay)
        out_line(o, "(void)nc_w;");
    out_line(o, "nc_fv%d.q = q;", f);
    out_line(o, "nrt_pool_run(vals_fam%d, NULL, (double)nc_c->nnz);", f);
    out_line(o, "int64_t maxd = 1;");
    char num[16];
    snprintf(num, sizeof num, "%d", f);
    cgc_parts_join(o, "nc_fv", num, "", j0->delay != NULL, NULL, "F->name");
    out_line(o, "(void)nrt_stage(&ctx, F->st_vals, ts);");
    out_line(o, "if (F->par && nrt_split_build(&ctx, nc_c, F->slo, F->shi, ctx.threads, &nc_fam%d_sp[q]) != NRT_OK) return -1;", f);
    emit_build_close(o);
}

/* deliver_fam<f>(step, t, a, b): each member's spikes of the step (a range of the ascending
 * spike list, found by binary search) into its ring, in the order propagate_<J> adds; with
 * --threads thread t's synapses of each row only (nc_fam<f>_sp: the ring's neurons it owns,
 * c_par.c), a member without a split (one thread) whole rows. work_fam<f>: the synapses of
 * the step's spikes, about, for the pool (nrt_pool_run). */
static void emit_deliver(Out *o, const IrProj *j0, int f)
{
    const char *pc = j0->pre.pop->cname;
    out_line(o, "/* push this step's spikes of members a .. b - 1 into their rings, to arrive at step + delay */");
    out_open(o, "static void deliver_fam%d(int64_t step, int t, int a, int b)", f);
    out_open(o, "for (int q = a; q < b; q++)");
    out_line(o, "const nc_fam%d_t *F = &nc_fam%d[q];", f, f);
    out_line(o, "const nrt_csr *nc_c = &nc_fam%d_c[q];", f);
    out_line(o, "const real *nc_w = nc_fam%d_w[q];", f);
    if (j0->delay)
        out_line(o, "const int32_t *nc_d = nc_fam%d_d[q];", f);
    out_line(o, "const int64_t *const sg = nc_fam%d_sp[q].seg;", f);
    out_line(o, "const uint32_t *const perm = nc_fam%d_sp[q].perm;", f);
    out_line(o, "const int64_t T1 = nc_fam%d_sp[q].T + 1;", f);
    out_line(o, "real *ring = *F->ring;");
    out_line(o, "const int64_t D = *F->D, width = F->width, roff = F->roff;");
    out_line(o, "const int64_t k1 = nc_spk_lower(%s_spk, %s_nspk, F->pre_off + F->n_pre);", pc, pc);
    out_open(o, "for (int64_t k = nc_spk_lower(%s_spk, %s_nspk, F->pre_off); k < k1; k++)", pc, pc);
    out_line(o, "const int64_t i = %s_spk[k] - F->pre_off;", pc);
    out_line(o, "const int64_t r0 = nc_c->row_ptr[i];");
    out_line(o, "const int64_t sa = sg ? sg[i * T1 + t] : r0, sb = sg ? sg[i * T1 + t + 1] : nc_c->row_ptr[i + 1];");
    out_open(o, "for (int64_t x = sa; x < sb; x++)");
    out_line(o, "const int64_t s = perm ? r0 + perm[x] : x;");
    out_line(o, "const int64_t slot = (step + %s) %% D;", j0->delay ? "nc_d[s]" : "1");
    out_line(o, "ring[slot * width + roff + nc_c->col[s]] += nc_w[s];");
    out_close(o);
    out_close(o);
    out_close(o);
    out_close(o);
    out_blank(o);
    out_open(o, "static double work_fam%d(int a, int b)", f);
    out_line(o, "double w = 0;");
    out_line(o, "for (int q = a; q < b; q++)");
    out_line(o, "    w += (double)%s_nspk * (double)nc_fam%d_c[q].nnz / (double)(nc_fam%d[q].n_pre ? nc_fam%d[q].n_pre : 1);",
             pc, f, f, f);
    out_line(o, "return w;");
    out_close(o);
    out_blank(o);
}

/* mem_fam<f>, save_fam<f>, stat_fam<f>: the memory plan (cg_mem_plan's lines of a stored
 * projection), --save-connectivity and the built counts of members a .. b - 1. */
static void emit_host_parts(Out *o, const IrProj *j0, int f)
{
    cg_fam_mem_head(o, j0, f);
    out_line(o, "double nnz = 0, bytes = nrt_conn_bytes(&spec, syn, &nnz);");
    out_line(o, "nrt_mem_add(&ctx, F->mem, nnz, bytes + ring);");
    out_line(o, "nrt_proj_stat(&ctx, (int)F->id, %d, nnz);", j0->pre.pop->id);
    out_close(o);
    out_close(o);
    out_blank(o);
    char dn[32];
    snprintf(dn, sizeof dn, "nc_fam%d_d[q]", f);
    out_open(o, "static int save_fam%d(int a, int b)", f);
    out_line(o, "for (int q = a; q < b; q++)");
    out_line(o, "    if (nrt_conn_save(&ctx, nc_fam%d[q].name, &nc_fam%d_c[q], nc_fam%d_w[q], (int)sizeof(real), %s) != NRT_OK) return -1;",
             f, f, f, j0->delay ? dn : "NULL");
    out_line(o, "return 0;");
    out_close(o);
    out_blank(o);
    out_open(o, "static void stat_fam%d(int a, int b)", f);
    out_line(o, "for (int q = a; q < b; q++) nrt_proj_stat(&ctx, (int)nc_fam%d[q].id, %d, (double)nc_fam%d_c[q].nnz);", f,
             j0->pre.pop->id, f);
    out_close(o);
    out_blank(o);
}

/* The row loops' dialect of procedural family f: the numbers from the table (F, q). */
static CgDialect proc_dialect(const IrModel *m, const IrProj *j0, int f, CgRowSpell *rs, char rp[32])
{
    CgDialect d, dd;
    build_dialects(m, j0, &d, &dd);
    snprintf(rp, 32, "nc_fam%d_rp[q]", f);
    *rs = (CgRowSpell){"F->n_post", "F->aut", "F->cs", "F->lp", rp};
    d.row = rs;
    return d;
}

/* Row i of member q (F) of procedural family f, `what` per synapse (cgc_proc_fam_row); with
 * `mpi` into the rank's targets only, and the shortest delay kept by the scan. */
static void emit_proc_row(Out *o, const CgDialect *d, const IrProj *j0, const Cand *c0, int what, int mpi)
{
    cgc_proc_fam_row(o, d, j0, c0->wt, j0->delay ? c0->dt : NULL, what, mpi);
}

typedef struct ScanArg {   /* a procedural family's row in CGC_ROW_SCAN (cgc_proc_scan) */
    const CgDialect *d;
    const IrProj *j0;
    const Cand *c0;
    int mpi;
} ScanArg;

static void scan_fam_row(Out *o, const void *arg)
{
    const ScanArg *a = arg;
    emit_proc_row(o, a->d, a->j0, a->c0, CGC_ROW_SCAN, a->mpi);
}

/* --threads (pf_deliver, c_famthr.c): rows_fam<f>, the rows of spikes ka .. kb - 1 of member q (the
 * m-th on the threads) regenerated into thread t's buffers nc_b[u], u the thread owning the
 * post's neuron of its population's range (with --mpi the rank's slice), in spike and row
 * order; nc_last[u], the ring of u's last entry (a marker entry names the member's ring). */
static void emit_proc_rows(Out *o, const IrModel *m, const IrProj *j0, const Cand *c0, const CgDialect *d, int f)
{
    const char *pc = j0->pre.pop->cname, *qc = j0->post.pop->cname;
    out_line(o, "/* --threads: spikes ka .. kb - 1 of member q, the m-th on the threads, into the buffers by post */");
    out_open(o, "static void rows_fam%d(int64_t step, int q, int m, int64_t ka, int64_t kb, nrt_pbuf *nc_b, const void **nc_last, int T)", f);
    out_line(o, "const nc_fam%d_t *F = &nc_fam%d[q];", f, f);
    out_line(o, "const void *const ring = *F->ring;");
    out_line(o, "const int64_t D = *F->D, roff = F->roff;");
    if (m->mpi) {
        out_line(o, "const int64_t nc_plo = %s_lo, nc_plen = %s_hi - %s_lo; /* the rank's neurons */", qc, qc, qc);
        out_line(o, "const int64_t vlo = nc_view(%s_lo, F->post_off, F->n_post), vhi = nc_view(%s_hi, F->post_off, F->n_post);",
                 qc, qc);
    } else {
        out_line(o, "const int64_t nc_plo = 0, nc_plen = %lld;", (long long)j0->post.pop->size);
    }
    out_open(o, "for (int64_t k = ka; k < kb; k++)");
    out_line(o, "const int64_t i = %s_spk[k] - F->pre_off;", pc);
    emit_proc_row(o, d, j0, c0, CGC_ROW_BUFFER, m->mpi);
    out_close(o);
    out_close(o);
    out_blank(o);
}

/* build_fam<f> and deliver_fam<f> of a procedural family, as cgc_proc writes build_<J> and
 * propagate_<J> (c_proc.c): the row pointers of fixed_total, the longest delay over every
 * row (with --mpi the shortest too, nc_fam<f>_dmin: the exchange interval), the ring; a
 * member's spikes (binary search, as emit_deliver) and their rows regenerated into its ring
 * (with --mpi into the rank's slice of its posts, [vlo, vhi), only). */
static void emit_proc_build_deliver(Out *o, const IrModel *m, const IrProj *j0, const Cand *c0, int f)
{
    CgRowSpell rs;
    char rp[32];
    CgDialect d = proc_dialect(m, j0, f, &rs, rp);
    const char *pc = j0->pre.pop->cname;
    char name[32], pre[160];
    snprintf(name, sizeof name, "fam%d", f);
    if (j0->delay) {   /* the walk over every row on the threads, member nc_pq_fam<f> */
        ScanArg sa = {&d, j0, c0, m->mpi};
        out_line(o, "static int nc_pq_fam%d; /* the member scan_fam%d walks */", f, f);
        if (m->mpi)
            out_line(o, "static int64_t nc_fam%d_dmin = 64; /* the members' shortest delay (capped) */", f);
        snprintf(pre, sizeof pre, "const int q = nc_pq_fam%d; const nc_fam%d_t *F = &nc_fam%d[q]; (void)q;", f, f, f);
        cgc_proc_scan(o, name, "F->n_pre", pre, scan_fam_row, &sa, m->mpi);
    }
    out_open(o, "static int build_fam%d(int a, int b)", f);
    out_open(o, "for (int q = a; q < b; q++)");
    out_line(o, "const nc_fam%d_t *F = &nc_fam%d[q];", f, f);
    if (j0->rule == IR_FIXED_TOTAL) {
        out_line(o, "char what[300];");
        out_line(o, "nrt_conn_spec spec;");
        out_line(o, "spec_fam%d(F, &spec);", f);
        out_line(o, "snprintf(what, sizeof what, \"%%s: row pointers\", F->name);");
        out_line(o, "%s = nrt_alloc(&ctx, (size_t)(F->n_pre + 1) * sizeof(int64_t), what);", rp);
        out_line(o, "if (!%s || nrt_conn_total_rows(&ctx, &spec, %s) != NRT_OK) return -1;", rp, rp);
    }
    out_line(o, "int64_t maxd = 1;");
    if (j0->delay) {
        out_line(o, "nc_pq_fam%d = q;", f);
        out_line(o, "nrt_pool_run(scan_fam%d, NULL, (double)F->n_pre);", f);
        cgc_parts_join(o, "nc_ps_", name, "", 1, NULL, "F->name");
        if (m->mpi)
            out_line(o, "for (int t = 0; t < (ctx.threads > 1 ? ctx.threads : 1); t++) "
                     "if (nc_ps_fam%d.dmin[t] < nc_fam%d_dmin) nc_fam%d_dmin = nc_ps_fam%d.dmin[t];", f, f, f, f);
    }
    out_line(o, "if (maxd + 1 > *F->D) *F->D = maxd + 1;");
    out_line(o, "if (!F->alloc) continue; /* the last projection into the ring allocates it */");
    out_line(o, "*F->ring = nrt_alloc(&ctx, (size_t)*F->D * F->width * sizeof(real), F->ring_what);");
    out_line(o, "if (!*F->ring) return -1;");
    out_close(o);
    out_line(o, "return 0;");
    out_close(o);
    out_blank(o);

    out_line(o, "/* regenerate the rows of this step's spikes of members a .. b - 1, into their rings at step + delay */");
    out_open(o, "static void deliver_fam%d(int64_t step, int t, int a, int b)", f);
    out_line(o, "(void)t; /* on one thread */");
    out_open(o, "for (int q = a; q < b; q++)");
    out_line(o, "const nc_fam%d_t *F = &nc_fam%d[q];", f, f);
    out_line(o, "real *ring = *F->ring;");
    out_line(o, "const int64_t D = *F->D, width = F->width, roff = F->roff;");
    if (m->mpi)   /* this rank's targets, in the member's posts (cgc_mpi_view) */
        out_line(o, "const int64_t vlo = nc_view(%s_lo, F->post_off, F->n_post), vhi = nc_view(%s_hi, F->post_off, F->n_post);",
                 j0->post.pop->cname, j0->post.pop->cname);
    out_line(o, "const int64_t k1 = nc_spk_lower(%s_spk, %s_nspk, F->pre_off + F->n_pre);", pc, pc);
    out_open(o, "for (int64_t k = nc_spk_lower(%s_spk, %s_nspk, F->pre_off); k < k1; k++)", pc, pc);
    out_line(o, "const int64_t i = %s_spk[k] - F->pre_off;", pc);
    emit_proc_row(o, &d, j0, c0, CGC_ROW_DELIVER, m->mpi);
    out_close(o);
    out_close(o);
    out_close(o);
    out_blank(o);
    if (cgc_par_pfam(m, j0))
        emit_proc_rows(o, m, j0, c0, &d, f);
}

/* mem_fam<f>, save_fam<f>, stat_fam<f> of a procedural family: cg_mem_plan's lines of a
 * procedural projection, save_<J> of c_proc.c, and no built counts (none is built). */
static void emit_proc_host_parts(Out *o, const IrModel *m, const IrProj *j0, const Cand *c0, int f)
{
    CgRowSpell rs;
    char rp[32];
    CgDialect d = proc_dialect(m, j0, f, &rs, rp);
    cg_fam_mem_head(o, j0, f);
    out_line(o, "double nnz = 0;");
    out_line(o, "(void)nrt_conn_bytes(&spec, syn, &nnz);");
    if (j0->rule == IR_FIXED_TOTAL)   /* its row pointers: the rows' lengths */
        out_line(o, "nrt_mem_add(&ctx, F->mem, nnz, ring + 8.0 * (F->n_pre + 1));");
    else
        out_line(o, "nrt_mem_add(&ctx, F->mem, nnz, ring);");
    out_line(o, "nrt_proj_stat(&ctx, (int)F->id, %d, nnz);", j0->pre.pop->id);
    out_close(o);
    out_close(o);
    out_blank(o);

    out_open(o, "static int save_fam%d(int a, int b)", f);
    out_open(o, "for (int q = a; q < b; q++)");
    out_line(o, "const nc_fam%d_t *F = &nc_fam%d[q];", f, f);
    out_line(o, "char what[300];");
    out_line(o, "nrt_csr c = {0};");
    out_line(o, "c.n_pre = F->n_pre;");
    out_line(o, "c.n_post = F->n_post;");
    out_line(o, "c.row_ptr = nrt_alloc(&ctx, (size_t)(c.n_pre + 1) * sizeof(int64_t), \"connectivity row pointers\");");
    out_line(o, "if (!c.row_ptr) return -1;");
    out_line(o, "c.row_ptr[0] = 0;");
    out_open(o, "for (int64_t i = 0; i < c.n_pre; i++)");
    out_line(o, "const uint32_t key0 = seedkey;");
    out_line(o, "int64_t rank = 0;");
    out_begin(o);
    cg_row_loops(o, &d, j0, NULL, NULL);
    out_close(o);
    out_line(o, "c.row_ptr[i + 1] = c.row_ptr[i] + rank;");
    out_close(o);
    out_line(o, "c.nnz = c.row_ptr[c.n_pre];");
    out_line(o, "const size_t n = (size_t)(c.nnz ? c.nnz : 1);");
    out_line(o, "c.col = nrt_alloc(&ctx, n * sizeof(int32_t), \"connectivity columns\");");
    out_line(o, "snprintf(what, sizeof what, \"%%s: weights\", F->name);");
    out_line(o, "real *w_ = nrt_alloc(&ctx, n * sizeof(real), what);");
    out_line(o, "int32_t *d_ = %s;", j0->delay ? "nrt_alloc(&ctx, n * sizeof(int32_t), \"delays\")" : "NULL");
    out_line(o, "int bad = !c.col || !w_%s;", j0->delay ? " || !d_" : "");
    out_open(o, "for (int64_t i = 0; i < c.n_pre && !bad; i++)");
    emit_proc_row(o, &d, j0, c0, CGC_ROW_FILL, 0);
    out_close(o);
    out_line(o, "bad = bad || nrt_conn_save(&ctx, F->name, &c, w_, (int)sizeof(real), d_) != NRT_OK;");
    out_line(o, "nrt_csr_free(&c);");
    out_line(o, "nrt_free(w_);");
    out_line(o, "nrt_free(d_);");
    out_line(o, "if (bad) return -1;");
    out_close(o);
    out_line(o, "return 0;");
    out_close(o);
    out_blank(o);
    out_open(o, "static void stat_fam%d(int a, int b)", f);
    out_line(o, "(void)a; (void)b; /* procedural: nothing built to count */");
    out_close(o);
    out_blank(o);
}

/* nc_units[], the runs of members in projection order, and for each concern X of a
 * family (build, deliver, mem, save, stat) X_units(u0, u1), which calls X_fam<f> for runs u0
 * .. u1 - 1 in order: the host's lines are one per stretch of members, not per projection. */
static void emit_units(Out *o, const IrModel *m)
{
    static const CgFamCall cs[] = {
        {"build", "int", "", ""},
        {"deliver", "void", "int64_t step, int t, ", "step, t, "},
        {"mem", "void", "", ""},
        {"save", "int", "", ""},
        {"stat", "void", "", ""},
    };
    cg_fam_units(o, &P, "c_family.c", cs, (int)(sizeof cs / sizeof cs[0]));
    int stored = 0;
    for (int k = 0; k < m->nprojs; k++)
        stored |= P.c[k].fam >= 0 && !m->projs[k]->procedural;
    if (!stored)
        return;
    out_open(o, "static double work_units(int u0, int u1)");
    out_line(o, "double w = 0;");
    out_open(o, "for (int u = u0; u < u1; u++)");
    out_open(o, "switch (nc_units[u].f)");
    for (int f = 0; f < P.nfam; f++) {
        const int k0 = P.first[f];
        if (!m->projs[k0]->procedural)
            out_line(o, "case %d: w += work_fam%d(nc_units[u].a, nc_units[u].b); break;", f, f);
    }
    out_line(o, "default: break;");
    out_close(o);
    out_close(o);
    out_line(o, "return w;");
    out_close(o);
    out_blank(o);
}

/* Contract: c_priv.h. */
void cgc_families(Out *o, const IrModel *m)
{
    if (!P.nfam)
        return;
    out_line(o, "/* the first k with spk[k] >= v in an ascending spike list of n (projection families) */");
    out_open(o, "static inline int64_t nc_spk_lower(const int64_t *spk, int64_t n, int64_t v)");
    out_line(o, "int64_t lo = 0, hi = n;");
    out_open(o, "while (lo < hi)");
    out_line(o, "const int64_t mid = lo + (hi - lo) / 2;");
    out_line(o, "if (spk[mid] < v) lo = mid + 1; else hi = mid;");
    out_close(o);
    out_line(o, "return lo;");
    out_close(o);
    out_blank(o);
    cgc_fam_par_head(o, m);   /* --threads: procedural members on the pool (c_famthr.c) */
    for (int f = 0; f < P.nfam; f++) {
        const int k0 = P.first[f];
        const IrProj *j0 = m->projs[k0];
        emit_table(o, m, f, k0);
        cg_fam_spec(o, j0, f);
        if (j0->procedural) {
            emit_proc_build_deliver(o, m, j0, &P.c[k0], f);
            emit_proc_host_parts(o, m, j0, &P.c[k0], f);
            if (j0->rule == IR_FIXED_TOTAL)
                cgc_own_line("for (int q = 0; q < %d; q++) nrt_free(nc_fam%d_rp[q]);", P.size[f], f);
        } else {
            emit_build(o, m, j0, &P.c[k0], f);
            emit_deliver(o, j0, f);
            emit_host_parts(o, j0, f);
            cgc_own_line("for (int q = 0; q < %d; q++) nrt_free(nc_fam%d_w[q]);", P.size[f], f);
            cgc_own_line("for (int q = 0; q < %d; q++) nrt_split_free(&nc_fam%d_sp[q]);", P.size[f], f);
            if (j0->delay)
                cgc_own_line("for (int q = 0; q < %d; q++) nrt_free(nc_fam%d_d[q]);", P.size[f], f);
        }
        for (int k = k0; k < m->nprojs; k++)
            if (P.c[k].fam == f && (m->projs[k]->ring->ring_n == 1 || m->projs[k]->ring_last))
                cgc_own("%s_ring", m->projs[k]->ring->cname);
    }
    emit_units(o, m);
    cgc_fam_par_tail(o, m);
}

/* Contract: c_priv.h. */
void cgc_fam_mem_split(Out *o, const IrModel *m)
{
    for (int f = 0; f < P.nfam; f++) {
        const IrProj *j0 = NULL;
        for (int k = 0; k < m->nprojs && P.c && !j0; k++)
            if (P.c[k].fam == f)
                j0 = m->projs[k];
        if (!j0 || j0->procedural || !cgc_par_proj(m, j0))
            continue;
        out_open(o, "for (int q = 0; q < %d; q++) /* family %d */", P.size[f], f);
        out_line(o, "nrt_conn_spec spec;");
        out_line(o, "spec_fam%d(&nc_fam%d[q], &spec);", f, f);
        out_line(o, "b += nrt_split_bytes(&spec, T);");
        out_close(o);
    }
}


/* Contract: c_priv.h. */
void cgc_fam_own_parts(Out *o, const IrModel *m)
{
    for (int f = 0; f < P.nfam; f++) {
        const IrProj *j0 = P.c ? m->projs[P.first[f]] : NULL;
        if (!j0 || j0->procedural || !cgc_par_proj(m, j0))
            continue;
        out_line(o, "for (int q = 0; q < %d; q++) /* family %d */", P.size[f], f);
        out_line(o, "    v[n++] = (nrt_own_part){nc_fam%d[q].ring, nc_fam%d[q].width, nc_fam%d[q].roff, &nc_fam%d_c[q], "
                 "&nc_fam%d_sp[q], %s_wc + nc_fam%d[q].pre_off};",
                 f, f, f, f, f, j0->pre.pop->cname, f);
    }
}

/* Contract: c_priv.h. */
void cgc_fam_group(Out *o, const IrModel *m)
{
    for (int f = 0; f < P.nfam; f++) {
        const IrProj *j0 = P.c ? m->projs[P.first[f]] : NULL;
        if (!j0 || j0->procedural || !cgc_par_proj(m, j0))
            continue;
        char dn[32];
        snprintf(dn, sizeof dn, "nc_fam%d_d[q]", f);
        out_line(o, "for (int q = 0; q < %d; q++) /* family %d */", P.size[f], f);
        out_line(o, "    if (nrt_split_group(&ctx, &nc_fam%d_c[q], &nc_fam%d_sp[q], nc_fam%d_w[q], (int)sizeof(real), %s) != NRT_OK) return fail(argv[0]);",
                 f, f, f, j0->delay ? dn : "NULL");
    }
}
