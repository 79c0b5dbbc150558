/* simt_deliver.c -- the spike delivery phase of the device program: each projection's
 * step spikes added into the delay rings of their targets (nc_deliver_<proj>_<variant>),
 * the fused delivery of every stored static projection leaving one population
 * (nc_deliver_from_<pop>_<variant>), and procedural projections, whose rows are
 * regenerated on the device for every spike (a work-group per row where it pays).
 */
#include <math.h>

#include "simt_priv.h"

/* The ring slot of an arrival one step on, for a projection without per-synapse delays. */
/* "B + " where projection j adds into its ring B neurons after its post view's first, or "" */
static const char *ring_base_text(const Simt *S, const IrProj *j)
{
    return cg_ring_base(j) ? arena_printf(&S->cc->arena, "%lld + ", cg_ring_base(j)) : "";
}

static const char *ring_next_slot(Arena *a, const IrProj *j)
{
    if (j->ring->ring_delay)
        return arena_printf(a, "nc_wrap(nc_mod(step, %s_D) + 1, %s_D)", j->ring->cname, j->ring->cname);
    return "(int64_t)((step + 1) & 1)";
}

/* Add synapse s of j into its ring slot: w_const is the weight's C text for a projection of
 * one weight (simt_order_free), else NULL (the stored j_w[s]). */
static void emit_ring_add(Out *o, const IrProj *j, const char *s, int atomic, int dbl, const char *w_const)
{
    StrBuf w = {0}, slot = {0};
    if (w_const)
        sb_puts(&w, w_const);
    else
        sb_printf(&w, "%s_w[%s]", j->cname, s);
    const char *r = j->ring->cname;
    if (j->delay)   /* (step + d) % D with 1 <= d < D: step % D is the same for every synapse */
        sb_printf(&slot, "nc_wrap(nc_mod(step, %s_D) + %s_d[%s], %s_D)", r, j->cname, s, r);
    else if (j->ring->ring_delay)   /* a shared ring with delays (IrProj.ring) */
        sb_printf(&slot, "nc_wrap(nc_mod(step, %s_D) + 1, %s_D)", r, r);
    else
        sb_puts(&slot, "(int64_t)((step + 1) & 1)"); /* D = 2 (simt_ring_slot) */
    StrBuf base = {0};            /* a projection onto another view of its ring's span */
    if (cg_ring_base(j))
        sb_printf(&base, "%lld + ", cg_ring_base(j));
    if (atomic)
        out_line(o, "nc_atomic_add_f%d(&%s_ring[%s * %lld + %s%s_col[%s]], %s);", dbl ? 64 : 32,
                 r, slot.s, (long long)j->ring->ring_size, base.s ? base.s : "", j->cname, s, w.s);
    else
        out_line(o, "%s_ring[%s * %lld + %s%s_col[%s]] += %s;", r, slot.s,
                 (long long)j->ring->ring_size, base.s ? base.s : "", j->cname, s, w.s);
    sb_free(&base);
    sb_free(&w);
    sb_free(&slot);
}

/* What the row loops (cg_row_loops) run per synapse in device code. */
typedef struct DevRow {
    const Simt *S;
    const IrProj *j;
    int what;                     /* DR_* */
} DevRow;

enum { DR_GRID, DR_BLOCK, DR_SCAN };

/* The projection's synapse-value dialects: w in real, delay in double (as nc_k_syn_g*). */
static void syn_dialects(const Simt *S, const IrProj *j, CgDialect *d, CgDialect *dd)
{
    *d = simt_dev_dialect(S, j->pre.pop);
    d->rng_elem = "i";
    d->rng_sub = "rank";
    d->rng_step = "0";
    d->index = "i";
    *dd = *d;
    dd->dbl = 1;
    dd->real = "double";
}

static void dev_row_body(Out *o, const void *arg)
{
    const DevRow *r = arg;
    const IrProj *j = r->j;
    CgDialect d, dd;
    StrBuf b = {0};
    syn_dialects(r->S, j, &d, &dd);
    if (r->what == DR_BLOCK)
        out_open(o, "if (j >= a && j < b)");
    else if (r->what == DR_GRID && r->S->m->mpi)   /* distributed: this rank's targets only */
        simt_mpi_proc_guard(o, r->S, j);
    else
        out_begin(o);
    if (r->what != DR_SCAN) {
        cg_expr(&d, j->w, &b);
        out_line(o, "const real w = %s;", b.s);
    }
    if (j->delay) {
        b.len = 0;
        if (b.s)
            b.s[0] = 0;
        cg_expr(&dd, j->delay, &b);
        out_line(o, "const double delay = %s;", b.s);
        out_line(o, "const double steps = round(delay / dt);");
        if (r->what == DR_SCAN)
            out_line(o, "if (!(steps < 1e9)) nc_cnt[%d] = 1;", r->S->cnt_err);
        out_line(o, "const int32_t dd = !(steps < 1e9) || steps < 1 ? 1 : (int32_t)steps;");
    } else {
        out_line(o, "const int32_t dd = 1;");
    }
    if (r->what == DR_SCAN) {
        out_line(o, "nc_atomic_max_i32(&nc_cnt[%d], dd);", r->S->cnt_maxd + j->id);
        simt_mpi_min_delay(o, r->S, j);
    } else if (r->what == DR_GRID)
        out_line(o, "nc_atomic_add_f%d(&%s_ring[nc_mod(step + dd, %s_D) * %lld + %sj], w);", r->S->m->dbl ? 64 : 32,
                 j->ring->cname, j->ring->cname, (long long)j->ring->ring_size, ring_base_text(r->S, j));
    else   /* `%`, not nc_mod: PoCL 3.1's vectoriser turned nc_mod here into stores out of
            * bounds (tests/e2e/models/merge.neuro's procedural `c`, block schedule) */
        out_line(o, "%s_ring[((step + dd) %% %s_D) * %lld + %sj] += w;", j->ring->cname, j->ring->cname,
                 (long long)j->ring->ring_size, ring_base_text(r->S, j));
    out_close(o);
    sb_free(&b);
}

/* Row i regenerated (key0 from the seed, rank from 0) around what `what` does per synapse. */
static void dev_row(Out *o, const Simt *S, const IrProj *j, int what)
{
    CgDialect d, dd;
    DevRow r = {S, j, what};
    syn_dialects(S, j, &d, &dd);
    out_begin(o);
    out_line(o, "const uint32_t key0 = seedkey;");
    out_line(o, "int64_t rank = 0;");
    cg_row_loops(o, &d, j, dev_row_body, &r);
    out_close(o);
}

/* The work-group's inclusive int64 prefix sum (Hillis-Steele; t: NC_LSIZE + 2 entries). */
void simt_emit_scan64(Out *o)
{
    out_line(o, "/* inclusive prefix sum of v over the work-group; *total gets the sum (t: NC_LSIZE + 2) */");
    out_open(o, "NC_DEV int64_t nc_scan64(int64_t v, NC_LP int64_t *t, int64_t *total)");
    out_line(o, "const int l = NC_LID, n = NC_LSIZE;");
    out_line(o, "t[l] = v;");
    out_line(o, "NC_BARRIER();");
    out_open(o, "for (int off = 1; off < n; off <<= 1)");
    out_line(o, "const int64_t y = l >= off ? t[l - off] : 0;");
    out_line(o, "NC_BARRIER();");
    out_line(o, "t[l] += y;");
    out_line(o, "NC_BARRIER();");
    out_close(o);
    out_line(o, "const int64_t r = t[l];");
    out_line(o, "*total = t[n - 1];");
    out_line(o, "NC_BARRIER();");
    out_line(o, "return r;");
    out_close(o);
    out_blank(o);
}

/* The grid delivery of a procedural fixed_prob projection, a work-group per spike. The row's
 * geometric skips (rt_conn.c, FIXED_PROB) come two per draw; work-item l takes draw
 * c0 + l of each chunk of NC_LSIZE draws, and a prefix sum of the draws' advances (1 + skip,
 * a skip clamped at n_post, which ends the row all the same) places its two candidates:
 * the same posts as the sequential walk. A candidate's rank is its index 2c + h, less one
 * past a dropped autapse. */
static void emit_prop_coop(Out *o, const Simt *S, const IrProj *j)
{
    const IrPop *pre = j->pre.pop;
    const long long np = (long long)j->post.size;
    const uint32_t stream = (3u << 24) | ((uint32_t)j->id & 0xFFFFFFu);   /* NRT_STREAM_CONNECT */
    const int self = j->pre.pop == j->post.pop && !j->autapses;
    DevRow r = {S, j, DR_GRID};
    out_line(o, "/* projection %s: %s -> %s, procedural fixed_prob, a work-group per spike */", j->name,
             pre->name, j->post.pop->name);
    out_open(o, "NC_DEV void nc_deliver_%s_grid(NC_ARGS, const int64_t step, NC_LP int64_t *nc_t)", j->cname);
    out_line(o, "const int nspk = nc_cnt[%d + (int)(step & 1)];", 2 * pre->id);
    out_line(o, "const uint32_t key0 = seedkey;");
    out_open(o, "for (int64_t k = NC_GROUP; k < nspk; k += NC_NGROUPS)");
    out_line(o, "const int64_t i = (int64_t)%s_spk[k] - %lld;", pre->cname, (long long)j->pre.offset);
    out_line(o, "if (i < 0 || i >= %lld) continue;", (long long)j->pre.size);
    if (self) {
        out_line(o, "const int64_t aut = i + %lld; /* the autapse's post */", (long long)(j->pre.offset - j->post.offset));
        out_line(o, "int aut_hit = 0;");
    }
    out_line(o, "int64_t base = -1; /* the last candidate so far */");
    out_open(o, "for (uint32_t c0 = 0; base < %lld; c0 += (uint32_t)NC_LSIZE)", np);
    out_line(o, "const uint32_t c = c0 + (uint32_t)NC_LID;");
    out_line(o, "const nrt_u32x4 x = nrt_rng(key0, 0x%08xu, (uint32_t)i, c, 0u, 0u);", stream);
    out_line(o, "const double s1 = floor(nrt_log(nrt_u01_53(x.v[0], x.v[1])) / %.17g);", log1p(-j->p));
    out_line(o, "const double s2 = floor(nrt_log(nrt_u01_53(x.v[2], x.v[3])) / %.17g);", log1p(-j->p));
    out_line(o, "const int64_t a1 = 1 + (int64_t)(s1 < %lld.0 ? s1 : %lld.0), a2 = 1 + (int64_t)(s2 < %lld.0 ? s2 : %lld.0);",
             np, np, np, np);
    out_line(o, "int64_t total;");
    out_line(o, "const int64_t incl = nc_scan64(a1 + a2, nc_t, &total);");
    out_line(o, "const int64_t j1 = base + incl - a2, j2 = base + incl;");
    if (self) {
        out_line(o, "if (NC_LID == 0) nc_t[NC_LSIZE] = 0;");
        out_line(o, "NC_BARRIER();");
        out_line(o, "if (j1 == aut || j2 == aut) nc_t[NC_LSIZE] = 1; /* aut < n_post */");
        out_line(o, "NC_BARRIER();");
        out_line(o, "aut_hit |= (int)nc_t[NC_LSIZE];");
        out_line(o, "NC_BARRIER();");
    }
    out_open(o, "for (int h = 0; h < 2; h++)");
    out_line(o, "const int64_t j = h ? j2 : j1;");
    out_line(o, "if (j >= %lld) break;", np);
    if (self) {
        out_line(o, "if (j == aut) continue; /* autapse */");
        out_line(o, "const int64_t rank = 2 * (int64_t)c + h - (aut_hit && j > aut ? 1 : 0);");
    } else {
        out_line(o, "const int64_t rank = 2 * (int64_t)c + h;");
    }
    dev_row_body(o, &r);
    out_close(o);
    out_line(o, "base += total;");
    out_close(o);
    out_close(o);
    out_close(o);
    out_blank(o);
}

/* The head of a delivery function nc_deliver_<proj>_<block|grid>: a loop over the step's
 * spikes of the pre population that are in the projection's pre view, `i` the row. block:
 * every work-item visits every spike, owning targets [a, b); grid: spikes strided by
 * `first`/`stride` (a work-group or a work-item per spike). Leaves the loop open. */
static void open_spikes_loop(Out *o, const Simt *S, const IrProj *j, int block, const char *what, const char *first,
                             const char *stride)
{
    const IrPop *pre = j->pre.pop;
    if (what)
        out_line(o, "/* projection %s: %s -> %s, %s */", j->name, pre->name, j->post.pop->name, what);
    else
        out_line(o, "/* projection %s: %s -> %s */", j->name, pre->name, j->post.pop->name);
    out_open(o, "NC_DEV void nc_deliver_%s_%s(NC_ARGS, const int64_t step)", j->cname, simt_vname(block));
    out_line(o, "const int nspk = nc_cnt[%d + (int)(step & 1)];", 2 * pre->id);
    if (block) {
        /* work-item LID owns a range of the group's neurons of the ring, the same for every
         * projection adding into it (merged across views, the ring spans them all): [a, b)
         * in j's post view, so that no ring element has two writers */
        const IrProj *r = j->ring;
        const char *lo = simt_own_lo(S, block, j->post.pop), *hi = simt_own_hi(S, block, j->post.pop);
        const long long ro = (long long)r->ring_off, re = ro + (long long)r->ring_size, base = cg_ring_base(j);
        simt_own_targets(o, j, lo, hi);
        out_line(o, "const int64_t nc_rlo = %s < %lld ? %lld : %s > %lld ? %lld : %s, nc_rhi = %s < %lld ? %lld : %s > %lld ? %lld : %s;",
                 lo, ro, ro, lo, re, re, lo, hi, ro, ro, hi, re, re, hi);
        out_line(o, "const int64_t per = (nc_rhi - nc_rlo + NC_LSIZE - 1) / NC_LSIZE, ra = nc_rlo - %lld + NC_LID * per;", ro);
        out_line(o, "const int64_t a0 = ra - %lld, b0 = a0 + per;", base);
        out_line(o, "const int64_t a = a0 > nc_tlo ? a0 : nc_tlo, b = b0 < nc_thi ? b0 : nc_thi;");
        out_line(o, "if (a >= b) return;");
        out_open(o, "for (int k = 0; k < nspk; k++)");
    } else {
        /* each projection starts at a work-group (or item) of its own, spread over the grid:
         * the projections from one population are delivered one after the other, and a
         * spike's rows of several of them would otherwise all go to the group of its index,
         * in turn, while the groups past the step's spike count wait (the procedural
         * microcircuit: 30 groups of 1,024 busy, each with 8 rows) */
        out_line(o, "const int64_t nc_rot = (int64_t)%d * %s / %d;", j->id, stride, S->m->nprojs);
        out_open(o, "for (int64_t k = (%s + %s - nc_rot) %% %s; k < nspk; k += %s)", first, stride, stride, stride);
    }
    out_line(o, "const int64_t i = (int64_t)%s_spk[k] - %lld;", pre->cname, (long long)j->pre.offset);
    out_line(o, "if (i < 0 || i >= %lld) continue;", (long long)j->pre.size);
}

/* The delivery of a procedural projection: the rows of this step's spikes regenerated.
 * grid: a spike per work-item, atomic adds. block: every work-item regenerates every row in
 * spike order and adds the synapses onto its own range of targets, in synapse order (the C
 * back end's summation order, as the stored block delivery). */
static void emit_prop_proc(Out *o, const Simt *S, const IrProj *j, int block)
{
    open_spikes_loop(o, S, j, block, "procedural (rows regenerated, cg_proc.c)", "NC_GID", "NC_GSIZE");
    dev_row(o, S, j, block ? DR_BLOCK : DR_GRID);
    out_close(o);
    out_close(o);
    out_blank(o);
}

/* The grid delivery of a procedural fixed_total projection, a work-group per spike: the
 * row's synapses are independent draws keyed by rank, so work-item l takes the four ranks
 * of draws l, l + NC_LSIZE, .. (rt_conn.c, FIXED_TOTAL), atomic adds. */
static void emit_prop_total(Out *o, const Simt *S, const IrProj *j)
{
    const uint32_t stream = (3u << 24) | ((uint32_t)j->id & 0xFFFFFFu);   /* NRT_STREAM_CONNECT */
    DevRow r = {S, j, DR_GRID};
    open_spikes_loop(o, S, j, 0, "procedural fixed_total, a work-group per spike", "NC_GROUP", "NC_NGROUPS");
    out_line(o, "const uint32_t key0 = seedkey;");
    cg_total_head(o, j, NULL);
    out_open(o, "for (int64_t nc_q = NC_LID; 4 * nc_q < nc_n; nc_q += NC_LSIZE)");
    out_line(o, "const nrt_u32x4 nc_x = nrt_rng(key0, 0x%08xu, (uint32_t)i, (uint32_t)nc_q, 0u, 0u);", stream);
    out_open(o, "for (int nc_h = 0; nc_h < 4 && 4 * nc_q + nc_h < nc_n; nc_h++)");
    out_line(o, "const int64_t rank = 4 * nc_q + nc_h;");
    cg_total_post(o, "nc_x.v[nc_h]");
    dev_row_body(o, &r);
    out_close(o);
    out_close(o);
    out_close(o);
    out_close(o);
    out_blank(o);
}

/* Longest delay of a procedural projection (into nc_cnt like nc_k_syn_g*), rows per work-item. */
void simt_emit_pscan(Out *o, const Simt *S, const IrProj *j)
{
    out_line(o, "/* %s, procedural: every row walked once for the longest delay */", j->name);
    char kb[16];
    simt_kernel_open(o, S, "NC_KERNEL nc_k_pscan_%s(NC_ARGS)", cg_kname(j, kb));
    out_open(o, "for (int64_t i = NC_GID; i < %lld; i += NC_GSIZE)", (long long)j->pre.size);
    dev_row(o, S, j, DR_SCAN);
    out_close(o);
    out_close(o);
    out_blank(o);
}

/* The targets [nc_tlo, nc_thi) in j's post view whose neurons are this work-group's
 * (nc_part: the cluster schedule; one group owns all). */
void simt_own_targets(Out *o, const IrProj *j, const char *lo, const char *hi)
{
    simt_own_range(o, (long long)j->post.offset, (long long)j->post.size, lo, hi);
}

/* Contract: simt_priv.h. */
void simt_own_range(Out *o, long long off, long long np, const char *lo, const char *hi)
{
    out_line(o, "int64_t nc_tlo = %s - %lld, nc_thi = %s - %lld;", lo, off, hi, off);
    out_line(o, "nc_tlo = nc_tlo < 0 ? 0 : nc_tlo;");
    out_line(o, "nc_thi = nc_thi > %lld ? %lld : nc_thi;", np, np);
    out_line(o, "nc_thi = nc_thi < nc_tlo ? nc_tlo : nc_thi;");
}

/* The block delivery of an simt_order_free projection: the step's spikes spread over the
 * work-group, G work-items (a power of two about a row's mean length) per spike, atomic adds.
 * The ordered delivery (simt_emit_prop) makes each work-item binary-search every spike's row for
 * its targets: a chain of dependent loads per spike, 9 us per step of CUBA on an H100. */
static void emit_prop_block_free(Out *o, const Simt *S, const IrProj *j, int v)
{
    const IrPop *pre = j->pre.pop;
    const double mean = simt_est_synapses(j) / (double)(j->pre.size > 0 ? j->pre.size : 1);
    int G = 32;
    while (G < mean && G < S->block)
        G *= 2;
    CgDialect d = simt_dev_dialect(S, pre);
    StrBuf w = {0};
    cg_expr(&d, j->w, &w);
    out_line(o, "/* projection %s: %s -> %s, one weight (%s): %d work-items per spike, atomic adds */", j->name,
             pre->name, j->post.pop->name, w.s, G);
    out_open(o, "NC_DEV void nc_deliver_%s_%s(NC_ARGS, const int64_t step)", j->cname, simt_vname(v));
    out_line(o, "const int nspk = nc_cnt[%d + (int)(step & 1)];", 2 * pre->id);
    simt_own_targets(o, j, simt_own_lo(S, v, j->post.pop), simt_own_hi(S, v, j->post.pop));
    out_line(o, "const int g = NC_LSIZE < %d ? NC_LSIZE : %d, gl = nc_ctz(g); /* powers of two */", G, G);
    out_open(o, "for (int k = NC_LID >> gl; k < nspk; k += NC_LSIZE >> gl)");
    out_line(o, "const int64_t i = (int64_t)%s_spk[k] - %lld;", pre->cname, (long long)j->pre.offset);
    out_line(o, "if (i < 0 || i >= %lld) continue;", (long long)j->pre.size);
    out_line(o, "const int64_t rs = %s_rp[i], re = %s_rp[i + 1];", j->cname, j->cname);
    out_open(o, "for (int64_t s = rs + (NC_LID & (g - 1)); s < re; s += g)");
    out_line(o, "if (%s_col[s] < nc_tlo || %s_col[s] >= nc_thi) continue;", j->cname, j->cname);
    emit_ring_add(o, j, "s", 1, S->m->dbl, w.s);
    out_close(o);
    out_close(o);
    out_close(o);
    out_blank(o);
    sb_free(&w);
}

/* The spike delivery of one projection. grid: one work-group per spike, atomic adds (the
 * order of the adds is not fixed). block: each work-item owns a contiguous range of targets
 * and, for every spike in list order, adds the row's synapses into its range in synapse
 * order (found by binary search: rows are sorted by target; fixed_total's rows, in draw order,
 * are walked whole and filtered). Every target is summed by one
 * work-item in (spike, synapse) order, the C back end's order, with no barrier per spike. */
void simt_emit_prop(Out *o, const Simt *S, const IrProj *j, int block)
{
    if (!block && simt_gathers(j)) {
        simt_gather(o, S->m, j);
        return;
    }
    if (simt_coop_row(j) && !block) {
        emit_prop_coop(o, S, j);
        return;
    }
    if (j->procedural && j->rule == IR_FIXED_TOTAL && !block) {
        emit_prop_total(o, S, j);
        return;
    }
    if (j->procedural) {
        emit_prop_proc(o, S, j, block);
        return;
    }
    if (block && simt_order_free(j)) {
        emit_prop_block_free(o, S, j, block);
        return;
    }
    open_spikes_loop(o, S, j, block, NULL, "NC_GROUP", "NC_NGROUPS");
    if (block && j->rule == IR_FIXED_TOTAL) {   /* rows in draw order: the whole row, filtered */
        out_line(o, "const int64_t rs = %s_rp[i], re = %s_rp[i + 1];", j->cname, j->cname);
        out_open(o, "for (int64_t s = rs; s < re; s++)");
        out_line(o, "if (%s_col[s] < a || %s_col[s] >= b) continue;", j->cname, j->cname);
        emit_ring_add(o, j, "s", 0, S->m->dbl, NULL);
        out_close(o);
    } else if (block) {
        out_line(o, "int64_t lo = %s_rp[i], hi = %s_rp[i + 1];", j->cname, j->cname);
        out_line(o, "const int64_t re = hi;");
        out_open(o, "while (lo < hi)");
        out_line(o, "const int64_t mid = lo + (hi - lo) / 2;");
        out_line(o, "if (%s_col[mid] < a) lo = mid + 1; else hi = mid;", j->cname);
        out_close(o);
        out_open(o, "for (int64_t s = lo; s < re && %s_col[s] < b; s++)", j->cname);
        emit_ring_add(o, j, "s", 0, S->m->dbl, NULL);
        out_close(o);
    } else {
        out_line(o, "const int64_t rs = %s_rp[i], re = %s_rp[i + 1];", j->cname, j->cname);
        out_open(o, "for (int64_t s = rs + NC_LID; s < re; s += NC_LSIZE)");
        emit_ring_add(o, j, "s", 1, S->m->dbl, NULL);
        out_close(o);
    }
    out_close(o);
    out_close(o);
    out_blank(o);
}

/* The grid delivery of every fused projection from population pre: the step's (spike,
 * projection) pairs spread over the work-groups, each group adding one row whose pre view
 * holds the spike (atomic adds, as simt_emit_prop). One loop over pairs, not one spike loop per
 * projection: the microcircuit's 55 projections from one population read the spike count
 * and list 55 times one after the other in every work-group, and a group that took a spike
 * walked up to 8 rows of about 1,000 synapses in turn (62 us of its 105 us step on an H200,
 * ncu); now the longest path is one row. Only the pairs whose view holds the spike are
 * enumerated: the pre views cut pre into segments (at most 64 here), each with the list of
 * the projections covering it, and a spike's pairs are its segment's list (the microcircuit:
 * 8 slices of 6 to 8 projections, where all 55 were tried for every spike). */
void simt_emit_prop_fused(Out *o, const Simt *S, const IrPop *pre, int v)
{
    const IrModel *m = S->m;
    Arena *a = &S->cc->arena;
    const int nf = simt_n_fused(S, pre, v);
    /* segment bounds: 0, every view's ends, pre->size (sorted, unique) */
    int64_t *cut = arena_alloc(a, sizeof *cut * (size_t)(2 * nf + 2));
    int nc = 0;
    cut[nc++] = 0;
    cut[nc++] = pre->size;
    for (int k = 0; k < m->nprojs; k++) {
        const IrProj *j = m->projs[k];
        if (!simt_fused_at(S, j, v) || j->pre.pop != pre)
            continue;
        cut[nc++] = j->pre.offset;
        cut[nc++] = j->pre.offset + j->pre.size;
    }
    for (int i = 1; i < nc; i++)   /* insertion sort: a few dozen values */
        for (int q = i; q > 0 && cut[q - 1] > cut[q]; q--) {
            int64_t t = cut[q];
            cut[q] = cut[q - 1];
            cut[q - 1] = t;
        }
    int ns = 0;
    for (int i = 1; i < nc; i++)
        if (cut[i] != cut[ns])
            cut[++ns] = cut[i];
    /* ns segments [cut[s], cut[s + 1]); the width: the longest list */
    int width = 0;
    for (int sg = 0; sg < ns; sg++) {
        int len = 0;
        for (int k = 0; k < m->nprojs; k++) {
            const IrProj *j = m->projs[k];
            len += simt_fused_at(S, j, v) && j->pre.pop == pre && j->pre.offset <= cut[sg] &&
                   cut[sg + 1] <= j->pre.offset + j->pre.size;
        }
        width = len > width ? len : width;
    }
    if (ns > 64 || width == 0) {   /* many segments: every pair, as before */
        ns = 1;
        cut[1] = pre->size;
        width = nf;
    }
    /* block, cluster: g work-items per pair (a power of two about the longest mean row) */
    int G = 32;   /* cluster: 32, for the own rows of the tables (a few synapses each) */
    for (int k = 0; k < m->nprojs && v == V_BLOCK; k++) {
        const IrProj *j = m->projs[k];
        if (!simt_fused_at(S, j, v) || j->pre.pop != pre)
            continue;
        const double mean = simt_est_synapses(j) / (double)(j->pre.size > 0 ? j->pre.size : 1);
        while (G < mean && G < S->block)
            G *= 2;
    }
    if (v == V_GRID)
        out_line(o, "/* the stored projections from %s: a work-group per (spike, projection) of the spike's segment */", pre->name);
    else
        out_line(o, "/* the one-weight projections from %s: %d work-items per (spike, projection) of the spike's segment, atomic adds */",
                 pre->name, G);
    out_open(o, "NC_DEV void nc_deliver_from_%s_%s(NC_ARGS, const int64_t step)", pre->cname, simt_vname(v));
    out_line(o, "const int64_t npair = (int64_t)nc_cnt[%d + (int)(step & 1)] * %d;", 2 * pre->id, width);
    if (v == V_GRID) {
        out_open(o, "for (int64_t q = NC_GROUP; q < npair; q += NC_NGROUPS)");
    } else {
        out_line(o, "const int g = NC_LSIZE < %d ? NC_LSIZE : %d, gl = nc_ctz(g); /* powers of two */", G, G);
        out_open(o, "for (int64_t q = NC_LID >> gl; q < npair; q += NC_LSIZE >> gl)");
    }
    out_line(o, "const int64_t n = (int64_t)%s_spk[q / %d];", pre->cname, width);
    out_line(o, "int sg = 0;");
    for (int sg = 1; sg < ns; sg++)
        out_line(o, "sg += n >= %lld;", (long long)cut[sg]);
    out_line(o, "switch (sg * %d + (int)(q %% %d)) {", width, width);
    int *slot = arena_alloc(a, sizeof *slot * (size_t)(ns > 0 ? ns : 1));
    for (int k = 0; k < m->nprojs; k++) {
        const IrProj *j = m->projs[k];
        if (!simt_fused_at(S, j, v) || j->pre.pop != pre)
            continue;
        long long off = (long long)j->pre.offset, size = (long long)j->pre.size;
        int any = 0;
        for (int sg = 0; sg < ns; sg++) {
            if (ns > 1 && !(j->pre.offset <= cut[sg] && cut[sg + 1] <= j->pre.offset + j->pre.size))
                continue;
            out_line(o, "case %d:", sg * width + slot[sg]++);
            any = 1;
        }
        if (!any)
            continue;
        out_open(o, "/* %s */", j->name);
        if (ns > 1 || (off == 0 && size == pre->size))
            out_begin(o);
        else
            out_open(o, "if (n >= %lld && n < %lld)", off, off + size);
        out_line(o, "const int64_t i = n - %lld;", off);
        if (v == V_GRID) {
            out_line(o, "const int64_t rs = %s_rp[i], re = %s_rp[i + 1];", j->cname, j->cname);
            out_open(o, "for (int64_t s = rs + NC_LID; s < re; s += NC_LSIZE)");
            emit_ring_add(o, j, "s", 1, m->dbl, NULL);
        } else {
            CgDialect d = simt_dev_dialect(S, pre);
            StrBuf w = {0};
            cg_expr(&d, j->w, &w);
            simt_own_targets(o, j, simt_own_lo(S, v, j->post.pop), simt_own_hi(S, v, j->post.pop));
            if (v == V_CLUSTER && simt_own_table(m, j)) {
                out_line(o, "const uint32_t nc_or = nc_otab[%d];", 2 * k);
                out_open(o, "if (nc_or != 0xffffffffu) /* the group's own row, from shared memory */");
                out_line(o, "const uint32_t *const orp = (const uint32_t *)(nc_dyn + nc_or);");
                out_line(o, "const uint16_t *const ocol = (const uint16_t *)(nc_dyn + nc_otab[%d]);", 2 * k + 1);
                out_open(o, "for (uint32_t s = orp[i] + (NC_LID & (g - 1)); s < orp[i + 1]; s += g)");
                out_line(o, "nc_atomic_add_f%d(&%s_ring[%s * %lld + %snc_tlo + ocol[s]], %s);", m->dbl ? 64 : 32,
                         j->ring->cname, ring_next_slot(a, j), (long long)j->ring->ring_size,
                         ring_base_text(S, j), w.s);
                out_close(o);
                out_close(o);
                out_open(o, "else");
            }
            out_line(o, "const int64_t rs = %s_rp[i], re = %s_rp[i + 1];", j->cname, j->cname);
            out_open(o, "for (int64_t s = rs + (NC_LID & (g - 1)); s < re; s += g)");
            out_line(o, "if (%s_col[s] < nc_tlo || %s_col[s] >= nc_thi) continue;", j->cname, j->cname);
            emit_ring_add(o, j, "s", 1, m->dbl, w.s);
            if (v == V_CLUSTER && simt_own_table(m, j))
                out_close(o);
            sb_free(&w);
        }
        out_close(o);
        out_close(o);
        out_line(o, "break;");
        out_close(o);
    }
    out_line(o, "default: break;");
    out_line(o, "}");
    out_close(o);
    out_close(o);
    out_blank(o);
}
