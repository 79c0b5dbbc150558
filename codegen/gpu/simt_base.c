/* simt_base.c -- what every file of the GPU layer uses (simt_priv.h): the argument list
 * (simt_add_arg), the slots of nc_scal, the sizes of a recording chunk, the spike-word
 * layout of the cluster schedule, the device dialect of a population's code (storage in
 * kernel arguments and nc_scal, spike recording per variant), the predicates that say how
 * a projection is delivered (fused, order_free, own tables, cooperative rows), and a few
 * small emitters both the device and host programs share. It calls nothing above it: the
 * layout (simt_layout.c), the concerns and the program drivers call into it.
 */
#include <stdio.h>
#include <string.h>

#include "simt_priv.h"

void simt_add_arg(Simt *S, const char *name, const char *type, int kind)
{
    if (S->nargs == S->capargs) {
        S->capargs = S->capargs ? 2 * S->capargs : 32;
        S->args = xrealloc(S->args, (size_t)S->capargs * sizeof *S->args);
    }
    S->args[S->nargs] = (Arg){.name = name, .type = type, .kind = kind, .res = -1, .cres = -1};
    S->nall = ++S->nargs;
}

const char *simt_vtype(const IrVar *v)
{
    return v->type == IRT_REAL ? "real" : "int32_t";
}

/* Number of scalar variables (settable parameters) of the populations and of the scopes of
 * plastic projections: nc_scal's first slots, in simt_prop_owner order. */
int simt_n_scal_vars(const IrModel *m)
{
    int k = 0;
    for (int i = 0; i < simt_n_prop_owners(m); i++) {
        const IrPop *o = simt_prop_owner(m, i);
        for (int j = 0; j < o->nvars; j++)
            k += !o->vars[j]->per_neuron;
    }
    return k;
}

/* Slot of a scalar variable in nc_scal, or -1. */
int simt_scal_var(const Simt *S, const IrVar *v)
{
    int k = 0;
    for (int i = 0; i < simt_n_prop_owners(S->m); i++) {
        const IrPop *o = simt_prop_owner(S->m, i);
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
int simt_n_prop_owners(const IrModel *m)
{
    int n = m->npops;
    for (int k = 0; k < m->nprojs; k++)
        n += m->projs[k]->plast != NULL;
    return n;
}

const IrPop *simt_prop_owner(const IrModel *m, int i)
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
int simt_scal_prop(const Simt *S, const IrProp *p)
{
    int k = simt_n_scal_vars(S->m);
    for (int i = 0; i < simt_n_prop_owners(S->m); i++) {
        const IrPop *o = simt_prop_owner(S->m, i);
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

int64_t simt_max_pop(const IrModel *m)
{
    int64_t n = 1;
    for (int i = 0; i < m->npops; i++)
        if (m->pops[i]->size > n)
            n = m->pops[i]->size;
    return n;
}

double simt_est_synapses(const IrProj *j)
{
    return j->rule == IR_ALL_TO_ALL ? (double)j->pre.size * (double)j->post.size
         : j->rule == IR_ONE_TO_ONE ? (double)j->pre.size
         : j->rule == IR_FIXED_PROB ? j->p * (double)j->pre.size * (double)j->post.size
                                    : (double)j->k * (double)j->post.size;
}

/* --instances runs side by side in one process (one work-group per instance and launch):
 * a CUDA program with the block schedule (OpenCL 1.2 buffers have no device addresses to
 * put in nc_tab; a distributed program runs one network over its ranks). */
int simt_batched(const Simt *S)
{
    return S->has[SCHED_BLOCK] && !S->m->mpi && strcmp(S->t->name, "cuda") == 0;
}
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

/* The cluster schedule's spike words of population p in nc_xw: its 32-neuron words rounded
 * up to whole 16 bytes (R), four blocks of R (this group's staged words, then all groups'
 * words, each for two steps by parity) from entry simt_xw_off. */
int simt_xw_words(const IrPop *p)
{
    return (int)(((p->size + 31) / 32 + 3) / 4 * 4);
}

int simt_xw_off(const Simt *S, const IrPop *p)
{
    int off = 0;
    for (int i = 0; i < S->m->npops && S->m->pops[i] != p; i++)
        off += 4 * simt_xw_words(S->m->pops[i]);
    return off;
}

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
        sb_printf(out, "nc_scal[%d]", simt_scal_prop(S, p) + e->sub * nn + k);
}

/* The ring slot of j's ring for step expression `x` (+ `add`): without a delay the ring has 2
 * slots (simt_host_maxd: D = 1 + 1), so the slot is a bit; else x mod D. */
const char *simt_ring_slot(const Simt *S, const IrProj *j, const char *x, int add)
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
 * (`<proj>_slot`, simt_emit_neurons); in the grid schedules a work-item steps about one neuron,
 * which is in the post view of few projections, so each slot is computed where it is read
 * (simt_d_recv_grid): a neuron of the microcircuit pays for its 7 projections, not all 55, and
 * keeps 55 64-bit slots out of its registers. */
static void d_recv(const CgDialect *d, const IrProj *p, const char *local, Out *o)
{
    StrBuf at = {0};
    sb_printf(&at, "%s_slot + (%s - %lld)", p->cname, d->index, (long long)p->ring_off);
    out_line(o, "%s %s = %s_ring[%s];", d->real, local, p->cname, at.s);
    out_line(o, "%s_ring[%s] = 0;", p->cname, at.s);
    sb_free(&at);
}

void simt_d_recv_grid(const CgDialect *d, const IrProj *p, const char *local, Out *o)
{
    const Simt *S = d->user;
    out_line(o, "const int64_t %s_at = %s * %lld + (%s - %lld);", local, simt_ring_slot(S, p, "step", 0),
             (long long)p->ring_size, d->index, (long long)p->ring_off);
    out_line(o, "%s %s = %s_ring[%s_at];", d->real, local, p->cname, local);
    out_line(o, "%s_ring[%s_at] = 0;", p->cname, local);
}

/* A spike recording of a whole population (not of a part of it). */
static int rec_whole(const IrRecord *rec)
{
    return rec->view.offset == 0 && rec->view.size == rec->view.pop->size;
}

/* Contract: simt_priv.h. */
int simt_rec_counted(const IrRecord *rec)
{
    return rec->spikes || (rec->bin && !rec_whole(rec));
}

/* Spike recordings of a population (their positions in m->recs). The ordered compactions
 * (block, cluster) know each spike's rank in the step (`rank`): a
 * record of the whole population puts it at the step's first free place plus its rank
 * (nc_rb<r>, simt_rec_bases), with no atomic; rank NULL, or a record of a part: an atomic. */
void simt_spike_recs(const Simt *S, const IrPop *pop, Out *o, const char *rank)
{
    for (int v = 0; v < S->m->nviews; v++) {   /* the declared views' counts (the summary) */
        const IrView *w = &S->m->views[v].view;
        if (w->pop == pop)
            out_line(o, "if ((uint64_t)(n - %lld) < %lluu) nc_atomic_add_i32(&nc_cnt[%d + hf], 1);", (long long)w->offset,
                     (unsigned long long)w->size, S->cnt_view + 2 * v);
    }
    for (int r = 0; r < S->m->nrecs; r++) {
        const IrRecord *rec = &S->m->recs[r];
        if (!simt_rec_counted(rec) || rec->view.pop != pop)
            continue;
        if (rec->bin) {   /* the rate of a part: counted */
            out_line(o, "if (n >= %lld && n < %lld) nc_atomic_add_i32(&nc_cnt[%d + hf], 1);",
                     (long long)rec->view.offset, (long long)(rec->view.offset + rec->view.size),
                     S->cnt_rec + 2 * r);
            continue;
        }
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

/* simt_spike_recs with atomics (the distributed merge, simt_mpi.c) */
void simt_spike_recs_atomic(const Simt *S, const IrPop *pop, Out *o)
{
    simt_spike_recs(S, pop, o, NULL);
}

/* Before an ordered compaction of pop (every work-item that walks spikes): the first free
 * place of each whole-population spike record (simt_spike_recs); after it (one work-item, once
 * every work-item has read them): the places taken, `total` spikes. */
void simt_rec_bases(const Simt *S, const IrPop *pop, Out *o, const char *total)
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

int simt_has_spike_recs(const Simt *S, const IrPop *pop)
{
    for (int v = 0; v < S->m->nviews; v++)   /* counted where the spikes are recorded */
        if (S->m->views[v].view.pop == pop)
            return 1;
    for (int r = 0; r < S->m->nrecs; r++)
        if (simt_rec_counted(&S->m->recs[r]) && S->m->recs[r].view.pop == pop)
            return 1;
    return 0;
}

/* 1 when pop's neuron phase must write its spike flags in the grid schedules too: an
 * `on pre & post` handler of a plastic projection into pop reads them. */
int simt_plast_needs_flags(const IrModel *m, const IrPop *pop)
{
    for (int k = 0; k < m->nprojs; k++)
        if (m->projs[k]->plast && m->projs[k]->plast->on_prepost.n && m->projs[k]->post.pop == pop)
            return 1;
    return 0;
}

/* The grid schedules keep a spike flag per neuron of the step when a gathered delivery
 * (top-k targets) or an `on pre & post` handler reads it. */
int simt_spike_flags(const IrModel *m, const IrPop *p)
{
    return simt_needs_flags(m, p) || simt_plast_needs_flags(m, p);
}

/* A spike of a distributed simulator: a bit in this rank's exchange buffer (simt_mpi.c). */
void simt_mpi_spike(Out *o)
{
    out_line(o, "nc_atomic_or_u32(&nc_xs[nc_xo + (n >> 5)], 1u << (n & 31));");
}

static void d_spike_grid(const CgDialect *d, const IrPop *pop, Out *o)
{
    const Simt *S = d->user;
    if (S->m->mpi) {   /* distributed: a bit in this rank's exchange buffer (simt_mpi.c) */
        if (simt_mpi_replicated(S->m, pop)) {   /* every rank has it; rank 0 sends it */
            out_open(o, "if (nc_sl[2] == 0)");
            simt_mpi_spike(o);
            out_close(o);
        } else {
            simt_mpi_spike(o);
        }
        return;
    }
    out_begin(o);
    out_line(o, "const int k_ = nc_atomic_add_i32(&nc_cnt[%d + (int)(step & 1)], 1);", 2 * pop->id);
    out_line(o, "%s_spk[k_] = (int32_t)n;", pop->cname);
    if (simt_spike_flags(S->m, pop))
        out_line(o, "%s_fl[n] = 1;", pop->cname);
    simt_spike_recs(S, pop, o, NULL);
    out_close(o);
}

/* the block and cluster variants record a spike in the ordered compaction (simt_emit_neurons) */
void simt_d_spike_block(const CgDialect *d, const IrPop *pop, Out *o)
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

const char *simt_vname(int v)
{
    return v == V_CLUSTER ? "cluster" : v == V_BLOCK ? "block" : "grid";
}
/* The first and one past the last neuron of population p that variant v's work-group
 * steps: all of them, or its part, nc_part (computed once per launch into nc_own). */
const char *simt_own_lo(const Simt *S, int v, const IrPop *p)
{
    return v == V_CLUSTER ? arena_printf(&S->cc->arena, "(int64_t)nc_own[%d]", 2 * p->id) : "0";
}
const char *simt_own_hi(const Simt *S, int v, const IrPop *p)
{
    return v == V_CLUSTER ? arena_printf(&S->cc->arena, "(int64_t)nc_own[%d]", 2 * p->id + 1)
                          : arena_printf(&S->cc->arena, "%lld", (long long)p->size);
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

/* A procedural fixed_prob row is walked by a whole work-group (the grid delivery). */
int simt_coop_row(const IrProj *j)
{
    return j->procedural && j->rule == IR_FIXED_PROB && j->p > 0 && j->p < 1;
}

int simt_any_coop(const IrModel *m)
{
    for (int k = 0; k < m->nprojs; k++)
        if (simt_coop_row(m->projs[k]))
            return 1;
    return 0;
}

/* A stored, static projection of one weight (a constant): every add into its ring is the same
 * value, so the sums are the same bits in any order and the block schedule may add with
 * atomics, all work-items at once, instead of in the C back end's order. */
int simt_order_free(const IrProj *j)
{
    double v;
    return !j->plast && !j->procedural && j->rule != IR_FROM_FILE && ir_is_const(j->w, &v);
}

/* A stored, static projection whose grid delivery is fused with the others from its
 * presynaptic population (simt_emit_prop_fused). */
int simt_fused(const IrProj *j)
{
    return !j->plast && !j->procedural && !simt_gathers(j);
}

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
 * weight (simt_order_free) into a ring of their own (a shared ring with other weights would mix
 * them out of C's order). */
int simt_fused_in(const IrModel *m, const IrProj *j, int v)
{
    return simt_fused(j) && (v == V_GRID || (simt_order_free(j) && ring_alone(m, j)));
}

/* Whether the cluster kernel may hold j's own synapses in shared memory (simt_emit_own_tables):
 * fused, and no per-synapse delay (the table keeps targets, not synapse indices). */
static int own_table(const IrModel *m, const IrProj *j)
{
    return simt_fused_in(m, j, V_CLUSTER) && !j->delay;
}

int simt_own_table(const IrModel *m, const IrProj *j)
{
    return own_table(m, j);
}

int simt_n_own_tables(const IrModel *m)
{
    int n = 0;
    for (int k = 0; k < m->nprojs; k++)
        n += own_table(m, m->projs[k]);
    return n;
}

/* How many projections fused in variant v leave population pre. */
int simt_n_fused(const Simt *S, const IrPop *pre, int v)
{
    int n = 0;
    for (int k = 0; k < S->m->nprojs; k++)
        n += simt_fused_at(S, S->m->projs[k], v) && S->m->projs[k]->pre.pop == pre;
    return n;
}

int simt_fused_at(const Simt *S, const IrProj *j, int v)
{
    return simt_fused_in(S->m, j, v) && !(v == V_GRID && simt_fam_grid(S, j));
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
