/* simt_push.c -- the cluster schedule's push step (CUDA, sm_90): nc_k_push.
 *
 * The word step (nc_k_cluster) sends every group's spike words to every group; each group
 * then compacts all the words into a spike list and adds every spike's synapses onto its own
 * targets, behind two barriers. The push step turns the exchange around: the group that owns
 * a spiking neuron adds one to a 32-bit count of each of the neuron's targets, in the shared
 * memory of the target's group (red.async, nc_red_async1), and each such add completes on
 * that group's mbarrier by its 4 bytes. Every warp then arrives once on every group's
 * mbarrier of the step with the bytes of its adds to that group (nc_arrive_remote), so a
 * group's mbarrier completes when every warp of the cluster has arrived and every add has
 * landed. A step is: the update of each work-item's neuron, a ballot, the pushes of the
 * warp's spikes, the arrivals, one wait. No barrier, no spike list, no compaction.
 *
 * The counts replace the ring: a projection of one weight w adds w once per arriving spike,
 * and C adds it into the ring slot from 0 in spike order, so a slot holds w added k times in
 * a row, whatever the order. The update adds w to the slot's carry k times (d_recv_push):
 * C's bits. The carry is the ring slot as the launch found it (earlier launches, other
 * schedules), held in registers with the neuron's state for the whole launch; at the end
 * each neuron folds its counts into the carries and writes both back (the rings as the block
 * schedule leaves them).
 *
 * Each group's out-tables (for every own presynaptic neuron of a projection: its synapses'
 * target groups and local indices, sorted by group, and how many go to each group) are built
 * once per run by nc_k_push_tables into the group's region of nc_otc; the host reads whether
 * they fit in the group's shared memory beside the counts, and runs the word step where not.
 * Spikes are recorded as the free schedule records them (simt_free_post): each warp writes
 * its ballot word of every chunk step into <pop>_fb, and three small kernels after the launch
 * make the counts and spike recordings from the words. States are recorded and checked
 * (--check-finite) by the work-item that owns the neuron.
 *
 * Measured (CUBA and COBA, 16 groups, H200): see docs/performance-history.md, "The push step, session 13".
 */
#include <stdlib.h>

#include "simt_priv.h"

/* Contract: 1 when the cluster schedule of S's model can take the push step: the cluster
 * kernel is compiled, and (simt_push_model) every projection is fused with one weight into
 * a two-slot ring of its own with no per-synapse delay (simt_own_table, no ring delay), no
 * recording of synapses, and no neuron twice in a state recording (each work-item writes
 * its neuron's column). */
int simt_push_ok(const Simt *S)
{
    return S->has[SCHED_CLUSTER] && simt_push_model(S->m);
}

/* Contract (codegen.h): the model's part of simt_push_ok. */
int simt_push_model(const IrModel *m)
{
    if (m->nprojs == 0)
        return 0;
    for (int k = 0; k < m->nprojs; k++) {
        const IrProj *j = m->projs[k];
        if (!simt_own_table(m, j) || j->ring != j || j->ring_delay)
            return 0;
    }
    int ok = 1;
    for (int r = 0; ok && r < m->nrecs; r++) {
        const IrRecord *rec = &m->recs[r];
        if (rec->proj || rec->bin)   /* rate recordings: the other schedules count them */
            return 0;
        if (rec->spikes)
            continue;
        /* a bit per neuron of the population: a recording may list all of them */
        const int64_t n = rec->view.pop->size;
        unsigned char *seen = calloc((size_t)(n + 7) / 8, 1);
        if (!seen)
            return 0;
        for (int a = 0; ok && a < rec->nidx; a++) {
            const int64_t i = rec->idx[a];
            if (i < 0 || i >= n || (seen[i >> 3] >> (i & 7) & 1))
                ok = 0;
            else
                seen[i >> 3] |= (unsigned char)(1u << (i & 7));
        }
        free(seen);
    }
    return ok;
}

static long long words(const IrPop *p)
{
    return (long long)((p->size + 31) / 32);
}

/* Bytes of nc_scal at the start of the kernel's shared memory. */
static long long scal_bytes(const Simt *S)
{
    return (long long)S->nscal * (S->m->dbl ? 8 : 4);
}

/* Header of a group's region of nc_otc, in 32-bit words: [0] 2 (push tables), [1] the first
 * byte of the tables in shared memory, [2] their end, [3] 1 when they fit, then per
 * projection the shared-memory offsets of its row offsets, targets and per-group counts and
 * its first own presynaptic neuron. */
static long long hdr_words(const IrModel *m)
{
    return (4 + 4 * (long long)m->nprojs + 3) / 4 * 4;
}

/* The shared-memory layout both kernels compute (every group the same, from the largest
 * group's part): nc_scal, the counts of each projection (2 slots of nc_pm<post> 32-bit
 * counts, indexed by the target's place in its group; nc_pm<i>: the most neurons of
 * population i a group holds, nc_part's 128-neuron pieces), then the tables from nc_t0. */
static void emit_layout(Out *o, const Simt *S)
{
    const IrModel *m = S->m;
    for (int i = 0; i < m->npops; i++)
        out_line(o, "const uint32_t nc_pm%d = (uint32_t)(%lld < 128 * ((%lld + NC_NGROUPS - 1) / NC_NGROUPS) ? %lld : 128 * ((%lld + NC_NGROUPS - 1) / NC_NGROUPS));",
                 i, (long long)m->pops[i]->size, (long long)(m->pops[i]->size + 127) / 128, (long long)m->pops[i]->size,
                 (long long)(m->pops[i]->size + 127) / 128);
    out_line(o, "uint32_t nc_at = %lldu;", (scal_bytes(S) + 15) / 16 * 16);
    for (int k = 0; k < m->nprojs; k++)
        out_line(o, "const uint32_t nc_pc%d = nc_at; nc_at += 8u * nc_pm%d; /* %s */", k, m->projs[k]->post.pop->id,
                 m->projs[k]->name);
    out_line(o, "const uint32_t nc_t0 = (nc_at + 15u) & ~15u;");
}

/* nc_k_push_tables: group g (one work-group per cluster group, not a cluster launch) writes
 * its out-tables into its region of nc_otc as they will lie in shared memory. */
static void emit_tables_kernel(Out *o, const Simt *S)
{
    const IrModel *m = S->m;
    const long long shm = (long long)simt_cluster_shmem(S), hw = hdr_words(m);
    out_line(o, "/* the push step's out-tables of each group, once per run (simt_push.c) */");
    simt_kernel_open(o, S, "NC_KERNEL nc_k_push_tables(NC_ARGS)");
    out_line(o, "NC_L int nc_tmp[%d];", S->block + 64);
    emit_layout(o, S);
    out_line(o, "NC_G uint32_t *const nc_oc = nc_otc + (int64_t)NC_GROUP * %lld;", shm / 4);
    out_line(o, "NC_G char *const nc_img = (NC_G char *)(nc_oc + %lld) - nc_t0; /* shared-memory offset -> its copy */", hw);
    out_line(o, "NC_L int nc_ok; /* the tables fit (every work-item's checks) */");
    out_line(o, "if (NC_LID == 0) nc_ok = 1;");
    out_line(o, "NC_BARRIER();");
    out_line(o, "nc_at = nc_t0;");
    for (int k = 0; k < m->nprojs; k++) {
        const IrProj *j = m->projs[k];
        const long long np = (long long)j->pre.pop->size, poff = (long long)j->pre.offset, pend = poff + (long long)j->pre.size;
        const long long qsz = (long long)j->post.pop->size, qoff = (long long)j->post.offset;
        out_open(o, "/* %s */", j->name);
        out_line(o, "const int64_t slo = nc_part(%lld, NC_GROUP, NC_NGROUPS) > %lld ? nc_part(%lld, NC_GROUP, NC_NGROUPS) : %lld;",
                 np, poff, np, poff);
        out_line(o, "const int64_t shi = nc_part(%lld, NC_GROUP + 1, NC_NGROUPS) < %lld ? nc_part(%lld, NC_GROUP + 1, NC_NGROUPS) : %lld;",
                 np, pend, np, pend);
        out_line(o, "const int ns = shi > slo ? (int)(shi - slo) : 0;");
        out_line(o, "const uint32_t orw = nc_at = (nc_at + 15u) & ~15u;");
        out_line(o, "nc_at += 4u * (uint32_t)(ns + 1);");
        out_line(o, "uint32_t run = 0;");
        out_open(o, "for (int b0 = 0; b0 < ns + 1; b0 += NC_LSIZE)");
        out_line(o, "const int li = b0 + NC_LID;");
        out_line(o, "const int64_t len = li < ns ? %s_rp[slo - %lld + li + 1] - %s_rp[slo - %lld + li] : 0;", j->cname, poff,
                 j->cname, poff);
        out_line(o, "if (len > 65535) nc_ok = 0; /* counts per group are 16-bit */");
        out_line(o, "int total;");
        out_line(o, "const int x = nc_block_scan((int)len, nc_tmp, &total);");
        out_line(o, "if (li <= ns && nc_at <= %lldu && nc_at - nc_t0 <= %lldu) ((NC_G uint32_t *)(nc_img + orw))[li] = run + (uint32_t)x;",
                 shm, shm - 4 * hw);
        out_line(o, "run += (uint32_t)total;");
        out_close(o);
        out_line(o, "const uint32_t dps = nc_at = (nc_at + 15u) & ~15u;");
        out_line(o, "nc_at += 2u * (uint32_t)ns * (uint32_t)(NC_NGROUPS + 1);");
        out_line(o, "const uint32_t ent = nc_at = (nc_at + 15u) & ~15u;");
        out_line(o, "nc_at += 4u * run;");
        out_line(o, "if (nc_at > %lldu || nc_at - nc_t0 > %lldu || run > 0x3fffffffu) nc_ok = 0;", shm, shm - 4 * hw);
        out_line(o, "NC_BARRIER();");
        out_open(o, "for (int li = NC_LID; nc_ok && li < ns; li += NC_LSIZE)");
        out_line(o, "NC_G uint16_t *const d = (NC_G uint16_t *)(nc_img + dps) + (int64_t)li * (NC_NGROUPS + 1);");
        out_line(o, "NC_G uint32_t *const e = (NC_G uint32_t *)(nc_img + ent);");
        out_line(o, "const uint32_t q0 = ((NC_G uint32_t *)(nc_img + orw))[li];");
        out_line(o, "uint32_t q = q0;");
        out_line(o, "int r = 0;");
        out_line(o, "d[0] = 0;");
        out_open(o, "for (int64_t s = %s_rp[slo - %lld + li]; s < %s_rp[slo - %lld + li + 1]; s++)", j->cname, poff, j->cname,
                 poff);
        out_line(o, "const int64_t t = %s_col[s] + %lld; /* the target in its population */", j->cname, qoff);
        out_line(o, "while (r < NC_NGROUPS && nc_part(%lld, r + 1, NC_NGROUPS) <= t) d[++r] = (uint16_t)(q - q0);", qsz);
        out_line(o, "e[q++] = ((uint32_t)r << 16) | (uint32_t)(t - nc_part(%lld, r, NC_NGROUPS));", qsz);
        out_close(o);
        out_line(o, "while (r < NC_NGROUPS) d[++r] = (uint16_t)(q - q0);");
        out_close(o);
        out_open(o, "if (NC_LID == 0)");
        out_line(o, "nc_oc[%d] = orw, nc_oc[%d] = ent, nc_oc[%d] = dps, nc_oc[%d] = (uint32_t)slo;", 4 + 3 * k, 5 + 3 * k,
                 6 + 3 * k, 4 + 3 * m->nprojs + k);
        out_close(o);
        out_close(o);
    }
    for (int i = 0; i < m->npops; i++)
        out_line(o, "if (nc_pm%d > 65535u) nc_ok = 0; /* local targets are 16-bit */", i);
    out_line(o, "NC_BARRIER();");
    out_line(o, "if (NC_LID == 0) nc_oc[0] = 2u, nc_oc[1] = nc_t0, nc_oc[2] = nc_at, nc_oc[3] = (uint32_t)nc_ok;");
    out_close(o);
    out_blank(o);
}

/* IS_RECV in the push step: the slot's carry, then the weight once per counted spike. */
static void d_recv_push(const CgDialect *d, const IrProj *p, const char *local, Out *o)
{
    const Simt *S = d->user;
    const int k = p->id; /* its place in m->projs */
    const IrPop *pre = p->pre.pop;
    CgDialect dw = simt_dev_dialect(S, pre);
    StrBuf w = {0};
    cg_expr(&dw, p->w, &w);
    out_line(o, "%s %s = (step & 1) ? nc_y1_%s : nc_y0_%s;", d->real, local, p->cname, p->cname);
    out_line(o, "if (step & 1) nc_y1_%s = 0; else nc_y0_%s = 0;", p->cname, p->cname);
    out_begin(o);
    out_line(o, "/* the counts were read (and cleared) before the update: nc_kc<k>; the first two adds by");
    out_line(o, " * selects, not a loop (its branch was 5 %% of COBA's stalls) */");
    out_line(o, "%s a_ = %s + %s;", d->real, local, w.s);
    out_line(o, "%s = nc_kc%d > 0 ? a_ : %s;", local, k, local);
    out_line(o, "a_ = %s + %s;", local, w.s);
    out_line(o, "%s = nc_kc%d > 1 ? a_ : %s;", local, k, local);
    out_line(o, "for (uint32_t k_ = nc_kc%d; k_ > 2; k_--) %s = %s + %s;", k, local, local, w.s);
    out_close(o);
    sb_free(&w);
}

/* The spike of a work-item's neuron n of pop: no list; the ballot below (nc_fired). */
static void d_spike_push(const CgDialect *d, const IrPop *pop, Out *o)
{
    (void)d;
    (void)pop;
    out_line(o, "nc_fired = 1;");
}

/* Neuron n's state recordings after the update, by the work-item that holds it. */
static void state_recs(Out *o, const Simt *S, const IrPop *p)
{
    for (int r = 0; r < S->m->nrecs; r++) {
        const IrRecord *rec = &S->m->recs[r];
        if (rec->spikes || rec->view.pop != p)
            continue;
        const long long ev = (long long)rec->every;
        out_open(o, "if (nc_rq%d >= 0 && (step + 1) %% %lld == 0)", r, ev);
        out_line(o, "NC_G double *dst = rec%d_rows + ((int64_t)hf * %lld + step / %lld - c0 / %lld) * %d;", r,
                 (long long)simt_state_rec_rows(S, rec), ev, ev, rec->nvars * rec->nidx);
        for (int v = 0; v < rec->nvars; v++)
            out_line(o, "dst[%d + nc_rq%d] = (double)nc_h_%s;", v * rec->nidx, r, rec->vars[v]->cname);
        out_close(o);
    }
}

/* The pushes of the spikes in ballot word nc_b of pop's warp: per projection from pop whose
 * pre view holds spike i_, the warp's lanes walk its out-row, one red.async per synapse, and
 * lane r counts the bytes to group r. */
static void emit_pushes(Out *o, const Simt *S, const IrPop *p)
{
    const IrModel *m = S->m;
    out_open(o, "for (uint32_t m_ = nc_b; m_; m_ &= m_ - 1u)");
    out_line(o, "const int64_t i_ = (nc_n%d & ~(int64_t)31) + nc_ctz(m_);", p->id);
    for (int k = 0; k < m->nprojs; k++) {
        const IrProj *j = m->projs[k];
        if (j->pre.pop != p)
            continue;
        const long long off = (long long)j->pre.offset, end = off + (long long)j->pre.size;
        if (off == 0 && end == (long long)p->size)
            out_open(o, "/* %s */", j->name);
        else
            out_open(o, "if (i_ >= %lld && i_ < %lld) /* %s */", off, end, j->name);
        out_line(o, "const int li = (int)(i_ - nc_os%d);", k);
        out_line(o, "const uint32_t *const orw = (const uint32_t *)(nc_res + nc_ow%d);", k);
        out_line(o, "const uint32_t *const ent = (const uint32_t *)(nc_res + nc_oe%d);", k);
        out_line(o, "const uint16_t *const dps = (const uint16_t *)(nc_res + nc_od%d) + li * ((int)NC_NGROUPS + 1);", k);
        out_line(o, "uint32_t *const dst = (uint32_t *)(nc_res + nc_pc%d) + (int)((step + 1) & 1) * nc_pm%d;", k, j->post.pop->id);
        out_line(o, "const uint32_t re = orw[li + 1];");
        out_open(o, "for (uint32_t s0 = orw[li] + nc_lane; s0 < re; s0 += 128) /* four loads in flight, then the adds */");
        out_line(o, "uint32_t e_[4];");
        out_line(o, "for (int u = 0; u < 4; u++) e_[u] = s0 + 32 * u < re ? ent[s0 + 32 * u] : 0xffffffffu;");
        out_line(o, "for (int u = 0; u < 4; u++) if (e_[u] != 0xffffffffu) nc_red_async1(dst + (e_[u] & 0xffffu), (int)(e_[u] >> 16), nc_bar);");
        out_close(o);
        out_line(o, "if (nc_lane < (int)NC_NGROUPS) nc_myc += dps[nc_lane + 1] - dps[nc_lane];");
        out_close(o);
    }
    out_close(o);
}

/* nc_k_push: each work-item's neuron of each population, its state and its slots' carry
 * loaded into registers. */
static void emit_push_load(Out *o, const Simt *S)
{
    const IrModel *m = S->m;
    for (int i = 0; i < m->npops; i++) {
        const IrPop *p = m->pops[i];
        const long long sz = (long long)p->size;
        out_line(o, "/* population %s: work-item l holds neuron nc_part(..) + l */", p->name);
        out_line(o, "const int64_t nc_hi%d = nc_part(%lld, NC_GROUP + 1, NC_NGROUPS), nc_n%d = nc_part(%lld, NC_GROUP, NC_NGROUPS) + NC_LID;",
                 i, sz, i, sz);
        out_line(o, "const int nc_mine%d = nc_n%d < nc_hi%d;", i, i, i);
        for (int v = 0; v < p->nvars; v++)
            if (p->vars[v]->per_neuron)
                out_line(o, "%s nc_r_%s = nc_mine%d ? %s[nc_n%d] : 0;", p->vars[v]->type == IRT_REAL ? "real" : "int32_t",
                         p->vars[v]->cname, i, p->vars[v]->cname, i);
        for (int k = 0; k < m->nprojs; k++) {
            const IrProj *j = m->projs[k];
            if (j->post.pop != p)
                continue;
            const long long off = (long long)j->post.offset, size = (long long)j->post.size;
            out_line(o, "const int nc_in%d = nc_mine%d && nc_n%d >= %lld && nc_n%d < %lld; /* in %s's targets */", k, i, i, off,
                     i, off + size, j->name);
            out_line(o, "real nc_y0_%s = nc_in%d ? %s_ring[nc_n%d - %lld] : 0, nc_y1_%s = nc_in%d ? %s_ring[%lld + nc_n%d - %lld] : 0;",
                     j->cname, k, j->cname, i, off, j->cname, k, j->cname, size, i, off);
        }
        if (p->has_spikes)
            out_line(o, "uint32_t nc_fw%d = 0; /* spike words of the last 32 steps (the lane's step) */", i);
        for (int r = 0; r < m->nrecs; r++) {
            const IrRecord *rec = &m->recs[r];
            if (rec->spikes || rec->view.pop != p)
                continue;
            out_line(o, "/* the column of this neuron in recording %d */", r);
            simt_rec_column(o, S, r, arena_printf(&S->cc->arena, "nc_rq%d", r), arena_printf(&S->cc->arena, "nc_n%d", i),
                            arena_printf(&S->cc->arena, "nc_mine%d", i));
        }
    }
}

/* nc_k_push: one step of every population: the update, and each spike pushed into the
 * targets' groups. */
static void emit_push_step(Out *o, const Simt *S)
{
    const IrModel *m = S->m;
    for (int i = 0; i < m->npops; i++) {
        const IrPop *p = m->pops[i];
        CgDialect d = simt_dev_dialect(S, p);
        d.var = simt_var_held;
        d.recv = d_recv_push;
        d.spike = d_spike_push;
        out_open(o, "/* population %s */", p->name);
        out_line(o, "const int64_t n = nc_n%d;", i);
        out_line(o, "int nc_fired = 0;");
        out_open(o, "if (nc_mine%d)", i);
        /* every count of the step read before any is cleared: a load after a store to the
         * same array waits for it */
        for (int k = 0; k < m->nprojs; k++)
            if (m->projs[k]->post.pop == p)
                out_line(o, "uint32_t *const nc_cp%d = (uint32_t *)(nc_res + nc_pc%d) + (int)(step & 1) * nc_pm%d + NC_LID;", k, k, i);
        for (int k = 0; k < m->nprojs; k++)
            if (m->projs[k]->post.pop == p)
                out_line(o, "const uint32_t nc_kc%d = *nc_cp%d;", k, k);
        for (int k = 0; k < m->nprojs; k++)
            if (m->projs[k]->post.pop == p)
                out_line(o, "*nc_cp%d = 0;", k);
        for (int v = 0; v < p->nvars; v++)
            if (p->vars[v]->per_neuron)
                out_line(o, "%s nc_h_%s = nc_r_%s;", p->vars[v]->type == IRT_REAL ? "real" : "int32_t", p->vars[v]->cname,
                         p->vars[v]->cname);
        cg_block(&d, &p->body, o);
        for (int v = 0; v < p->nvars; v++)
            if (p->vars[v]->per_neuron)
                out_line(o, "nc_r_%s = nc_h_%s;", p->vars[v]->cname, p->vars[v]->cname);
        state_recs(o, S, p);
        simt_finite_one(o, S, p, 1);
        out_close(o);
        if (p->has_spikes) {
            out_line(o, "const uint32_t nc_b = __ballot_sync(0xffffffffu, nc_fired);");
            out_line(o, "/* the spike words for the recordings: lane l keeps the word of chunk step 32q + l, and the");
            out_line(o, " * warp stores 32 steps' words at once (a store every step cost 0.07 us of CUBA's 1.08) */");
            out_line(o, "if (nc_lane == (int)(k & 31)) nc_fw%d = nc_b;", i);
            out_open(o, "if ((k & 31) == 31 || step + 1 == step0 + nsteps)");
            out_line(o, "const int64_t kb = (k & ~(int64_t)31) + nc_lane;");
            out_line(o, "if ((n & ~(int64_t)31) < nc_hi%d && kb <= k && kb >= step0 - c0) %s_fb[kb * %lld + (n >> 5)] = nc_fw%d;", i,
                     p->cname, words(p), i);
            out_close(o);
            emit_pushes(o, S, p);
        } else {
            out_line(o, "(void)nc_fired;");
        }
        out_close(o);
    }
}

/* nc_k_push: the state, and each slot's carry with its counts folded in, back to global
 * memory. */
static void emit_push_store(Out *o, const Simt *S)
{
    const IrModel *m = S->m;
    for (int i = 0; i < m->npops; i++) {
        const IrPop *p = m->pops[i];
        for (int v = 0; v < p->nvars; v++)
            if (p->vars[v]->per_neuron)
                out_line(o, "if (nc_mine%d) %s[nc_n%d] = nc_r_%s;", i, p->vars[v]->cname, i, p->vars[v]->cname);
        for (int k = 0; k < m->nprojs; k++) {
            const IrProj *j = m->projs[k];
            if (j->post.pop != p)
                continue;
            CgDialect dw = simt_dev_dialect(S, j->pre.pop);
            StrBuf w = {0};
            cg_expr(&dw, j->w, &w);
            out_open(o, "if (nc_in%d)", k);
            out_line(o, "const uint32_t *const c_ = (const uint32_t *)(nc_res + nc_pc%d) + NC_LID;", k);
            out_line(o, "for (uint32_t k_ = c_[0]; k_; k_--) nc_y0_%s = nc_y0_%s + %s;", j->cname, j->cname, w.s);
            out_line(o, "for (uint32_t k_ = c_[nc_pm%d]; k_; k_--) nc_y1_%s = nc_y1_%s + %s;", i, j->cname, j->cname, w.s);
            out_line(o, "%s_ring[nc_n%d - %lld] = nc_y0_%s;", j->cname, i, (long long)j->post.offset, j->cname);
            out_line(o, "%s_ring[%lld + nc_n%d - %lld] = nc_y1_%s;", j->cname, (long long)j->post.size, i,
                     (long long)j->post.offset, j->cname);
            out_close(o);
            sb_free(&w);
        }
    }
}

/* Contract: the push step's kernels (S->push): nc_k_push_tables and nc_k_push. */
void simt_push_device(Out *o, const Simt *S)
{
    const IrModel *m = S->m;
    const long long shm = (long long)simt_cluster_shmem(S), hw = hdr_words(m);
    out_line(o, "#if defined(__CUDACC__)");
    emit_tables_kernel(o, S);
    out_line(o, "/* cluster schedule, push step: the network split over one thread-block cluster, nsteps");
    out_line(o, " * steps per launch, each work-item holding a neuron of each population (simt_push.c) */");
    simt_kernel_open(o, S, "NC_KERNEL_BOUNDED(%d) nc_k_push(NC_ARGS, const int64_t nsteps)", S->block);
    out_line(o, "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900");
    out_line(o, "if (nc_ctl[4]) return; /* an earlier launch stalled: the host redoes these steps */");
    out_line(o, "const int hf = (int)nc_ctl[2];");
    out_line(o, "const int64_t step0 = nc_ctl[0], c0 = nc_ctl[1];");
    out_line(o, "const int32_t every = nc_fin[0];");
    out_line(o, "(void)every;");
    out_line(o, "(void)hf;");
    out_line(o, "extern __shared__ __align__(16) unsigned char nc_res[];");
    emit_layout(o, S);
    out_line(o, "NC_G const uint32_t *const nc_oc = nc_otc + (int64_t)NC_GROUP * %lld;", shm / 4);
    out_line(o, "nc_res_copy(nc_res, nc_scal, %lld);", scal_bytes(S));
    out_line(o, "for (uint32_t q = NC_LID; q < (nc_t0 - nc_pc0) / 4; q += NC_LSIZE) ((uint32_t *)(nc_res + nc_pc0))[q] = 0;");
    out_line(o, "nc_res_copy(nc_res + nc_t0, nc_oc + %lld, nc_oc[2] - nc_t0);", hw);
    for (int k = 0; k < m->nprojs; k++)
        out_line(o, "const uint32_t nc_ow%d = nc_oc[%d], nc_oe%d = nc_oc[%d], nc_od%d = nc_oc[%d]; const int64_t nc_os%d = nc_oc[%d];",
                 k, 4 + 3 * k, k, 5 + 3 * k, k, 6 + 3 * k, k, 4 + 3 * m->nprojs + k);
    out_open(o, "if (NC_LID == 0)");
    out_line(o, "nc_halt = 0;");
    out_line(o, "nc_mbar_init(&nc_xb[0], (unsigned)(NC_NGROUPS * (NC_LSIZE >> 5))); /* every warp of every group */");
    out_line(o, "nc_mbar_init(&nc_xb[1], (unsigned)(NC_NGROUPS * (NC_LSIZE >> 5)));");
    out_close(o);
    out_line(o, "NC_BARRIER();");
    out_line(o, "cooperative_groups::this_cluster().sync();");
    out_begin(o);
    if (S->nscal <= 32) {   /* in registers: loads from shared memory would wait for the count stores */
        out_line(o, "real nc_scal[%d];", S->nscal);
        out_line(o, "for (int q = 0; q < %d; q++) nc_scal[q] = ((const real *)nc_res)[q];", S->nscal);
    } else {
        out_line(o, "const real *const nc_scal = (const real *)nc_res;");
    }
    out_line(o, "(void)nc_scal;");
    out_line(o, "const int nc_lane = NC_LID & 31;");
    out_line(o, "const int64_t nc_injr = NC_GROUP == 0 ? nc_ctl[5] : -1; /* a stall to act ($NEUROC_FAULT_CLUSTER_STALL) */");
    emit_push_load(o, S);
    out_line(o, "/* the state check (every K-th step, K = every; 0: off): steps until the next, counted down");
    out_line(o, " * in a register (a division per step cost more than the check); -1: never */");
    out_line(o, "int32_t nc_fc = every > 0 ? (int32_t)((every - nc_mod(step0 + 1, every)) %% every) : -1;");
    out_line(o, "(void)nc_fc;");
    out_line(o, "int64_t step = step0;");
    out_open(o, "do");
    out_line(o, "const int64_t k = step - c0; /* step within the chunk */");
    out_line(o, "const real t = (real)((double)step * dt);");
    out_line(o, "(void)t;");
    out_line(o, "(void)k;");
    out_line(o, "uint64_t *const nc_bar = &nc_xb[(int)(step & 1)];");
    out_line(o, "int nc_myc = 0; /* lane r: the bytes of this warp's adds to group r */");
    emit_push_step(o, S);
    out_line(o, "if (nc_lane < (int)NC_NGROUPS) nc_arrive_remote(nc_bar, nc_lane, 4u * (uint32_t)nc_myc);");
    out_line(o, "/* the step's adds and every warp's arrival: the counts of the next step are in; a wait");
    out_line(o, " * that gives up (another process holds the GPU) ends the launch, which leaves no trace */");
    out_open(o, "if (!nc_mbar_wait(nc_bar, ((unsigned)(step - step0) >> 1) & 1u) || step == nc_injr)");
    out_line(o, "nc_halt = step + 1;");
    out_line(o, "break;");
    out_close(o);
    out_line(o, "nc_fc = nc_fc == 0 ? every - 1 : nc_fc - (nc_fc > 0);");
    out_line(o, "step++;");
    out_close_with(o, " while (step < step0 + nsteps);");
    simt_cluster_stall_end(o);
    out_line(o, "/* the state, and each slot's carry with its counts folded in, back to global memory */");
    emit_push_store(o, S);
    out_line(o, "if (NC_GID == 0) nc_ctl[0] = step0 + nsteps;");
    out_close(o);
    out_line(o, "#else");
    out_line(o, "(void)nsteps;");
    out_line(o, "__trap(); /* built for a GPU without thread-block clusters */");
    out_line(o, "#endif");
    out_close(o);
    out_line(o, "#endif");
    out_blank(o);
}

/* Contract: host code: push_tables(), called once the instance is built and bound in the
 * cluster schedule: whether the push step runs (use_push): every population's largest part
 * has a work-item of its own, the push kernel runs as a cluster of g_cluster groups, and
 * every group's out-tables (nc_k_push_tables) fit its shared memory. 0, or -1 (errmsg).
 * NEUROC_CLUSTER_STEP=words keeps the word step (tests). */
void simt_push_host(Out *o, const Simt *S)
{
    const IrModel *m = S->m;
    out_open(o, "static int push_tables(void)");
    out_line(o, "const char *e = getenv(\"NEUROC_CLUSTER_STEP\");");
    out_line(o, "use_push = 0;");
    out_line(o, "if (e && strcmp(e, \"words\") == 0) return 0;");
    for (int i = 0; i < m->npops; i++) {
        const long long sz = (long long)m->pops[i]->size;
        out_line(o, "if (cluster_threads < (size_t)%lld && cluster_threads < 128 * ((%lld + g_cluster - 1) / g_cluster)) return 0;",
                 sz, (sz + 127) / 128);
    }
    out_line(o, "if (nrt_gpu_max_cluster(k_push, cluster_threads, NC_CLUSTER_SHMEM) < g_cluster) return 0;");
    out_line(o, "if (nrt_gpu_launch(k_push_tables, g_cluster, 256, 0) != NRT_OK) return -1; /* any work-items: nc_part counts groups */");
    out_open(o, "for (size_t r = 0; r < g_cluster; r++)");
    out_line(o, "uint32_t h[4];");
    out_line(o, "if (nrt_gpu_read(gpu, nc_otc, r * NC_CLUSTER_SHMEM, h, sizeof h) != NRT_OK) return -1;");
    out_line(o, "if (h[0] != 2u || h[3] != 1u) return 0;");
    out_close(o);
    out_line(o, "use_push = 1;");
    out_line(o, "return 0;");
    out_close(o);
    out_blank(o);
}

/* Contract: host code of enqueue's case M_CLUSTER (len in scope): the push step's launch and
 * the kernels that record its spike bits, where it runs. */
void simt_push_host_enqueue(Out *o, const Simt *S)
{
    (void)S;
    out_open(o, "if (use_push)");
    out_line(o, "if (nrt_gpu_arg_i64(k_push, NC_NARGS, len) != NRT_OK) return -1;");
    out_line(o, "if (nrt_gpu_launch_cluster(k_push, g_cluster, cluster_threads, NC_CLUSTER_SHMEM) != NRT_OK) return -1;");
    simt_free_host_post(o);
    out_close(o);
}
