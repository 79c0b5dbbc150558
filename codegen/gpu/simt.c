/* simt.c -- the layer both GPU back ends share: one device program, one host program.
 *
 * The CUDA and OpenCL back ends differ only in how the device program is compiled and
 * loaded (nvcc to a fatbin at build time; the OpenCL driver at run time) and in which
 * driver nrt_gpu.h talks to. Everything else is generated here, once:
 *
 *   device program  nrt_simt.h (the dialect macros) + nrt_math.h + nrt_philox.h + nrt_conn_dev.h + the
 *                   model's kernels, written in the common subset of CUDA C++ and OpenCL C.
 *                   Every kernel takes the same argument list (NC_ARGS: every buffer).
 *   host program    C against nrt_gpu.h: allocation, on-device initialisation and
 *                   connectivity, the step schedule, double-buffered recording.
 *
 * Schedules (chosen at compile time, overridable with $NEUROC_GPU_MODE at run time):
 *   block       the whole network in one work-group; one launch runs a chunk of steps.
 *               Spikes are compacted in neuron order and delivered spike by spike, so the
 *               sums into each ring slot happen in the C back end's order: same bits.
 *   launch      per step, one kernel for every population's neurons and one for every
 *               projection's spikes (presynaptic-parallel, atomic adds) plus recording.
 *   graph       `launch`, captured once per chunk length into a CUDA graph and replayed.
 *   persistent  one cooperative kernel per chunk, grid barriers between the phases (CUDA).
 *   cluster     block, split over one thread-block cluster (CUDA, sm_90): each work-group
 *               steps its own neurons and sums its own targets; the step's spike words go
 *               to every group through distributed shared memory (emit_neurons_cluster).
 * The step counter lives on the device (nc_ctl), so no launch needs per-step arguments.
 * Plastic projections (simt_plast.c) add phases before the neurons (arrivals, `on step`)
 * and after them (learning), separated like the others by barriers, grid barriers or
 * kernel boundaries (nc_k_plast<phase> in launch and graph).
 *
 * Recording: a chunk of up to NC_CH steps writes spikes (per-step ends + indices), state
 * rows and per-population spike counts into one half of double-buffered device storage;
 * while the device runs the next chunk into the other half, the host copies and writes the
 * finished one. Spikes within a step are written in index order, as the C back end does.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simt_priv.h"

static const SrcLoc NOLOC = {0, 0, 0, 0};

/* {===== layout ===== */

void simt_add_arg(Simt *S, const char *name, const char *type, int kind)
{
    if (S->nargs == S->capargs) {
        S->capargs = S->capargs ? 2 * S->capargs : 32;
        S->args = xrealloc(S->args, (size_t)S->capargs * sizeof *S->args);
    }
    S->args[S->nargs] = (Arg){.name = name, .type = type, .kind = kind, .res = -1, .cres = -1};
    S->nargs++;
}

static const char *vtype(const IrVar *v)
{
    return v->type == IRT_REAL ? "real" : "int32_t";
}

static int n_prop_owners(const IrModel *m);
static const IrPop *prop_owner(const IrModel *m, int i);

/* Number of scalar variables (settable parameters) of the populations and of the scopes of
 * plastic projections: nc_scal's first slots, in prop_owner order. */
static int n_scal_vars(const IrModel *m)
{
    int k = 0;
    for (int i = 0; i < n_prop_owners(m); i++) {
        const IrPop *o = prop_owner(m, i);
        for (int j = 0; j < o->nvars; j++)
            k += !o->vars[j]->per_neuron;
    }
    return k;
}

/* Slot of a scalar variable in nc_scal, or -1. */
int simt_scal_var(const Simt *S, const IrVar *v)
{
    int k = 0;
    for (int i = 0; i < n_prop_owners(S->m); i++) {
        const IrPop *o = prop_owner(S->m, i);
        for (int j = 0; j < o->nvars; j++) {
            const IrVar *w = o->vars[j];
            if (w == v)
                return w->per_neuron ? -1 : k;
            k += !w->per_neuron;
        }
    }
    return -1;
}

/* Owners of propagators: the populations, then the scopes of plastic projections. */
static int n_prop_owners(const IrModel *m)
{
    int n = m->npops;
    for (int k = 0; k < m->nprojs; k++)
        n += m->projs[k]->plast != NULL;
    return n;
}

static const IrPop *prop_owner(const IrModel *m, int i)
{
    if (i < m->npops)
        return m->pops[i];
    i -= m->npops;
    for (int k = 0; k < m->nprojs; k++)
        if (m->projs[k]->plast && i-- == 0)
            return m->projs[k]->plast->scope;
    return NULL;
}

/* First slot of a scalar propagator (4 matrices of n*n) in nc_scal. */
static int scal_prop(const Simt *S, const IrProp *p)
{
    int k = n_scal_vars(S->m);
    for (int i = 0; i < n_prop_owners(S->m); i++) {
        const IrPop *o = prop_owner(S->m, i);
        for (int j = 0; j < o->nprops; j++) {
            const IrProp *q = o->props[j];
            if (q == p)
                return k;
            if (!q->per_neuron)
                k += 4 * q->n * q->n;
        }
    }
    return -1;
}

int64_t simt_spike_rec_cap(const Simt *S, const IrRecord *r)
{
    return (int64_t)S->ch * r->view.size;
}

int64_t simt_state_rec_rows(const Simt *S, const IrRecord *r)
{
    return S->ch / r->every + 2;
}




static int64_t max_pop(const IrModel *m)
{
    int64_t n = 1;
    for (int i = 0; i < m->npops; i++)
        if (m->pops[i]->size > n)
            n = m->pops[i]->size;
    return n;
}

static double est_synapses(const IrProj *j)
{
    return j->rule == IR_ALL_TO_ALL ? (double)j->pre.size * (double)j->post.size
         : j->rule == IR_ONE_TO_ONE ? (double)j->pre.size
         : j->rule == IR_FIXED_PROB ? j->p * (double)j->pre.size * (double)j->post.size
                                    : (double)j->k * (double)j->post.size;
}

static void plan_resident(Simt *S);
static void plan_resident_cluster(Simt *S);
static int n_own_tables(const IrModel *m);
static int block_fits(const IrModel *m);
/* --instances runs side by side in one process (one work-group per instance and launch):
 * a CUDA program with the block schedule (OpenCL 1.2 buffers have no device addresses to
 * put in nc_tab; a distributed program runs one network over its ranks). */
static int batched(const Simt *S)
{
    return S->has_block && !S->m->mpi && strcmp(S->t->name, "cuda") == 0;
}
static int spike_flags(const IrModel *m, const IrPop *p);

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
    S->ncnt = S->cnt_err + 1;
    for (int i = 0; i < m->npops; i++) {
        const IrPop *p = m->pops[i];
        for (int j = 0; j < p->nvars; j++)
            if (p->vars[j]->per_neuron)
                simt_add_arg(S, p->vars[j]->cname, vtype(p->vars[j]), ARG_MEM);
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
        } else {
            simt_add_arg(S, arena_printf(a, "rec%d_rows", r), "double", ARG_MEM);
        }
    }
    simt_add_arg(S, "nc_scal", "real", ARG_MEM);
    simt_add_arg(S, "nc_cnt", "int32_t", ARG_MEM);
    simt_add_arg(S, "nc_ctl", "int64_t", ARG_MEM);
    simt_add_arg(S, "nc_pcnt", "int32_t", ARG_MEM);
    if (m->mpi)
        simt_mpi_args(S);
    simt_finite_args(S);
    if (S->has_cluster && n_own_tables(m))   /* the cluster kernel's own synapses, kept between launches */
        simt_add_arg(S, "nc_otc", "uint32_t", ARG_MEM);
    S->free = simt_free_ok(m);
    S->push = simt_push_ok(S);
    if (S->free || S->push)   /* spike bits per chunk step, made into recordings afterwards */
        simt_free_args(S);
    simt_add_arg(S, "seedkey", "uint32_t", ARG_U32);
    int k = n_scal_vars(m);
    for (int i = 0; i < n_prop_owners(m); i++) {
        const IrPop *o = prop_owner(m, i);
        for (int j = 0; j < o->nprops; j++)
            if (!o->props[j]->per_neuron)
                k += 4 * o->props[j]->n * o->props[j]->n;
    }
    S->nscal = k ? k : 1;
    plan_resident(S);
    plan_resident_cluster(S);
}

/* ===== layout =====} */

/* {===== the block schedule's shared memory (CUDA) ===== */

/* The block schedule runs the whole network in one work-group for a chunk of steps, so on
 * CUDA it keeps what every step reads and writes (counters, delay rings, per-neuron state,
 * spike lists and flags) in the work-group's shared memory for the launch: copied in at its
 * start, out at its end. Each access then costs tens of cycles instead of an L1/L2 round
 * trip. A resident buffer is a shared-memory pointer of the argument's name (generic
 * addressing: the phases are the same code), in a scope inside nc_k_block. What does not fit
 * the target's shared memory stays in global memory, as everything does on OpenCL. */

/* Dynamic shared memory a work-group can opt in to on `arch` (sm_XY), less 16 KiB for the
 * block kernel's static local arrays; 0 for OpenCL or an unknown target. */
static int64_t shmem_budget(const char *arch)
{
    int v = 0;
    if (!arch || sscanf(arch, "sm_%d", &v) != 1 || v < 70)
        return 0;
    int kib = v >= 120 ? 99 : v >= 90 ? 227 : v == 80 || v == 87 ? 163 : v >= 86 ? 99 : v == 75 ? 64 : 96;
    return (int64_t)(kib - 16) * 1024;
}

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

/* The dynamic shared memory a work-group may take for resident buffers: the target's budget
 * less the cluster schedule's static arrays (nc_xw, mbarriers, nc_own). plan_resident fills
 * it at compile time; the cluster kernel opts in to all of it (its slices and tables take
 * their part at run time). */
static int64_t cluster_shmem(const Simt *S)
{
    return shmem_budget(S->arch) - 4 * (int64_t)S->nxm - 32 * (int64_t)S->m->npops;
}

int64_t simt_cluster_shmem(const Simt *S)
{
    return cluster_shmem(S);
}

/* Choose the resident buffers, most used first: counters and scalars, spike bits, delay rings,
 * per-neuron variables, spike lists (and flags where read), per-neuron propagators, the
 * row pointers of static projections (read-only: not copied back). */
static void plan_resident(Simt *S)
{
    const IrModel *m = S->m;
    Arena *a = &S->cc->arena;
    const int64_t budget = cluster_shmem(S), rs = m->dbl ? 8 : 4;
    if (budget <= 0 || !S->has_block)
        return;
    resident(S, budget, "nc_cnt", 4 * (int64_t)S->ncnt, NULL);
    resident(S, budget, "nc_scal", rs * S->nscal, NULL);
    for (int i = 0; i < m->npops; i++)
        resident(S, budget, arena_printf(a, "%s_fm", m->pops[i]->cname), 4 * ((m->pops[i]->size + 31) / 32), NULL);
    for (int k = 0; k < m->nprojs; k++) {
        const IrProj *j = m->projs[k];
        const int64_t D = j->ring == j ? ring_slots(S, j) : 0;
        Arg *r = D > 0 ? resident(S, budget, arena_printf(a, "%s_ring", j->cname), D * j->post.size * rs,
                                  arena_printf(a, "%s_D * %lld", j->cname, (long long)(j->post.size * rs)))
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
        if (spike_flags(m, p))
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
 * projections (emit_own_tables). The row pointers stay in global memory. */
static void plan_resident_cluster(Simt *S)
{
    const IrModel *m = S->m;
    Arena *a = &S->cc->arena;
    const int64_t budget = cluster_shmem(S), rs = m->dbl ? 8 : 4;
    if (budget <= 0 || !S->has_cluster)
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
            bytes = D * j->post.size * rs;
            if (r) {
                r->ring = j;
                if (!r->len || r->res < 0)
                    r->len = arena_printf(a, "%s_D * %lld", j->cname, (long long)(j->post.size * rs));
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

/* ===== the block schedule's shared memory =====} */


/* The cluster schedule's spike words of population p in nc_xw: its 32-neuron words rounded
 * up to whole 16 bytes (R), four blocks of R (this group's staged words, then all groups'
 * words, each for two steps by parity) from entry xw_off. */
static int xw_words(const IrPop *p)
{
    return (int)(((p->size + 31) / 32 + 3) / 4 * 4);
}

static int xw_off(const Simt *S, const IrPop *p)
{
    int off = 0;
    for (int i = 0; i < S->m->npops && S->m->pops[i] != p; i++)
        off += 4 * xw_words(S->m->pops[i]);
    return off;
}

/* The layout of m's programs for target t: which schedule kernels the device program has
 * (block_fits), the CUDA target, the buffers (layout). Both programs are written from it. */
static void setup(Simt *S, Compiler *cc, const IrModel *m, const BuildOpts *bo, const SimtTarget *t)
{
    const char *arch = t->graphs ? (bo->gpu_arch ? bo->gpu_arch : "sm_90") : NULL;
    const char *sched = simt_schedule(m, arch, bo->gpu_mode);
    memset(S, 0, sizeof *S);
    S->cc = cc;
    S->m = m;
    S->t = t;
    S->arch = arch;
    S->mode_asked = bo->gpu_mode && strcmp(bo->gpu_mode, "auto") != 0;
    S->has_cluster = t->graphs && !simt_cluster_why(m, S->arch);
    S->has_block = !t->graphs || block_fits(m) || strcmp(sched, "block") == 0 || S->has_cluster;
    S->has_persistent = t->graphs && (block_fits(m) || strcmp(sched, "persistent") == 0);
    for (int i = 0; i < m->npops && S->has_cluster; i++)
        S->nxm += 4 * xw_words(m->pops[i]);
    layout(S);
    S->table = simt_table_needed(S);
}


/* The cluster schedule splits the block schedule's network over one thread-block cluster
 * (CUDA, sm_90 and later): each work-group steps its own neurons (nc_part) and sums its own
 * targets, and the only exchange is the spike words. So the step must touch nothing shared
 * but spikes: no plastic projection, no top-k, no scalar variable, no spike flags, one
 * process; and a network the block schedule takes. NULL, or why not. */
const char *simt_cluster_why(const IrModel *m, const char *arch)
{
    int v = 0;
    if (m->mpi)
        return "a distributed simulator runs launch or graph";
    if (!arch || sscanf(arch, "sm_%d", &v) != 1 || v < 90)
        return "thread-block clusters need --gpu-arch sm_90 or later";
    if (n_scal_vars(m) > 0)
        return "a population has a scalar (shared) variable";
    for (int i = 0; i < m->npops; i++) {
        if (m->pops[i]->topk)
            return "a population selects its top k";
        if (spike_flags(m, m->pops[i]))
            return "a projection reads spike flags";
    }
    for (int k = 0; k < m->nprojs; k++) {
        if (m->projs[k]->plast)
            return "a projection is plastic";
        if (m->projs[k]->procedural)
            return "a projection is procedural";
        if (simt_gathers(m->projs[k]))
            return "a projection is gathered by its targets";
    }
    if (!block_fits(m))
        return "the network is larger than the block schedule takes (20,000 neurons, 4e6 synapses)";
    return NULL;
}

/* {===== device dialect ===== */

static void d_var(const CgDialect *d, const IrVar *v, StrBuf *out)
{
    const Simt *S = d->user;
    if (v->per_neuron)
        sb_printf(out, "%s[%s]", v->cname, d->index);
    else
        sb_printf(out, "nc_scal[%d]", simt_scal_var(S, v));
}

static void d_prop(const CgDialect *d, const IrExpr *e, StrBuf *out)
{
    const Simt *S = d->user;
    const IrProp *p = e->prop;
    int nn = p->n * p->n, k = e->row * p->n + e->col;
    if (p->per_neuron)
        sb_printf(out, "%s[((int64_t)%s * 4 + %d) * %d + %d]", p->cname, d->index, e->sub, nn, k);
    else
        sb_printf(out, "nc_scal[%d]", scal_prop(S, p) + e->sub * nn + k);
}

/* The ring slot of j's ring for step expression `x` (+ `add`): without a delay the ring has 2
 * slots (simt_host_maxd: D = 1 + 1), so the slot is a bit; else x mod D. */
static const char *ring_slot(const Simt *S, const IrProj *j, const char *x, int add)
{
    j = j->ring;
    if (!j->ring_delay)
        return add ? arena_printf(&S->cc->arena, "(int64_t)((%s + %d) & 1)", x, add)
                   : arena_printf(&S->cc->arena, "(int64_t)(%s & 1)", x);
    return add ? arena_printf(&S->cc->arena, "nc_mod(%s + %d, %s_D)", x, add, j->cname)
               : arena_printf(&S->cc->arena, "nc_mod(%s, %s_D)", x, j->cname);
}

/* The arrivals of projection p for neuron d->index, from the ring slot of this step: in the
 * block schedule each work-item steps many neurons, so the slots are computed once per step
 * (`<proj>_slot`, emit_neurons); in the grid schedules a work-item steps about one neuron,
 * which is in the post view of few projections, so each slot is computed where it is read
 * (d_recv_grid): a neuron of the microcircuit pays for its 7 projections, not all 55, and
 * keeps 55 64-bit slots out of its registers. */
static void d_recv(const CgDialect *d, const IrProj *p, const char *local, Out *o)
{
    StrBuf at = {0};
    sb_printf(&at, "%s_slot + (%s - %lld)", p->cname, d->index, (long long)p->post.offset);
    out_line(o, "%s %s = %s_ring[%s];", d->real, local, p->cname, at.s);
    out_line(o, "%s_ring[%s] = 0;", p->cname, at.s);
    sb_free(&at);
}

static void d_recv_grid(const CgDialect *d, const IrProj *p, const char *local, Out *o)
{
    const Simt *S = d->user;
    out_line(o, "const int64_t %s_at = %s * %lld + (%s - %lld);", local, ring_slot(S, p, "step", 0),
             (long long)p->post.size, d->index, (long long)p->post.offset);
    out_line(o, "%s %s = %s_ring[%s_at];", d->real, local, p->cname, local);
    out_line(o, "%s_ring[%s_at] = 0;", p->cname, local);
}

/* A spike recording of a whole population (not of a part of it). */
static int rec_whole(const IrRecord *rec)
{
    return rec->view.offset == 0 && rec->view.size == rec->view.pop->size;
}

/* Spike recordings of a population (their positions in m->recs). The ordered compactions
 * (block, cluster) know each spike's rank in the step (`rank`): a
 * record of the whole population puts it at the step's first free place plus its rank
 * (nc_rb<r>, rec_bases), with no atomic; rank NULL, or a record of a part: an atomic. */
static void spike_recs(const Simt *S, const IrPop *pop, Out *o, const char *rank)
{
    for (int r = 0; r < S->m->nrecs; r++) {
        const IrRecord *rec = &S->m->recs[r];
        if (!rec->spikes || rec->view.pop != pop)
            continue;
        if (rank && rec_whole(rec)) {
            out_line(o, "rec%d_ids[(int64_t)hf * %lld + nc_rb%d + %s] = (int32_t)n;", r,
                     (long long)simt_spike_rec_cap(S, rec), r, rank);
            continue;
        }
        out_open(o, "if (n >= %lld && n < %lld)", (long long)rec->view.offset,
                 (long long)(rec->view.offset + rec->view.size));
        out_line(o, "const int q_ = nc_atomic_add_i32(&nc_cnt[%d + hf], 1);", S->cnt_rec + 2 * r);
        out_line(o, "rec%d_ids[(int64_t)hf * %lld + q_] = (int32_t)(n - %lld);", r,
                 (long long)simt_spike_rec_cap(S, rec), (long long)rec->view.offset);
        out_close(o);
    }
}

/* spike_recs with atomics (the distributed merge, simt_mpi.c) */
static void spike_recs_atomic(const Simt *S, const IrPop *pop, Out *o)
{
    spike_recs(S, pop, o, NULL);
}

/* Before an ordered compaction of pop (every work-item that walks spikes): the first free
 * place of each whole-population spike record (spike_recs); after it (one work-item, once
 * every work-item has read them): the places taken, `total` spikes. */
static void rec_bases(const Simt *S, const IrPop *pop, Out *o, const char *total)
{
    for (int r = 0; r < S->m->nrecs; r++) {
        const IrRecord *rec = &S->m->recs[r];
        if (!rec->spikes || rec->view.pop != pop || !rec_whole(rec))
            continue;
        if (total)
            out_line(o, "if (NC_LID == 0) nc_cnt[%d + hf] = nc_rb%d + %s;", S->cnt_rec + 2 * r, r, total);
        else
            out_line(o, "const int nc_rb%d = nc_cnt[%d + hf];", r, S->cnt_rec + 2 * r);
    }
}

static int has_spike_recs(const Simt *S, const IrPop *pop)
{
    for (int r = 0; r < S->m->nrecs; r++)
        if (S->m->recs[r].spikes && S->m->recs[r].view.pop == pop)
            return 1;
    return 0;
}

/* The grid schedules keep a spike flag per neuron of the step when a gathered delivery
 * (top-k targets) or an `on pre & post` handler reads it. */
static int spike_flags(const IrModel *m, const IrPop *p)
{
    return simt_needs_flags(m, p) || simt_plast_needs_flags(m, p);
}

static void d_spike_grid(const CgDialect *d, const IrPop *pop, Out *o)
{
    const Simt *S = d->user;
    if (S->m->mpi) {   /* distributed: a bit in this rank's exchange buffer (simt_mpi.c) */
        simt_mpi_spike(o);
        return;
    }
    out_begin(o);
    out_line(o, "const int k_ = nc_atomic_add_i32(&nc_cnt[%d + (int)(step & 1)], 1);", 2 * pop->id);
    out_line(o, "%s_spk[k_] = (int32_t)n;", pop->cname);
    if (spike_flags(S->m, pop))
        out_line(o, "%s_fl[n] = 1;", pop->cname);
    spike_recs(S, pop, o, NULL);
    out_close(o);
}

/* the block and cluster variants record a spike in the ordered compaction (emit_neurons) */
static void d_spike_block(const CgDialect *d, const IrPop *pop, Out *o)
{
    (void)d;
    (void)pop;
    out_line(o, "nc_fired = 1;");
}

CgDialect simt_dev_dialect(const Simt *S, const IrPop *pop)
{
    CgDialect d = cg_dialect(S->m->dbl, pop);
    d.var = d_var;
    d.prop = d_prop;
    d.recv = d_recv;
    d.spike = d_spike_grid;
    d.user = S;
    return d;
}

/* ===== device dialect =====} */

/* {===== device program ===== */

static int paste_file(Simt *S, const BuildOpts *bo, const char *name, Out *o)
{
    const char *path = arena_printf(&S->cc->arena, "%s/%s", bo->include_dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        error_at(S->cc, NOLOC, "cannot read the runtime's device header '%s': %s", path, strerror(errno));
        return -1;
    }
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        sb_putn(&o->buf, buf, n);
    fclose(f);
    sb_putc(&o->buf, '\n');
    return 0;
}

static void emit_args_macros(Out *o, const Simt *S)
{
    StrBuf decl = {0}, pass = {0};
    for (int i = 0; i < S->nargs; i++) {
        const Arg *a = &S->args[i];
        if (a->kind == ARG_MEM)
            sb_printf(&decl, "%sNC_G %s *%s", i ? ", " : "", a->type, a->name);
        else
            sb_printf(&decl, "%s%s %s", i ? ", " : "", a->type, a->name);
        sb_printf(&pass, "%s%s", i ? ", " : "", a->name);
    }
    out_line(o, "/* every kernel and phase takes every buffer: %d arguments */", S->nargs);
    out_line(o, "#define NC_ARGS %s", decl.s);
    out_line(o, "#define NC_PASS %s", pass.s);
    sb_free(&decl);
    sb_free(&pass);
    if (S->table)
        simt_table_device(o, S);
}

static void emit_dev_prelude(Out *o, const Simt *S)
{
    const IrModel *m = S->m;
    const char *f = m->dbl ? "" : "f";
    out_line(o, "typedef %s real;", m->dbl ? "double" : "float");
    out_line(o, "#define dt %.17g /* ms */", m->dt);
    out_line(o, "#define NC_CH %d /* steps per recording chunk */", S->ch);
    out_open(o, "NC_DEV real nc_exprel(real x)");
    out_line(o, "return fabs%s(x) < (real)1e-6 ? (real)1 + x / 2 + x * x / 6 : nrt_expm1%s(x) / x;", f, f);
    out_close(o);
    out_open(o, "NC_DEV real nc_clip(real x, real lo, real hi)");
    out_line(o, "return x < lo ? lo : (x > hi ? hi : x);");
    out_close(o);
    out_open(o, "NC_DEV int64_t nc_iabs(int64_t x)");
    out_line(o, "return x < 0 ? -x : x;");
    out_close(o);
    out_line(o, "/* a %% b for b > 0, in 32 bits when a and b fit (64-bit division is a ~70-instruction");
    out_line(o, " * subroutine on a GPU, and step counts and ring lengths fit in practice) */");
    out_open(o, "NC_DEV int64_t nc_mod(int64_t a, int64_t b)");
    out_line(o, "return ((uint64_t)a | (uint64_t)b) >> 32 ? a %% b : (int64_t)((uint32_t)a %% (uint32_t)b);");
    out_close(o);
    out_line(o, "/* x mod D for 0 <= x < 2 D (a ring slot) */");
    out_open(o, "NC_DEV int64_t nc_wrap(int64_t x, int64_t D)");
    out_line(o, "return x >= D ? x - D : x;");
    out_close(o);
    if (S->res_bytes) {
        out_line(o, "#if defined(__CUDACC__)");
        out_line(o, "/* the block schedule's copies between global and shared memory (4-byte words) */");
        out_open(o, "NC_DEV void nc_res_copy(void *dst, const void *src, int64_t bytes)");
        out_line(o, "for (int64_t q = NC_LID; q < bytes / 4; q += NC_LSIZE) ((int32_t *)dst)[q] = ((const int32_t *)src)[q];");
        out_close(o);
        out_line(o, "#endif");
    }
    if (S->has_cluster) {
        out_line(o, "#if defined(__CUDACC__)");
        out_line(o, "/* the cluster schedule's spike words of every population, two steps' worth (emit_neurons) */");
        out_line(o, "static __shared__ __align__(16) uint32_t nc_xw[%d];", S->nxm);
        out_line(o, "static __shared__ __align__(8) uint64_t nc_xb[%d]; /* mbarriers: two per population */", 2 * m->npops);
        out_line(o, "static __shared__ uint32_t nc_txb[%d]; /* bytes of a step's words of all groups */", m->npops);
        out_line(o, "static __shared__ int64_t nc_s0; /* the launch's first step: the mbarriers' phases count from it */");
        out_line(o, "/* the cluster schedule: each population's neurons of this work-group, nc_part (per launch) */");
        out_line(o, "static __shared__ int32_t nc_own[%d];", 2 * m->npops);
        out_line(o, "/* each fused projection's own synapses in shared memory (emit_own_tables): the offsets of");
        out_line(o, " * its row offsets and targets in the kernel's dynamic shared memory, or ~0u (global rows) */");
        out_line(o, "static __shared__ uint32_t nc_otab[%d];", 2 * (m->nprojs > 0 ? m->nprojs : 1));
        out_line(o, "/* 1 + the first step whose words did not come (nc_mbar_wait), else 0; tests: the step at which");
        out_line(o, " * group 0 acts as if its words had not come (nc_ctl[5], $NEUROC_FAULT_CLUSTER_STALL), else -1 */");
        out_line(o, "static __shared__ int64_t nc_halt, nc_inj;");
        out_line(o, "extern __shared__ __align__(16) unsigned char nc_dyn[];");
        out_line(o, "#endif");
    }
    cg_rand_helpers(o, "NC_DEV", "NC_DEV_COLD");
    cg_sf_helper(o, m, "NC_DEV", "NC_G ");
    out_line(o, "#if defined(__CUDACC__)");
    out_line(o, "/* \"set but never used\": a batch row (emit_batch_row) sets arguments a kernel may not read */");
    out_line(o, "#pragma nv_diag_suppress 550");
    out_line(o, "#endif");
    out_blank(o);
}

/* The variants of the phases: grid (0: every work-group of the grid, atomic compaction),
 * block (1: one work-group, ordered compaction) and cluster (2: the block code for this
 * group's neurons and targets, nc_part of the cluster's groups). A phase function is named
 * by its variant; the block variant has the group rank 0 of 1 as constants. */
enum { V_GRID, V_BLOCK, V_CLUSTER };
static const char *vname(int v)
{
    return v == V_CLUSTER ? "cluster" : v == V_BLOCK ? "block" : "grid";
}
/* The first and one past the last neuron of population p that variant v's work-group
 * steps: all of them, or its part, nc_part (computed once per launch into nc_own). */
static const char *own_lo(const Simt *S, int v, const IrPop *p)
{
    return v == V_CLUSTER ? arena_printf(&S->cc->arena, "(int64_t)nc_own[%d]", 2 * p->id) : "0";
}
static const char *own_hi(const Simt *S, int v, const IrPop *p)
{
    return v == V_CLUSTER ? arena_printf(&S->cc->arena, "(int64_t)nc_own[%d]", 2 * p->id + 1)
                          : arena_printf(&S->cc->arena, "%lld", (long long)p->size);
}

/* The spikes of word w (bits b) into p's list from position `at` on, each recorded (where
 * `guard` holds, if given): the ordered compaction's last part. */
static void emit_spike_walk(Out *o, const Simt *S, const IrPop *p, const char *guard)
{
    out_open(o, "while (b)");
    out_line(o, "const int64_t n = w * 32 + nc_ctz(b);");
    out_line(o, "const int nc_k = at++;");
    out_line(o, "%s_spk[nc_k] = (int32_t)n;", p->cname);
    if (has_spike_recs(S, p)) {
        if (guard)
            out_open(o, "if (%s)", guard);
        spike_recs(S, p, o, "nc_k");
        if (guard)
            out_close(o);
    }
    out_line(o, "b &= b - 1u;");
    out_close(o);
}

/* The cluster variant keeps a neuron's variables in locals for its update (simt_var_held): its
 * step is one chain of dependent operations, and a store to a shared-memory array makes the
 * compiler load every later read again. */
void simt_var_held(const CgDialect *d, const IrVar *v, StrBuf *out)
{
    const Simt *S = d->user;
    if (v->per_neuron)
        sb_printf(out, "nc_h_%s", v->cname);
    else
        sb_printf(out, "nc_scal[%d]", simt_scal_var(S, v));
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
    const long long R = xw_words(p);
    const int xo = xw_off(S, p);
    const char *stg = arena_printf(&S->cc->arena, "nc_xw[%d + (int)(step & 1) * %lld", xo, R);
    const char *all = arena_printf(&S->cc->arena, "nc_xw[%lld + (int)(step & 1) * %lld", xo + 2 * R, R);
    const char *bar = arena_printf(&S->cc->arena, "&nc_xb[%d + (int)(step & 1)]", 2 * p->id);
    out_line(o, "const int64_t nc_lo = %s, nc_hi = %s;", own_lo(S, V_CLUSTER, p), own_hi(S, V_CLUSTER, p));
    if (p->has_spikes)
        out_line(o, "if (NC_LID == 0) nc_mbar_expect(%s, nc_txb[%d]); /* this step's words of all groups */", bar, p->id);
    out_open(o, "for (int64_t base = nc_lo; base < nc_hi; base += NC_LSIZE)");
    out_line(o, "const int64_t n = base + NC_LID;");
    out_line(o, "int nc_fired = 0;");
    out_open(o, "if (n < nc_hi)");
    for (int j = 0; j < p->nvars; j++)
        if (p->vars[j]->per_neuron)
            out_line(o, "%s nc_h_%s = %s[n];", vtype(p->vars[j]), p->vars[j]->cname, p->vars[j]->cname);
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
    const long long nw = (long long)((p->size + 31) / 32), per = (nw + 31) / 32, R = xw_words(p);
    const char *all = arena_printf(&S->cc->arena, "nc_xw[%lld + (int)(step & 1) * %lld", xw_off(S, p) + 2 * R, R);
    out_line(o, "const int w0 = NC_LID * %lld;", per);
    out_line(o, "uint32_t x[%lld];", per);
    out_line(o, "int c = 0, total;");
    out_line(o, "for (int q = 0; q < %lld; q++) c += nc_popc(x[q] = w0 + q < %lld ? %s + w0 + q] : 0u);", per, nw, all);
    rec_bases(S, p, o, NULL);
    out_line(o, "int at = nc_warp_scan(c, &total); /* its shuffles: every lane has read the bases */");
    out_open(o, "for (int q = 0; q < %lld; q++)", per);
    out_line(o, "const int w = w0 + q;");
    out_line(o, "uint32_t b = x[q];");
    emit_spike_walk(o, S, p, "NC_GROUP == 0");
    out_close(o);
    out_line(o, "if (NC_LID == 0) nc_cnt[%d + (int)(step & 1)] = total;", 2 * p->id);
    rec_bases(S, p, o, "total");
}

/* The neuron phase of one population; block (V_BLOCK, V_CLUSTER) = ordered compaction
 * within one work-group. */
static void emit_neurons(Out *o, const Simt *S, const IrPop *p, int block)
{
    const IrModel *m = S->m;
    CgDialect d = simt_dev_dialect(S, p);
    if (block)
        d.spike = d_spike_block;
    else
        d.recv = d_recv_grid;
    out_line(o, "/* population %s (%s, %lld neurons): one step%s */", p->name, p->model,
             (long long)p->size, block ? ", spikes compacted in index order" : "");
    out_open(o, "NC_DEV void nc_neurons_%s_%s(NC_ARGS, const int64_t step, const int hf%s)", p->cname,
             vname(block), block ? ", NC_LP int *nc_tmp" : "");
    out_line(o, "const real t = (real)((double)step * dt);");
    out_line(o, "(void)t;");
    for (int k = 0; k < m->nprojs && block; k++) {
        const IrProj *j = m->projs[k];
        if (j->post.pop == p && j->ring == j)
            out_line(o, "const int64_t %s_slot = %s * %lld;", j->cname, ring_slot(S, j, "step", 0),
                     (long long)j->post.size);
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
        if (spike_flags(m, p))
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
            rec_bases(S, p, o, NULL);
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
            rec_bases(S, p, o, "nc_total");
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
        if (spike_flags(m, p) && !p->topk)
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
    out_open(o, "for (int64_t n = NC_GID; n < %lld; n += NC_GSIZE)", (long long)p->size);
    if (spike_flags(m, p))
        out_line(o, "%s_fl[n] = 0;", p->cname);
    cg_block(&d, &p->topk->after, o);
    out_close(o);
    out_close(o);
    out_blank(o);
}

/* The ring slot of an arrival one step on, for a projection without per-synapse delays. */
static const char *ring_next_slot(Arena *a, const IrProj *j)
{
    if (j->ring->ring_delay)
        return arena_printf(a, "nc_wrap(nc_mod(step, %s_D) + 1, %s_D)", j->ring->cname, j->ring->cname);
    return "(int64_t)((step + 1) & 1)";
}

/* Add synapse s of j into its ring slot: w_const is the weight's C text for a projection of
 * one weight (order_free), else NULL (the stored j_w[s]). */
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
        sb_puts(&slot, "(int64_t)((step + 1) & 1)"); /* D = 2 (ring_slot) */
    if (atomic)
        out_line(o, "nc_atomic_add_f%d(&%s_ring[%s * %lld + %s_col[%s]], %s);", dbl ? 64 : 32,
                 r, slot.s, (long long)j->post.size, j->cname, s, w.s);
    else
        out_line(o, "%s_ring[%s * %lld + %s_col[%s]] += %s;", r, slot.s,
                 (long long)j->post.size, j->cname, s, w.s);
    sb_free(&w);
    sb_free(&slot);
}

/* {===== procedural projections ===== */

/* What the row loops (cg_row_loops) run per synapse in device code. */
typedef struct DevRow {
    const Simt *S;
    const IrProj *j;
    int what;                     /* DR_* */
} DevRow;

enum { DR_GRID, DR_BLOCK, DR_SCAN };

/* The projection's synapse-value dialects: w in real, delay in double (as nc_k_syn_*). */
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
    if (r->what == DR_SCAN)
        out_line(o, "nc_atomic_max_i32(&nc_cnt[%d], dd);", r->S->cnt_maxd + j->id);
    else if (r->what == DR_GRID)
        out_line(o, "nc_atomic_add_f%d(&%s_ring[nc_mod(step + dd, %s_D) * %lld + j], w);", r->S->m->dbl ? 64 : 32,
                 j->ring->cname, j->ring->cname, (long long)j->post.size);
    else   /* `%`, not nc_mod: PoCL 3.1's vectoriser turned nc_mod here into stores out of
            * bounds (tests/e2e/models/merge.neuro's procedural `c`, block schedule) */
        out_line(o, "%s_ring[((step + dd) %% %s_D) * %lld + j] += w;", j->ring->cname, j->ring->cname,
                 (long long)j->post.size);
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

/* A procedural fixed_prob row is walked by a whole work-group (the grid delivery). */
static int coop_row(const IrProj *j)
{
    return j->procedural && j->rule == IR_FIXED_PROB && j->p > 0 && j->p < 1;
}

static int any_coop(const IrModel *m)
{
    for (int k = 0; k < m->nprojs; k++)
        if (coop_row(m->projs[k]))
            return 1;
    return 0;
}

/* The work-group's inclusive int64 prefix sum (Hillis-Steele; t: NC_LSIZE + 2 entries). */
static void emit_scan64(Out *o)
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

static void own_targets(Out *o, const IrProj *j, const char *lo, const char *hi);

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
    out_open(o, "NC_DEV void nc_deliver_%s_%s(NC_ARGS, const int64_t step)", j->cname, vname(block));
    out_line(o, "const int nspk = nc_cnt[%d + (int)(step & 1)];", 2 * pre->id);
    if (block) {
        own_targets(o, j, own_lo(S, block, j->post.pop), own_hi(S, block, j->post.pop));
        out_line(o, "const int64_t per = (nc_thi - nc_tlo + NC_LSIZE - 1) / NC_LSIZE, a = nc_tlo + NC_LID * per, b = a + per < nc_thi ? a + per : nc_thi;");
        out_line(o, "if (a >= nc_thi) return;");
        out_open(o, "for (int k = 0; k < nspk; k++)");
    } else {
        out_open(o, "for (int64_t k = %s; k < nspk; k += %s)", first, stride);
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

/* Longest delay of a procedural projection (into nc_cnt like nc_k_syn_*), rows per work-item. */
static void emit_pscan(Out *o, const Simt *S, const IrProj *j)
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

/* ===== procedural projections =====} */

/* A stored, static projection of one weight (a constant): every add into its ring is the same
 * value, so the sums are the same bits in any order and the block schedule may add with
 * atomics, all work-items at once, instead of in the C back end's order. */
static int order_free(const IrProj *j)
{
    double v;
    return !j->plast && !j->procedural && j->rule != IR_FROM_FILE && ir_is_const(j->w, &v);
}

/* The targets [nc_tlo, nc_thi) in j's post view whose neurons are this work-group's
 * (nc_part: the cluster schedule; one group owns all). */
static void own_targets(Out *o, const IrProj *j, const char *lo, const char *hi)
{
    const long long off = (long long)j->post.offset, np = (long long)j->post.size;
    out_line(o, "int64_t nc_tlo = %s - %lld, nc_thi = %s - %lld;", lo, off, hi, off);
    out_line(o, "nc_tlo = nc_tlo < 0 ? 0 : nc_tlo;");
    out_line(o, "nc_thi = nc_thi > %lld ? %lld : nc_thi;", np, np);
    out_line(o, "nc_thi = nc_thi < nc_tlo ? nc_tlo : nc_thi;");
}

/* The block delivery of an order_free projection: the step's spikes spread over the
 * work-group, G work-items (a power of two about a row's mean length) per spike, atomic adds.
 * The ordered delivery (emit_prop) makes each work-item binary-search every spike's row for
 * its targets: a chain of dependent loads per spike, 9 us per step of CUBA on an H100. */
static void emit_prop_block_free(Out *o, const Simt *S, const IrProj *j, int v)
{
    const IrPop *pre = j->pre.pop;
    const double mean = est_synapses(j) / (double)(j->pre.size > 0 ? j->pre.size : 1);
    int G = 32;
    while (G < mean && G < S->block)
        G *= 2;
    CgDialect d = simt_dev_dialect(S, pre);
    StrBuf w = {0};
    cg_expr(&d, j->w, &w);
    out_line(o, "/* projection %s: %s -> %s, one weight (%s): %d work-items per spike, atomic adds */", j->name,
             pre->name, j->post.pop->name, w.s, G);
    out_open(o, "NC_DEV void nc_deliver_%s_%s(NC_ARGS, const int64_t step)", j->cname, vname(v));
    out_line(o, "const int nspk = nc_cnt[%d + (int)(step & 1)];", 2 * pre->id);
    own_targets(o, j, own_lo(S, v, j->post.pop), own_hi(S, v, j->post.pop));
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
 * order (found by binary search: rows are sorted by target). Every target is summed by one
 * work-item in (spike, synapse) order, the C back end's order, with no barrier per spike. */
static void emit_prop(Out *o, const Simt *S, const IrProj *j, int block)
{
    if (!block && simt_gathers(j)) {
        simt_gather(o, S->m, j);
        return;
    }
    if (coop_row(j) && !block) {
        emit_prop_coop(o, S, j);
        return;
    }
    if (j->procedural) {
        emit_prop_proc(o, S, j, block);
        return;
    }
    if (block && order_free(j)) {
        emit_prop_block_free(o, S, j, block);
        return;
    }
    open_spikes_loop(o, S, j, block, NULL, "NC_GROUP", "NC_NGROUPS");
    if (block) {
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

/* A stored, static projection whose grid delivery is fused with the others from its
 * presynaptic population (emit_prop_fused). */
static int fused(const IrProj *j)
{
    return !j->plast && !j->procedural && !simt_gathers(j);
}

static int order_free(const IrProj *j);

/* j's ring is its own (no merged receptor shares it: IrProj.ring). */
static int ring_alone(const IrModel *m, const IrProj *j)
{
    for (int k = 0; k < m->nprojs; k++)
        if (m->projs[k] != j && m->projs[k]->ring == j->ring)
            return 0;
    return 1;
}

/* Fused in variant v: in the grid every fused projection (atomic adds); in one work-group
 * (block, cluster) those whose adds may come in any order and still give C's bits: one
 * weight (order_free) into a ring of their own (a shared ring with other weights would mix
 * them out of C's order). */
static int fused_in(const IrModel *m, const IrProj *j, int v)
{
    return fused(j) && (v == V_GRID || (order_free(j) && ring_alone(m, j)));
}

/* Whether the cluster kernel may hold j's own synapses in shared memory (emit_own_tables):
 * fused, and no per-synapse delay (the table keeps targets, not synapse indices). */
static int own_table(const IrModel *m, const IrProj *j)
{
    return fused_in(m, j, V_CLUSTER) && !j->delay;
}

int simt_own_table(const IrModel *m, const IrProj *j)
{
    return own_table(m, j);
}

static int n_own_tables(const IrModel *m)
{
    int n = 0;
    for (int k = 0; k < m->nprojs; k++)
        n += own_table(m, m->projs[k]);
    return n;
}

/* How many projections fused in variant v leave population pre. */
static int n_fused(const IrModel *m, const IrPop *pre, int v)
{
    int n = 0;
    for (int k = 0; k < m->nprojs; k++)
        n += fused_in(m, m->projs[k], v) && m->projs[k]->pre.pop == pre;
    return n;
}

/* The grid delivery of every fused projection from population pre: the step's (spike,
 * projection) pairs spread over the work-groups, each group adding one row whose pre view
 * holds the spike (atomic adds, as emit_prop). One loop over pairs, not one spike loop per
 * projection: the microcircuit's 55 projections from one population read the spike count
 * and list 55 times one after the other in every work-group, and a group that took a spike
 * walked up to 8 rows of about 1,000 synapses in turn (62 us of its 105 us step on an H200,
 * ncu); now the longest path is one row. Only the pairs whose view holds the spike are
 * enumerated: the pre views cut pre into segments (at most 64 here), each with the list of
 * the projections covering it, and a spike's pairs are its segment's list (the microcircuit:
 * 8 slices of 6 to 8 projections, where all 55 were tried for every spike). */
static void emit_prop_fused(Out *o, const Simt *S, const IrPop *pre, int v)
{
    const IrModel *m = S->m;
    Arena *a = &S->cc->arena;
    const int nf = n_fused(m, pre, v);
    /* segment bounds: 0, every view's ends, pre->size (sorted, unique) */
    int64_t *cut = arena_alloc(a, sizeof *cut * (size_t)(2 * nf + 2));
    int nc = 0;
    cut[nc++] = 0;
    cut[nc++] = pre->size;
    for (int k = 0; k < m->nprojs; k++) {
        const IrProj *j = m->projs[k];
        if (!fused_in(m, j, v) || j->pre.pop != pre)
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
            len += fused_in(m, j, v) && j->pre.pop == pre && j->pre.offset <= cut[sg] &&
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
        if (!fused_in(m, j, v) || j->pre.pop != pre)
            continue;
        const double mean = est_synapses(j) / (double)(j->pre.size > 0 ? j->pre.size : 1);
        while (G < mean && G < S->block)
            G *= 2;
    }
    if (v == V_GRID)
        out_line(o, "/* the stored projections from %s: a work-group per (spike, projection) of the spike's segment */", pre->name);
    else
        out_line(o, "/* the one-weight projections from %s: %d work-items per (spike, projection) of the spike's segment, atomic adds */",
                 pre->name, G);
    out_open(o, "NC_DEV void nc_deliver_from_%s_%s(NC_ARGS, const int64_t step)", pre->cname, vname(v));
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
        if (!fused_in(m, j, v) || j->pre.pop != pre)
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
            own_targets(o, j, own_lo(S, v, j->post.pop), own_hi(S, v, j->post.pop));
            if (v == V_CLUSTER && own_table(m, j)) {
                out_line(o, "const uint32_t nc_or = nc_otab[%d];", 2 * k);
                out_open(o, "if (nc_or != 0xffffffffu) /* the group's own row, from shared memory */");
                out_line(o, "const uint32_t *const orp = (const uint32_t *)(nc_dyn + nc_or);");
                out_line(o, "const uint16_t *const ocol = (const uint16_t *)(nc_dyn + nc_otab[%d]);", 2 * k + 1);
                out_open(o, "for (uint32_t s = orp[i] + (NC_LID & (g - 1)); s < orp[i + 1]; s += g)");
                out_line(o, "nc_atomic_add_f%d(&%s_ring[%s * %lld + nc_tlo + ocol[s]], %s);", m->dbl ? 64 : 32,
                         j->ring->cname, ring_next_slot(a, j), (long long)j->post.size, w.s);
                out_close(o);
                out_close(o);
                out_open(o, "else");
            }
            out_line(o, "const int64_t rs = %s_rp[i], re = %s_rp[i + 1];", j->cname, j->cname);
            out_open(o, "for (int64_t s = rs + (NC_LID & (g - 1)); s < re; s += g)");
            out_line(o, "if (%s_col[s] < nc_tlo || %s_col[s] >= nc_thi) continue;", j->cname, j->cname);
            emit_ring_add(o, j, "s", 1, m->dbl, w.s);
            if (v == V_CLUSTER && own_table(m, j))
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

/* After delivery: per-step spike counts, recording ends and state rows. Any number of
 * work-items (grid-stride); runs after every population's neuron phase of the step. */
static void emit_tail(Out *o, const Simt *S)
{
    const IrModel *m = S->m;
    for (int r = 0; r < m->nrecs; r++) {
        const IrRecord *rec = &m->recs[r];
        if (rec->spikes || rec->proj)
            continue;
        StrBuf b = {0};
        for (int k = 0; k < rec->nidx; k++)
            sb_printf(&b, "%s%lld", k ? ", " : "", (long long)rec->idx[k]);
        out_line(o, "NC_CONST_TABLE int64_t rec%d_idx[%d] = {%s};", r, rec->nidx, b.s);
        sb_free(&b);
    }
    /* nc_local: each work-group records and checks its own neurons, nc_part(.., nc_r, nc_nr)
     * (the block and cluster schedules), else the grid's work-items share all of them */
    /* nc_c0, nc_every: the chunk's first step (nc_ctl[1]) and the --check-finite interval
     * (nc_fin[0]), which the block and cluster kernels read once per launch */
    /* nc_sel: 1, the counts (after the spike lists), 2, the states and checks (after the
     * update), 3 both; nc_skip: work-items that take no part in the states (the cluster
     * kernel records them while its first warp waits for the spike words) */
    out_open(o, "NC_DEV void nc_tail(NC_ARGS, const int64_t step, const int hf, const int nc_local, const int64_t nc_r, const int64_t nc_nr, const int64_t nc_c0, const int32_t nc_every, const int nc_sel, const int nc_skip)");
    out_line(o, "const int64_t k = step - nc_c0; /* step within the chunk */");
    out_line(o, "const int64_t nc_i0 = (nc_local ? NC_LID : NC_GID) - nc_skip, nc_is = (nc_local ? NC_LSIZE : NC_GSIZE) - nc_skip;");
    out_line(o, "(void)nc_every;");
    out_line(o, "(void)nc_i0;");
    out_line(o, "(void)nc_is;");
    out_open(o, "if ((nc_sel & 1) && NC_GID == 0)");
    for (int i = 0; i < m->npops; i++)
        out_line(o, "nc_pcnt[((int64_t)hf * NC_CH + k) * %d + %d] = nc_cnt[%d + (int)(step & 1)];", m->npops,
                 i, 2 * i);
    for (int r = 0; r < m->nrecs; r++)
        if (m->recs[r].spikes)
            out_line(o, "rec%d_ends[(int64_t)hf * NC_CH + k] = nc_cnt[%d + hf];", r, S->cnt_rec + 2 * r);
    out_close(o);
    out_open(o, "if ((nc_sel & 2) && nc_i0 >= 0)");
    for (int r = 0; r < m->nrecs; r++) {
        const IrRecord *rec = &m->recs[r];
        if (rec->spikes)
            continue;
        if (rec->proj) {
            /* synapse states of a plastic projection: a row of nvars x nnz, in CSR order */
            const IrProj *j = rec->proj;
            out_open(o, "if ((step + 1) %% %lld == 0)", (long long)rec->every);
            out_line(o, "const int64_t row = step / %lld - nc_c0 / %lld;", (long long)rec->every,
                     (long long)rec->every);
            out_line(o, "const int64_t nnz = %s_rp[%lld];", j->cname, (long long)j->pre.size);
            out_line(o, "NC_G double *dst = rec%d_rows + ((int64_t)hf * %lld + row) * %d * nnz;", r,
                     (long long)simt_state_rec_rows(S, rec), rec->nvars);
            if (j->plast->event) {
                /* event-driven synapse dynamics: each work-item brings its synapses up to date
                 * (step + 1 steps done) and copies them */
                out_open(o, "for (int64_t s = NC_GID; s < nnz; s += NC_GSIZE)");
                out_line(o, "nc_pl_catchup1_%s(NC_PASS, step + 1, s);", j->cname);
                for (int v = 0; v < rec->nvars; v++)
                    out_line(o, "dst[%d * nnz + s] = (double)%s[s];", v, rec->vars[v]->cname);
                out_close(o);
                out_close(o);
                continue;
            }
            out_open(o, "for (int64_t q = NC_GID; q < %d * nnz; q += NC_GSIZE)", rec->nvars);
            out_line(o, "const int64_t s = q %% nnz;");
            out_line(o, "switch ((int)(q / nnz)) {");
            for (int v = 0; v < rec->nvars; v++)
                out_line(o, "case %d: dst[q] = (double)%s[s]; break;", v, rec->vars[v]->cname);
            out_line(o, "}");
            out_close(o);
            out_close(o);
            continue;
        }
        int w = rec->nvars * rec->nidx;
        out_open(o, "if ((step + 1) %% %lld == 0)", (long long)rec->every);
        out_line(o, "const int64_t row = step / %lld - nc_c0 / %lld;", (long long)rec->every,
                 (long long)rec->every);
        out_line(o, "NC_G double *dst = rec%d_rows + ((int64_t)hf * %lld + row) * %d;", r,
                 (long long)simt_state_rec_rows(S, rec), w);
        out_open(o, "for (int64_t q = nc_i0; q < %d; q += nc_is)", w);
        out_line(o, "const int64_t n = rec%d_idx[q %% %d];", r, rec->nidx);
        out_line(o, "if (nc_local && nc_nr > 1 && (n < nc_part(%lld, nc_r, nc_nr) || n >= nc_part(%lld, nc_r + 1, nc_nr))) continue;",
                 (long long)rec->view.pop->size, (long long)rec->view.pop->size);
        /* distributed: the owner of n writes it, the others +0.0 (merged by a bitwise OR) */
        const char *own = m->mpi ? "nc_own ? " : "", *other = m->mpi ? " : 0.0" : "";
        if (m->mpi)
            simt_mpi_owner(o, S, rec->view.pop);
        out_line(o, "switch ((int)(q / %d)) {", rec->nidx);
        for (int v = 0; v < rec->nvars; v++) {
            const IrVar *var = rec->vars[v];
            if (var->per_neuron)
                out_line(o, "case %d: dst[q] = %s(double)%s[n]%s; break;", v, own, var->cname, other);
            else
                out_line(o, "case %d: dst[q] = %s(double)nc_scal[%d]%s; break;", v, m->mpi ? "nc_sl[2] == 0 ? " : "",
                         simt_scal_var(S, var), other);
        }
        out_line(o, "}");
        out_close(o);
        out_close(o);
    }
    simt_finite_tail(o, S);
    out_close(o);
    out_close(o);
    out_blank(o);
}

static void emit_phase_calls(Out *o, const Simt *S, int neurons, const char *variant)
{
    const IrModel *m = S->m;
    if (neurons) {
        for (int i = 0; i < m->npops; i++)
            out_line(o, "nc_neurons_%s_%s(NC_PASS, step, hf%s);", m->pops[i]->cname, variant,
                     strcmp(variant, "grid") != 0 ? ", nc_tmp" : "");
    } else {
        const int v = strcmp(variant, "grid") == 0 ? V_GRID : strcmp(variant, "block") == 0 ? V_BLOCK : V_CLUSTER;
        for (int i = 0; i < m->npops; i++)
            if (n_fused(m, m->pops[i], v))
                out_line(o, "nc_deliver_from_%s_%s(NC_PASS, step);", m->pops[i]->cname, variant);
        for (int k = 0; k < m->nprojs; k++)
            if (!m->projs[k]->plast && !fused_in(m, m->projs[k], v))
                out_line(o, "nc_deliver_%s_%s(NC_PASS, step%s);", m->projs[k]->cname, variant,
                         v == V_GRID && coop_row(m->projs[k]) ? ", nc_t64" : "");
    }
}

/* The phases of plastic projections before (learn 0) or after (learn 1) the neurons, each
 * followed by `barrier`. */
static void emit_plast_phases(Out *o, const Simt *S, int learn, const char *variant, const char *barrier)
{
    for (int ph = learn ? PL_SCOPES : 0; ph < (learn ? PL__COUNT : PL_SCOPES); ph++) {
        if (!simt_plast_has_phase(S->m, ph))
            continue;
        simt_plast_calls(o, S, ph, variant);
        out_line(o, "%s", barrier);
    }
}

/* Counter upkeep at the end of a step (one work-item): the next step's spike counts. */
static void emit_step_end(Out *o, const Simt *S)
{
    for (int i = 0; i < S->m->npops; i++)
        out_line(o, "nc_cnt[%d + (int)((step + 1) & 1)] = 0;", 2 * i);
}

static void emit_block_kernel(Out *o, const Simt *S, int cluster);
static void emit_persistent_kernel(Out *o, const Simt *S);

/* --instances side by side (CUDA; nrt_gpu_launch_batch): group (0, b) runs instance b, so
 * its arguments become row b of nc_tab (the host's nc_tab_row) before anything reads them. The
 * group sees a grid of one group in x, so the phases are the one-group code unchanged. */
static void emit_batch_row(Out *o, const Simt *S)
{
    out_line(o, "#if defined(__CUDACC__)");
    out_open(o, "if (nc_batch)");
    out_line(o, "const int64_t *nc_w = nc_tab + (int64_t)blockIdx.y * %d;", S->nargs);
    for (int i = 0; i < S->nargs; i++) {
        const Arg *a = &S->args[i];
        if (a->kind == ARG_MEM)
            out_line(o, "%s = (%s *)(uintptr_t)nc_w[%d];", a->name, a->type, i);
        else
            out_line(o, "%s = (%s)nc_w[%d];", a->name, a->type, i);
    }
    out_close(o);
    out_line(o, "#else");
    out_line(o, "(void)nc_tab;");
    out_line(o, "(void)nc_batch;");
    out_line(o, "#endif");
}

static void emit_kernels(Out *o, const Simt *S)
{
    const IrModel *m = S->m;
    /* initialisation */
    out_line(o, "/* per-neuron initial values (NEURON_INIT draws keyed by neuron, step 0) */");
    simt_kernel_open(o, S, "NC_KERNEL nc_k_init(NC_ARGS)");
    out_line(o, "const int64_t step = 0;");
    out_line(o, "(void)step;");
    for (int i = 0; i < m->npops; i++) {
        const IrPop *p = m->pops[i];
        if (!p->init.n)
            continue;
        CgDialect d = simt_dev_dialect(S, p);
        d.cold = 1;
        out_open(o, "for (int64_t n = NC_GID; n < %lld; n += NC_GSIZE)", (long long)p->size);
        cg_block(&d, &p->init, o);
        out_close(o);
    }
    for (int i = 0; i < m->npops; i++)
        if (m->pops[i]->topk)
            out_line(o, "for (int64_t q = NC_GID; q < %d; q += NC_GSIZE) %s_tkh[q] = 0;",
                     256 * simt_topk_passes(m), m->pops[i]->cname);
    out_close(o);
    out_blank(o);
    for (int k = 0; k < m->nprojs; k++) {
        const IrProj *j = m->projs[k];
        CgDialect d = simt_dev_dialect(S, j->pre.pop);
        d.cold = 1;               /* run once, at construction */
        d.rng_elem = "i";
        d.rng_sub = "rank";
        d.rng_step = "0";
        d.index = "i";
        d.edge[0] = arena_printf(&S->cc->arena, "%s_fw[s]", j->cname);
        d.edge[1] = arena_printf(&S->cc->arena, "%s_fd[s]", j->cname);
        CgDialect dd = d;
        dd.dbl = 1;
        dd.real = "double";
        StrBuf b = {0};
        if (j->rule == IR_PAIRS) {
            cg_conn_row(o, &d, j, "NC_DEV", "NC_G");
            out_line(o, "/* %s: row lengths, then rows (rt_gpu_conn.c, build_pairs) */", j->name);
            char kb[16];
            out_open(o, "NC_KERNEL nc_rows_count_%s(NC_G int32_t *count, int64_t n_pre, uint32_t key0)",
                     cg_kname(j, kb));
            out_line(o, "for (int64_t i = NC_GID; i < n_pre; i += NC_GSIZE) count[i] = (int32_t)nc_row_%s(i, key0, (NC_G int32_t *)0);",
                     j->cname);
            out_close(o);
            out_open(o, "NC_KERNEL nc_rows_fill_%s(NC_CONST_ARG int64_t *row_ptr, NC_G int32_t *col, int64_t n_pre, uint32_t key0)",
                     cg_kname(j, kb));
            out_line(o, "for (int64_t i = NC_GID; i < n_pre; i += NC_GSIZE) (void)nc_row_%s(i, key0, col + row_ptr[i]);",
                     j->cname);
            out_close(o);
            out_blank(o);
        }
        out_line(o, "/* per-synapse values of %s (SYNAPSE_INIT draws keyed by row and rank) */", j->name);
        char kb[16];
        simt_kernel_open(o, S, "NC_KERNEL nc_k_syn_%s(NC_ARGS)", cg_kname(j, kb));
        out_open(o, "for (int64_t i = NC_GID; i < %lld; i += NC_GSIZE)", (long long)j->pre.size);
        out_open(o, "for (int64_t s = %s_rp[i]; s < %s_rp[i + 1]; s++)", j->cname, j->cname);
        out_line(o, "const int64_t j = %s_col[s], rank = s - %s_rp[i];", j->cname, j->cname);
        out_line(o, "(void)j; (void)rank;");
        if (j->plast) {
            CgDialect pd = simt_plast_dialect(S, j, NULL, 0);
            pd.cold = 1;
            pd.rng_elem = "i";
            pd.rng_sub = "rank";
            pd.rng_step = "0";
            cg_block(&pd, &j->plast->syn_init, o);
            dd = pd; /* delays as in the C back end */
            dd.dbl = 1;
            dd.real = "double";
        } else {
            cg_expr(&d, j->w, &b);
            out_line(o, "%s_w[s] = %s;", j->cname, b.s);
        }
        if (j->delay) {
            b.len = 0;
            if (b.s)
                b.s[0] = 0;
            cg_expr(&dd, j->delay, &b);
            out_line(o, "const double delay = %s;", b.s);
            out_line(o, "const double steps = round(delay / dt);");
            out_open(o, "if (!(steps < 1e9))");
            out_line(o, "nc_cnt[%d] = 1;", S->cnt_err);
            out_line(o, "%s_d[s] = 1;", j->cname);
            out_line(o, "continue;");
            out_close(o);
            out_line(o, "const int32_t dd = steps < 1 ? 1 : (int32_t)steps;");
            out_line(o, "%s_d[s] = dd;", j->cname);
            out_line(o, "nc_atomic_max_i32(&nc_cnt[%d], dd);", S->cnt_maxd + k);
        }
        out_close(o);
        out_close(o);
        out_close(o);
        out_blank(o);
        sb_free(&b);
        if (j->procedural && j->delay)
            emit_pscan(o, S, j);
    }
    if (any_coop(m))
        emit_scan64(o);
    simt_topk_common(o, m);
    for (int i = 0; i < m->npops; i++)
        if (m->pops[i]->topk) {
            CgDialect d = simt_dev_dialect(S, m->pops[i]);
            simt_topk_pop(o, &d, m, m->pops[i]);
        }
    for (int i = 0; i < m->npops; i++) {
        emit_neurons(o, S, m->pops[i], V_GRID);
        emit_neurons(o, S, m->pops[i], V_BLOCK);
        if (S->has_cluster)
            emit_neurons(o, S, m->pops[i], V_CLUSTER);
    }
    for (int k = 0; k < m->nprojs; k++) {
        const IrProj *j = m->projs[k];
        if (j->plast)
            continue;
        if (!fused_in(m, j, V_GRID))
            emit_prop(o, S, j, V_GRID);
        if (S->has_block && !fused_in(m, j, V_BLOCK))
            emit_prop(o, S, j, V_BLOCK);
        if (S->has_cluster && !fused_in(m, j, V_CLUSTER))
            emit_prop(o, S, j, V_CLUSTER);
    }
    for (int i = 0; i < m->npops; i++) {
        if (n_fused(m, m->pops[i], V_GRID))
            emit_prop_fused(o, S, m->pops[i], V_GRID);
        if (S->has_block && n_fused(m, m->pops[i], V_BLOCK))
            emit_prop_fused(o, S, m->pops[i], V_BLOCK);
        if (S->has_cluster && n_fused(m, m->pops[i], V_CLUSTER))
            emit_prop_fused(o, S, m->pops[i], V_CLUSTER);
    }
    simt_plast_device(o, S);
    emit_tail(o, S);
    if (m->mpi)
        simt_mpi_device(o, S, spike_recs_atomic);

    out_line(o, "/* the start of a recording chunk: its first step, its half, its counters (one work-item) */");
    simt_kernel_open(o, S, "NC_KERNEL nc_k_chunk(NC_ARGS, const int64_t step0, const int hf, NC_G const int64_t *nc_tab, const int nc_batch)");
    emit_batch_row(o, S);
    out_open(o, "if (NC_GID == 0)");
    out_line(o, "nc_ctl[1] = step0;");
    out_line(o, "nc_ctl[2] = hf;");
    for (int r = 0; r < m->nrecs; r++)
        if (m->recs[r].spikes)
            out_line(o, "nc_cnt[%d + hf] = 0;", S->cnt_rec + 2 * r);
    out_close(o);
    simt_finite_reset(o, S);
    out_close(o);
    out_blank(o);
    if (S->free)
        simt_free_device(o, S);
    if (S->free || S->push)
        simt_free_post(o, S);
    out_line(o, "/* launch/graph schedule: the neuron phase of step nc_ctl[0] ... */");
    simt_kernel_open(o, S, "NC_KERNEL nc_k_neurons(NC_ARGS)");
    out_line(o, "const int64_t step = nc_ctl[0];");
    out_line(o, "const int hf = (int)nc_ctl[2];");
    out_line(o, "if (NC_GID == 0) nc_ctl[3] = step;");
    emit_phase_calls(o, S, 1, "grid");
    out_close(o);
    out_blank(o);
    if (simt_topk_any(m)) {
        out_line(o, "/* ... the top-k passes of step nc_ctl[3] (simt_topk.c) ... */");
        for (int pass = 0; pass <= simt_topk_passes(m); pass++) {
            simt_kernel_open(o, S, "NC_KERNEL nc_k_tk%d(NC_ARGS)", pass);
            out_line(o, "NC_L int32_t nc_tks[%d];", SIMT_TOPK_LOCAL);
            out_line(o, "const int64_t step = nc_ctl[3];");
            for (int i = 0; i < m->npops; i++)
                if (m->pops[i]->topk)
                    out_line(o, "nc_tk_pass_%s(NC_PASS, step, %d, nc_tks);", m->pops[i]->cname, pass);
            out_close(o);
        }
        out_line(o, "/* ... the rest of the step of the top-k populations ... */");
        simt_kernel_open(o, S, "NC_KERNEL nc_k_after(NC_ARGS)");
        out_line(o, "const int64_t step = nc_ctl[3];");
        out_line(o, "const int hf = (int)nc_ctl[2];");
        for (int i = 0; i < m->npops; i++)
            if (m->pops[i]->topk)
                out_line(o, "nc_after_%s_grid(NC_PASS, step, hf);", m->pops[i]->cname);
        out_close(o);
        out_blank(o);
    }
    out_line(o, "/* ... then delivery and recording of step nc_ctl[3], which advances nc_ctl[0] */");
    simt_kernel_open(o, S, "NC_KERNEL nc_k_synapses(NC_ARGS)");
    if (any_coop(m))
        out_line(o, "NC_L int64_t nc_t64[258]; /* procedural rows: work-groups of up to 256 */");
    out_line(o, "const int64_t step = nc_ctl[3];");
    out_line(o, "const int hf = (int)nc_ctl[2];");
    emit_phase_calls(o, S, 0, "grid");
    out_line(o, "nc_tail(NC_PASS, step, hf, 0, 0, 1, nc_ctl[1], nc_fin[0], 3, 0);");
    out_open(o, "if (NC_GID == 0)");
    emit_step_end(o, S);
    out_line(o, "nc_ctl[0] = step + 1;");
    out_close(o);
    out_close(o);
    out_blank(o);

    for (int ph = 0; ph < PL__COUNT; ph++) {
        if (!simt_plast_has_phase(m, ph))
            continue;
        out_line(o, "/* launch/graph schedule: plastic projections, phase %d of step nc_ctl[0] */", ph);
        simt_kernel_open(o, S, "NC_KERNEL nc_k_plast%d(NC_ARGS)", ph);
        out_line(o, "const int64_t step = nc_ctl[0];");
        out_line(o, "const int hf = (int)nc_ctl[2];");
        simt_plast_calls(o, S, ph, "grid");
        out_close(o);
        out_blank(o);
    }

    if (S->has_block)
        emit_block_kernel(o, S, 0);
    if (S->has_cluster)
        emit_block_kernel(o, S, 1);
    if (S->push)
        simt_push_device(o, S);
    if (S->has_persistent)
        emit_persistent_kernel(o, S);
}

enum { RES_IN, RES_NAMES, RES_OUT };
static void res_out(Out *o, const Simt *S, const Arg *a, int64_t at);

/* For each resident buffer (plan_resident): its copy into shared memory (RES_IN), its
 * shared-memory pointer under the argument's name (RES_NAMES), its copy back (RES_OUT). */
static void emit_resident(Out *o, const Simt *S, int what)
{
    for (int i = 0; i < S->nargs; i++) {
        const Arg *a = &S->args[i];
        if (a->res < 0)
            continue;
        if (what == RES_IN)
            out_line(o, "nc_res_copy(nc_res + %lld, %s, %s);", (long long)a->res, a->name, a->len);
        else if (what == RES_NAMES)
            out_line(o, "%s *const %s = (%s *)(nc_res + %lld);", a->type, a->name, a->type, (long long)a->res);
        else if (!a->ro)
            res_out(o, S, a, a->res);
    }
}

/* The copy back of resident buffer a: a work-group's own neurons of a per-neuron variable
 * and its own targets of a delay ring (the cluster schedule: every group holds all of them,
 * up to date for its own part), the rest (the same in every group) by group 0. */
static void res_out(Out *o, const Simt *S, const Arg *a, int64_t at)
{
    const long long rs = S->m->dbl ? 8 : 4;
    if (a->pop) {
        const long long size = (long long)a->pop->size, es = (long long)(a->bytes / a->pop->size);
        out_begin(o);
        out_line(o, "const int64_t lo = nc_part(%lld, NC_GROUP, NC_NGROUPS), hi = nc_part(%lld, NC_GROUP + 1, NC_NGROUPS);",
                 size, size);
        out_line(o, "nc_res_copy((char *)%s + lo * %lld, nc_res + %lld + lo * %lld, (hi - lo) * %lld);", a->name, es,
                 (long long)at, es, es);
        out_close(o);
    } else if (a->ring) {
        const long long np = (long long)a->ring->post.size;
        out_begin(o);
        own_targets(o, a->ring, arena_printf(&S->cc->arena, "nc_part(%lld, NC_GROUP, NC_NGROUPS)", (long long)a->ring->post.pop->size),
                    arena_printf(&S->cc->arena, "nc_part(%lld, NC_GROUP + 1, NC_NGROUPS)", (long long)a->ring->post.pop->size));
        out_line(o, "for (int64_t sl = 0; sl < %s_D; sl++)", a->ring->cname);
        out_line(o, "    nc_res_copy((char *)%s + (sl * %lld + nc_tlo) * %lld, nc_res + %lld + (sl * %lld + nc_tlo) * %lld, (nc_thi - nc_tlo) * %lld);",
                 a->name, np, rs, (long long)at, np, rs, rs);
        out_close(o);
    } else {
        out_line(o, "if (NC_GROUP == 0) nc_res_copy(%s, nc_res + %lld, %s);", a->name, (long long)at, a->len);
    }
}

/* The cluster kernel's resident buffers (plan_resident_cluster): RES_IN, the copies in (whole
 * buffers, then each slice at nc_at, advancing), RES_NAMES, the pointers under the arguments'
 * names (a slice's shifted by its group's first neuron, so the phases index it as the whole),
 * RES_OUT, the copies back of this group's part. */
static void emit_resident_cluster(Out *o, const Simt *S, int what)
{
    const IrModel *m = S->m;
    const long long rs = m->dbl ? 8 : 4;
    if (what == RES_IN) {
        for (int i = 0; i < m->npops; i++)
            out_line(o, "const int64_t nc_slo%d = nc_part(%lld, NC_GROUP, NC_NGROUPS), nc_shi%d = nc_part(%lld, NC_GROUP + 1, NC_NGROUPS);",
                     i, (long long)m->pops[i]->size, i, (long long)m->pops[i]->size);
        out_line(o, "uint32_t nc_at = %lld; /* the next free byte */", (long long)S->cres_bytes);
    }
    for (int i = 0; i < S->nargs; i++) {
        const Arg *a = &S->args[i];
        if (a->cslice) {
            const int p = a->pop->id;
            const char *var = a->name;
            const long long es = strcmp(a->type, "double") == 0 || strcmp(a->type, "int64_t") == 0 ||
                                         (strcmp(a->type, "real") == 0 && rs == 8) ? 8 : 4;
            if (what == RES_IN) {
                out_line(o, "const uint32_t nc_o_%s = nc_at;", var);
                out_line(o, "nc_at += (uint32_t)(((nc_shi%d - nc_slo%d) * %lld + 15) & ~(int64_t)15);", p, p, es);
                out_line(o, "nc_res_copy(nc_res + nc_o_%s, (const char *)%s + nc_slo%d * %lld, (nc_shi%d - nc_slo%d) * %lld);",
                         var, var, p, es, p, p, es);
            } else if (what == RES_NAMES) {
                out_line(o, "%s *const %s = (%s *)(nc_res + nc_o_%s) - nc_slo%d;", a->type, var, a->type, var, p);
            } else {
                out_line(o, "nc_res_copy((char *)%s + nc_slo%d * %lld, nc_res + nc_o_%s, (nc_shi%d - nc_slo%d) * %lld);", var,
                         p, es, var, p, p, es);
            }
        } else if (a->cres >= 0) {
            if (what == RES_IN)
                out_line(o, "nc_res_copy(nc_res + %lld, %s, %s);", (long long)a->cres, a->name, a->len);
            else if (what == RES_NAMES)
                out_line(o, "%s *const %s = (%s *)(nc_res + %lld);", a->type, a->name, a->type, (long long)a->cres);
            else
                res_out(o, S, a, a->cres);
        }
    }
}

/* Row i of j's global targets, 16 at a time in v[u] (the rows are in L2: 16 loads in flight),
 * `body` run for each u; past the row's end v[u] is -1, outside every group's targets. */
static void own_row_scan(Out *o, const IrProj *j, const char *body)
{
    out_line(o, "const int64_t rs = %s_rp[i], re = %s_rp[i + 1];", j->cname, j->cname);
    out_open(o, "for (int64_t s0 = rs; s0 < re; s0 += 16)");
    out_line(o, "int32_t v[16];");
    out_line(o, "for (int u = 0; u < 16; u++) v[u] = s0 + u < re ? %s_col[s0 + u] : -1;", j->cname);
    out_line(o, "for (int u = 0; u < 16; u++) %s", body);
    out_close(o);
}

static void emit_own_builds(Out *o, const Simt *S);

/* Each group's own synapses of the fused projections without per-synapse delays, in the
 * cluster kernel's shared memory while they fit (own_table): the row offsets (pre size + 1,
 * 32 bits) and the targets in the group's own part, 16 bits from its first. A spike's
 * delivery then reads a row of a few entries from shared memory, where the rows in global
 * memory take a trip to L2 and a filter over every target (emit_prop_fused). The run's first
 * launch builds them (emit_own_builds: rows counted, summed by nc_block_scan, filled) and
 * keeps a copy in the group's region of nc_otc; later launches copy that in (building them
 * every launch cost CUBA more than they saved: docs/performance.md). A projection that does
 * not fit keeps its global rows (nc_otab ~0u). */
static void emit_own_tables(Out *o, const Simt *S)
{
    const IrModel *m = S->m;
    if (!n_own_tables(m)) {
        out_line(o, "NC_BARRIER();");
        return;
    }
    /* group r's region of nc_otc (NC_CLUSTER_SHMEM bytes): a header (built, first and end
     * byte of the tables in shared memory, nc_otab), then the tables as in shared memory */
    const long long hdr = (16 + 8 * (long long)m->nprojs + 15) / 16 * 16;
    out_line(o, "/* the own synapses: built by the run's first launch, kept in nc_otc (emit_own_tables) */");
    out_line(o, "NC_G uint32_t *const nc_oc = nc_otc + (int64_t)NC_GROUP * %lld;", (long long)cluster_shmem(S) / 4);
    out_line(o, "const uint32_t nc_t0 = (nc_at + 15u) & ~15u;");
    out_open(o, "if (nc_oc[0] == 1u && nc_oc[1] == nc_t0) /* an earlier launch of this run built them */");
    out_line(o, "nc_res_copy(nc_res + nc_t0, (const char *)nc_oc + %lld, (nc_oc[2] - nc_t0 + 15u) & ~15u);", hdr);
    out_line(o, "if (NC_LID < %d) nc_otab[NC_LID] = nc_oc[4 + NC_LID];", 2 * m->nprojs);
    out_line(o, "nc_at = nc_oc[2];");
    out_line(o, "NC_BARRIER();");
    out_close(o);
    out_open(o, "else");
    out_line(o, "if (NC_LID < %d) nc_otab[NC_LID] = 0xffffffffu;", 2 * m->nprojs);
    emit_own_builds(o, S);
    out_line(o, "NC_BARRIER();");
    out_line(o, "nc_res_copy((char *)nc_oc + %lld, nc_res + nc_t0, (nc_at - nc_t0 + 15u) & ~15u);", hdr);
    out_line(o, "if (NC_LID < %d) nc_oc[4 + NC_LID] = nc_otab[NC_LID];", 2 * m->nprojs);
    out_line(o, "if (NC_LID == 0) nc_oc[0] = 1u, nc_oc[1] = nc_t0, nc_oc[2] = nc_at; /* read by the next launch */");
    out_close(o);
}

/* The builds of emit_own_tables, one projection after the other from nc_at. */
static void emit_own_builds(Out *o, const Simt *S)
{
    const IrModel *m = S->m;
    for (int k = 0; k < m->nprojs; k++) {
        const IrProj *j = m->projs[k];
        if (!own_table(m, j))
            continue;
        const long long npre = (long long)j->pre.size, psz = (long long)j->post.pop->size;
        out_open(o, "/* %s */", j->name);
        own_targets(o, j, arena_printf(&S->cc->arena, "nc_part(%lld, NC_GROUP, NC_NGROUPS)", psz),
                    arena_printf(&S->cc->arena, "nc_part(%lld, NC_GROUP + 1, NC_NGROUPS)", psz));
        out_line(o, "const uint32_t at = (nc_at + 15u) & ~15u;");
        out_open(o, "if (nc_thi - nc_tlo <= 65536 && (int64_t)at + %lld <= %lld)", 4 * (npre + 1), (long long)cluster_shmem(S));
        out_line(o, "uint32_t *const orp = (uint32_t *)(nc_res + at);");
        out_open(o, "for (int64_t i = NC_LID; i < %lld; i += NC_LSIZE)", npre);
        out_line(o, "uint32_t c = 0;");
        own_row_scan(o, j, "c += v[u] >= nc_tlo && v[u] < nc_thi;");
        out_line(o, "orp[i + 1] = c;");
        out_close(o);
        out_line(o, "if (NC_LID == 0) orp[0] = 0;");
        out_line(o, "NC_BARRIER();");
        out_line(o, "uint32_t run = 0;");
        out_open(o, "for (int64_t b = 0; b < %lld; b += NC_LSIZE)", npre);
        out_line(o, "const int64_t i = b + NC_LID;");
        out_line(o, "const int c = i < %lld ? (int)orp[i + 1] : 0;", npre);
        out_line(o, "int total;");
        out_line(o, "const int x = nc_block_scan(c, nc_tmp, &total);");
        out_line(o, "if (i < %lld) orp[i + 1] = run + (uint32_t)(x + c);", npre);
        out_line(o, "run += (uint32_t)total;");
        out_close(o);
        out_line(o, "const uint32_t cat = at + %lld;", 4 * (npre + 1));
        out_open(o, "if ((int64_t)cat + 2 * (int64_t)run <= %lld) /* the launch's dynamic shared memory */", (long long)cluster_shmem(S));
        out_line(o, "uint16_t *const ocol = (uint16_t *)(nc_res + cat);");
        out_open(o, "for (int64_t i = NC_LID; i < %lld; i += NC_LSIZE)", npre);
        out_line(o, "uint32_t q = orp[i];");
        own_row_scan(o, j, "if (v[u] >= nc_tlo && v[u] < nc_thi) ocol[q++] = (uint16_t)(v[u] - nc_tlo);");
        out_close(o);
        out_line(o, "if (NC_LID == 0) nc_otab[%d] = at, nc_otab[%d] = cat;", 2 * k, 2 * k + 1);
        out_line(o, "nc_at = cat + 2 * run;");
        out_close(o);
        out_close(o);
        out_close(o);
    }
}

/* The end of a cluster launch's step loop (nc_k_cluster, nc_k_push): no group leaves while
 * another may still write its shared memory; a stall in any group (nc_halt) makes the launch
 * return with nothing copied back. */
void simt_cluster_stall_end(Out *o)
{
    out_line(o, "cooperative_groups::this_cluster().sync();");
    out_line(o, "/* a stall in any group: the launch leaves the state as it found it (no copy back, nc_ctl[0]");
    out_line(o, " * unchanged) and says where in nc_ctl[4]; the host redoes its steps in the block schedule */");
    out_line(o, "int64_t nc_stall = 0;");
    out_open(o, "for (unsigned r = 0; r < (unsigned)NC_NGROUPS; r++)");
    out_line(o, "const int64_t h = *cooperative_groups::this_cluster().map_shared_rank(&nc_halt, r);");
    out_line(o, "if (h && (!nc_stall || h < nc_stall)) nc_stall = h;");
    out_close(o);
    out_line(o, "cooperative_groups::this_cluster().sync();");
    out_open(o, "if (nc_stall)");
    out_line(o, "if (NC_GID == 0) nc_ctl[4] = nc_stall;");
    out_line(o, "return;");
    out_close(o);
}

/* block schedule: the whole network in one work-group, nsteps steps per launch.
 * cluster schedule (CUDA, sm_90): the same steps by every work-group of one thread-block
 * cluster, each for its own neurons (nc_part) and targets, with the spike words exchanged
 * through distributed shared memory (nc_xw, emit_neurons_cluster); launched as one cluster. */
static void emit_block_kernel(Out *o, const Simt *S, int cluster)
{
    if (cluster) {
        out_line(o, "#if defined(__CUDACC__)");
        out_line(o, "/* cluster schedule: the network split over one thread-block cluster, nsteps steps per launch */");
        simt_kernel_open(o, S, "NC_KERNEL_BOUNDED(%d) nc_k_cluster(NC_ARGS, const int64_t nsteps)", S->block);
        out_line(o, "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900");
        out_line(o, "if (nc_ctl[4]) return; /* an earlier launch stalled: the host redoes these steps */");
    } else {
        out_line(o, "/* block schedule: the whole network in one work-group, nsteps steps per launch */");
        simt_kernel_open(o, S, "NC_KERNEL_BOUNDED(%d) nc_k_block(NC_ARGS, const int64_t nsteps, NC_G const int64_t *nc_tab, const int nc_batch)", S->block);
    }
    out_line(o, "NC_L int nc_tmp[%d];", S->block + 64);
    if (!cluster)
        emit_batch_row(o, S);
    out_line(o, "const int hf = (int)nc_ctl[2];");
    out_line(o, "const int64_t step0 = nc_ctl[0], c0 = nc_ctl[1];");
    out_line(o, "const int32_t every = nc_fin[0];");
    if (cluster) {
        out_line(o, "/* buffers resident in shared memory for the launch (plan_resident_cluster), then the own synapses */");
        out_line(o, "extern __shared__ __align__(16) unsigned char nc_res[];");
        emit_resident_cluster(o, S, RES_IN);
        out_line(o, "NC_BARRIER();");
        emit_own_tables(o, S);
    } else if (S->res_bytes) {
        out_line(o, "#if defined(__CUDACC__)");
        out_line(o, "/* %lld bytes of buffers resident in shared memory for the launch (plan_resident) */",
                 (long long)S->res_bytes);
        out_line(o, "extern __shared__ __align__(16) unsigned char nc_res[];");
        emit_resident(o, S, RES_IN);
        out_line(o, "NC_BARRIER();");
        out_line(o, "#endif");
    }
    if (cluster) {
        out_open(o, "if (NC_LID == 0)");
        out_line(o, "nc_s0 = step0;");
        out_line(o, "nc_halt = 0;");
        out_line(o, "nc_inj = nc_ctl[5];");
        for (int i = 0; i < S->m->npops; i++) {
            const long long size = (long long)S->m->pops[i]->size;
            out_line(o, "nc_own[%d] = (int32_t)nc_part(%lld, NC_GROUP, NC_NGROUPS), nc_own[%d] = (int32_t)nc_part(%lld, NC_GROUP + 1, NC_NGROUPS);",
                     2 * i, size, 2 * i + 1, size);
            out_line(o, "nc_txb[%d] = 0;", i);
            out_line(o, "for (int64_t g = 0; g < NC_NGROUPS; g++)");
            out_line(o, "    nc_txb[%d] += (uint32_t)((((nc_part(%lld, g + 1, NC_NGROUPS) - nc_part(%lld, g, NC_NGROUPS) + 31) >> 5) * 4 + 15) & ~(int64_t)15);",
                     i, size, size);
            out_line(o, "nc_mbar_init(&nc_xb[%d], 1);", 2 * i);
            out_line(o, "nc_mbar_init(&nc_xb[%d], 1);", 2 * i + 1);
        }
        out_close(o);
        out_line(o, "cooperative_groups::this_cluster().sync();");
    }
    out_begin(o);
    if (cluster) {
        emit_resident_cluster(o, S, RES_NAMES);
    } else if (S->res_bytes) {
        out_line(o, "#if defined(__CUDACC__)");
        emit_resident(o, S, RES_NAMES);
        out_line(o, "#endif");
    }
    /* A do-while (the host never launches nsteps < 1): a `for` would guard the whole loop,
     * which makes every barrier in it conditional; PoCL 3.1 then peels work-item 0 out of
     * the work-item loops and drops code that only work-item 0 runs (the block scan's
     * total: spike counts of 0, no spike lists, no arrivals). */
    out_line(o, "int64_t step = step0;");
    out_open(o, "do");
    emit_plast_phases(o, S, 0, "block", "NC_BARRIER();");
    emit_phase_calls(o, S, 1, cluster ? "cluster" : "block");
    if (cluster) {   /* the states recorded by the other warps (if any) while the first waits for the words */
        out_line(o, "nc_tail(NC_PASS, step, hf, 1, NC_GROUP, NC_NGROUPS, c0, every, 2, NC_LSIZE > 32 ? 32 : 0);");
        for (int i = 0; i < S->m->npops; i++)
            if (S->m->pops[i]->has_spikes)
                out_line(o, "nc_exchange_%s_cluster(NC_PASS, step, hf);", S->m->pops[i]->cname);
        out_line(o, "NC_BARRIER();");
        out_line(o, "if (nc_halt) break;");
    }
    emit_plast_phases(o, S, 1, "block", "NC_BARRIER();");
    emit_phase_calls(o, S, 0, cluster ? "cluster" : "block");
    out_line(o, "nc_tail(NC_PASS, step, hf, 1, %s, %s, c0, every, %d, 0);", cluster ? "NC_GROUP" : "0", cluster ? "NC_NGROUPS" : "1",
             cluster ? 1 : 3);
    out_open(o, "if (NC_LID == 0)");
    emit_step_end(o, S);
    out_close(o);
    out_line(o, "NC_BARRIER();");
    out_line(o, "step++;");
    out_close_with(o, " while (step < step0 + nsteps);");
    out_close(o);
    if (cluster)
        simt_cluster_stall_end(o);
    if (cluster) {
        emit_resident_cluster(o, S, RES_OUT);
    } else if (S->res_bytes) {
        out_line(o, "#if defined(__CUDACC__)");
        emit_resident(o, S, RES_OUT);
        out_line(o, "#endif");
    }
    out_line(o, "if (NC_GID == 0) nc_ctl[0] = step0 + nsteps;");
    if (cluster) {
        out_line(o, "#else");
        out_line(o, "(void)nsteps;");
        out_line(o, "__trap(); /* built for a GPU without thread-block clusters */");
        out_line(o, "#endif");
    }
    out_close(o);
    if (cluster)
        out_line(o, "#endif");
    out_blank(o);
}

/* persistent schedule (CUDA) */
static void emit_persistent_kernel(Out *o, const Simt *S)
{
    const IrModel *m = S->m;
    out_line(o, "#if defined(__CUDACC__)");
    out_line(o, "/* persistent schedule (CUDA): one cooperative grid, two grid barriers per step */");
    simt_kernel_open(o, S, "NC_KERNEL nc_k_persistent(NC_ARGS, const int64_t nsteps)");
    if (any_coop(m))
        out_line(o, "NC_L int64_t nc_t64[258]; /* procedural rows: work-groups of up to 256 */");
    out_line(o, "cooperative_groups::grid_group grid = cooperative_groups::this_grid();");
    out_line(o, "const int hf = (int)nc_ctl[2];");
    out_line(o, "const int64_t step0 = nc_ctl[0];");
    if (simt_topk_any(m))
        out_line(o, "NC_L int32_t nc_tks[%d];", SIMT_TOPK_LOCAL);
    out_open(o, "for (int64_t step = step0; step < step0 + nsteps; step++)");
    emit_plast_phases(o, S, 0, "grid", "grid.sync();");
    emit_phase_calls(o, S, 1, "grid");
    out_line(o, "grid.sync();");
    if (simt_topk_any(m)) {
        out_open(o, "for (int pass = 0; pass <= %d; pass++)", simt_topk_passes(m));
        for (int i = 0; i < m->npops; i++)
            if (m->pops[i]->topk)
                out_line(o, "nc_tk_pass_%s(NC_PASS, step, pass, nc_tks);", m->pops[i]->cname);
        out_line(o, "grid.sync();");
        out_close(o);
        for (int i = 0; i < m->npops; i++)
            if (m->pops[i]->topk)
                out_line(o, "nc_after_%s_grid(NC_PASS, step, hf);", m->pops[i]->cname);
        out_line(o, "grid.sync();");
    }
    emit_plast_phases(o, S, 1, "grid", "grid.sync();");
    emit_phase_calls(o, S, 0, "grid");
    out_line(o, "nc_tail(NC_PASS, step, hf, 0, 0, 1, nc_ctl[1], nc_fin[0], 3, 0);");
    out_open(o, "if (NC_GID == 0)");
    emit_step_end(o, S);
    out_close(o);
    out_line(o, "grid.sync();");
    out_close(o);
    out_line(o, "if (NC_GID == 0) nc_ctl[0] = step0 + nsteps;");
    out_close(o);
    out_line(o, "#endif");
}

int simt_emit_device(Compiler *cc, IrModel *m, const BuildOpts *bo, const SimtTarget *t, Out *o)
{
    Simt S;
    setup(&S, cc, m, bo, t);
    out_line(o, "/* %s device program -- generated by neuroc %s from %s.neuro for the %s back end.", m->name,
             NEUROC_VERSION, m->name, t->name);
    out_line(o, " * One text for CUDA and OpenCL (nrt_simt.h). Do not edit: change the model. */");
    out_line(o, "#if defined(__CUDACC__)");
    out_line(o, "#include <cooperative_groups.h>");
    out_line(o, "#endif");
    int rc = paste_file(&S, bo, "nrt_simt.h", o);
    if (!rc)
        rc = paste_file(&S, bo, "nrt_math.h", o);
    if (!rc)
        rc = paste_file(&S, bo, "nrt_philox.h", o);
    if (!rc)
        rc = paste_file(&S, bo, "nrt_space.h", o);
    if (!rc)
        rc = paste_file(&S, bo, "nrt_conn_dev.h", o);
    if (rc) {
        free(S.args);
        return -1;
    }
    emit_dev_prelude(o, &S);
    emit_args_macros(o, &S);
    out_blank(o);
    emit_kernels(o, &S);
    free(S.args);
    return 0;
}

/* ===== device program =====} */

/* {===== schedule ===== */

static double n_neurons(const IrModel *m)
{
    double n = 0;
    for (int i = 0; i < m->npops; i++)
        n += (double)m->pops[i]->size;
    return n;
}

/* A network one work-group handles well: up to 20,000 neurons and 4e6 synapses, no
 * procedural projection, one process. Only then (or when asked for with --gpu-mode) does a
 * CUDA program have nc_k_block and nc_k_persistent: every phase of every population and
 * projection inlined into one kernel each, they were half of nvcc's time for the
 * microcircuit (17.5 s -> 8.9 s on the development machine), whose auto schedule is graph.
 * OpenCL programs keep nc_k_block (the driver compiles it at run time): without it PoCL 3.1
 * miscompiles nc_k_synapses of tests/mpi/models/gpu_exact.neuro (a procedural delivery
 * with work-group barriers in its loops), which then crashes on every run with PoCL's
 * kernel cache off. */
static int block_fits(const IrModel *m)
{
    double syn = 0;
    if (m->mpi)
        return 0;
    for (int k = 0; k < m->nprojs; k++) {
        if (m->projs[k]->procedural)
            return 0;
        syn += est_synapses(m->projs[k]);
    }
    return n_neurons(m) <= 20000 && syn <= 4e6;
}

/* The schedule for `requested` ("auto", "block", "launch", "graph", "persistent", "free"):
 * auto takes free for up to 30,000 neurons without projections (simt_free.c: each work-item
 * runs its neuron through a chunk; an HH batch of 10^4 neurons on an H200: 39 ms against
 * 68 ms in graph; from about 10^5 neurons, where the device is busy either way, graph is
 * faster: 0.12 s against 0.17 s), block for networks one work-group handles well, else graph
 * (CUDA) / launch. Not block with a procedural projection (there every work-item
 * regenerates every row), nor for neurons without projections: independent neurons fill
 * the whole GPU, where one work-group would step 10,000 of them ten at a time. */
const char *simt_schedule(const IrModel *m, const char *arch, const char *requested)
{
    const int graphs = arch != NULL;
    if (requested && strcmp(requested, "auto") != 0)
        return requested;
    if (m->mpi)   /* distributed: the schedules that can exchange spikes between steps */
        return graphs ? "graph" : "launch";
    if (simt_free_ok(m) && n_neurons(m) <= 30000)
        return "free";
    if (m->nprojs && block_fits(m))
        return graphs && !simt_cluster_why(m, arch) ? "cluster" : "block";
    return graphs ? "graph" : "launch";
}

/* ===== schedule =====} */

/* {===== host program ===== */

static void h_var(const CgDialect *d, const IrVar *v, StrBuf *out)
{
    const Simt *S = d->user;
    if (v->per_neuron)
        sb_printf(out, "h_%s[%s]", v->cname, d->index);
    else
        sb_printf(out, "h_scal[%d]", simt_scal_var(S, v));
}

static int prop_uses(const IrProp *pr, const IrVar *v)
{
    for (int k = 0; k < pr->n * pr->n; k++)
        if (ir_uses_var(pr->A[k], (IrVar *)v) || (pr->A_refr && ir_uses_var(pr->A_refr[k], (IrVar *)v)))
            return 1;
    return 0;
}


/* Host code after a projection's synapse kernel: the longest delay in steps (`maxd`, read
 * back with the kernel's error flag; 1 without per-synapse delays). */
void simt_host_maxd(Out *o, const Simt *S, const IrProj *j)
{
    out_line(o, "int32_t maxd = 1;");
    if (j->delay) {
        out_line(o, "int32_t flags[2];");
        out_line(o, "if (nrt_gpu_read(gpu, nc_cnt, %d * sizeof(int32_t), &flags[0], sizeof(int32_t)) != NRT_OK) return -1;",
                 S->cnt_maxd + j->id);
        out_line(o, "if (nrt_gpu_read(gpu, nc_cnt, %d * sizeof(int32_t), &flags[1], sizeof(int32_t)) != NRT_OK) return -1;",
                 S->cnt_err);
        out_open(o, "if (flags[1])");
        out_line(o, "snprintf(ctx.errmsg, sizeof ctx.errmsg, \"projection %s: a synapse's delay is not a usable time (not finite, or over 1e9 steps)\");",
                 j->name);
        out_line(o, "return -1;");
        out_close(o);
        out_line(o, "if (flags[0] > maxd) maxd = flags[0];");
    }
}

/* Per-neuron variables that per-neuron propagators read: mirrored on the host. */
static int mirrored(const IrVar *v)
{
    if (!v->per_neuron)
        return 0;
    for (int i = 0; i < v->pop->nprops; i++)
        if (v->pop->props[i]->per_neuron && prop_uses(v->pop->props[i], v))
            return 1;
    return 0;
}

/* `static int bind(nrt_kernel *k)`: set every argument of a model kernel (nrt_gpu_arg_*). */
static void emit_host_bind(Out *o, const Simt *S)
{
    out_open(o, "static int bind(nrt_kernel *k)");
    out_line(o, "if (!k) return 0;");
    out_line(o, "int rc = 0;");
    for (int i = 0; i < S->nargs; i++) {
        const Arg *a = &S->args[i];
        if (a->kind == ARG_MEM)
            out_line(o, "rc |= nrt_gpu_arg_mem(k, %d, %s.h ? %s : nc_dummy);", i, a->name, a->name);
        else if (a->kind == ARG_I64)
            out_line(o, "rc |= nrt_gpu_arg_i64(k, %d, %s);", i, a->name);
        else
            out_line(o, "rc |= nrt_gpu_arg_i32(k, %d, (int32_t)%s);", i, a->name);
    }
    out_line(o, "return rc ? -1 : 0;");
    out_close(o);
}


static void emit_host_prelude(Out *o, const Simt *S, const char *program_header)
{
    const IrModel *m = S->m;
    out_line(o, "/* %s.c -- generated by neuroc %s from %s.neuro (%s back end): the host program.", m->name,
             NEUROC_VERSION, m->name, S->t->name);
    out_line(o, " * It drives the device program (%s) through nrt_gpu.h. Do not edit. */",
             program_header ? program_header : "nc_program[], embedded by the build");
    out_line(o, "#include <math.h>");
    out_line(o, "#include <stdint.h>");
    out_line(o, "#include <stdio.h>");
    out_line(o, "#include <stdlib.h>");
    out_line(o, "#include <string.h>");
    if (m->mpi)
        out_line(o, "#include <signal.h>");
    out_blank(o);
    out_line(o, "#include \"neurort.h\"");
    out_line(o, "#include \"nrt_gpu.h\"");
    out_line(o, "#include \"nrt_math.h\"");
    if (m->mpi)
        out_line(o, "#include \"nrt_mpi.h\"");
    out_line(o, "#include \"nrt_philox.h\"");
    out_line(o, "#include \"nrt_space.h\"");
    if (program_header)
        out_line(o, "#include \"%s\"", program_header);
    else
        out_line(o, "extern const unsigned char nc_program[]; /* <model>_program.c */\nextern const size_t nc_program_len;");
    out_blank(o);
    const char *f = m->dbl ? "" : "f";
    out_line(o, "typedef %s real;", m->dbl ? "double" : "float");
    out_line(o, "static const double dt = %.17g; /* ms */", m->dt);
    if (S->table) {
        out_line(o, "/* table mode (simt_table.c): the kernels take NC_NARGS arguments, the table of NC_NTAB */");
        out_line(o, "enum { NC_CH = %d, NC_NPOPS = %d, NC_NSCAL = %d, NC_NCNT = %d, NC_NARGS = %d, NC_NTAB = %d, NC_BLOCK = %d };",
                 S->ch, m->npops, S->nscal, S->ncnt, simt_table_kargs(S), S->nargs, S->block);
    } else {
        out_line(o, "enum { NC_CH = %d, NC_NPOPS = %d, NC_NSCAL = %d, NC_NCNT = %d, NC_NARGS = %d, NC_BLOCK = %d };",
                 S->ch, m->npops, S->nscal, S->ncnt, S->nargs, S->block);
    }
    out_line(o, "#define NC_BLOCK_SHMEM ((size_t)%lld) /* the block schedule's resident buffers (bytes) */",
             (long long)S->res_bytes);
    if (S->has_cluster)
        out_line(o, "#define NC_CLUSTER_SHMEM ((size_t)%lld) /* the cluster schedule's: all a group may opt in to */",
                 (long long)cluster_shmem(S));
    out_line(o, "static nrt_gpu *gpu;");
    out_open(o, "static inline real nc_exprel(real x)");
    out_line(o, "return fabs%s(x) < (real)1e-6 ? (real)1 + x / 2 + x * x / 6 : nrt_expm1%s(x) / x;", f, f);
    out_close(o);
    out_open(o, "static inline real nc_clip(real x, real lo, real hi)");
    out_line(o, "return x < lo ? lo : (x > hi ? hi : x);");
    out_close(o);
    out_open(o, "static inline int64_t nc_iabs(int64_t x)");
    out_line(o, "return x < 0 ? -x : x;");
    out_close(o);
    cg_sf_helper(o, m, "static inline", "");
    out_blank(o);
    /* Every per-run name is a member of the run's nc_inst, reached through a macro: the
     * code below reads as for one run, and a batch (--instances side by side) points nc_I
     * at the instance it builds, drains or finishes. */
    out_line(o, "/* The state of one run: its context, device buffers and scalar arguments (in the order of");
    out_line(o, " * NC_ARGS), host mirrors and recordings. Each name is a member of the run nc_I points at:");
    out_line(o, " * the one run, or (--instances side by side) the instance being built, drained or finished;");
    out_line(o, " * member i_x is x. */");
    out_open(o, "typedef struct nc_inst");
    StrBuf names = {0};
    out_line(o, "nrt_ctx i_ctx;");
    out_line(o, "uint32_t i_seedkey;");
    out_line(o, "real i_h_scal[NC_NSCAL]; /* scalar variables and propagators, mirrored in nc_scal */");
    sb_printf(&names, "ctx seedkey h_scal");
    for (int i = 0; i < S->nargs; i++) {
        const Arg *a = &S->args[i];
        if (a->kind == ARG_MEM)
            out_line(o, "nrt_dmem i_%s; /* %s */", a->name, a->type);
        else if (a->kind == ARG_I64)
            out_line(o, "int64_t i_%s;", a->name);
        else
            continue;
        sb_printf(&names, " %s", a->name);
    }
    for (int k = 0; k < m->nprojs; k++) {
        out_line(o, "nrt_dcsr i_%s_csr;", m->projs[k]->cname);
        sb_printf(&names, " %s_csr", m->projs[k]->cname);
    }
    for (int i = 0; i < m->npops; i++) {
        const IrPop *p = m->pops[i];
        for (int j = 0; j < p->nvars; j++)
            if (mirrored(p->vars[j])) {
                out_line(o, "%s *i_h_%s; /* host mirror for the propagators */", vtype(p->vars[j]), p->vars[j]->cname);
                sb_printf(&names, " h_%s", p->vars[j]->cname);
            }
        for (int j = 0; j < p->nprops; j++)
            if (p->props[j]->per_neuron) {
                out_line(o, "real *i_h_%s;", p->props[j]->cname);
                sb_printf(&names, " h_%s", p->props[j]->cname);
            }
    }
    for (int r = 0; r < m->nrecs; r++) {
        const IrRecord *rec = &m->recs[r];
        StrBuf name = {0};
        cg_cstring(rec->file, &name);
        out_line(o, "nrt_rec *i_rec%d; /* \"%s\" */", r, name.s);
        sb_free(&name);
        if (rec->spikes) {
            out_line(o, "int32_t *i_h_rec%d_ends, *i_h_rec%d_ids;", r, r);
            sb_printf(&names, " rec%d h_rec%d_ends h_rec%d_ids", r, r, r);
        } else {
            out_line(o, "double *i_h_rec%d_rows;", r);
            sb_printf(&names, " rec%d h_rec%d_rows", r, r);
        }
    }
    out_line(o, "int32_t *i_h_pcnt;");
    sb_printf(&names, " h_pcnt");
    out_close_with(o, " nc_inst;");
    out_line(o, "static nc_inst nc_one; /* the one run, or a batch's parent */");
    out_line(o, "static _Thread_local nc_inst *nc_I = &nc_one; /* the current run (of this thread: drain_all) */");
    out_line(o, "static nc_inst *nc_insts = &nc_one; /* the runs side by side: nc_nb of them */");
    out_line(o, "static nrt_ctx **nc_kids; /* their contexts, in a batch */");
    out_line(o, "static int64_t nc_nb = 1;");
    for (const char *q = names.s; *q;) {
        const char *e = strchr(q, ' ');
        int len = e ? (int)(e - q) : (int)strlen(q);
        out_line(o, "#define %.*s (nc_I->i_%.*s)", len, q, len, q);
        q += len + (e ? 1 : 0);
    }
    sb_free(&names);
    out_line(o, "static nrt_dmem nc_dummy; /* bound where a buffer does not exist yet */");
    out_line(o, "static nrt_dmem nc_tab; /* a batch's arguments: row b is instance b's (nc_tab_row) */");
    out_line(o, "static nrt_kernel *k_init, *k_chunk, *k_neurons, *k_synapses, *k_block, *k_persistent, *k_cluster;");
    if (S->free || S->push)
        out_line(o, "static nrt_kernel *k_free, *k_fcount, *k_fscan, *k_fwrite; /* the free schedule and the push step (simt_free.c) */");
    if (S->push)
        out_line(o, "static nrt_kernel *k_push, *k_push_tables; static int use_push; /* the cluster schedule's push step (simt_push.c) */");
    if (simt_topk_any(m))
        out_line(o, "static nrt_kernel *k_tk[%d], *k_after; /* top-k passes, the rest of the step */",
                 simt_topk_passes(m) + 1);
    for (int k = 0; k < m->nprojs; k++) {
        out_line(o, "static nrt_kernel *k_syn_%s;", m->projs[k]->cname);
        if (m->projs[k]->procedural && m->projs[k]->delay)
            out_line(o, "static nrt_kernel *k_pscan_%s;", m->projs[k]->cname);
        if (m->projs[k]->plast)
            out_line(o, "static nrt_kernel *k_scope_%s;", m->projs[k]->cname);
        if (m->projs[k]->plast && m->projs[k]->plast->event)
            out_line(o, "static nrt_kernel *k_catchup_%s;", m->projs[k]->cname);
    }
    out_line(o, "static nrt_kernel *k_plast[%d]; /* phases of plastic projections (launch, graph) */", PL__COUNT);
    out_blank(o);
    if (S->table) {
        simt_table_host(o, S);
    } else {
        emit_host_bind(o, S);
    }
    out_blank(o);
    out_open(o, "static int dalloc(nrt_dmem *m, size_t bytes, const char *what)");
    out_line(o, "return nrt_gpu_alloc(gpu, m, bytes ? bytes : 4, what) == NRT_OK ? 0 : -1;");
    out_close(o);
    out_blank(o);
    if (batched(S)) {
        out_line(o, "/* the current instance's arguments as bind sets them, for row b of nc_tab (CUDA: a");
        out_line(o, " * buffer's handle is its device address) */");
        out_open(o, "static void nc_tab_row(int64_t *w)");
        for (int i = 0; i < S->nargs; i++) {
            const Arg *a = &S->args[i];
            if (a->kind == ARG_MEM)
                out_line(o, "w[%d] = (int64_t)(%s.h ? %s : nc_dummy).h;", i, a->name, a->name);
            else
                out_line(o, "w[%d] = (int64_t)%s;", i, a->name);
        }
        out_close(o);
        out_blank(o);
    }
    out_line(o, "/* the batch arguments of nc_k_chunk and nc_k_block: with --instances side by side, the");
    out_line(o, " * table of every instance's arguments (nc_tab_row), else none */");
    out_open(o, "static int bind_batch(nrt_kernel *k, int first)");
    out_line(o, "if (!k) return 0;");
    out_line(o, "return nrt_gpu_arg_mem(k, first, nc_nb > 1 ? nc_tab : nc_dummy) != NRT_OK || nrt_gpu_arg_i32(k, first + 1, nc_nb > 1) != NRT_OK ? -1 : 0;");
    out_close(o);
    out_blank(o);
    if (m->mpi)
        simt_mpi_host_decls(o, S);
}

static void emit_host_one_prop(Out *o, const CgDialect *dd, const Simt *S, const IrProp *pr, IrExpr **A,
                               int which)
{
    int nn = pr->n * pr->n;
    StrBuf b = {0};
    out_begin(o);
    out_line(o, "double A[%d], Phi[%d], Psi[%d];", nn, nn, nn);
    for (int k = 0; k < nn; k++) {
        b.len = 0;
        if (b.s)
            b.s[0] = 0;
        cg_expr(dd, A[k], &b);
        out_line(o, "A[%d] = %s;", k, b.s);
    }
    out_line(o, "if (nrt_propagator(%d, A, dt, Phi, Psi) != NRT_OK) return -1;", pr->n);
    out_open(o, "for (int k = 0; k < %d; k++)", nn);
    if (pr->per_neuron) {
        out_line(o, "h_%s[((size_t)n * 4 + %d) * %d + k] = (real)Phi[k];", pr->cname, which, nn);
        out_line(o, "h_%s[((size_t)n * 4 + %d) * %d + k] = (real)Psi[k];", pr->cname, which + 1, nn);
    } else {
        int at = scal_prop(S, pr);
        out_line(o, "h_scal[%d + k] = (real)Phi[k];", at + which * nn);
        out_line(o, "h_scal[%d + k] = (real)Psi[k];", at + (which + 1) * nn);
    }
    out_close(o);
    out_close(o);
    sb_free(&b);
}

static void emit_host_props(Out *o, const Simt *S, const IrPop *p)
{
    CgDialect dd = cg_dialect(1, p);
    dd.real = "double";
    dd.var = h_var;
    dd.user = S;
    out_line(o, "/* exact propagators of %s from the current parameters, uploaded (load time, after 'set') */",
             p->name);
    out_open(o, "static int props_%s(void)", p->cname);
    for (int i = 0; i < p->nprops; i++) {
        const IrProp *pr = p->props[i];
        if (pr->per_neuron) {
            out_open(o, "if (!h_%s)", pr->cname);
            out_line(o, "h_%s = nrt_alloc(&ctx, (size_t)%lld * 4 * %d * sizeof(real), \"%s: propagators\");",
                     pr->cname, (long long)p->size, pr->n * pr->n, p->name);
            out_line(o, "if (!h_%s) return -1;", pr->cname);
            out_close(o);
            out_open(o, "for (int64_t n = 0; n < %lld; n++)", (long long)p->size);
        }
        emit_host_one_prop(o, &dd, S, pr, pr->A, 0);
        if (pr->A_refr)
            emit_host_one_prop(o, &dd, S, pr, pr->A_refr, 2);
        if (pr->per_neuron) {
            out_close(o);
            out_line(o, "if (nrt_gpu_write(gpu, %s, 0, h_%s, (size_t)%lld * 4 * %d * sizeof(real)) != NRT_OK) return -1;",
                     pr->cname, pr->cname, (long long)p->size, pr->n * pr->n);
        }
    }
    out_line(o, "return nrt_gpu_write(gpu, nc_scal, 0, h_scal, sizeof h_scal) == NRT_OK ? 0 : -1;");
    out_close(o);
    out_blank(o);
}

static void emit_host_build(Out *o, const Simt *S, const IrProj *j)
{
    if (j->rule == IR_PAIRS) {
        CgDialect hd = cg_dialect(S->m->dbl, j->pre.pop);
        cg_conn_row(o, &hd, j, "static", "");   /* for the memory plan */
    }
    if (j->rule == IR_FROM_FILE) {
        StrBuf f = {0};
        cg_cstring(j->file, &f);
        out_line(o, "static const char *const %s_file = \"%s\";", j->cname, f.s);
        sb_free(&f);
    }
    out_line(o, "/* projection %s: synapses and their values built on the device */", j->name);
    out_open(o, "static int build_%s(void)", j->cname);
    if (j->rule == IR_FROM_FILE) {
        out_line(o, "/* edges read on the host, uploaded */");
        out_line(o, "nrt_csr c;");
        out_line(o, "double *fw = NULL, *fd = NULL;");
        out_line(o, "if (nrt_conn_file(&ctx, %s_file, %lld, %lld, %d, &c, &fw, &fd) != NRT_OK) return -1;",
                 j->cname, (long long)j->pre.size, (long long)j->post.size, cg_uses_edge(j->w, 0));
        out_line(o, "const size_t n = (size_t)(c.nnz ? c.nnz : 1);");
        out_line(o, "%s_csr.n_pre = c.n_pre; %s_csr.n_post = c.n_post; %s_csr.nnz = c.nnz;", j->cname, j->cname, j->cname);
        out_line(o, "int bad = dalloc(&%s_csr.row_ptr, (size_t)(c.n_pre + 1) * sizeof(int64_t), \"connectivity row pointers\")", j->cname);
        out_line(o, "    || dalloc(&%s_csr.col, n * sizeof(int32_t), \"connectivity columns\")", j->cname);
        out_line(o, "    || dalloc(&%s_fw, n * sizeof(double), \"%s: edge weights\")", j->cname, j->name);
        out_line(o, "    || dalloc(&%s_fd, n * sizeof(double), \"%s: edge delays\")", j->cname, j->name);
        out_line(o, "    || nrt_gpu_write(gpu, %s_csr.row_ptr, 0, c.row_ptr, (size_t)(c.n_pre + 1) * sizeof(int64_t)) != NRT_OK", j->cname);
        out_line(o, "    || (c.nnz && nrt_gpu_write(gpu, %s_csr.col, 0, c.col, (size_t)c.nnz * sizeof(int32_t)) != NRT_OK)", j->cname);
        out_line(o, "    || (c.nnz && fw && nrt_gpu_write(gpu, %s_fw, 0, fw, (size_t)c.nnz * sizeof(double)) != NRT_OK)", j->cname);
        out_line(o, "    || (c.nnz && fd && nrt_gpu_write(gpu, %s_fd, 0, fd, (size_t)c.nnz * sizeof(double)) != NRT_OK);", j->cname);
        out_line(o, "nrt_csr_free(&c);");
        out_line(o, "nrt_free(fw);");
        out_line(o, "nrt_free(fd);");
        out_line(o, "if (bad) return -1;");
    } else {
        if (j->procedural) {
            /* no synapse arrays; --save-connectivity builds the stored form to write it */
            out_open(o, "if (!ctx.save_conn)");
            if (j->delay) {
                out_line(o, "if (bind(k_pscan_%s)) return -1;", j->cname);
                out_line(o, "if (nrt_gpu_launch(k_pscan_%s, %lld, 128, 0) != NRT_OK) return -1;", j->cname,
                         (long long)((j->pre.size + 127) / 128));
            }
            out_close(o);
            out_open(o, "else");
        }
        cg_conn_spec(o, j);
        out_line(o, "if (nrt_gpu_conn_build(&ctx, gpu, &spec, &%s_csr) != NRT_OK) return -1;", j->cname);
    }
    out_line(o, "%s_rp = %s_csr.row_ptr;", j->cname, j->cname);
    out_line(o, "%s_col = %s_csr.col;", j->cname, j->cname);
    out_line(o, "const size_t nnz = (size_t)%s_csr.nnz;", j->cname);
    if (j->plast) {
        simt_plast_host_build(o, S, j);
        out_close(o);
        out_blank(o);
        return;
    }
    out_line(o, "if (dalloc(&%s_w, nnz * sizeof(real), \"%s: weights\")) return -1;", j->cname, j->name);
    if (j->delay)
        out_line(o, "if (dalloc(&%s_d, nnz * sizeof(int32_t), \"%s: delays\")) return -1;", j->cname, j->name);
    out_line(o, "if (bind(k_syn_%s)) return -1;", j->cname);
    out_line(o, "if (nrt_gpu_launch(k_syn_%s, %lld, 128, 0) != NRT_OK) return -1;", j->cname,
             (long long)((j->pre.size + 127) / 128));
    if (j->procedural)
        out_close(o);
    simt_host_maxd(o, S, j);
    const char *r = j->ring->cname;
    if (j->ring->ring_n == 1)
        out_line(o, "%s_D = (int64_t)maxd + 1;", r);
    else   /* a ring merged receptors share (IrProj.ring): the most its projections need */
        out_line(o, "if ((int64_t)maxd + 1 > %s_D) %s_D = (int64_t)maxd + 1;", r, r);
    if (S->m->mpi && !j->procedural)
        simt_mpi_host_restrict(o, j);
    if (simt_gathers(j))
        simt_gather_host(o, j);
    if (j->ring_last)
        out_line(o, "return dalloc(&%s_ring, (size_t)%s_D * %lld * sizeof(real), \"%s: delay ring\");", r, r,
                 (long long)j->post.size, j->ring->name);
    else
        out_line(o, "return 0; /* the last projection into the ring of %s allocates it */", j->ring->name);
    out_close(o);
    out_blank(o);
}

/* --save-connectivity: the synapses and their values read back and written as .npy. */
static void emit_host_save(Out *o, const IrProj *j)
{
    const char *c = j->cname;
    out_open(o, "static int save_%s(void)", c);
    out_line(o, "nrt_csr c = {0};");
    out_line(o, "c.n_pre = %s_csr.n_pre;", c);
    out_line(o, "c.n_post = %s_csr.n_post;", c);
    out_line(o, "c.nnz = %s_csr.nnz;", c);
    out_line(o, "const size_t n = (size_t)(c.nnz ? c.nnz : 1);");
    out_line(o, "c.row_ptr = nrt_alloc(&ctx, (size_t)(c.n_pre + 1) * sizeof(int64_t), \"connectivity row pointers\");");
    out_line(o, "c.col = nrt_alloc(&ctx, n * sizeof(int32_t), \"connectivity columns\");");
    out_line(o, "real *w = nrt_alloc(&ctx, n * sizeof(real), \"weights\");");
    out_line(o, "int32_t *d = %s;", j->delay ? "nrt_alloc(&ctx, n * sizeof(int32_t), \"delays\")" : "NULL");
    out_line(o, "int bad = !c.row_ptr || !c.col || !w || %s", j->delay ? "!d" : "0");
    out_line(o, "    || nrt_gpu_read(gpu, %s_csr.row_ptr, 0, c.row_ptr, (size_t)(c.n_pre + 1) * sizeof(int64_t)) != NRT_OK", c);
    out_line(o, "    || (c.nnz && nrt_gpu_read(gpu, %s_csr.col, 0, c.col, (size_t)c.nnz * sizeof(int32_t)) != NRT_OK)", c);
    out_line(o, "    || (c.nnz && nrt_gpu_read(gpu, %s_w, 0, w, (size_t)c.nnz * sizeof(real)) != NRT_OK)", c);
    if (j->delay)
        out_line(o, "    || (c.nnz && nrt_gpu_read(gpu, %s_d, 0, d, (size_t)c.nnz * sizeof(int32_t)) != NRT_OK)", c);
    out_line(o, "    || nrt_conn_save(&ctx, \"%s\", &c, w, (int)sizeof(real), d) != NRT_OK;", j->name);
    out_line(o, "nrt_csr_free(&c);");
    out_line(o, "nrt_free(w);");
    out_line(o, "nrt_free(d);");
    out_line(o, "return bad ? -1 : 0;");
    out_close(o);
    out_blank(o);
}

static void emit_host_records(Out *o, const Simt *S)
{
    const IrModel *m = S->m;
    for (int r = 0; r < m->nrecs; r++) {   /* the handles and buffers: members of nc_inst */
        const IrRecord *rec = &m->recs[r];
        if (!rec->spikes && !rec->proj) {
            StrBuf b = {0};
            for (int k = 0; k < rec->nidx; k++)
                sb_printf(&b, "%s%lld", k ? ", " : "", (long long)(rec->idx[k] - rec->view.offset));
            out_line(o, "static const int64_t rec%d_local[%d] = {%s};", r, rec->nidx, b.s);
            sb_free(&b);
        }
    }
    out_blank(o);
    out_open(o, "static int open_records(void)");
    out_line(o, "if (dalloc(&nc_pcnt, (size_t)2 * NC_CH * NC_NPOPS * sizeof(int32_t), \"spike counts\")) return -1;");
    out_line(o, "h_pcnt = nrt_gpu_host_alloc(gpu, (size_t)NC_CH * NC_NPOPS * sizeof(int32_t), \"spike counts\");");
    out_line(o, "if (!h_pcnt) return -1;");
    for (int r = 0; r < m->nrecs; r++) {
        const IrRecord *rec = &m->recs[r];
        StrBuf f = {0};
        cg_cstring(rec->file, &f);
        if (rec->spikes) {
            int64_t cap = simt_spike_rec_cap(S, rec);
            /* distributed: rank 0 writes every file; every rank records on the device */
            out_line(o, "rec%d = %s%s(&ctx, \"%s\", \"%s\", %lld);", r, m->mpi ? "nrt_mpi_rank(mpi) != 0 ? NULL : " : "",
                     cg_spikes_open(rec), f.s, rec->view.pop->name, (long long)rec->view.size);
            out_line(o, "if (!rec%d%s) return -1;", r, m->mpi ? " && nrt_mpi_rank(mpi) == 0" : "");
            out_line(o, "if (dalloc(&rec%d_ids, (size_t)2 * %lld * sizeof(int32_t), \"recording %s\")) return -1;", r,
                     (long long)cap, f.s);
            out_line(o, "if (dalloc(&rec%d_ends, (size_t)2 * NC_CH * sizeof(int32_t), \"recording %s\")) return -1;",
                     r, f.s);
            out_line(o, "h_rec%d_ids = nrt_gpu_host_alloc(gpu, (size_t)%lld * sizeof(int32_t), \"recording %s\");", r,
                     (long long)cap, f.s);
            out_line(o, "h_rec%d_ends = nrt_gpu_host_alloc(gpu, (size_t)NC_CH * sizeof(int32_t), \"recording %s\");",
                     r, f.s);
            out_line(o, "if (!h_rec%d_ids || !h_rec%d_ends) return -1;", r, r);
        } else if (rec->proj) {
            const char *jc = rec->proj->cname;
            StrBuf vars = {0}, units = {0}, pn = {0};
            cg_cstring(rec->proj->name, &pn);
            for (int k = 0; k < rec->nvars; k++) {
                sb_printf(&vars, "%s\"%s\"", k ? ", " : "", rec->vars[k]->label);
                sb_printf(&units, "%s\"%s\"", k ? ", " : "", rec->vars[k]->unit ? rec->vars[k]->unit : "1");
            }
            out_begin(o);
            out_line(o, "const int64_t nnz = %s_csr.nnz;", jc);
            out_open(o, "if (nnz > INT32_MAX)");
            out_line(o, "snprintf(ctx.errmsg, sizeof ctx.errmsg, \"%s: too many synapses to record\");", f.s);
            out_line(o, "return -1;");
            out_close(o);
            /* the synapses' indices, copied by nrt_rec_state */
            out_line(o, "int64_t *local = nrt_alloc(&ctx, (size_t)(nnz ? nnz : 1) * sizeof *local, \"recording\");");
            out_line(o, "if (!local) return -1;");
            out_line(o, "for (int64_t s = 0; s < nnz; s++) local[s] = s;");
            out_line(o, "static const char *const vars[] = {%s};", vars.s);
            out_line(o, "static const char *const units[] = {%s};", units.s);
            out_line(o, "rec%d = nrt_rec_state(&ctx, \"%s\", \"%s\", %d, vars, units, (int)nnz, local, %lld);", r,
                     f.s, pn.s, rec->nvars, (long long)rec->every);
            out_line(o, "nrt_free(local);");
            out_line(o, "if (!rec%d) return -1;", r);
            out_line(o, "const size_t bytes = (size_t)%lld * %d * (size_t)nnz * sizeof(double);",
                     (long long)simt_state_rec_rows(S, rec), rec->nvars);
            out_line(o, "if (dalloc(&rec%d_rows, 2 * bytes, \"recording %s\")) return -1;", r, f.s);
            out_line(o, "h_rec%d_rows = nrt_gpu_host_alloc(gpu, bytes ? bytes : 8, \"recording %s\");", r, f.s);
            out_line(o, "if (!h_rec%d_rows) return -1;", r);
            out_close(o);
            sb_free(&vars);
            sb_free(&units);
            sb_free(&pn);
        } else {
            StrBuf vars = {0}, units = {0};
            for (int k = 0; k < rec->nvars; k++) {
                sb_printf(&vars, "%s\"%s\"", k ? ", " : "", rec->vars[k]->label);
                sb_printf(&units, "%s\"%s\"", k ? ", " : "", rec->vars[k]->unit ? rec->vars[k]->unit : "1");
            }
            int64_t bytes = simt_state_rec_rows(S, rec) * rec->nvars * rec->nidx * 8;
            out_begin(o);
            out_line(o, "static const char *const vars[] = {%s};", vars.s);
            out_line(o, "static const char *const units[] = {%s};", units.s);
            out_line(o, "rec%d = %snrt_rec_state(&ctx, \"%s\", \"%s\", %d, vars, units, %d, rec%d_local, %lld);", r,
                     m->mpi ? "nrt_mpi_rank(mpi) != 0 ? NULL : " : "", f.s, rec->view.pop->name, rec->nvars, rec->nidx,
                     r, (long long)rec->every);
            out_close(o);
            out_line(o, "if (!rec%d%s) return -1;", r, m->mpi ? " && nrt_mpi_rank(mpi) == 0" : "");
            out_line(o, "if (dalloc(&rec%d_rows, (size_t)2 * %lld, \"recording %s\")) return -1;", r,
                     (long long)bytes, f.s);
            out_line(o, "h_rec%d_rows = nrt_gpu_host_alloc(gpu, %lld, \"recording %s\");", r, (long long)bytes, f.s);
            out_line(o, "if (!h_rec%d_rows) return -1;", r);
            sb_free(&vars);
            sb_free(&units);
        }
        sb_free(&f);
    }
    out_line(o, "return 0;");
    out_close(o);
    out_blank(o);

    out_open(o, "static int cmp_i32(const void *a, const void *b)");
    out_line(o, "int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;");
    out_line(o, "return (x > y) - (x < y);");
    out_close(o);
    out_blank(o);
    simt_finite_host(o, S);
    out_line(o, "/* Write a finished chunk: copy its hf while the device computes the next chunk (only");
    out_line(o, " * its steps up to a non-finite value that --check-finite found, then stop). */");
    out_open(o, "static int drain(int hf, int64_t step0, int64_t len)");
    out_line(o, "if ((len = finite_scan(hf, step0, len)) < 0) return -1;");
    out_line(o, "if (nrt_gpu_read_after(gpu, hf, nc_pcnt, (size_t)hf * NC_CH * NC_NPOPS * sizeof(int32_t), h_pcnt, (size_t)len * NC_NPOPS * sizeof(int32_t)) != NRT_OK) return -1;");
    for (int r = 0; r < m->nrecs; r++) {
        const IrRecord *rec = &m->recs[r];
        if (rec->spikes) {
            int64_t cap = simt_spike_rec_cap(S, rec);
            if (m->mpi)
                out_open(o, "if (rec%d) /* rank 0 */", r);
            else
                out_begin(o);
            out_line(o, "if (nrt_gpu_read_after(gpu, hf, rec%d_ends, (size_t)hf * NC_CH * sizeof(int32_t), h_rec%d_ends, (size_t)len * sizeof(int32_t)) != NRT_OK) return -1;",
                     r, r);
            out_line(o, "const int32_t total = h_rec%d_ends[len - 1];", r);
            out_line(o, "if (total > 0 && nrt_gpu_read_after(gpu, hf, rec%d_ids, (size_t)hf * %lld * sizeof(int32_t), h_rec%d_ids, (size_t)total * sizeof(int32_t)) != NRT_OK) return -1;",
                     r, (long long)cap, r);
            out_line(o, "int32_t from = 0;");
            out_open(o, "for (int64_t k = 0; k < len; k++)");
            out_line(o, "const int32_t to = h_rec%d_ends[k];", r);
            out_line(o, "qsort(h_rec%d_ids + from, (size_t)(to - from), sizeof(int32_t), cmp_i32);", r);
            out_line(o, "for (int32_t q = from; q < to; q++)");
            out_line(o, "    if (nrt_rec_spike(rec%d, step0 + k, h_rec%d_ids[q]) != NRT_OK) return -1;", r, r);
            out_line(o, "from = to;");
            out_close(o);
            out_close(o);
        } else {
            long long ev = (long long)rec->every;
            out_begin(o);
            const char *w = rec->proj ? arena_printf(&S->cc->arena, "(%d * %s_csr.nnz)", rec->nvars, rec->proj->cname)
                                      : arena_printf(&S->cc->arena, "%d", rec->nvars * rec->nidx);
            out_line(o, "const int64_t first = step0 / %lld, rows = (step0 + len) / %lld - first;", ev, ev);
            out_line(o, "if (rows > 0 && nrt_gpu_read_after(gpu, hf, rec%d_rows, (size_t)hf * %lld * %s * sizeof(double), h_rec%d_rows, (size_t)rows * %s * sizeof(double)) != NRT_OK) return -1;",
                     r, (long long)simt_state_rec_rows(S, rec), w, r, w);
            if (m->mpi)   /* every rank's neurons into rank 0's rows */
                out_line(o, "if (rows > 0 && nrt_mpi_row(&ctx, mpi, h_rec%d_rows, (int)(rows * %s)) != NRT_OK) return -1;", r, w);
            out_line(o, "for (int64_t q = 0; q < rows%s; q++)", m->mpi ? arena_printf(&S->cc->arena, " && rec%d", r) : "");
            out_line(o, "    if (nrt_rec_state_row(rec%d, (first + q + 1) * %lld - 1, h_rec%d_rows + q * %s) != NRT_OK) return -1;",
                     r, ev, r, w);
            out_close(o);
        }
    }
    out_line(o, "/* counted once the chunk's recordings are written: a chunk whose recording failed is not");
    out_line(o, " * completed (ctx.step stays at step0) and adds nothing to the counts */");
    out_line(o, "for (int64_t k = 0; k < len; k++)");
    out_line(o, "    for (int p = 0; p < NC_NPOPS; p++) ctx.pops[p].spikes += h_pcnt[k * NC_NPOPS + p];");
    out_line(o, "ctx.step = step0 + len;");
    out_line(o, "return finite_failed ? -1 : 0;");
    out_close(o);
    out_blank(o);
}

/* Work-items per work-group of nc_k_synapses. A group walks one (spike, projection) row of
 * the fused deliveries (emit_prop_fused) at a time, so the group is about a row: the largest
 * power of two at most their mean row length (synapses over presynaptic neurons), from 128
 * to 512 (256 where cooperative procedural rows share nc_t64). The microcircuit's rows (545
 * synapses on average) took 29.3 us per step with groups of 128 and 20.4 with 512 (H200,
 * graph); CUBA's (80) keep 128. */
static int synapse_group(const IrModel *m)
{
    double syn = 0, pre = 0;
    for (int k = 0; k < m->nprojs; k++)
        if (fused(m->projs[k])) {
            syn += est_synapses(m->projs[k]);
            pre += (double)m->projs[k]->pre.size;
        }
    const int most = any_coop(m) ? 256 : 512;
    int g = 128;
    while (pre > 0 && 2 * g <= most && 2 * g <= syn / pre)
        g *= 2;
    return g;
}

static void emit_host_schedule(Out *o, const Simt *S, const char *mode)
{
    const IrModel *m = S->m;
    int64_t maxpre = 1;
    for (int k = 0; k < m->nprojs; k++)
        if (m->projs[k]->pre.size > maxpre)
            maxpre = m->projs[k]->pre.size;
    /* the same work-items in all as 1,024 groups of 128 */
    const int sg = synapse_group(m);
    const int64_t sgroups = 1024 * 128 / sg;
    int64_t gn = (max_pop(m) + 255) / 256, gs = maxpre < sgroups ? maxpre : sgroups;
    out_line(o, "enum { M_BLOCK, M_LAUNCH, M_GRAPH, M_PERSISTENT, M_FREE, M_CLUSTER };");
    out_line(o, "static const char *const mode_names[] = {\"block\", \"launch\", \"graph\", \"persistent\", \"free\", \"cluster\"};");
    out_line(o, "static int mode = M_%s;", strcmp(mode, "block") == 0 ? "BLOCK" : strcmp(mode, "graph") == 0 ? "GRAPH"
                                          : strcmp(mode, "persistent") == 0 ? "PERSISTENT"
                                          : strcmp(mode, "free") == 0 ? "FREE"
                                          : strcmp(mode, "cluster") == 0 ? "CLUSTER" : "LAUNCH");
    out_line(o, "static int mode_asked = %d; /* the schedule was named (--gpu-mode, $NEUROC_GPU_MODE), not auto */",
             S->mode_asked);
    out_line(o, "static size_t g_persistent, block_size = NC_BLOCK;");
    out_line(o, "static size_t g_cluster, cluster_threads; /* the cluster schedule: groups, and work-items per group */");
    out_line(o, "static nrt_graph *graphs[2];");
    out_line(o, "static int64_t graph_len[2];");
    out_line(o, "static int64_t step_now, pending_step0, pending_len;");
    out_line(o, "static int pending = -1, half_next;");
    out_blank(o);
    out_open(o, "static int enqueue_steps(int64_t len)");
    /* plastic phases: a group per arriving row or post spike, a work-item per synapse */
    double work = 1;
    for (int k = 0; k < m->nprojs; k++)
        if (m->projs[k]->plast && est_synapses(m->projs[k]) > work)
            work = est_synapses(m->projs[k]);
    long long gp = work / 128 > 1024 ? 1024 : (long long)(work / 128) + 1;
    out_open(o, "for (int64_t s = 0; s < len; s++)");
    for (int ph = 0; ph < PL_SCOPES; ph++)
        if (simt_plast_has_phase(m, ph))
            out_line(o, "if (nrt_gpu_launch(k_plast[%d], %lld, 128, 0) != NRT_OK) return -1;", ph, gp);
    out_line(o, "if (nrt_gpu_launch(k_neurons, %lld, 256, 0) != NRT_OK) return -1;", (long long)gn);
    if (m->mpi)
        simt_mpi_host_exchange(o, S);
    if (simt_topk_any(m)) {
        out_line(o, "for (int p = 0; p <= %d; p++) if (nrt_gpu_launch(k_tk[p], %lld, 256, 0) != NRT_OK) return -1;",
                 simt_topk_passes(m), (long long)gn);
        out_line(o, "if (nrt_gpu_launch(k_after, %lld, 256, 0) != NRT_OK) return -1;", (long long)gn);
    }
    for (int ph = PL_SCOPES; ph < PL__COUNT; ph++)
        if (simt_plast_has_phase(m, ph))
            out_line(o, "if (nrt_gpu_launch(k_plast[%d], %lld, 128, 0) != NRT_OK) return -1;", ph, gp);
    out_line(o, "if (nrt_gpu_launch(k_synapses, %lld, %d, 0) != NRT_OK) return -1;", (long long)gs, sg);
    out_close(o);
    out_line(o, "return 0;");
    out_close(o);
    out_blank(o);
    out_open(o, "static int enqueue(int64_t len)");
    out_open(o, "switch (mode)");
    out_line(o, "case M_BLOCK:");
    out_line(o, "    if (nrt_gpu_arg_i64(k_block, NC_NARGS, len) != NRT_OK) return -1;");
    out_line(o, "    return nrt_gpu_launch_batch(k_block, (size_t)nc_nb, block_size, NC_BLOCK_SHMEM) == NRT_OK ? 0 : -1;");
    if (S->free) {
        out_open(o, "case M_FREE:");
        simt_free_host_enqueue(o, S);
        out_close(o);
    }
    if (S->has_cluster) {
        out_line(o, "case M_CLUSTER:");
        if (S->push)
            simt_push_host_enqueue(o, S);
        out_line(o, "    if (nrt_gpu_arg_i64(k_cluster, NC_NARGS, len) != NRT_OK) return -1;");
        out_line(o, "    return nrt_gpu_launch_cluster(k_cluster, g_cluster, cluster_threads, NC_CLUSTER_SHMEM) == NRT_OK ? 0 : -1;");
    }
    out_line(o, "case M_PERSISTENT:");
    out_line(o, "    if (nrt_gpu_arg_i64(k_persistent, NC_NARGS, len) != NRT_OK) return -1;");
    out_line(o, "    return nrt_gpu_launch_coop(k_persistent, g_persistent, 256, 0) == NRT_OK ? 0 : -1;");
    out_line(o, "case M_GRAPH: {");
    out_line(o, "    int g = len == NC_CH ? 0 : 1;");
    out_open(o, "    if (!graphs[g] || graph_len[g] != len)");
    out_line(o, "nrt_gpu_graph_free(graphs[g]);");
    out_line(o, "graphs[g] = NULL;");
    out_line(o, "if (nrt_gpu_capture_begin(gpu) != NRT_OK) return -1;");
    out_line(o, "int rc = enqueue_steps(len);");
    out_line(o, "if (nrt_gpu_capture_end(gpu, &graphs[g]) != NRT_OK || rc) return -1;");
    out_line(o, "graph_len[g] = len;");
    out_close(o);
    out_line(o, "    return nrt_gpu_graph_launch(gpu, graphs[g]) == NRT_OK ? 0 : -1;");
    out_line(o, "}");
    out_line(o, "default:");
    out_line(o, "    return enqueue_steps(len);");
    out_close(o);
    out_close(o);
    out_blank(o);
    out_open(o, "static int drain_one(int64_t b, void *arg)");
    out_line(o, "const int64_t *a = arg; /* hf, step0, len */");
    out_line(o, "nc_I = &nc_insts[b];");
    out_line(o, "return drain((int)a[0], a[1], a[2]);");
    out_close(o);
    out_blank(o);
    out_line(o, "/* Drain a finished chunk half of every run side by side, on the CPU's threads (each its");
    out_line(o, " * own files; each even after one fails: nothing recorded is lost); the first failing run");
    out_line(o, " * is left in nc_I for fail(). */");
    out_open(o, "static int drain_all(int hf, int64_t step0, int64_t len)");
    out_line(o, "int64_t a[3] = {hf, step0, len};");
    out_line(o, "const int64_t bad = nc_nb > 1 ? nrt_parallel(nc_nb, 0, drain_one, a) : drain_one(0, a) ? 0 : -1;");
    out_line(o, "nc_I = bad >= 0 ? &nc_insts[bad] : nc_insts;");
    out_line(o, "if (nc_nb > 1) nc_one.i_ctx.step = step0 + len; /* the batch's progress */");
    out_line(o, "return bad >= 0 ? -1 : 0;");
    out_close(o);
    out_blank(o);
    out_line(o, "/* Enqueue the chunk of half hf: steps step0 .. step0 + len - 1. */");
    out_open(o, "static int launch_chunk(int hf, int64_t step0, int64_t len)");
    out_line(o, "if (nrt_gpu_arg_i64(k_chunk, NC_NARGS, step0) != NRT_OK || nrt_gpu_arg_i32(k_chunk, NC_NARGS + 1, hf) != NRT_OK) return -1;");
    out_line(o, "if (nrt_gpu_launch_batch(k_chunk, (size_t)nc_nb, 32, 0) != NRT_OK) return -1;");
    out_line(o, "return enqueue(len) || nrt_gpu_mark(gpu, hf) != NRT_OK ? -1 : 0;");
    out_close(o);
    out_blank(o);
    if (S->has_cluster) {
        out_line(o, "/* Whether the cluster launch of the chunk of half hf stalled (nc_k_cluster: nc_ctl[4]); it");
        out_line(o, " * and any launch after it then left the state as they found it. The run goes on in the");
        out_line(o, " * block schedule, which gives the same bits: 1, or -1 (errmsg). */");
        out_open(o, "static int cluster_stalled(int hf)");
        out_line(o, "int64_t at = 0;");
        out_line(o, "if (mode != M_CLUSTER) return 0;");
        out_line(o, "if (nrt_gpu_read_after(gpu, hf, nc_ctl, 4 * sizeof(int64_t), &at, sizeof at) != NRT_OK) return -1;");
        out_line(o, "if (!at) return 0;");
        if (S->cluster_whole || S->push) {   /* the push step keeps everything in the group too */
            if (!S->cluster_whole)
                out_open(o, "if (use_push)");
            out_line(o, "fprintf(stderr, \"%%s: warning: the cluster schedule stalled at step %%lld: its exchange between the work-groups did not complete within 2 s, which happens when other processes use the GPU at the same time; the run goes on in the block schedule, with the same results\\n\", ctx.model, (long long)(at - 1));");
            out_line(o, "const int64_t zero = 0;");
            out_line(o, "if (nrt_gpu_sync(gpu) != NRT_OK || nrt_gpu_write(gpu, nc_ctl, 4 * sizeof(int64_t), &zero, sizeof zero) != NRT_OK) return -1;");
            out_line(o, "mode = M_BLOCK;");
            out_line(o, "ctx.schedule = mode_names[mode];");
            out_line(o, "return 1;");
            if (!S->cluster_whole)
                out_close(o);
        }
        if (!S->cluster_whole) {   /* a buffer outside shared memory holds some steps already: no retry */
            out_line(o, "snprintf(ctx.errmsg, sizeof ctx.errmsg, \"the cluster schedule stalled at step %%lld: its exchange between the work-groups did not complete within 2 s, which happens when other processes use the GPU at the same time; run it with --gpu-mode block\", (long long)(at - 1));");
            out_line(o, "return -1;");
        }
        out_close(o);
        out_blank(o);
    }
    out_line(o, "/* Run nsteps steps in chunks of at most NC_CH: the device runs chunk c while the host");
    out_line(o, " * writes chunk c - 1 (double-buffered); no host synchronisation per step. A stop (the");
    out_line(o, " * signal handlers flag nc_one, the one run or the batch's parent) reaches every run. */");
    out_open(o, "static int run(int64_t nsteps)");
    out_open(o, "while (nsteps > 0 && !nc_one.i_ctx.stop_requested)");
    if (m->mpi) {   /* a stop on any rank stops every rank at the same chunk */
        out_line(o, "if (nrt_mpi_min(mpi, ctx.stop_requested ? -1 : 0) < 0 && !ctx.stop_requested) ctx.stop_requested = SIGTERM;");
        out_line(o, "if (ctx.stop_requested) break;");
    }
    out_line(o, "const int64_t len = nsteps < NC_CH ? nsteps : NC_CH;");
    out_line(o, "const int hf = half_next;");
    out_line(o, "if (launch_chunk(hf, step_now, len)) return -1;");
    if (S->has_cluster) {   /* a stalled chunk, and this one after it, again in the block schedule */
        out_line(o, "const int stalled = pending >= 0 ? cluster_stalled(pending) : 0;");
        out_line(o, "if (stalled < 0 || (stalled && (launch_chunk(pending, pending_step0, pending_len) || launch_chunk(hf, step_now, len)))) return -1;");
    }
    out_line(o, "if (pending >= 0 && drain_all(pending, pending_step0, pending_len)) return -1;");
    out_line(o, "pending = hf;");
    out_line(o, "pending_step0 = step_now;");
    out_line(o, "pending_len = len;");
    out_line(o, "step_now += len;");
    out_line(o, "half_next ^= 1;");
    out_line(o, "nsteps -= len;");
    out_line(o, "nrt_progress(&nc_one.i_ctx);");
    out_close(o);
    if (S->has_cluster) {
        out_line(o, "const int stalled = pending >= 0 ? cluster_stalled(pending) : 0;");
        out_line(o, "if (stalled < 0 || (stalled && launch_chunk(pending, pending_step0, pending_len))) return -1;");
    }
    out_line(o, "if (pending >= 0 && drain_all(pending, pending_step0, pending_len)) return -1;");
    out_line(o, "pending = -1;");
    out_line(o, "for (int64_t b = 0; b < nc_nb; b++) nc_insts[b].i_ctx.stop_requested = nc_one.i_ctx.stop_requested;");
    out_line(o, "return nrt_gpu_sync(gpu) == NRT_OK ? 0 : -1;");
    out_close(o);
    out_blank(o);
}

/* {===== checkpoints ===== */

/* The host program's ckpt_save(phase) and ckpt_load(): the items of cg_ckpt_list (the
 * scalars from h_scal, the arrays staged through host memory) and the flag histories of
 * gathered projections (GPU only); the load then refreshes the host mirrors, the
 * propagators and the device's step counter nc_ctl[0]. Both return 0, or -1 (errmsg). */
static void emit_host_ckpt(Out *o, const Simt *S)
{
    const IrModel *m = S->m;
    CgCkpt *it;
    int n = cg_ckpt_list(S->cc, m, &it);
    out_line(o, "/* the mutable state a checkpoint holds (cg_ckpt_list), with each array's device buffer */");
    out_open(o, "static int ckpt_items(nrt_ckpt_item *it, nrt_dmem **dm)");
    out_line(o, "int n = 0;");
    for (int k = 0; k < n; k++) {
        const CgCkpt *c = &it[k];
        const char *t = c->what == CK_HIST || c->what == CK_HIST_N ? "int32_t"
                      : c->var && c->var->type != IRT_REAL ? "int32_t" : "real";
        if (c->scalar) {
            out_line(o, "it[n] = (nrt_ckpt_item){\"%s\", &h_scal[%d], sizeof(real), '%c'}; dm[n++] = NULL;", c->name,
                     simt_scal_var(S, c->var), m->dbl ? 'd' : 'f');
            continue;
        }
        /* the GPU history holds the spikes of the whole presynaptic population */
        long long per = c->what == CK_HIST ? (long long)c->proj->pre.pop->size : (long long)c->n;
        if (c->per == 2)
            out_line(o, "it[n] = (nrt_ckpt_item){\"%s\", NULL, (size_t)%s_csr.nnz * sizeof(%s), 0}; dm[n++] = &%s;",
                     c->name, c->proj->cname, t, c->name);
        else if (c->per == 1)
            out_line(o, "it[n] = (nrt_ckpt_item){\"%s\", NULL, (size_t)%s_D * %lld * sizeof(%s), 0}; dm[n++] = &%s;",
                     c->name, c->proj->cname, per, t, c->name);
        else
            out_line(o, "it[n] = (nrt_ckpt_item){\"%s\", NULL, (size_t)%lld * sizeof(%s), 0}; dm[n++] = &%s;", c->name,
                     per, t, c->name);
    }
    for (int k = 0; k < m->nprojs; k++) {
        const IrProj *j = m->projs[k];
        if (simt_gathers(j) && j->delay)
            out_line(o, "it[n] = (nrt_ckpt_item){\"%s_fh\", NULL, (size_t)%s_D * %lld * sizeof(int32_t), 0}; dm[n++] = &%s_fh;",
                     j->cname, j->cname, (long long)j->pre.size, j->cname);
    }
    out_line(o, "return n;");
    out_close(o);
    out_blank(o);
    out_line(o, "/* stage the arrays in host memory (read them from the device when `down`); frees on error */");
    out_open(o, "static int ckpt_stage(nrt_ckpt_item *it, nrt_dmem **dm, int n, int down)");
    out_open(o, "for (int k = 0; k < n; k++)");
    out_line(o, "if (!dm[k]) continue;");
    out_line(o, "it[k].data = nrt_alloc(&ctx, it[k].bytes, \"checkpoint staging\");");
    out_line(o, "if (!it[k].data || (down && it[k].bytes && nrt_gpu_read(gpu, *dm[k], 0, it[k].data, it[k].bytes) != NRT_OK)) return -1;");
    out_close(o);
    out_line(o, "return 0;");
    out_close(o);
    out_blank(o);
    out_open(o, "static void ckpt_unstage(nrt_ckpt_item *it, nrt_dmem **dm, int n)");
    out_line(o, "for (int k = 0; k < n; k++) if (dm[k]) nrt_free(it[k].data);");
    out_close(o);
    out_blank(o);
    out_open(o, "static int ckpt_save(int phase)");
    out_line(o, "nrt_ckpt_item it[%d] = {{0}};", n + m->nprojs + 1);
    out_line(o, "nrt_dmem *dm[%d];", n + m->nprojs + 1);
    out_line(o, "const int n = ckpt_items(it, dm);");
    out_line(o, "int rc = ckpt_stage(it, dm, n, 1) || nrt_ckpt_save(&ctx, phase, it, n) != NRT_OK;");
    out_line(o, "ckpt_unstage(it, dm, n);");
    out_line(o, "return rc ? -1 : 0;");
    out_close(o);
    out_blank(o);
    out_open(o, "static int ckpt_load(void)");
    out_line(o, "nrt_ckpt_item it[%d] = {{0}};", n + m->nprojs + 1);
    out_line(o, "nrt_dmem *dm[%d];", n + m->nprojs + 1);
    out_line(o, "const int n = ckpt_items(it, dm);");
    out_line(o, "int rc = ckpt_stage(it, dm, n, 0) || nrt_ckpt_load(&ctx, it, n) != NRT_OK;");
    out_line(o, "for (int k = 0; k < n && !rc; k++)");
    out_line(o, "    if (dm[k] && it[k].bytes && nrt_gpu_write(gpu, *dm[k], 0, it[k].data, it[k].bytes) != NRT_OK) rc = 1;");
    out_line(o, "ckpt_unstage(it, dm, n);");
    out_line(o, "if (rc) return -1;");
    for (int i = 0; i < m->npops; i++) {
        const IrPop *p = m->pops[i];
        for (int j = 0; j < p->nvars; j++)
            if (mirrored(p->vars[j]))
                out_line(o, "if (nrt_gpu_read(gpu, %s, 0, h_%s, (size_t)%lld * sizeof(%s)) != NRT_OK) return -1;",
                         p->vars[j]->cname, p->vars[j]->cname, (long long)p->size, vtype(p->vars[j]));
        out_line(o, "if (props_%s()) return -1;", p->cname);
    }
    for (int k = 0; k < m->nprojs; k++)
        if (m->projs[k]->plast)
            out_line(o, "if (props_%s()) return -1;", m->projs[k]->plast->scope->cname);
    out_line(o, "step_now = ctx.start_step;");
    out_line(o, "return nrt_gpu_write(gpu, nc_ctl, 0, &step_now, sizeof step_now) == NRT_OK ? 0 : -1;");
    out_close(o);
    out_blank(o);
}

/* ===== checkpoints =====} */

/* The cluster schedule's shape (host): the largest cluster this device runs with the
 * kernel's shared memory, at most $NEUROC_CLUSTER groups (1 to 16), and work-items per
 * group for its share of the largest population (at least 128: the spike-word scan and
 * the delivery spread over them). No cluster on this device: the block schedule, unless
 * the cluster schedule was asked for by name. */
static void emit_pick_cluster(Out *o, const Simt *S)
{
    out_open(o, "static int pick_cluster(const char *prog)");
    out_line(o, "const char *e = getenv(\"NEUROC_CLUSTER\");");
    out_line(o, "long cap = 16;");
    out_open(o, "if (e && *e)");
    out_line(o, "char *end;");
    out_line(o, "cap = strtol(e, &end, 10);");
    out_open(o, "if (*end || cap < 1 || cap > 16)");
    out_line(o, "fprintf(stderr, \"%%s: error: NEUROC_CLUSTER='%%s' is not a cluster size (1 to 16 work-groups)\\n\", prog, e);");
    out_line(o, "return -1;");
    out_close(o);
    out_close(o);
    out_line(o, "g_cluster = nrt_gpu_max_cluster(k_cluster, block_size, NC_CLUSTER_SHMEM);");
    out_open(o, "if (g_cluster == 0)");
    out_line(o, "const nrt_gpu_info *info = nrt_gpu_get_info(gpu);");
    out_open(o, "if (mode_asked)");
    out_line(o, "fprintf(stderr, \"%%s: error: the cluster schedule needs thread-block clusters, which '%%s' (compute capability %%d.%%d) with this driver does not run (9.0 or later and a CUDA 12 driver do)\\n\", prog, info->name, info->cc_major, info->cc_minor);");
    out_line(o, "return -1;");
    out_close(o);
    out_line(o, "mode = M_BLOCK;");
    out_line(o, "return 0;");
    out_close(o);
    out_line(o, "while (g_cluster > (size_t)cap) g_cluster /= 2;");
    out_line(o, "const size_t share = ((size_t)%lld + g_cluster - 1) / g_cluster;", (long long)max_pop(S->m));
    out_line(o, "cluster_threads = block_size;");
    out_line(o, "while (cluster_threads > 128 && cluster_threads / 2 >= share) cluster_threads /= 2;");
    out_line(o, "return 0;");
    out_close(o);
    out_blank(o);
}

/* A batch side by side (batched): whether --instances runs so (the block schedule runs),
 * the instances' contexts, and the table of their arguments that nc_k_chunk and nc_k_block
 * read (emit_batch_row). */
static void emit_host_batch(Out *o, const Simt *S)
{
    out_line(o, "/* --instances side by side: where the block schedule runs (one work-group per instance),");
    out_line(o, " * also in place of an automatic cluster schedule (pick_mode) */");
    out_open(o, "static int batch_ok(void)");
    out_line(o, "const char *e = getenv(\"NEUROC_GPU_MODE\");");
    out_line(o, "return e && *e && strcmp(e, \"auto\") != 0 ? strcmp(e, \"block\") == 0 : mode == M_BLOCK || (mode == M_CLUSTER && !mode_asked);");
    out_close(o);
    out_blank(o);
    out_line(o, "/* the contexts of the instances: instance b is the run with seed + b (nrt_instance_open) */");
    out_open(o, "static int open_batch(void)");
    out_line(o, "const int64_t n = nc_one.i_ctx.instances;");
    out_line(o, "nc_insts = calloc((size_t)n, sizeof *nc_insts);");
    out_line(o, "nc_kids = calloc((size_t)n, sizeof *nc_kids);");
    out_open(o, "if (!nc_insts || !nc_kids)");
    out_line(o, "snprintf(nc_one.i_ctx.errmsg, sizeof nc_one.i_ctx.errmsg, \"out of host memory for the state of %%lld instances\", (long long)n);");
    out_line(o, "free(nc_insts);");
    out_line(o, "nc_insts = &nc_one;");
    out_line(o, "return -1;");
    out_close(o);
    out_open(o, "for (int64_t b = 0; b < n; b++)");
    out_line(o, "nc_I = &nc_insts[b];");
    out_line(o, "nc_kids[b] = &ctx;");
    out_open(o, "if (nrt_instance_open(&nc_one.i_ctx, b, &ctx) != NRT_OK)");
    out_line(o, "memcpy(nc_one.i_ctx.errmsg, ctx.errmsg, sizeof ctx.errmsg); /* nothing runs yet: the batch fails */");
    out_line(o, "nc_I = nc_insts = &nc_one;");
    out_line(o, "nc_nb = 1;");
    out_line(o, "return -1;");
    out_close(o);
    out_line(o, "seedkey = nrt_seed_key(ctx.seed);");
    out_line(o, "nc_nb = b + 1;");
    out_close(o);
    out_line(o, "return 0;");
    out_close(o);
    out_blank(o);
    out_line(o, "/* nc_tab: row b holds instance b's arguments */");
    out_open(o, "static int write_tab(void)");
    const char *w = S->table ? "NC_NTAB" : "NC_NARGS";
    out_line(o, "const size_t bytes = (size_t)nc_nb * %s * sizeof(int64_t);", w);
    out_line(o, "int64_t *t = nrt_alloc(&nc_one.i_ctx, bytes, \"the instances' arguments\");");
    out_line(o, "if (!t) return -1;");
    out_open(o, "for (int64_t b = 0; b < nc_nb; b++)");
    out_line(o, "nc_I = &nc_insts[b];");
    out_line(o, "nc_tab_row(t + b * %s);", w);
    out_close(o);
    out_line(o, "nc_I = nc_insts;");
    out_line(o, "int rc = dalloc(&nc_tab, bytes, \"the instances' arguments\") || nrt_gpu_write(gpu, nc_tab, 0, t, bytes) != NRT_OK;");
    out_line(o, "nrt_free(t);");
    out_line(o, "return rc ? -1 : 0;");
    out_close(o);
    out_blank(o);
}

/* `static int build_instance(char **argv, double t0)`: the current run's buffers, initial
 * values, synapses and recordings (t0: when its build began); 0, or fail()'s status. */
static void emit_host_build_instance(Out *o, const Simt *S)
{
    const IrModel *m = S->m;
    out_open(o, "static int build_instance(char **argv, double t0)");
    if (m->mpi)
        simt_mpi_host_slices(o, S);
    for (int i = 0; i < m->npops; i++) {
        const IrPop *p = m->pops[i];
        long long n = (long long)p->size;
        for (int j = 0; j < p->nvars; j++) {
            const IrVar *v = p->vars[j];
            if (v->per_neuron)
                out_line(o, "if (dalloc(&%s, (size_t)%lld * sizeof(%s), \"%s.%s\")) return fail(argv[0]);", v->cname,
                         n, vtype(v), p->name, v->label);
        }
        for (int j = 0; j < p->nprops; j++)
            if (p->props[j]->per_neuron)
                out_line(o, "if (dalloc(&%s, (size_t)%lld * 4 * %d * sizeof(real), \"%s: propagators\")) return fail(argv[0]);",
                         p->props[j]->cname, n, p->props[j]->n * p->props[j]->n, p->name);
        out_line(o, "if (dalloc(&%s_spk, (size_t)%lld * sizeof(int32_t), \"%s: spike list\")) return fail(argv[0]);",
                 p->cname, n, p->name);
        out_line(o, "if (dalloc(&%s_fl, (size_t)%lld * sizeof(int32_t), \"%s: spike flags\")) return fail(argv[0]);",
                 p->cname, n, p->name);
        out_line(o, "if (dalloc(&%s_fm, (size_t)%lld * sizeof(uint32_t), \"%s: spike bits\")) return fail(argv[0]);",
                 p->cname, (n + 31) / 32, p->name);
        if (p->sfile) {
            StrBuf f = {0};
            cg_cstring(p->sfile, &f);
            out_line(o, "/* spike file of %s: read on the host once, uploaded as CSR by step */", p->name);
            out_begin(o);
            out_line(o, "int64_t *sp = NULL, nnz = 0;");
            out_line(o, "int32_t *si = NULL;");
            out_line(o, "if (nrt_spike_file(&ctx, \"%s\", %lld, %.17g, %s_sfn, &sp, &si, &nnz) != NRT_OK) return fail(argv[0]);",
                     f.s, n, m->dt, p->cname);
            out_line(o, "int bad = dalloc(&%s_sfp, (size_t)(%s_sfn + 1) * sizeof(int64_t), \"%s: spike file steps\")",
                     p->cname, p->cname, p->name);
            out_line(o, "    || dalloc(&%s_sfi, (size_t)(nnz ? nnz : 1) * sizeof(int32_t), \"%s: spike file indices\")",
                     p->cname, p->name);
            out_line(o, "    || nrt_gpu_write(gpu, %s_sfp, 0, sp, (size_t)(%s_sfn + 1) * sizeof(int64_t)) != NRT_OK",
                     p->cname, p->cname);
            out_line(o, "    || (nnz && nrt_gpu_write(gpu, %s_sfi, 0, si, (size_t)nnz * sizeof(int32_t)) != NRT_OK);",
                     p->cname);
            out_line(o, "nrt_free(sp);");
            out_line(o, "nrt_free(si);");
            out_line(o, "if (bad) return fail(argv[0]);");
            out_close(o);
            sb_free(&f);
        }
        if (p->topk) {
            out_line(o, "if (dalloc(&%s_tkh, (size_t)%d * sizeof(int32_t), \"%s: top-k histograms\")) return fail(argv[0]);",
                     p->cname, 256 * simt_topk_passes(m), p->name);
            out_line(o, "if (dalloc(&%s_tks, (size_t)%d * sizeof(int32_t), \"%s: top-k state\")) return fail(argv[0]);",
                     p->cname, 8 * (simt_topk_passes(m) + 1), p->name);
        }
    }
    out_line(o, "if (dalloc(&nc_scal, sizeof h_scal, \"scalars\")) return fail(argv[0]);");
    out_line(o, "if (dalloc(&nc_cnt, (size_t)NC_NCNT * sizeof(int32_t), \"counters\")) return fail(argv[0]);");
    out_line(o, "if (dalloc(&nc_ctl, 6 * sizeof(int64_t), \"step control\")) return fail(argv[0]);");
    if (S->has_cluster)   /* nc_ctl[4]: a stalled cluster launch; [5]: a stall to act (rt_fault.c) */
        out_line(o, "if (nrt_gpu_write(gpu, nc_ctl, 5 * sizeof(int64_t), &ctx.fault.cluster_stall, sizeof(int64_t)) != NRT_OK) return fail(argv[0]);");
    if (S->free || S->push) {
        out_open(o, "if (mode == %s)", S->free ? "M_FREE" : "M_CLUSTER");
        simt_free_host_alloc(o, S);
        out_close(o);
    }
    simt_finite_init(o, S);
    if (S->has_cluster && n_own_tables(m)) {   /* emit_own_tables: a region per group, its header cleared */
        out_line(o, "if (dalloc(&nc_otc, mode == M_CLUSTER ? g_cluster * NC_CLUSTER_SHMEM : 16, \"cluster schedule: own synapses\")) return fail(argv[0]);");
        out_open(o, "for (size_t r = 0; mode == M_CLUSTER && r < g_cluster; r++)");
        out_line(o, "static const uint32_t z[4];");
        out_line(o, "if (nrt_gpu_write(gpu, nc_otc, r * NC_CLUSTER_SHMEM, z, sizeof z) != NRT_OK) return fail(argv[0]);");
        out_close(o);
    }
    for (int i = 0; i < n_prop_owners(m); i++) {
        const IrPop *p = prop_owner(m, i);
        for (int j = 0; j < p->nvars; j++) {
            const IrVar *v = p->vars[j];
            int rt = -1;
            for (int k = 0; k < m->nrtparams; k++)
                if (m->rtparams[k].var == v)
                    rt = k;
            if (rt >= 0) {
                out_line(o, "h_scal[%d] = (real)ctx.params[%d].value; /* runtime %s */", simt_scal_var(S, v), rt,
                         m->rtparams[rt].name);
            } else if (!v->per_neuron) {
                StrBuf val = {0};
                CgDialect d = cg_dialect(m->dbl, p);
                cg_real(&d, v->init, &val);
                out_line(o, "h_scal[%d] = %s; /* %s.%s */", simt_scal_var(S, v), val.s, p->name, v->label);
                sb_free(&val);
            }
        }
    }
    out_line(o, "if (nrt_gpu_write(gpu, nc_scal, 0, h_scal, sizeof h_scal) != NRT_OK) return fail(argv[0]);");
    out_line(o, "if (bind(k_init) || nrt_gpu_launch(k_init, %lld, 256, 0) != NRT_OK) return fail(argv[0]);",
             (long long)((max_pop(m) + 255) / 256));
    for (int i = 0; i < m->npops; i++) {
        const IrPop *p = m->pops[i];
        for (int j = 0; j < p->nvars; j++) {
            const IrVar *v = p->vars[j];
            if (!mirrored(v))
                continue;
            out_line(o, "h_%s = nrt_alloc(&ctx, (size_t)%lld * sizeof(%s), \"%s.%s\");", v->cname, (long long)p->size,
                     vtype(v), p->name, v->label);
            out_line(o, "if (!h_%s || nrt_gpu_read(gpu, %s, 0, h_%s, (size_t)%lld * sizeof(%s)) != NRT_OK) return fail(argv[0]);",
                     v->cname, v->cname, v->cname, (long long)p->size, vtype(v));
        }
        out_line(o, "if (props_%s()) return fail(argv[0]);", p->cname);
    }
    for (int k = 0; k < m->nprojs; k++)
        if (m->projs[k]->plast)
            out_line(o, "if (props_%s()) return fail(argv[0]);", m->projs[k]->plast->scope->cname);
    out_line(o, "if (nrt_gpu_sync(gpu) != NRT_OK) return fail(argv[0]);");
    out_line(o, "ctx.t_build = nrt_now() - t0;");
    out_line(o, "t0 = nrt_now();");
    for (int k = 0; k < m->nprojs; k++)
        out_line(o, "if (build_%s()) return fail(argv[0]);", m->projs[k]->cname);
    out_line(o, "if (nrt_gpu_sync(gpu) != NRT_OK) return fail(argv[0]);");
    for (int k = 0; k < m->nprojs; k++)
        out_line(o, "if (ctx.save_conn && save_%s()) return fail(argv[0]);", m->projs[k]->cname);
    for (int k = 0; k < m->nprojs; k++)   /* the built synapse counts, for --bench */
        if (!m->projs[k]->procedural)
            out_line(o, "nrt_proj_stat(&ctx, %d, %d, (double)%s_csr.nnz);", k, m->projs[k]->pre.pop->id,
                     m->projs[k]->cname);
    out_line(o, "ctx.t_construct = nrt_now() - t0;");
    out_line(o, "if (ctx.resume_dir && ckpt_load()) return fail(argv[0]);");
    out_line(o, "if (open_records()) return fail(argv[0]);");
    out_line(o, "return 0;");
    out_close(o);
    out_blank(o);
}

static void emit_host_main(Out *o, const Simt *S)
{
    const IrModel *m = S->m;
    if (batched(S)) {
        out_line(o, "/* A batch stops as a whole: each instance finishes with what it recorded and its own");
        out_line(o, " * error if it failed (else the device layer's, which reports in nc_one, for all; else");
        out_line(o, " * that it stopped with the batch). */");
        out_open(o, "static int fail_batch(const char *prog)");
        out_line(o, "const int own = ctx.errmsg[0] != '\\0';");
        out_line(o, "const int64_t bad = ctx.instance;");
        out_line(o, "char msg[sizeof ctx.errmsg];");
        out_line(o, "memcpy(msg, own ? ctx.errmsg : nc_one.i_ctx.errmsg, sizeof msg);");
        out_line(o, "if (own) fprintf(stderr, \"%%s: error: instance %%lld: %%s\\n\", prog, (long long)bad, msg);");
        out_line(o, "else fprintf(stderr, \"%%s: error: %%s\\n\", prog, msg);");
        out_open(o, "for (int64_t b = 0; b < nc_nb; b++)");
        out_line(o, "nrt_ctx *c = nc_kids[b];");
        out_line(o, "if (!own) memcpy(c->errmsg, msg, sizeof msg);");
        out_line(o, "else if (!c->errmsg[0]) snprintf(c->errmsg, sizeof c->errmsg, \"stopped with the batch: instance %%lld failed\", (long long)bad);");
        out_line(o, "c->interrupted = 1;");
        out_line(o, "c->failed = 1;");
        out_line(o, "nrt_finish(c);");
        out_close(o);
        out_line(o, "nrt_instances_close(&nc_one.i_ctx, nc_kids, nc_nb);");
        out_line(o, "nrt_gpu_close(gpu);");
        out_line(o, "return 1;");
        out_close(o);
        out_blank(o);
    }
    out_open(o, "static int fail(const char *prog)");
    if (batched(S))
        out_line(o, "if (nc_nb > 1) return fail_batch(prog);");
    out_line(o, "nrt_fail(&ctx, prog);");
    if (m->mpi)     /* the other ranks would wait for this one */
        out_line(o, "nrt_mpi_abort(mpi, 1);");
    out_line(o, "nrt_gpu_close(gpu);");
    out_line(o, "return 1;");
    out_close(o);
    out_blank(o);
    out_open(o, "static int pick_mode(const char *prog)");
    out_line(o, "const char *e = getenv(\"NEUROC_GPU_MODE\");");
    out_open(o, "if (e && *e && strcmp(e, \"auto\") != 0)");
    out_line(o, "int k = 0;");
    out_line(o, "while (k < 6 && strcmp(e, mode_names[k]) != 0) k++;");
    out_open(o, "if (k == 6)");
    out_line(o, "fprintf(stderr, \"%%s: error: NEUROC_GPU_MODE='%%s' is not a schedule (block, launch, graph, persistent, free, cluster)\\n\", prog, e);");
    out_line(o, "return -1;");
    out_close(o);
    out_line(o, "mode = k;");
    out_line(o, "mode_asked = 1;");
    out_close(o);
    if (!m->mpi && (!S->has_block || (S->t->graphs && !S->has_persistent))) {   /* --mpi: its own refusal below */
        const int nb = !S->has_block, np = S->t->graphs && !S->has_persistent;
        out_open(o, "if (%s%s%s)", nb ? "mode == M_BLOCK" : "", nb && np ? " || " : "", np ? "mode == M_PERSISTENT" : "");
        out_line(o, "fprintf(stderr, \"%%s: error: this simulator has no %%s schedule (a network of over 20,000 neurons or 4e6 synapses, or with procedural projections; build it with --gpu-mode %%s to have one)\\n\", prog, mode_names[mode], mode_names[mode]);");
        out_line(o, "return -1;");
        out_close(o);
    }
    if (!S->has_cluster) {
        out_open(o, "if (mode == M_CLUSTER)");
        out_line(o, "fprintf(stderr, \"%%s: error: this simulator has no cluster schedule (it needs CUDA for sm_90 or later, and a network the block schedule takes with no plastic projection, top-k, scalar variable or spike flags; build it with --gpu-mode cluster to see why not)\\n\", prog);");
        out_line(o, "return -1;");
        out_close(o);
    }
    if (!S->free) {
        out_open(o, "if (mode == M_FREE)");
        out_line(o, "fprintf(stderr, \"%%s: error: the free schedule takes a model without projections or top-k, in one process\\n\", prog);");
        out_line(o, "return -1;");
        out_close(o);
    }
    if (m->mpi) {
        out_open(o, "if (mode == M_BLOCK || mode == M_PERSISTENT || mode == M_CLUSTER)");
        out_line(o, "fprintf(stderr, \"%%s: error: the %%s schedule runs on one GPU; a distributed simulator takes launch or graph\\n\", prog, mode_names[mode]);");
        out_line(o, "return -1;");
        out_close(o);
    }
    out_open(o, "if ((mode == M_GRAPH || mode == M_PERSISTENT || mode == M_CLUSTER) && nrt_gpu_api(gpu) != NRT_API_CUDA)");
    out_line(o, "fprintf(stderr, \"%%s: error: the %%s schedule needs CUDA\\n\", prog, mode_names[mode]);");
    out_line(o, "return -1;");
    out_close(o);
    out_line(o, "if (ctx.batch && ctx.instances > 1 && mode == M_CLUSTER && !mode_asked) mode = M_BLOCK; /* batch_ok */");
    out_line(o, "const nrt_gpu_info *info = nrt_gpu_get_info(gpu);");
    out_line(o, "/* no more work-items than the largest population needs, nor than the device takes */");
    out_line(o, "while (block_size > 32 && block_size / 2 >= %lld) block_size /= 2;", (long long)max_pop(m));
    out_line(o, "while (block_size > (size_t)info->max_group_size && block_size > 32) block_size /= 2;");
    out_line(o, "return 0;");
    out_close(o);
    out_blank(o);
    if (S->has_cluster)
        emit_pick_cluster(o, S);
    if (S->push)
        simt_push_host(o, S);
    emit_host_build_instance(o, S);
    if (batched(S))
        emit_host_batch(o, S);
    cg_ckpt_hash_decl(S->cc, o, m);
    cg_main_open(o, m, S->t->name, batched(S) ? "ctx.batch = batch_ok();" : NULL);
    if (m->mpi)
        simt_mpi_host_start(o, S);
    out_line(o, "double t0 = nrt_now();");
    out_line(o, "if (nrt_gpu_open(&ctx, %s, &gpu) != NRT_OK) return fail(argv[0]);", S->t->api);
    out_line(o, "mem_plan();");
    out_line(o, "st = nrt_mem_check(&ctx, (double)nrt_gpu_get_info(gpu)->global_mem);");
    out_line(o, "if (st == NRT_EHELP) { nrt_gpu_close(gpu); return 0; }");
    out_line(o, "if (st != NRT_OK) return fail(argv[0]);");
    out_line(o, "if (pick_mode(argv[0])) { nrt_finish(&ctx); nrt_gpu_close(gpu); return 2; }");
    out_line(o, "if (nrt_gpu_load(gpu, nc_program, nc_program_len, \"%s\") != NRT_OK) return fail(argv[0]);",
             S->t->load_options);
    out_line(o, "if (!(k_init = nrt_gpu_kernel(gpu, \"nc_k_init\", NC_NARGS))) return fail(argv[0]);");
    out_line(o, "if (!(k_chunk = nrt_gpu_kernel(gpu, \"nc_k_chunk\", NC_NARGS + 4))) return fail(argv[0]);");
    out_line(o, "if (!(k_neurons = nrt_gpu_kernel(gpu, \"nc_k_neurons\", NC_NARGS))) return fail(argv[0]);");
    out_line(o, "if (!(k_synapses = nrt_gpu_kernel(gpu, \"nc_k_synapses\", NC_NARGS))) return fail(argv[0]);");
    if (S->has_block)
        out_line(o, "if (!(k_block = nrt_gpu_kernel(gpu, \"nc_k_block\", NC_NARGS + 3))) return fail(argv[0]);");
    out_line(o, "if (mode == M_PERSISTENT && !(k_persistent = nrt_gpu_kernel(gpu, \"nc_k_persistent\", NC_NARGS + 1))) return fail(argv[0]);");
    if (S->has_cluster) {
        out_line(o, "if (mode == M_CLUSTER && !(k_cluster = nrt_gpu_kernel(gpu, \"nc_k_cluster\", NC_NARGS + 1))) return fail(argv[0]);");
        out_line(o, "if (mode == M_CLUSTER && pick_cluster(argv[0])) { nrt_finish(&ctx); nrt_gpu_close(gpu); return 2; }");
    }
    if (S->push) {
        out_line(o, "if (mode == M_CLUSTER && (!(k_push = nrt_gpu_kernel(gpu, \"nc_k_push\", NC_NARGS + 1)) || !(k_push_tables = nrt_gpu_kernel(gpu, \"nc_k_push_tables\", NC_NARGS)) ||");
        out_line(o, "    !(k_fcount = nrt_gpu_kernel(gpu, \"nc_k_fcount\", NC_NARGS + 1)) || !(k_fscan = nrt_gpu_kernel(gpu, \"nc_k_fscan\", NC_NARGS + 1)) || !(k_fwrite = nrt_gpu_kernel(gpu, \"nc_k_fwrite\", NC_NARGS + 1)))) return fail(argv[0]);");
    }
    out_line(o, "ctx.schedule = mode_names[mode];");
    out_line(o, "if (!ctx.quiet) fprintf(stderr, \"%%s: %%s on %%s, %%s schedule\\n\", argv[0], \"%s\", nrt_gpu_get_info(gpu)->name, mode_names[mode]);",
             S->t->name);
    if (S->free) {
        out_line(o, "if (!(k_free = nrt_gpu_kernel(gpu, \"nc_k_free\", NC_NARGS + 1)) || !(k_fcount = nrt_gpu_kernel(gpu, \"nc_k_fcount\", NC_NARGS + 1)) ||");
        out_line(o, "    !(k_fscan = nrt_gpu_kernel(gpu, \"nc_k_fscan\", NC_NARGS + 1)) || !(k_fwrite = nrt_gpu_kernel(gpu, \"nc_k_fwrite\", NC_NARGS + 1))) return fail(argv[0]);");
    }
    for (int k = 0; k < m->nprojs; k++) {
        char kb[16];
        const char *kn = cg_kname(m->projs[k], kb);
        out_line(o, "if (!(k_syn_%s = nrt_gpu_kernel(gpu, \"nc_k_syn_%s\", NC_NARGS))) return fail(argv[0]);",
                 m->projs[k]->cname, kn);
        if (m->projs[k]->procedural && m->projs[k]->delay)
            out_line(o, "if (!(k_pscan_%s = nrt_gpu_kernel(gpu, \"nc_k_pscan_%s\", NC_NARGS))) return fail(argv[0]);",
                     m->projs[k]->cname, kn);
        if (m->projs[k]->plast)
            out_line(o, "if (!(k_scope_%s = nrt_gpu_kernel(gpu, \"nc_k_scope_%s\", NC_NARGS))) return fail(argv[0]);",
                     m->projs[k]->cname, kn);
        if (m->projs[k]->plast && m->projs[k]->plast->event)
            out_line(o, "if (!(k_catchup_%s = nrt_gpu_kernel(gpu, \"nc_k_catchup_%s\", NC_NARGS))) return fail(argv[0]);",
                     m->projs[k]->cname, kn);
    }
    for (int ph = 0; ph < PL__COUNT; ph++)
        if (simt_plast_has_phase(m, ph))
            out_line(o, "if (!(k_plast[%d] = nrt_gpu_kernel(gpu, \"nc_k_plast%d\", NC_NARGS))) return fail(argv[0]);",
                     ph, ph);
    if (simt_topk_any(m)) {
        out_open(o, "for (int p = 0; p <= %d; p++)", simt_topk_passes(m));
        out_line(o, "char name[32];");
        out_line(o, "snprintf(name, sizeof name, \"nc_k_tk%%d\", p);");
        out_line(o, "if (!(k_tk[p] = nrt_gpu_kernel(gpu, name, NC_NARGS))) return fail(argv[0]);");
        out_close(o);
        out_line(o, "if (!(k_after = nrt_gpu_kernel(gpu, \"nc_k_after\", NC_NARGS))) return fail(argv[0]);");
    }
    out_line(o, "/* the block schedule's work-group must fit the kernel's registers on this device */");
    if (S->has_block)
        out_line(o, "while (block_size > 32 && nrt_gpu_max_resident(k_block, block_size, NC_BLOCK_SHMEM) == 0) block_size /= 2;");
    out_open(o, "if ((size_t)NC_NARGS * 8 > nrt_gpu_get_info(gpu)->max_param_bytes)");
    out_line(o, "snprintf(ctx.errmsg, sizeof ctx.errmsg, \"the model's kernels take %%d arguments (%%d bytes), more than this device accepts (%%zu bytes)\", NC_NARGS, NC_NARGS * 8, nrt_gpu_get_info(gpu)->max_param_bytes);");
    out_line(o, "return fail(argv[0]);");
    out_close(o);
    if (S->table && simt_table_kargs(S) == 1)
        out_line(o, "if (dalloc(&nc_argt, sizeof nc_argw, \"the kernels' arguments\")) return fail(argv[0]);");
    else if (S->table) /* every later buffer is a range of the arena */
        out_line(o, "if (dalloc(&nc_argt, sizeof nc_argw, \"the kernels' arguments\") || nrt_gpu_arena(gpu) != NRT_OK) return fail(argv[0]);");
    out_line(o, "if (dalloc(&nc_dummy, 16, \"placeholder\")) return fail(argv[0]);");
    if (batched(S))
        out_line(o, "if (ctx.batch && ctx.instances > 1 && open_batch()) return fail(argv[0]);");
    out_open(o, "for (int64_t b = 0; b < nc_nb; b++)");
    out_line(o, "nc_I = &nc_insts[b];");
    out_line(o, "if (build_instance(argv, b ? nrt_now() : t0)) return 1;");
    out_close(o);
    out_line(o, "nc_I = nc_insts;");
    out_line(o, "if (bind(k_chunk) || bind(k_neurons) || bind(k_synapses) || bind(k_block) || bind(k_persistent) || bind(k_cluster)) return fail(argv[0]);");
    if (batched(S))
        out_line(o, "if (nc_nb > 1 && write_tab()) return fail(argv[0]);");
    out_line(o, "if (bind_batch(k_chunk, NC_NARGS + 2) || bind_batch(k_block, NC_NARGS + 1)) return fail(argv[0]);");
    if (S->free)
        out_line(o, "if (bind(k_free) || bind(k_fcount) || bind(k_fscan) || bind(k_fwrite)) return fail(argv[0]);");
    if (S->push) {
        out_line(o, "if (bind(k_push) || bind(k_push_tables) || bind(k_fcount) || bind(k_fscan) || bind(k_fwrite)) return fail(argv[0]);");
        out_line(o, "if (mode == M_CLUSTER && push_tables()) return fail(argv[0]);");
    }
    out_line(o, "for (int ph = 0; ph < %d; ph++) if (bind(k_plast[ph])) return fail(argv[0]);", PL__COUNT);
    if (m->mpi)
        out_line(o, "if (bind(k_merge)) return fail(argv[0]);");
    if (simt_topk_any(m)) {
        out_line(o, "for (int p = 0; p <= %d; p++) if (bind(k_tk[p])) return fail(argv[0]);", simt_topk_passes(m));
        out_line(o, "if (bind(k_after)) return fail(argv[0]);");
    }
    out_open(o, "if (mode == M_PERSISTENT)");
    out_line(o, "g_persistent = nrt_gpu_max_resident(k_persistent, 256, 0);");
    out_line(o, "if (g_persistent > %lld) g_persistent = %lld;", (long long)((max_pop(m) + 255) / 256),
             (long long)((max_pop(m) + 255) / 256));
    out_line(o, "if (g_persistent < 1) g_persistent = 1;");
    out_close(o);
    out_line(o, "for (int64_t b = 0; b < nc_nb; b++) t0 = nrt_sim_begin(&nc_insts[b].i_ctx);");
    out_line(o, "int stop = 0; /* stopped after a checkpoint, or by a signal */");
    int64_t end = 0;
    for (int p = 0; p < m->nphases; p++) {
        const IrPhase *ph = &m->phases[p];
        /* a resumed run skips the phases before the checkpoint's: their effects are in it */
        out_open(o, "if (!stop && ctx.start_phase <= %d)", p);
        if (ph->kind == PH_RUN) {
            end += ph->steps;
            out_line(o, "/* run %lld steps: a checkpoint inside them splits the run at a chunk boundary */",
                     (long long)ph->steps);
            out_open(o, "if (ctx.ckpt_step > step_now && ctx.ckpt_step <= %lld)", (long long)end);
            out_line(o, "if (run(ctx.ckpt_step - step_now)) return fail(argv[0]);");
            out_open(o, "if (!ctx.stop_requested)");
            out_line(o, "if (ckpt_save(%d)) return fail(argv[0]);", p);
            out_line(o, "stop = ctx.ckpt_stop;");
            out_close(o);
            out_close(o);
            out_line(o, "if (!stop && run(%lld - step_now)) return fail(argv[0]);", (long long)end);
            out_open(o, "if (ctx.stop_requested)");
            out_line(o, "stop = 1;");
            out_line(o, "if (ctx.ckpt_dir && ctx.ckpt_written != step_now && ckpt_save(%d)) return fail(argv[0]);", p);
            out_close(o);
            out_close(o);
            continue;
        }
        const IrVar *v = ph->var;
        const IrPop *owner = ph->proj ? ph->proj->plast->scope : v->pop;
        CgDialect d = cg_dialect(m->dbl, owner);
        StrBuf val = {0};
        cg_real(&d, ph->value, &val);
        out_line(o, "/* set %s.%s, in every run side by side */", ph->proj ? ph->proj->name : ph->view.pop->name, v->label);
        out_open(o, "for (int64_t b = 0; b < nc_nb; b++)");
        out_line(o, "nc_I = &nc_insts[b];");
        if (ph->proj && ph->proj->plast->event) {
            /* event-driven synapse dynamics: advance every synapse with the old parameters first */
            double syn = est_synapses(ph->proj);
            out_line(o, "if (bind(k_catchup_%s) || nrt_gpu_launch(k_catchup_%s, %lld, 128, 0) != NRT_OK) return fail(argv[0]);",
                     ph->proj->cname, ph->proj->cname, syn / 128 > 1024 ? 1024LL : (long long)(syn / 128) + 1);
        }
        if (v->per_neuron && !ph->proj) {
            long long lo = (long long)ph->view.offset, n = (long long)ph->view.size;
            out_line(o, "%s *tmp = nrt_alloc(&ctx, (size_t)%lld * sizeof *tmp, \"set %s\");", vtype(v), n, v->label);
            out_line(o, "if (!tmp) return fail(argv[0]);");
            out_line(o, "for (int64_t n = 0; n < %lld; n++) tmp[n] = (%s)%s;", n, vtype(v), val.s);
            out_line(o, "if (nrt_gpu_write(gpu, %s, (size_t)%lld * sizeof *tmp, tmp, (size_t)%lld * sizeof *tmp) != NRT_OK) return fail(argv[0]);",
                     v->cname, lo, n);
            if (mirrored(v))
                out_line(o, "memcpy(h_%s + %lld, tmp, (size_t)%lld * sizeof *tmp);", v->cname, lo, n);
            out_line(o, "nrt_free(tmp);");
        } else {
            out_line(o, "h_scal[%d] = %s;", simt_scal_var(S, v), val.s);
        }
        out_line(o, "if (props_%s()) return fail(argv[0]);", owner->cname);
        out_close(o);
        out_line(o, "nc_I = nc_insts;");
        out_close(o);
        sb_free(&val);
    }
    if (batched(S)) {
        out_open(o, "if (nc_nb > 1)");
        out_open(o, "for (int64_t b = 0; b < nc_nb; b++)");
        out_line(o, "nc_I = &nc_insts[b];");
        out_line(o, "ctx.t_simulate = nrt_sim_end(&ctx, t0);");
        out_line(o, "ctx.dev_peak = nc_one.i_ctx.dev_peak; /* the device memory of the whole batch */");
        out_line(o, "if (nc_one.i_ctx.stop_requested) ctx.interrupted = 1;");
        out_line(o, "if (nrt_finish(&ctx) != NRT_OK) fprintf(stderr, \"%%s: error: instance %%lld: %%s\\n\", argv[0], (long long)b, ctx.errmsg);");
        out_line(o, "nrt_report(&ctx);");
        out_close(o);
        out_line(o, "st = nrt_instances_close(&nc_one.i_ctx, nc_kids, nc_nb);");
        out_line(o, "if (st != NRT_OK) fprintf(stderr, \"%%s: error: %%s\\n\", argv[0], nc_one.i_ctx.errmsg);");
        out_line(o, "nrt_gpu_close(gpu);");
        out_line(o, "return st != NRT_OK ? 1 : nc_one.i_ctx.exit_status;");
        out_close(o);
    }
    out_line(o, "ctx.t_simulate = nrt_sim_end(&ctx, t0);");
    out_line(o, "if (ctx.stop_requested) ctx.interrupted = 1;");
    out_open(o, "if (nrt_finish(&ctx) != NRT_OK)");
    out_line(o, "fprintf(stderr, \"%%s: error: %%s\\n\", argv[0], ctx.errmsg);");
    out_line(o, "nrt_gpu_close(gpu);");
    out_line(o, "return 1;");
    out_close(o);
    out_line(o, "nrt_report(&ctx);");
    out_line(o, "nrt_gpu_close(gpu);");
    out_line(o, "return ctx.interrupted ? 130 : 0;");
    out_close(o);
}

int simt_emit_host(Compiler *cc, IrModel *m, const BuildOpts *bo, const SimtTarget *t,
                   const char *program_header, Out *o)
{
    Simt S;
    setup(&S, cc, m, bo, t);
    emit_host_prelude(o, &S, program_header);
    for (int i = 0; i < m->npops; i++)
        emit_host_props(o, &S, m->pops[i]);
    for (int k = 0; k < m->nprojs; k++)
        if (m->projs[k]->plast)
            emit_host_props(o, &S, m->projs[k]->plast->scope);
    for (int k = 0; k < m->nprojs; k++) {
        emit_host_build(o, &S, m->projs[k]);
        emit_host_save(o, m->projs[k]);
    }
    cg_mem_plan(o, m, 1);
    emit_host_records(o, &S);
    emit_host_schedule(o, &S, simt_schedule(m, S.arch, bo->gpu_mode));
    emit_host_ckpt(o, &S);
    emit_host_main(o, &S);
    free(S.args);
    return 0;
}

/* Write `data` (len bytes) as a C header defining nc_program[] and nc_program_len. */
int simt_write_program_header(Compiler *cc, const char *path, const unsigned char *data, size_t len)
{
    Out o = {0};
    out_line(&o, "/* the device program, embedded (generated by neuroc) */");
    out_line(&o, "static const unsigned char nc_program[] = {");
    StrBuf *b = &o.buf;
    for (size_t i = 0; i < len; i++)
        sb_printf(b, "%u,%s", data[i], i % 24 == 23 ? "\n" : "");
    sb_puts(b, "0};\n");
    out_line(&o, "static const size_t nc_program_len = %zu;", len);
    int rc = out_write_file(&o, path);
    if (rc != 0)
        error_at(cc, NOLOC, "cannot write '%s': %s", path, strerror(errno));
    out_free(&o);
    return rc;
}

/* Contract: codegen.h. */
int simt_spawn_host(Compiler *cc, const BuildOpts *bo, const char *src, const char *obj)
{
    const char *inc = arena_printf(&cc->arena, "-I%s", bo->include_dir);
    const char *inc2 = arena_printf(&cc->arena, "-I%s", bo->emit_dir);
    const char *args[] = {inc, inc2, "-c", src, "-o", obj, NULL};
    return cg_spawn(cc, cg_cc_argv(cc, bo, args), bo->verbose);
}

/* Contract: codegen.h. */
int simt_link_host(Compiler *cc, const IrModel *m, const BuildOpts *bo, const char *a, const char *b)
{
    const char *inc = arena_printf(&cc->arena, "-I%s", bo->include_dir);
    const char *inc2 = arena_printf(&cc->arena, "-I%s", bo->emit_dir);
    const char *lib = arena_printf(&cc->arena, "%s/libneurort.a", bo->lib_dir);
    /* distributed (--mpi): the MPI layer first; bo->cc is then the MPI compiler */
    const char *mlib = m->mpi ? arena_printf(&cc->arena, "%s/libneurort_mpi.a", bo->lib_dir) : "-lm";
    const char *args[] = {inc, inc2, a, mlib, lib, bo->hdf5_lib, "-lm", "-ldl", "-pthread", "-o", bo->output,
                          NULL, NULL};
    if (b) {                      /* after a: the program's sources first, then the libraries */
        memmove(&args[4], &args[3], 9 * sizeof args[0]);
        args[3] = b;
    }
    int rc = cg_run(cc, cg_cc_argv(cc, bo, args), bo->verbose);
    if (rc != 0) {
        error_at(cc, NOLOC, "the C compiler '%s' failed on the generated host program (%s)", bo->cc,
                 rc < 0 ? "could not run it" : "see its messages above");
        return -1;
    }
    return 0;
}

/* ===== host program =====} */
