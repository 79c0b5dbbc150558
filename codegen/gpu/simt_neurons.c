/* simt_neurons.c -- the neuron phase of the device program: one function per population
 * and variant (nc_neurons_<pop>_<grid|block|cluster>) that steps its neurons, compacts its
 * spikes (atomically in the grid, in neuron order in one work-group) and records them;
 * the cluster variant keeps a neuron's variables in locals and sends the step's spike
 * words to every group of the cluster.
 */

#include "simt_priv.h"

/* The spikes of word w (bits b) into p's list from position `at` on, each recorded (where
 * `guard` holds, if given): the ordered compaction's last part. */
static void emit_spike_walk(Out *o, const Simt *S, const IrPop *p, const char *guard)
{
    out_open(o, "while (b)");
    out_line(o, "const int64_t n = w * 32 + nc_ctz(b);");
    out_line(o, "const int nc_k = at++;");
    out_line(o, "%s_spk[nc_k] = (int32_t)n;", p->cname);
    if (simt_has_spike_recs(S, p)) {
        if (guard)
            out_open(o, "if (%s)", guard);
        simt_spike_recs(S, p, o, "nc_k");
        if (guard)
            out_close(o);
    }
    out_line(o, "b &= b - 1u;");
    out_close(o);
}

static void emit_compaction_cluster(Out *o, const Simt *S, const IrPop *p);

/* The cluster variant of a population's neuron phase (CUDA): the work-group steps its own
 * neurons [nc_lo, nc_hi) (whole 128-neuron pieces, nc_part), so each warp's ballot is one
 * spike word, staged in nc_xw. After a barrier the staged words go, 16 bytes a store, into
 * every group's nc_xw (nc_st_async4; group r by work-items r, r + groups, ...: the number
 * of groups is a power of two, pick_cluster), and the first warp of every group waits for
 * the step's words of all groups on its mbarrier (armed at the start with the bytes of all
 * groups: nc_txb) and compacts them in index order: the same spike list, count and
 * recording in every group. Two steps' worth of words and mbarriers, by step parity: a group copies
 * words of step t + 2 into a peer only after the peer's words of step t + 1 came, which the
 * peer sent after it had read the slot's words of step t. */
static void emit_neurons_cluster(Out *o, const Simt *S, const IrPop *p, const CgDialect *d0)
{
    CgDialect dh = *d0, *d = &dh;
    dh.var = simt_var_held;
    const long long R = simt_xw_words(p);
    const int xo = simt_xw_off(S, p);
    const char *stg = arena_printf(&S->cc->arena, "nc_xw[%d + (int)(step & 1) * %lld", xo, R);
    const char *all = arena_printf(&S->cc->arena, "nc_xw[%lld + (int)(step & 1) * %lld", xo + 2 * R, R);
    const char *bar = arena_printf(&S->cc->arena, "&nc_xb[%d + (int)(step & 1)]", 2 * p->id);
    out_line(o, "const int64_t nc_lo = %s, nc_hi = %s;", simt_own_lo(S, V_CLUSTER, p), simt_own_hi(S, V_CLUSTER, p));
    if (p->has_spikes)
        out_line(o, "if (NC_LID == 0) nc_mbar_expect(%s, nc_txb[%d]); /* this step's words of all groups */", bar, p->id);
    out_open(o, "for (int64_t base = nc_lo; base < nc_hi; base += NC_LSIZE)");
    out_line(o, "const int64_t n = base + NC_LID;");
    out_line(o, "int nc_fired = 0;");
    out_open(o, "if (n < nc_hi)");
    for (int j = 0; j < p->nvars; j++)
        if (p->vars[j]->per_neuron)
            out_line(o, "%s nc_h_%s = %s[n];", simt_vtype(p->vars[j]), p->vars[j]->cname, p->vars[j]->cname);
    cg_block(d, &p->body, o);
    for (int j = 0; j < p->nvars; j++)
        if (p->vars[j]->per_neuron)
            out_line(o, "%s[n] = nc_h_%s;", p->vars[j]->cname, p->vars[j]->cname);
    out_close(o);
    if (p->has_spikes) {
        out_line(o, "const uint32_t b = __ballot_sync(0xffffffffu, nc_fired);");
        out_line(o, "if ((NC_LID & 31) == 0 && (n & ~(int64_t)31) < nc_hi) %s + ((n - nc_lo) >> 5)] = b;", stg);
    } else {
        out_line(o, "(void)nc_fired;");
    }
    out_close(o);
    if (!p->has_spikes) {
        out_line(o, "if (NC_LID == 0) nc_cnt[%d + (int)(step & 1)] = 0;", 2 * p->id);
        out_line(o, "NC_BARRIER();");
        return;
    }
    out_line(o, "NC_BARRIER();");
    out_line(o, "/* this group's words, 16 bytes a store, to every group: group r by work-items r, r + groups, ... */");
    out_line(o, "const int nc_nch = (int)((nc_hi - nc_lo + 127) >> 7), nc_gl = nc_ctz((uint32_t)NC_NGROUPS);");
    out_open(o, "for (int q = NC_LID; q < (nc_nch << nc_gl); q += NC_LSIZE)");
    out_line(o, "const int r = q & ((int)NC_NGROUPS - 1), c = q >> nc_gl;");
    out_line(o, "nc_st_async4(&%s + (nc_lo >> 5) + 4 * c], r, ((const uint4 *)&%s])[c], %s);", all, stg, bar);
    out_close(o);
    out_close(o);   /* the wait (and compaction) follows: nc_exchange_<pop>_cluster */
    out_blank(o);
    out_line(o, "/* population %s: the first warp waits for all groups' words of the step and compacts them */", p->name);
    out_open(o, "NC_DEV void nc_exchange_%s_cluster(NC_ARGS, const int64_t step, const int hf)", p->cname);
    out_open(o, "if (NC_LID < 32)");
    out_line(o, "/* words that do not come: the step stops here in every group (nc_halt, nc_k_cluster) */");
    out_line(o, "if (!nc_mbar_wait(%s, (unsigned)((step - nc_s0) >> 1) & 1u) || (NC_GROUP == 0 && step == nc_inj)) nc_halt = step + 1;",
             bar);
    emit_compaction_cluster(o, S, p);
    out_close(o);
}

/* The cluster step's ordered compaction of population p's words of the step by the first
 * warp (lane l takes words per l .. per l + per - 1): the spike list, its count and (group 0)
 * the spike recordings. */
static void emit_compaction_cluster(Out *o, const Simt *S, const IrPop *p)
{
    const long long nw = (long long)((p->size + 31) / 32), per = (nw + 31) / 32, R = simt_xw_words(p);
    const char *all = arena_printf(&S->cc->arena, "nc_xw[%lld + (int)(step & 1) * %lld", simt_xw_off(S, p) + 2 * R, R);
    out_line(o, "const int w0 = NC_LID * %lld;", per);
    out_line(o, "uint32_t x[%lld];", per);
    out_line(o, "int c = 0, total;");
    out_line(o, "for (int q = 0; q < %lld; q++) c += nc_popc(x[q] = w0 + q < %lld ? %s + w0 + q] : 0u);", per, nw, all);
    simt_rec_bases(S, p, o, NULL);
    out_line(o, "int at = nc_warp_scan(c, &total); /* its shuffles: every lane has read the bases */");
    out_open(o, "for (int q = 0; q < %lld; q++)", per);
    out_line(o, "const int w = w0 + q;");
    out_line(o, "uint32_t b = x[q];");
    emit_spike_walk(o, S, p, "NC_GROUP == 0");
    out_close(o);
    out_line(o, "if (NC_LID == 0) nc_cnt[%d + (int)(step & 1)] = total;", 2 * p->id);
    simt_rec_bases(S, p, o, "total");
}

/* The neuron phase of one population; block (V_BLOCK, V_CLUSTER) = ordered compaction
 * within one work-group. */
void simt_emit_neurons(Out *o, const Simt *S, const IrPop *p, int block)
{
    const IrModel *m = S->m;
    CgDialect d = simt_dev_dialect(S, p);
    if (block)
        d.spike = simt_d_spike_block;
    else
        d.recv = simt_d_recv_grid;
    out_line(o, "/* population %s (%s, %lld neurons): one step%s */", p->name, p->model,
             (long long)p->size, block ? ", spikes compacted in index order" : "");
    out_open(o, "NC_DEV void nc_neurons_%s_%s(NC_ARGS, const int64_t step, const int hf%s)", p->cname,
             simt_vname(block), block ? ", NC_LP int *nc_tmp" : "");
    out_line(o, "const real t = (real)((double)step * dt);");
    out_line(o, "(void)t;");
    for (int k = 0; k < m->nprojs && block; k++) {
        const IrProj *j = m->projs[k];
        if (j->post.pop == p && j->ring == j)
            out_line(o, "const int64_t %s_slot = %s * %lld;", j->cname, simt_ring_slot(S, j, "step", 0),
                     (long long)j->ring_size);
    }
    /* a top-k population: the first part of the step, the selection, then the rest */
    const IrBlock *spiking = p->topk ? &p->topk->after : &p->body;
    if (block && p->topk) {
        out_open(o, "for (int64_t n = NC_LID; n < %lld; n += NC_LSIZE)", (long long)p->size);
        cg_block(&d, &p->body, o);
        out_close(o);
        out_line(o, "NC_BARRIER();");
        out_open(o, "for (int pass = 0; pass <= %d; pass++)", simt_topk_passes(m));
        out_line(o, "nc_tk_pass_%s(NC_PASS, step, pass, nc_tmp);", p->cname);
        out_line(o, "NC_BARRIER();");
        out_close(o);
    }
    if (block == V_CLUSTER) {
        emit_neurons_cluster(o, S, p, &d);
    } else if (block) {
        const long long nw = (long long)((p->size + 31) / 32);
        out_open(o, "for (int64_t base = 0; base < %lld; base += NC_LSIZE)", (long long)p->size);
        out_line(o, "const int64_t n = base + NC_LID;");
        out_open(o, "if (n < %lld)", (long long)p->size);
        out_line(o, "int nc_fired = 0;");
        cg_block(&d, spiking, o);
        if (p->has_spikes)
            out_line(o, "if (nc_fired) nc_atomic_or_u32(&%s_fm[n >> 5], 1u << (n & 31));", p->cname);
        if (simt_spike_flags(m, p))
            out_line(o, "%s_fl[n] = nc_fired;", p->cname);
        else
            out_line(o, "(void)nc_fired;");
        out_close(o);
        out_close(o);
        out_line(o, "NC_BARRIER();");
        if (p->has_spikes) {
            out_line(o, "/* ordered compaction: work-item w takes the spike bits of neurons 32 w .. 32 w + 31,");
            out_line(o, " * a prefix sum of their counts places them (and clears the bits for the next step);");
            out_line(o, " * the spikes are recorded here */");
            out_line(o, "int nc_total = 0;");
            simt_rec_bases(S, p, o, NULL);
            out_open(o, "for (int w0 = 0; w0 < %lld; w0 += NC_LSIZE)", nw);
            out_line(o, "const int w = w0 + NC_LID;");
            out_line(o, "uint32_t b = w < %lld ? %s_fm[w] : 0u;", nw, p->cname);
            out_line(o, "int total;");
            out_line(o, "int at = nc_total + nc_block_scan(nc_popc(b), nc_tmp, &total);");
            out_line(o, "if (b) %s_fm[w] = 0u;", p->cname);
            emit_spike_walk(o, S, p, NULL);
            out_line(o, "nc_total += total;");
            out_close(o);
            out_line(o, "if (NC_LID == 0) nc_cnt[%d + (int)(step & 1)] = nc_total;", 2 * p->id);
            simt_rec_bases(S, p, o, "nc_total");
        } else {
            out_line(o, "if (NC_LID == 0) nc_cnt[%d + (int)(step & 1)] = 0;", 2 * p->id);
        }
        out_line(o, "NC_BARRIER();");
    } else if (m->mpi) {
        simt_mpi_neuron_range(o, S, p);
        out_open(o, "for (int64_t n = nc_lo + NC_GID; n < nc_hi; n += NC_GSIZE)");
        cg_block(&d, &p->body, o);
        out_close(o);
    } else {
        out_open(o, "for (int64_t n = NC_GID; n < %lld; n += NC_GSIZE)", (long long)p->size);
        if (simt_spike_flags(m, p) && !p->topk)
            out_line(o, "%s_fl[n] = 0;", p->cname);
        cg_block(&d, &p->body, o);
        out_close(o);
    }
    out_close(o);
    out_blank(o);
    if (block || !p->topk)
        return;
    out_line(o, "/* population %s: the rest of the step, after the top-k selection */", p->name);
    out_open(o, "NC_DEV void nc_after_%s_grid(NC_ARGS, const int64_t step, const int hf)", p->cname);
    out_line(o, "const real t = (real)((double)step * dt);");
    out_line(o, "(void)t;");
    if (m->mpi) {   /* distributed: this rank's neurons; nc_k_merge writes the flags */
        simt_mpi_neuron_range(o, S, p);
        out_open(o, "for (int64_t n = nc_lo + NC_GID; n < nc_hi; n += NC_GSIZE)");
    } else {
        out_open(o, "for (int64_t n = NC_GID; n < %lld; n += NC_GSIZE)", (long long)p->size);
        if (simt_spike_flags(m, p))
            out_line(o, "%s_fl[n] = 0;", p->cname);
    }
    cg_block(&d, &p->topk->after, o);
    out_close(o);
    out_close(o);
    out_blank(o);
}
