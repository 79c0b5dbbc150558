/* simt_layout.c -- the layout record of a model's programs (Simt, simt_priv.h): which
 * schedule kernels the device program has, the kernel arguments (every buffer, with the
 * concerns' own: plastic projections, --mpi, --check-finite, the free schedule and push
 * step, table mode) and, for the block and cluster schedules, which buffers live in shared
 * memory (plan_resident, plan_resident_cluster). simt_setup builds it; both program drivers
 * (simt_device.c, simt_main.c) start from it.
 */
#include <math.h>
#include <string.h>

#include "simt_priv.h"

static void plan_resident(Simt *S);
static void plan_resident_cluster(Simt *S);
static void layout(Simt *S)
{
    const IrModel *m = S->m;
    Arena *a = &S->cc->arena;
    /* chunk: at most 1000 steps, spike buffers of at most 16 MiB per half */
    int64_t big = 1;
    for (int r = 0; r < m->nrecs; r++)
        if (m->recs[r].spikes && m->recs[r].view.size > big)
            big = m->recs[r].view.size;
    int64_t ch = (16 << 20) / (4 * big);
    S->ch = (int)(ch < 1 ? 1 : ch > 1000 ? 1000 : ch);
    S->block = 1024;
    S->cnt_rec = 2 * m->npops;
    S->cnt_maxd = S->cnt_rec + 2 * m->nrecs;
    S->cnt_err = S->cnt_maxd + m->nprojs;
    S->cnt_view = S->cnt_err + 1;
    S->ncnt = S->cnt_view + 2 * m->nviews;
    S->cnt_mind = S->ncnt;
    if (simt_min_delays(m))   /* the shortest delay of each projection (simt_mpi_min_delay) */
        S->ncnt += m->nprojs;
    for (int i = 0; i < m->npops; i++) {
        const IrPop *p = m->pops[i];
        for (int j = 0; j < p->nvars; j++)
            if (p->vars[j]->per_neuron)
                simt_add_arg(S, p->vars[j]->cname, simt_vtype(p->vars[j]), ARG_MEM);
        for (int j = 0; j < p->nprops; j++)
            if (p->props[j]->per_neuron)
                simt_add_arg(S, p->props[j]->cname, "real", ARG_MEM);
        simt_add_arg(S, arena_printf(a, "%s_spk", p->cname), "int32_t", ARG_MEM);
        simt_add_arg(S, arena_printf(a, "%s_fl", p->cname), "int32_t", ARG_MEM);
        simt_add_arg(S, arena_printf(a, "%s_fm", p->cname), "uint32_t", ARG_MEM);
        if (p->sfile) {
            simt_add_arg(S, arena_printf(a, "%s_sfp", p->cname), "int64_t", ARG_MEM);
            simt_add_arg(S, arena_printf(a, "%s_sfi", p->cname), "int32_t", ARG_MEM);
        }
        if (p->topk) {
            simt_add_arg(S, arena_printf(a, "%s_tkh", p->cname), "int32_t", ARG_MEM);
            simt_add_arg(S, arena_printf(a, "%s_tks", p->cname), "int32_t", ARG_MEM);
        }
    }
    simt_series_args(S);
    for (int k = 0; k < m->nprojs; k++) {
        const IrProj *j = m->projs[k];
        simt_add_arg(S, arena_printf(a, "%s_rp", j->cname), "int64_t", ARG_MEM);
        simt_add_arg(S, arena_printf(a, "%s_col", j->cname), "int32_t", ARG_MEM);
        if (j->plast)
            simt_plast_args(S, j);
        else
            simt_add_arg(S, arena_printf(a, "%s_w", j->cname), "real", ARG_MEM);
        if (j->delay)
            simt_add_arg(S, arena_printf(a, "%s_d", j->cname), "int32_t", ARG_MEM);
        if (j->ring == j)         /* merged receptors: the owner's ring (IrProj.ring) */
            simt_add_arg(S, arena_printf(a, "%s_ring", j->cname), "real", ARG_MEM);
        if (j->rule == IR_FROM_FILE) {
            simt_add_arg(S, arena_printf(a, "%s_fw", j->cname), "double", ARG_MEM);
            simt_add_arg(S, arena_printf(a, "%s_fd", j->cname), "double", ARG_MEM);
        }
        if (j->ring == j)
            simt_add_arg(S, arena_printf(a, "%s_D", j->cname), "int64_t", ARG_I64);
        if (simt_gathers(j)) {
            simt_add_arg(S, arena_printf(a, "%s_cptr", j->cname), "int64_t", ARG_MEM);
            simt_add_arg(S, arena_printf(a, "%s_csyn", j->cname), "int64_t", ARG_MEM);
            simt_add_arg(S, arena_printf(a, "%s_cpre", j->cname), "int32_t", ARG_MEM);
            if (j->delay)
                simt_add_arg(S, arena_printf(a, "%s_fh", j->cname), "int32_t", ARG_MEM);
        }
    }
    for (int r = 0; r < m->nrecs; r++) {
        if (m->recs[r].spikes) {
            simt_add_arg(S, arena_printf(a, "rec%d_ids", r), "int32_t", ARG_MEM);
            simt_add_arg(S, arena_printf(a, "rec%d_ends", r), "int32_t", ARG_MEM);
        } else if (m->recs[r].bin) {
            if (simt_rec_counted(&m->recs[r]))
                simt_add_arg(S, arena_printf(a, "rec%d_ends", r), "int32_t", ARG_MEM);
        } else {
            simt_add_arg(S, arena_printf(a, "rec%d_rows", r), "double", ARG_MEM);
        }
    }
    simt_add_arg(S, "nc_scal", "real", ARG_MEM);
    simt_add_arg(S, "nc_cnt", "int32_t", ARG_MEM);
    simt_add_arg(S, "nc_ctl", "int64_t", ARG_MEM);
    simt_add_arg(S, "nc_pcnt", "int32_t", ARG_MEM);
    if (m->nviews)   /* each declared view's spikes in the chunk so far, per step (simt_view_counts) */
        simt_add_arg(S, "nc_vcnt", "int32_t", ARG_MEM);
    if (m->mpi)
        simt_mpi_args(S);
    simt_finite_args(S);
    if (S->has[SCHED_CLUSTER] && simt_n_own_tables(m))   /* the cluster kernel's own synapses, kept between launches */
        simt_add_arg(S, "nc_otc", "uint32_t", ARG_MEM);
    S->push = simt_push_ok(S);
    if (S->has[SCHED_FREE] || S->push)   /* spike bits per chunk step, made into recordings afterwards */
        simt_free_args(S);
    simt_add_arg(S, "seedkey", "uint32_t", ARG_U32);
    int k = simt_n_scal_vars(m);
    for (int i = 0; i < simt_n_prop_owners(m); i++) {
        const IrPop *o = simt_prop_owner(m, i);
        for (int j = 0; j < o->nprops; j++)
            if (!o->props[j]->per_neuron)
                k += 4 * o->props[j]->n * o->props[j]->n;
    }
    S->nscal = k ? k : 1;
    plan_resident(S);
    plan_resident_cluster(S);
}

/* The block schedule runs the whole network in one work-group for a chunk of steps, so on
 * CUDA it keeps what every step reads and writes (counters, delay rings, per-neuron state,
 * spike lists and flags) in the work-group's shared memory for the launch: copied in at its
 * start, out at its end. Each access then costs tens of cycles instead of an L1/L2 round
 * trip. A resident buffer is a shared-memory pointer of the argument's name (generic
 * addressing: the phases are the same code), in a scope inside nc_k_block. What does not fit
 * the target's shared memory stays in global memory, as everything does on OpenCL. */

/* Slots of j's delay ring when known at compile time: 2 without a delay (arrivals one step
 * later), the constant delay's steps + 1; else 0. The host's D (the longest delay over the
 * synapses, + 1) is never more: with no synapse it is 2. A ring that merged receptors share
 * (IrProj.ring) has the most of its projections'. */
static int64_t proj_slots(const Simt *S, const IrProj *j)
{
    double v;
    if (!j->delay)
        return 2;
    if (!ir_is_const(j->delay, &v))
        return 0;
    const double steps = round(v / S->m->dt);
    if (!(steps < 1e9))
        return 0;
    return (steps < 1 ? 1 : (int64_t)steps) + 1;
}

static int64_t ring_slots(const Simt *S, const IrProj *owner)
{
    int64_t D = 0;
    for (int k = 0; k < S->m->nprojs; k++) {
        const IrProj *j = S->m->projs[k];
        if (j->ring != owner)
            continue;
        const int64_t d = proj_slots(S, j);
        if (d == 0)
            return 0;
        D = d > D ? d : D;
    }
    return D;
}

static Arg *find_arg(Simt *S, const char *name)
{
    for (int i = 0; i < S->nargs; i++)
        if (strcmp(S->args[i].name, name) == 0)
            return &S->args[i];
    return NULL;
}

/* Make `name` resident if its `bytes` still fit the budget (offsets 16-byte aligned). */
static Arg *resident(Simt *S, int64_t budget, const char *name, int64_t bytes, const char *len)
{
    Arg *a = find_arg(S, name);
    const int64_t at = (S->res_bytes + 15) / 16 * 16;
    if (!a || a->res >= 0 || bytes <= 0 || at + bytes > budget)
        return NULL;
    a->res = at;
    a->bytes = bytes;
    a->len = len ? len : arena_printf(&S->cc->arena, "%lld", (long long)bytes);
    S->res_bytes = at + bytes;
    return a;
}

/* Choose the resident buffers, most used first: counters and scalars, spike bits, delay rings,
 * per-neuron variables, spike lists (and flags where read), per-neuron propagators, the
 * row pointers of static projections (read-only: not copied back). */
static void plan_resident(Simt *S)
{
    const IrModel *m = S->m;
    Arena *a = &S->cc->arena;
    const int64_t budget = simt_cluster_shmem(S), rs = m->dbl ? 8 : 4;
    if (budget <= 0 || !S->has[SCHED_BLOCK])
        return;
    resident(S, budget, "nc_cnt", 4 * (int64_t)S->ncnt, NULL);
    resident(S, budget, "nc_scal", rs * S->nscal, NULL);
    for (int i = 0; i < m->npops; i++)
        resident(S, budget, arena_printf(a, "%s_fm", m->pops[i]->cname), 4 * ((m->pops[i]->size + 31) / 32), NULL);
    for (int k = 0; k < m->nprojs; k++) {
        const IrProj *j = m->projs[k];
        const int64_t D = j->ring == j ? ring_slots(S, j) : 0;
        Arg *r = D > 0 ? resident(S, budget, arena_printf(a, "%s_ring", j->cname), D * j->ring_size * rs,
                                  arena_printf(a, "%s_D * %lld", j->cname, (long long)(j->ring_size * rs)))
                       : NULL;
        if (r)
            r->ring = j;
    }
    for (int i = 0; i < m->npops; i++) {
        const IrPop *p = m->pops[i];
        for (int j = 0; j < p->nvars; j++) {
            Arg *r = p->vars[j]->per_neuron
                         ? resident(S, budget, p->vars[j]->cname, p->size * (p->vars[j]->type == IRT_REAL ? rs : 4), NULL)
                         : NULL;
            if (r)
                r->pop = p;
        }
        resident(S, budget, arena_printf(a, "%s_spk", p->cname), 4 * p->size, NULL);
        if (simt_spike_flags(m, p))
            resident(S, budget, arena_printf(a, "%s_fl", p->cname), 4 * p->size, NULL);
    }
    for (int i = 0; i < m->npops; i++) {
        const IrPop *p = m->pops[i];
        for (int j = 0; j < p->nprops; j++)
            if (p->props[j]->per_neuron)
                resident(S, budget, p->props[j]->cname, p->size * 4 * p->props[j]->n * p->props[j]->n * rs, NULL);
    }
    /* the row pointers of static stored projections: each delivered spike reads two */
    for (int k = 0; k < m->nprojs; k++) {
        const IrProj *j = m->projs[k];
        Arg *r = !j->plast && !j->procedural
                     ? resident(S, budget, arena_printf(a, "%s_rp", j->cname), 8 * (j->pre.size + 1), NULL)
                     : NULL;
        if (r)
            r->ro = 1;
    }
}

/* The cluster kernel's shared memory (nc_k_cluster): counters, scalars, spike bits, delay
 * rings and spike lists whole, as plan_resident; each per-neuron variable as its group's slice, at an offset
 * computed when the kernel starts (cslice: only where the whole population would fit, so that
 * any number of groups does); then, in what is left, each group's own synapses of the fused
 * projections (simt_emit_own_tables). The row pointers stay in global memory. */
static void plan_resident_cluster(Simt *S)
{
    const IrModel *m = S->m;
    Arena *a = &S->cc->arena;
    const int64_t budget = simt_cluster_shmem(S), rs = m->dbl ? 8 : 4;
    if (budget <= 0 || !S->has[SCHED_CLUSTER])
        return;
    S->cluster_whole = 1;
    const char *whole[3] = {"nc_cnt", "nc_scal", NULL};
    int64_t wbytes[3] = {4 * (int64_t)S->ncnt, rs * S->nscal, 0};
    int64_t at = 0, slices = 0;
    for (int q = 0; q < 2 + 2 * m->npops + m->nprojs; q++) {
        Arg *r = NULL;
        int64_t bytes = 0;
        if (q < 2) {
            r = find_arg(S, whole[q]);
            bytes = wbytes[q];
        } else if (q < 2 + m->npops) {
            r = find_arg(S, arena_printf(a, "%s_fm", m->pops[q - 2]->cname));
            bytes = 4 * ((m->pops[q - 2]->size + 31) / 32);
        } else if (q >= 2 + m->npops + m->nprojs) {   /* spike lists: every group compacts its own */
            const IrPop *p = m->pops[q - 2 - m->npops - m->nprojs];
            r = find_arg(S, arena_printf(a, "%s_spk", p->cname));
            bytes = 4 * p->size;
        } else {
            const IrProj *j = m->projs[q - 2 - m->npops];
            const int64_t D = j->ring == j ? ring_slots(S, j) : 0;
            if (j->ring == j && D <= 0)   /* slots known at run time: the ring stays in global memory */
                S->cluster_whole = 0;
            r = D > 0 ? find_arg(S, arena_printf(a, "%s_ring", j->cname)) : NULL;
            bytes = D * j->ring_size * rs;
            if (r) {
                r->ring = j;
                if (!r->len || r->res < 0)
                    r->len = arena_printf(a, "%s_D * %lld", j->cname, (long long)(j->ring_size * rs));
            }
        }
        if (!r || bytes <= 0)
            continue;
        if ((at + 15) / 16 * 16 + bytes > budget) {
            S->cluster_whole &= q == 1;   /* nc_scal: the step only reads it */
            continue;
        }
        r->cres = (at + 15) / 16 * 16;
        if (r->res < 0 && !r->ring)
            r->len = arena_printf(a, "%lld", (long long)bytes);
        at = r->cres + bytes;
    }
    S->cres_bytes = (at + 15) / 16 * 16;
    for (int i = 0; i < m->npops; i++) {
        const IrPop *p = m->pops[i];
        for (int j = 0; j < p->nvars; j++) {
            const int64_t bytes = (p->size * (p->vars[j]->type == IRT_REAL ? rs : 4) + 15) / 16 * 16;
            Arg *r = p->vars[j]->per_neuron ? find_arg(S, p->vars[j]->cname) : NULL;
            if (!r)
                continue;
            if (S->cres_bytes + slices + bytes > budget) {
                S->cluster_whole = 0;
                continue;
            }
            r->pop = p;
            r->cslice = 1;
            slices += bytes;
        }
    }
}

/* The layout of m's programs for target t: which schedule kernels the device program has
 * (each schedule's `compiled`, simt_sched.c), the CUDA target, the buffers (layout). Both
 * programs are written from it. */
void simt_setup(Simt *S, Compiler *cc, const IrModel *m, const BuildOpts *bo, const SimtTarget *t)
{
    const char *arch = t->graphs ? (bo->gpu_arch ? bo->gpu_arch : "sm_90") : NULL;
    const SimtSched *chosen = simt_sched_find(simt_schedule(m, arch, bo->gpu_mode));
    memset(S, 0, sizeof *S);
    S->cc = cc;
    S->m = m;
    S->t = t;
    S->arch = arch;
    S->mode_asked = bo->gpu_mode && strcmp(bo->gpu_mode, "auto") != 0;
    for (int i = 0; i < SCHED__COUNT; i++)
        S->has[i] = simt_scheds[i].compiled(S, chosen);
    for (int i = 0; i < m->npops && S->has[SCHED_CLUSTER]; i++)
        S->nxm += 4 * simt_xw_words(m->pops[i]);
    layout(S);
    simt_fam_plan(S);
    simt_fam_args(S);
    /* OpenCL has no device addresses: the families' tables hold arena offsets (simt_family.c) */
    S->table = simt_table_needed(S) || (S->fam_grid && strcmp(t->name, "cuda") != 0);
}
