/* simt_mpi.c -- distributed GPU simulators (neuroc --mpi --backend cuda|opencl): one GPU per
 * rank (docs/architecture.md, "Distributed GPU runs"; the C back end's --mpi is backend_c.c's).
 *
 * Each rank steps a word-aligned slice of every population: population p's N neurons are
 * W = ceil(N / 32) words of spike bits, and rank r of R owns words [W r / R, W (r + 1) / R).
 * The ranks exchange every D steps (nc_D, simt_mpi_host_interval: the shortest delay, that of
 * a plastic projection less one, 1 where simt_mpi_every_step says why). The neuron phase of a step sets the bits of its spikes in
 * the step's slot of this rank's send buffer nc_xs (D slots of the rank's words); after D
 * steps one gather brings every rank's slots into nc_xr (nrt_mpi_gpu_allgather: NCCL on the
 * compute stream, so a graph captures it, or MPI through the host); then for each step
 * nc_k_merge turns its bits into each population's spike list, ascending, as one GPU would
 * have it (and records the spikes; a population of more than 512 words in its own kernels,
 * nc_k_mcount_<pop> and nc_k_merge_<pop>, a work-group per 512 words: simt_merge.c), and
 * the unchanged delivery phase adds every rank's spikes
 * into this rank's synapses, which are only those onto its own neurons. A spike is delivered
 * at most D - 1 steps after it was fired, before the earliest step it arrives at, so the
 * results are one GPU's. Where D > 1, nc_k_rows records the states right after the neuron
 * phase (simt_mpi_host_steps). Each projection's columns are drawn whole, as on one GPU (the
 * same draws), and cut to the rank's columns on the device (nc_k_rbounds, nc_k_rcopy; rows in
 * draw order, fixed_total's: nc_k_rcount, nc_k_rfilt); a static projection is cut before its
 * values are drawn, for its own synapses only, keyed by their ranks in the whole rows
 * (simt_mpi_cut_first, nc_k_rrank); a procedural projection regenerates whole rows and adds
 * only into the rank's neurons.
 *
 * The table nc_sl (int64) tells every rank's slices: [0] ranks, [1] words of a slot of a
 * rank's buffer, [2] this rank, [3] D, then per (rank r, population p) at 4 + 3 (r NPOPS + p):
 * first word, end word, offset of p's words in a slot. With one rank nc_xr is nc_xs and NCCL
 * is not needed. A plastic projection is cut after its values (its states, delays and, where
 * recorded, each synapse's index in the whole projection, <c>_gid).
 *
 * Plastic projections (simt_plast_split): every phase of a step runs on the rank in one
 * GPU's order, step by step, and only the remote spikes come late. In step s: the arrivals
 * (`on pre`, post_first) and `on step` (phase 0), the neuron phase, then, where D > 1,
 * nc_k_lmerge lists the rank's own spikes of s of each population a plastic projection's
 * post side reads in the step (its words of nc_xs, before the exchange), and phase 2 runs
 * on them: the post { } scope, `on post`, the clock-driven synapse dynamics and, order
 * pre_first, `on pre` of the spikes arriving in s + 1. The pre { } work is taken out of the
 * phases into nc_k_pre0 (the scope's dynamics, the history `_h`, `_ha`) and nc_k_pre1 (its
 * `on spike`, `_ha`, the step's presynaptic spikes kept in `_hist` for their arrivals),
 * which run after nc_k_merge of the step, once every rank's spikes of it are known. What
 * each phase of step s reads, with d >= dmin the synapse's delay:
 *   `on pre` (pre_first, in s, arriving in s + 1; post_first, in s + 1): the spikes of
 *   e = s + 1 - d and the pre { } history of e;
 *   `on post` and clock-driven synapse dynamics: the history of s - d + 1 (`_h`, or `_ha`
 *   after `on spike`, pre_first);  `on step`: the history of s - d;
 *   the post { } scope, post.* and the post spikes: the rank's own neurons, of step s.
 * nothing reads a pre { } state but through its history (the handlers' dialect reads `_h`
 * and `_ha`; a projection without delays reads pre.x at once and has one step, so D = 1).
 * In an interval [s0, s0 + D) the histories and `_hist` are complete up to s0 - 1 (the
 * pre { } work of the previous interval ran after its exchange), and every read above is of
 * a step <= s + 1 - dmin <= s0 + D - dmin = s0 - 1 when D <= dmin - 1: D = dmin - 1 for
 * plastic projections (their shortest delay), dmin for static ones. With D = dmin, a remote
 * spike fired in s0 with delay dmin would be read by `on pre` in s0 + dmin - 1, the last
 * step of the interval, before the exchange brings it (mpi_gpu_stdp fails so). A history
 * slot is written once every arrival of its old content is done (slot e mod (maxd + 1)
 * last held e - maxd - 1, whose arrivals end by e - 1), and a slot not yet written holds a
 * step that no synapse's delay reaches (those are under dmin). Where D = 1 the exchange and
 * nc_k_merge come right after the neuron phase, then nc_k_pre0, nc_k_pre1 and phase 2: the
 * pre { } work moved before the rest of phase 2 is the same, as the rest reads the scope only
 * through its histories (of step s at the latest: `_h` before `on spike`, `_ha` after), so
 * a delay of one step stays exact. Rank 0 records every population's spikes at the merge,
 * as for static projections; synapse state rows in nc_k_rows, after phase 2 (one GPU: in
 * nc_k_synapses, after phase 2); a checkpoint is written at a chunk's end, which is an
 * interval's end (intervals run from the chunk's start), where every step's work is done.
 * The post { } scopes of the other ranks' neurons see no spikes of theirs: nothing reads
 * them (a rank's synapses are onto its own neurons).
 *
 * A top-k population's radix select runs over the rank's candidates, each
 * pass's histogram summed over the ranks by the host (simt_mpi_topk_sum), so every rank marks
 * one GPU's winners among its neurons; nc_k_merge writes the spike flags gathered deliveries
 * read. A population synapse code reads as presynaptic neurons is replicated
 * (simt_mpi_replicated: every rank steps it and keeps every synapse onto it; rank 0 owns its
 * words). --save-connectivity gathers every rank's synapses on rank 0 (simt_mpi_host_save).
 * Projection families (simt_family.c) are cut, guarded and gathered likewise (simt_mpi_fam_*).
 * Not distributed (refused by simt_mpi_check): the block, cluster and persistent schedules.
 */
#include <string.h>

#include "simt_priv.h"

static const SrcLoc NOLOC = {0, 0, 0, 0};

/* Whether a stored projection keeps its rows in draw order (fixed_total, rt_conn.c): its cut
 * to a rank's columns filters whole rows (nc_k_rcount, nc_k_rfilt) instead of bounding them. */
static int drawn_rows(const IrModel *m)
{
    for (int k = 0; k < m->nprojs; k++)
        if (m->projs[k]->rule == IR_FIXED_TOTAL && !m->projs[k]->procedural)
            return 1;
    return 0;
}

/* Whether every rank steps all of p: synapse code reads its neurons' changing variables as
 * presynaptic neurons (cg_mpi_reads_pre), as the C ranks replicate it. Its words of spike
 * bits are all rank 0's (the others own none), so that its spikes travel once; every rank
 * keeps every synapse onto it. */
int simt_mpi_replicated(const IrModel *m, const IrPop *p)
{
    return m->mpi && cg_mpi_reads_pre(m, p);
}

/* Whether j's synapse states are recorded in a distributed simulator: each kept synapse then
 * knows its index in the whole projection (<c>_gid, and <c>_gnnz the whole count), where its
 * values go in a recording row, merged on rank 0 (nrt_mpi_row). */
int simt_mpi_gid(const IrModel *m, const IrProj *j)
{
    if (!m->mpi || !j || !j->plast)
        return 0;
    for (int r = 0; r < m->nrecs; r++)
        if (m->recs[r].proj == j)
            return 1;
    return 0;
}

/* Whether a `set` by expression of j's synapses (PH_ASSIGN) runs in a distributed simulator:
 * each kept synapse then knows its rank in its whole row (<c>_rk), which keys the set's
 * draws as on one GPU (simt_set.c). */
int simt_mpi_rk(const IrModel *m, const IrProj *j)
{
    if (!m->mpi)
        return 0;
    for (int p = 0; p < m->nphases; p++)
        if (m->phases[p].kind == PH_ASSIGN && m->phases[p].proj == j)
            return 1;
    return 0;
}

/* Whether j is cut to the rank's columns before its values are drawn, so that a rank draws
 * and stores only its own synapses' values (keyed by their ranks in the whole rows, nc_rk):
 * a stored static projection built from a rule onto a population that is not replicated.
 * The others (plastic, from a file) are built whole and cut after (simt_mpi_host_restrict);
 * procedural ones and those onto a replicated population are not cut. */
int simt_mpi_cut_first(const IrModel *m, const IrProj *j)
{
    return m->mpi && !j->plast && !j->procedural && j->rule != IR_FROM_FILE && !simt_mpi_replicated(m, j->post.pop);
}

/* Whether --save-connectivity of more than one rank needs each kept synapse's rank in its
 * whole row to put j's rows together (a cut projection whose rows are in draw order,
 * fixed_total's): the cut keeps them on the host as <c>_hrk (keep_ranks). */
static int save_ranks(const IrModel *m, const IrProj *j)
{
    return m->mpi && j->rule == IR_FIXED_TOTAL && !j->procedural && !simt_mpi_replicated(m, j->post.pop);
}

/* After a cut that made nc_rk: <c>_hrk, the ranks on the host, for --save-connectivity. */
static void keep_ranks(Out *o, const IrProj *j)
{
    out_open(o, "if (ctx.save_conn && nrt_mpi_size(mpi) > 1)");
    out_line(o, "%s_hrk = nrt_alloc(&ctx, (size_t)(%s_csr.nnz ? %s_csr.nnz : 1) * sizeof(int32_t), \"%s: ranks in the rows\");",
             j->cname, j->cname, j->cname, j->name);
    out_line(o, "if (!%s_hrk || (%s_csr.nnz && nrt_gpu_read(gpu, nc_rk, 0, %s_hrk, (size_t)%s_csr.nnz * sizeof(int32_t)) != NRT_OK)) return -1;",
             j->cname, j->cname, j->cname, j->cname);
    out_close(o);
}

/* The synapse arrays (besides the columns) mpi_restrict cuts: 3, or a plastic projection's
 * states, delays and recording indices where they are more. */
static int restrict_arrays(const IrModel *m)
{
    int n = 3;
    for (int k = 0; k < m->nprojs; k++) {
        const IrProj *j = m->projs[k];
        const int a = j->plast ? j->plast->nsyn + !!j->delay + simt_mpi_gid(m, j) + simt_mpi_rk(m, j) : 0;
        if (a > n)
            n = a;
    }
    return n;
}

/* Why a distributed simulator must exchange every step (D = 1), or NULL when it may exchange
 * every D steps, D the shortest delay (less one for a plastic projection: the head comment;
 * simt_mpi_host_interval). Every phase but the delivery and the pre { } work then runs ahead
 * of the exchange by up to D - 1 steps, so nothing before them may read the step's spikes of
 * every rank (`on pre & post`: the arrival and its target's spike of one step, the flags;
 * top-k: its spikes come of a selection over the ranks, kept with it; spike flags: gathered
 * deliveries read them), nor may a delivery read presynaptic neurons' changing variables (a
 * replicated population's, which would have moved on by then; pre { } dynamics reading them
 * make it replicated too). */
const char *simt_mpi_every_step(const IrModel *m)
{
    for (int k = 0; k < m->nprojs; k++) {
        if (m->projs[k]->plast && m->projs[k]->plast->on_prepost.n)
            return "`on pre & post`: a synapse's arrival and its target's spike of one step";
        if (simt_gathers(m->projs[k]))
            return "a gathered delivery reads the spike flags of its step";
    }
    for (int i = 0; i < m->npops; i++) {
        const IrPop *p = m->pops[i];
        if (p->topk)
            return "top-k: its winners are chosen over the ranks each step";
        if (simt_spike_flags(m, p))
            return "spike flags are read in the step of the spike";
        if (simt_mpi_replicated(m, p))
            return "synapse code reads presynaptic variables of the step";
    }
    return NULL;
}

/* Whether the program keeps each projection's shortest delay in nc_cnt: a distributed one
 * (its exchange interval), or one with a plastic projection of per-synapse delays (its
 * arrivals start at that delay: simt_plast.c). */
int simt_min_delays(const IrModel *m)
{
    if (m->mpi)
        return 1;
    for (int k = 0; k < m->nprojs; k++)
        if (m->projs[k]->plast && m->projs[k]->delay)
            return 1;
    return 0;
}

/* After the atomic max of a synapse's delay dd in steps: the shortest delay of j as 2^30 - dd's
 * maximum in nc_cnt (0: no synapse), read by simt_mpi_host_interval (distributed) and by the
 * grid arrivals of a plastic projection (simt_plast.c). */
void simt_mpi_min_delay(Out *o, const Simt *S, const IrProj *j)
{
    if (S->m->mpi || (j->plast && j->delay))
        out_line(o, "nc_atomic_max_i32(&nc_cnt[%d], 0x40000000 - dd);", S->cnt_mind + j->id);
}

int simt_mpi_check(Compiler *cc, const IrModel *m, const char *gpu_mode)
{
    (void)m;
    if (gpu_mode && (strcmp(gpu_mode, "block") == 0 || strcmp(gpu_mode, "persistent") == 0 ||
                     strcmp(gpu_mode, "cluster") == 0)) {
        error_at(cc, NOLOC, "--mpi: the %s schedule runs on one GPU; distributed runs use launch or graph",
                 gpu_mode);
        return -1;
    }
    return 0;
}

void simt_mpi_args(Simt *S)
{
    simt_add_arg(S, "nc_xs", "uint32_t", ARG_MEM);
    simt_add_arg(S, "nc_xr", "uint32_t", ARG_MEM);
    simt_add_arg(S, "nc_sl", "int64_t", ARG_MEM);
    simt_add_arg(S, "nc_rk", "int32_t", ARG_MEM);   /* the ranks in the whole rows of the projection being built */
    if (simt_mpi_merge_blocks(S->m))   /* the spikes of each of nc_k_merge's groups (merge_groups) */
        simt_add_arg(S, "nc_mb", "int32_t", ARG_MEM);
    for (int k = 0; k < S->m->nprojs; k++) {
        const IrProj *j = S->m->projs[k];
        if (simt_mpi_gid(S->m, j)) {
            simt_add_arg(S, arena_printf(&S->cc->arena, "%s_gid", j->cname), "int64_t", ARG_MEM);
            simt_add_arg(S, arena_printf(&S->cc->arena, "%s_gnnz", j->cname), "int64_t", ARG_I64);
        }
        if (simt_mpi_rk(S->m, j))
            simt_add_arg(S, arena_printf(&S->cc->arena, "%s_rk", j->cname), "int32_t", ARG_MEM);
    }
}

/* {===== device program ===== */

/* At the top of population p's grid neuron phase: this rank's neurons [nc_lo, nc_hi) and
 * nc_xo, where neuron n's spike bit goes: bit n % 32 of nc_xs[nc_xo + n / 32], in the slot
 * of the step in its exchange interval (the step's index in the chunk, modulo nc_sl[3]). */
void simt_mpi_neuron_range(Out *o, const Simt *S, const IrPop *p)
{
    out_line(o, "const int64_t nc_e = 4 + 3 * (nc_sl[2] * %d + %d);", S->m->npops, p->id);
    if (simt_mpi_replicated(S->m, p))   /* every neuron on every rank; the bits are rank 0's */
        out_line(o, "const int64_t nc_lo = 0, nc_hi = %lld;", (long long)p->size);
    else
        out_line(o, "const int64_t nc_lo = 32 * nc_sl[nc_e], nc_hi = 32 * nc_sl[nc_e + 1] < %lld ? 32 * nc_sl[nc_e + 1] : %lld;",
                 (long long)p->size, (long long)p->size);
    out_line(o, "const int64_t nc_xo = nc_sl[nc_e + 2] - nc_sl[nc_e] + (nc_sl[3] > 1 ? (step - nc_ctl[1]) %% nc_sl[3] * nc_sl[1] : 0);");
}

/* Around a procedural projection's add of synapse (i, j) in the grid delivery: only onto
 * this rank's neurons (j is view-relative). Leaves a block open. */
void simt_mpi_proc_guard(Out *o, const Simt *S, const IrProj *j)
{
    if (simt_mpi_replicated(S->m, j->post.pop)) {   /* every rank steps every target */
        out_begin(o);
        return;
    }
    const char *e = arena_printf(&S->cc->arena, "4 + 3 * (nc_sl[2] * %d + %d)", S->m->npops, j->post.pop->id);
    out_open(o, "if (j + %lld >= 32 * nc_sl[%s] && j + %lld < 32 * nc_sl[%s + 1])", (long long)j->post.offset, e,
             (long long)j->post.offset, e);
}

/* In nc_tail, before a recorded per-neuron value of pop is copied for neuron n: whether this
 * rank steps n (the others write +0.0, and rank 0 receives the bitwise OR, nrt_mpi_row). */
void simt_mpi_owner(Out *o, const Simt *S, const IrPop *p)
{
    out_line(o, "const int64_t nc_e = 4 + 3 * (nc_sl[2] * %d + %d);", S->m->npops, p->id);
    out_line(o, "const int nc_own = n >= 32 * nc_sl[nc_e] && n < 32 * nc_sl[nc_e + 1];");
    out_line(o, "(void)nc_own;");
}

/* The merge kernels (simt_merge.c), nc_k_rows and the kernels that cut a projection to this
 * rank's columns. spike_recs: the spike recordings of a population for neuron `n`. */
void simt_mpi_device(Out *o, const Simt *S, void (*spike_recs)(const Simt *, const IrPop *, Out *))
{
    simt_merge_device(o, S, spike_recs);
    if (simt_plast_split(S->m)) {   /* plastic projections: the rank's own spikes at once, the pre { } work after the merge */
        simt_merge_local_device(o, S);
        simt_plast_split_kernels(o, S);
    }
    out_line(o, "/* distributed runs exchanging every D > 1 steps: the state records and checks of step nc_ctl[3]");
    out_line(o, " * before the exchange: after its neuron phase, and with plastic projections their own phase 2 (nc_k_synapses");
    out_line(o, " * then records only the counts); it advances nc_ctl[0] */");
    simt_kernel_open(o, S, "NC_KERNEL nc_k_rows(NC_ARGS)");
    out_line(o, "const int64_t step = nc_ctl[3];");
    out_line(o, "const int hf = (int)nc_ctl[2];");
    out_line(o, "nc_tail(NC_PASS, step, hf, 0, 0, 1, nc_ctl[1], nc_fin[0], 2, 0);");
    out_line(o, "if (NC_GID == 0) nc_ctl[0] = step + 1;");
    out_close(o);
    out_blank(o);
    out_line(o, "/* distributed runs: the part of each row onto columns [a, b) (columns ascend in a row) */");
    out_open(o, "NC_KERNEL nc_k_rbounds(NC_G const int64_t *rp, NC_G const int32_t *col, NC_G int64_t *bounds, int64_t n, int32_t a, int32_t b)");
    out_open(o, "for (int64_t i = NC_GID; i < n; i += NC_GSIZE)");
    out_line(o, "int64_t lo = rp[i], hi = rp[i + 1];");
    out_open(o, "while (lo < hi)");
    out_line(o, "const int64_t mid = lo + (hi - lo) / 2;");
    out_line(o, "if (col[mid] < a) lo = mid + 1; else hi = mid;");
    out_close(o);
    out_line(o, "bounds[2 * i] = lo;");
    out_line(o, "hi = rp[i + 1];");
    out_open(o, "while (lo < hi)");
    out_line(o, "const int64_t mid = lo + (hi - lo) / 2;");
    out_line(o, "if (col[mid] < b) lo = mid + 1; else hi = mid;");
    out_close(o);
    out_line(o, "bounds[2 * i + 1] = lo;");
    out_close(o);
    out_close(o);
    out_line(o, "/* ... each kept synapse's rank in its whole row (the key of its values' draws) ... */");
    out_open(o, "NC_KERNEL nc_k_rrank(NC_G const int64_t *bounds, NC_G const int64_t *rp, NC_G const int64_t *nrp, NC_G int32_t *rk, int64_t n)");
    out_open(o, "for (int64_t i = NC_GID; i < n; i += NC_GSIZE)");
    out_line(o, "for (int64_t k = 0; k < bounds[2 * i + 1] - bounds[2 * i]; k++) rk[nrp[i] + k] = (int32_t)(bounds[2 * i] - rp[i] + k);");
    out_close(o);
    out_close(o);
    out_line(o, "/* ... and those parts copied end to end: `words` 32-bit words per synapse */");
    out_open(o, "NC_KERNEL nc_k_rcopy(NC_G const int64_t *bounds, NC_G const int64_t *nrp, NC_G const uint32_t *src, NC_G uint32_t *dst, int64_t n, int32_t words)");
    out_open(o, "for (int64_t i = NC_GID; i < n; i += NC_GSIZE)");
    out_line(o, "const int64_t from = bounds[2 * i] * words, len = (bounds[2 * i + 1] - bounds[2 * i]) * words, to = nrp[i] * words;");
    out_line(o, "for (int64_t k = 0; k < len; k++) dst[to + k] = src[from + k];");
    out_close(o);
    out_close(o);
    out_blank(o);
    if (drawn_rows(S->m)) {
        out_line(o, "/* rows in draw order (fixed_total): how many of each row's synapses are onto [a, b) ... */");
        out_open(o, "NC_KERNEL nc_k_rcount(NC_G const int64_t *rp, NC_G const int32_t *col, NC_G int64_t *bounds, int64_t n, int32_t a, int32_t b)");
        out_open(o, "for (int64_t i = NC_GID; i < n; i += NC_GSIZE)");
        out_line(o, "int64_t c = 0;");
        out_line(o, "for (int64_t s = rp[i]; s < rp[i + 1]; s++) c += col[s] >= a && col[s] < b;");
        out_line(o, "bounds[2 * i] = 0;");
        out_line(o, "bounds[2 * i + 1] = c;");
        out_close(o);
        out_close(o);
        out_line(o, "/* ... each kept synapse's rank in its whole row ... */");
        out_open(o, "NC_KERNEL nc_k_rrankf(NC_G const int64_t *rp, NC_G const int32_t *col, NC_G const int64_t *nrp, NC_G int32_t *rk, int64_t n, int32_t a, int32_t b)");
        out_open(o, "for (int64_t i = NC_GID; i < n; i += NC_GSIZE)");
        out_line(o, "int64_t to = nrp[i];");
        out_line(o, "for (int64_t s = rp[i]; s < rp[i + 1]; s++) if (col[s] >= a && col[s] < b) rk[to++] = (int32_t)(s - rp[i]);");
        out_close(o);
        out_close(o);
        out_line(o, "/* ... and those synapses copied, in row order: `words` 32-bit words per synapse */");
        out_open(o, "NC_KERNEL nc_k_rfilt(NC_G const int64_t *rp, NC_G const int32_t *col, NC_G const int64_t *nrp, NC_G const uint32_t *src, NC_G uint32_t *dst, int64_t n, int32_t words, int32_t a, int32_t b)");
        out_open(o, "for (int64_t i = NC_GID; i < n; i += NC_GSIZE)");
        out_line(o, "int64_t to = nrp[i] * words;");
        out_open(o, "for (int64_t s = rp[i]; s < rp[i + 1]; s++)");
        out_line(o, "if (col[s] < a || col[s] >= b) continue;");
        out_line(o, "for (int64_t k = 0; k < words; k++) dst[to++] = src[s * words + k];");
        out_close(o);
        out_close(o);
        out_close(o);
        out_blank(o);
    }
}

/* ===== device program =====} */

/* {===== host program ===== */

void simt_mpi_host_decls(Out *o, const Simt *S)
{
    out_line(o, "static nrt_mpi *mpi;");
    out_line(o, "static nrt_kernel *k_merge, *k_rows, *k_rbounds, *k_rcopy, *k_rrank;");
    if (simt_mpi_merge_blocks(S->m))
        for (int i = 0; i < S->m->npops; i++)
            if (simt_merge_groups(S->m->pops[i]) > 1)
                out_line(o, "static nrt_kernel *k_mcount_%s, *k_merge_%s; /* %s: several merge groups */", S->m->pops[i]->cname,
                         S->m->pops[i]->cname, S->m->pops[i]->name);
    if (simt_plast_split(S->m))
        out_line(o, "static nrt_kernel *k_lmerge, *k_pre0, *k_pre1; /* plastic projections (simt_mpi_host_steps) */");
    out_line(o, "static int64_t nc_D = 1; /* steps between exchanges (simt_mpi_host_interval) */");
    out_line(o, "static int nc_every_step; /* $NEUROC_MPI_EVERY_STEP=1: D = 1 whatever the delays */");
    for (int k = 0; k < S->m->nprojs; k++)
        if (save_ranks(S->m, S->m->projs[k]))
            out_line(o, "static int32_t *%s_hrk; /* --save-connectivity: ranks in the whole rows */", S->m->projs[k]->cname);
    if (drawn_rows(S->m))
        out_line(o, "static nrt_kernel *k_rcount, *k_rfilt, *k_rrankf; /* rows in draw order (fixed_total) */");
    out_line(o, "static int64_t nc_lo[%d], nc_hi[%d]; /* this rank's neurons of each population */", S->m->npops,
             S->m->npops);
    out_line(o, "static size_t nc_xbytes; /* one rank's spike bits */");
    out_blank(o);
    if (simt_topk_any(S->m)) {
        out_line(o, "/* top-k: pass p's histogram of every top-k population summed over the ranks, in place, so");
        out_line(o, " * that every rank picks the buckets one GPU picks (simt_topk.c) */");
        out_open(o, "static int simt_mpi_topk_sum(int p)");
        out_line(o, "if (nrt_mpi_size(mpi) == 1) return 0;");
        for (int i = 0; i < S->m->npops; i++)
            if (S->m->pops[i]->topk && !simt_mpi_replicated(S->m, S->m->pops[i]))   /* replicated: every rank's own */
                out_line(o, "if (nrt_mpi_gpu_sum_i32(&ctx, gpu, %s_tkh, (size_t)p * 256 * sizeof(int32_t), 256) != NRT_OK) return -1;",
                         S->m->pops[i]->cname);
        out_line(o, "return 0;");
        out_close(o);
        out_blank(o);
    }
    out_line(o, "/* Cut a projection to this rank's columns [a, b) on the device: the CSR, then each synapse");
    out_line(o, " * array of `words` 32-bit words per synapse (NULL entries skipped); the old buffers freed.");
    out_line(o, " * drawn: rows in draw order (fixed_total), filtered whole, the columns last. rk (or NULL):");
    out_line(o, " * made, each kept synapse's rank in its whole row. */");
    const int na = restrict_arrays(S->m);
    out_open(o, "static int mpi_restrict(nrt_dcsr *c, int32_t a, int32_t b, nrt_dmem *arr[%d], const int words[%d], int drawn, const char *what, nrt_dmem *rk)",
             na, na);
    out_line(o, "nrt_kernel *kb = k_rbounds;");
    if (drawn_rows(S->m))
        out_line(o, "if (drawn) kb = k_rcount;");
    else
        out_line(o, "(void)drawn;");
    out_line(o, "const int64_t n = c->n_pre;");
    out_line(o, "nrt_dmem bounds = {0, 0}, nrp = {0, 0};");
    out_line(o, "int64_t *hb = nrt_alloc(&ctx, (size_t)(2 * n + 1) * sizeof *hb, what);");
    out_line(o, "int64_t *hr = nrt_alloc(&ctx, (size_t)(n + 1) * sizeof *hr, what);");
    out_line(o, "if (!hb || !hr || dalloc(&bounds, (size_t)(2 * n + 1) * sizeof(int64_t), what)) return -1;");
    out_line(o, "if (nrt_gpu_arg_mem(kb, 0, c->row_ptr) || nrt_gpu_arg_mem(kb, 1, c->nnz ? c->col : nc_dummy)");
    out_line(o, "    || nrt_gpu_arg_mem(kb, 2, bounds) || nrt_gpu_arg_i64(kb, 3, n)");
    out_line(o, "    || nrt_gpu_arg_i32(kb, 4, a) || nrt_gpu_arg_i32(kb, 5, b)");
    out_line(o, "    || nrt_gpu_launch(kb, (size_t)(n + 255) / 256, 256, 0) != NRT_OK");
    out_line(o, "    || nrt_gpu_read(gpu, bounds, 0, hb, (size_t)(2 * n) * sizeof *hb) != NRT_OK) return -1;");
    out_line(o, "hr[0] = 0;");
    out_line(o, "for (int64_t i = 0; i < n; i++) hr[i + 1] = hr[i] + (hb[2 * i + 1] - hb[2 * i]);");
    out_line(o, "const int64_t nnz = hr[n];");
    out_line(o, "nrt_dmem ncol = {0, 0};");
    out_line(o, "if (dalloc(&nrp, (size_t)(n + 1) * sizeof(int64_t), what) || nrt_gpu_write(gpu, nrp, 0, hr, (size_t)(n + 1) * sizeof *hr) != NRT_OK");
    out_line(o, "    || dalloc(&ncol, (size_t)nnz * sizeof(int32_t), what)) return -1;");
    out_open(o, "if (rk)");
    out_line(o, "nrt_kernel *kr = k_rrank;");
    out_line(o, "if (dalloc(rk, (size_t)nnz * sizeof(int32_t), what)) return -1;");
    if (drawn_rows(S->m)) {
        out_open(o, "if (drawn)");
        out_line(o, "kr = k_rrankf;");
        out_line(o, "if (nnz && (nrt_gpu_arg_mem(kr, 0, c->row_ptr) || nrt_gpu_arg_mem(kr, 1, c->col) || nrt_gpu_arg_mem(kr, 2, nrp)");
        out_line(o, "    || nrt_gpu_arg_mem(kr, 3, *rk) || nrt_gpu_arg_i64(kr, 4, n) || nrt_gpu_arg_i32(kr, 5, a) || nrt_gpu_arg_i32(kr, 6, b)");
        out_line(o, "    || nrt_gpu_launch(kr, (size_t)(n + 255) / 256, 256, 0) != NRT_OK)) return -1;");
        out_close(o);
        out_open(o, "else");
    } else {
        out_begin(o);
    }
    out_line(o, "if (nnz && (nrt_gpu_arg_mem(kr, 0, bounds) || nrt_gpu_arg_mem(kr, 1, c->row_ptr) || nrt_gpu_arg_mem(kr, 2, nrp)");
    out_line(o, "    || nrt_gpu_arg_mem(kr, 3, *rk) || nrt_gpu_arg_i64(kr, 4, n)");
    out_line(o, "    || nrt_gpu_launch(kr, (size_t)(n + 255) / 256, 256, 0) != NRT_OK)) return -1;");
    out_close(o);
    out_close(o);
    StrBuf al = {0}, wl = {0};
    for (int q = 0; q < na; q++) {
        sb_printf(&al, ", arr[%d]", q);
        sb_printf(&wl, ", words[%d]", q);
    }
    out_line(o, "nrt_dmem *all[%d] = {&c->col%s};", na + 1, al.s);
    out_line(o, "const int w4[%d] = {1%s};", na + 1, wl.s);
    sb_free(&al);
    sb_free(&wl);
    out_open(o, "for (int qi = 0; qi < %d; qi++)", na + 1);
    out_line(o, "const int q = drawn ? %d - qi : qi; /* drawn: the columns filter the others, so they go last */", na);
    out_line(o, "if (!all[q]) continue;");
    out_line(o, "nrt_dmem to = {0, 0};");
    out_line(o, "if (q == 0) to = ncol;");
    out_line(o, "else if (dalloc(&to, (size_t)nnz * (size_t)w4[q] * 4, what)) return -1;");
    if (drawn_rows(S->m)) {
        out_open(o, "if (drawn)");
        out_line(o, "if (nnz && (nrt_gpu_arg_mem(k_rfilt, 0, c->row_ptr) || nrt_gpu_arg_mem(k_rfilt, 1, c->col)");
        out_line(o, "    || nrt_gpu_arg_mem(k_rfilt, 2, nrp) || nrt_gpu_arg_mem(k_rfilt, 3, *all[q]) || nrt_gpu_arg_mem(k_rfilt, 4, to)");
        out_line(o, "    || nrt_gpu_arg_i64(k_rfilt, 5, n) || nrt_gpu_arg_i32(k_rfilt, 6, w4[q])");
        out_line(o, "    || nrt_gpu_arg_i32(k_rfilt, 7, a) || nrt_gpu_arg_i32(k_rfilt, 8, b)");
        out_line(o, "    || nrt_gpu_launch(k_rfilt, (size_t)(n + 255) / 256, 256, 0) != NRT_OK)) return -1;");
        out_close(o);
        out_open(o, "else");
    } else {
        out_begin(o);
    }
    out_line(o, "if (nnz && (nrt_gpu_arg_mem(k_rcopy, 0, bounds) || nrt_gpu_arg_mem(k_rcopy, 1, nrp)");
    out_line(o, "    || nrt_gpu_arg_mem(k_rcopy, 2, *all[q]) || nrt_gpu_arg_mem(k_rcopy, 3, to)");
    out_line(o, "    || nrt_gpu_arg_i64(k_rcopy, 4, n) || nrt_gpu_arg_i32(k_rcopy, 5, w4[q])");
    out_line(o, "    || nrt_gpu_launch(k_rcopy, (size_t)(n + 255) / 256, 256, 0) != NRT_OK)) return -1;");
    out_close(o);
    out_line(o, "if (nrt_gpu_sync(gpu) != NRT_OK) return -1;");
    out_line(o, "nrt_gpu_free(gpu, all[q]);");
    out_line(o, "*all[q] = to;");
    out_close(o);
    out_line(o, "nrt_gpu_free(gpu, &c->row_ptr);");
    out_line(o, "c->row_ptr = nrp;");
    out_line(o, "c->nnz = nnz;");
    out_line(o, "nrt_gpu_free(gpu, &bounds);");
    out_line(o, "nrt_free(hb);");
    out_line(o, "nrt_free(hr);");
    out_line(o, "return 0;");
    out_close(o);
    out_blank(o);
}

/* <c>_rk, each synapse's rank in its row, of j's whole CSR (made on the host). */
static void emit_ranks(Out *o, const IrProj *j)
{
    const char *c = j->cname;
    out_begin(o);
    out_line(o, "const int64_t n = %s_csr.n_pre, nnz = %s_csr.nnz;", c, c);
    out_line(o, "int64_t *rp = nrt_alloc(&ctx, (size_t)(n + 1) * sizeof *rp, \"%s: ranks in the rows\");", j->name);
    out_line(o, "int32_t *rk = nrt_alloc(&ctx, (size_t)(nnz ? nnz : 1) * sizeof *rk, \"%s: ranks in the rows\");", j->name);
    out_line(o, "int bad = !rp || !rk || nrt_gpu_read(gpu, %s_csr.row_ptr, 0, rp, (size_t)(n + 1) * sizeof *rp) != NRT_OK;", c);
    out_line(o, "for (int64_t i = 0; i < n && !bad; i++)");
    out_line(o, "    for (int64_t s = rp[i]; s < rp[i + 1]; s++) rk[s] = (int32_t)(s - rp[i]);");
    out_line(o, "bad = bad || dalloc(&%s_rk, (size_t)nnz * sizeof *rk, \"%s: ranks in the rows\")", c, j->name);
    out_line(o, "    || nrt_gpu_write(gpu, %s_rk, 0, rk, (size_t)nnz * sizeof *rk) != NRT_OK;", c);
    out_line(o, "nrt_free(rp);");
    out_line(o, "nrt_free(rk);");
    out_line(o, "if (bad) return -1;");
    out_close(o);
}

/* In build_<proj> of a projection cut first (simt_mpi_cut_first), once its whole CSR exists:
 * keep the columns onto this rank's neurons, and in nc_rk each one's rank in its whole row,
 * which keys the draws of its values (simt_device.c's nc_k_syn_g<n>). */
void simt_mpi_host_cut_first(Out *o, const Simt *S, const IrProj *j)
{
    const char *c = j->cname;
    long long off = (long long)j->post.offset, size = (long long)j->post.size;
    const int pid = j->post.pop->id, na = restrict_arrays(S->m);
    out_open(o, "if (nrt_mpi_size(mpi) > 1)");
    out_line(o, "/* this rank's part of the view: columns [a, b); the values are drawn for them only */");
    out_line(o, "const int64_t a0 = nc_lo[%d] - %lld, b0 = nc_hi[%d] - %lld;", pid, off, pid, off);
    out_line(o, "const int32_t a = (int32_t)(a0 < 0 ? 0 : a0 > %lld ? %lld : a0), b = (int32_t)(b0 < a ? a : b0 > %lld ? %lld : b0);",
             size, size, size, size);
    out_line(o, "nrt_dmem *arr[%d] = {NULL};", na);
    out_line(o, "const int words[%d] = {0};", na);
    out_line(o, "if (mpi_restrict(&%s_csr, a, b, arr, words, %d, \"%s: this rank's synapses\", &nc_rk)) return -1;", c,
             j->rule == IR_FIXED_TOTAL, j->name);
    out_line(o, "ts = nrt_stage(&ctx, \"%s: this rank's columns\", ts);", j->name);
    out_close(o);
}

/* ... and once its values are drawn: nc_rk kept as <c>_rk where a `set` by expression needs it
 * (simt_mpi_rk; one rank: made whole), on the host as <c>_hrk for --save-connectivity where
 * the rows are in draw order (save_ranks), else freed. */
void simt_mpi_host_after_values(Out *o, const Simt *S, const IrProj *j)
{
    if (save_ranks(S->m, j))
        keep_ranks(o, j);
    if (simt_mpi_rk(S->m, j)) {
        out_open(o, "if (nrt_mpi_size(mpi) > 1)");
        out_line(o, "%s_rk = nc_rk;", j->cname);
        out_line(o, "nc_rk.h = 0;");
        out_line(o, "nc_rk.bytes = 0;");
        out_close(o);
        out_open(o, "else");
        emit_ranks(o, j);
        out_close(o);
    }
    out_line(o, "nrt_gpu_free(gpu, &nc_rk);");
}

/* In build_<proj>, once its synapses and values exist: keep only those onto this rank's
 * neurons: the weights and delays, or a plastic projection's states and delays, and where
 * they are recorded (simt_mpi_gid) each synapse's index in the whole projection. */
void simt_mpi_host_restrict(Out *o, const Simt *S, const IrProj *j)
{
    const char *c = j->cname;
    long long off = (long long)j->post.offset, size = (long long)j->post.size;
    int pid = j->post.pop->id, na = restrict_arrays(S->m), gid = simt_mpi_gid(S->m, j);
    if (gid) {   /* before the cut: the synapses' indices 0, 1, ... (one GPU's order) */
        out_line(o, "%s_gnnz = %s_csr.nnz;", c, c);
        out_begin(o);
        out_line(o, "int64_t *ix = nrt_alloc(&ctx, (size_t)(%s_gnnz ? %s_gnnz : 1) * sizeof *ix, \"%s: synapse indices\");",
                 c, c, j->name);
        out_line(o, "if (!ix) return -1;");
        out_line(o, "for (int64_t s = 0; s < %s_gnnz; s++) ix[s] = s;", c);
        out_line(o, "const int bad = dalloc(&%s_gid, (size_t)%s_gnnz * sizeof *ix, \"%s: synapse indices\")", c, c, j->name);
        out_line(o, "    || nrt_gpu_write(gpu, %s_gid, 0, ix, (size_t)%s_gnnz * sizeof *ix) != NRT_OK;", c, c);
        out_line(o, "nrt_free(ix);");
        out_line(o, "if (bad) return -1;");
        out_close(o);
    }
    if (simt_mpi_rk(S->m, j))   /* before the cut: each synapse's rank in its row */
        emit_ranks(o, j);
    if (simt_mpi_replicated(S->m, j->post.pop)) {   /* every rank steps every target */
        out_line(o, "/* %s is replicated: every rank keeps every synapse */", j->post.pop->name);
        return;
    }
    out_open(o, "if (nrt_mpi_size(mpi) > 1)");
    out_line(o, "/* this rank's part of the view: columns [a, b) */");
    out_line(o, "const int64_t a0 = nc_lo[%d] - %lld, b0 = nc_hi[%d] - %lld;", pid, off, pid, off);
    out_line(o, "const int32_t a = (int32_t)(a0 < 0 ? 0 : a0 > %lld ? %lld : a0), b = (int32_t)(b0 < a ? a : b0 > %lld ? %lld : b0);",
             size, size, size, size);
    StrBuf arr = {0}, words = {0};
    int n = 0;
    if (j->plast) {
        for (int k = 0; k < j->plast->nsyn; k++, n++) {
            const IrVar *v = j->plast->syn[k];
            sb_printf(&arr, "%s&%s", n ? ", " : "", v->cname);
            sb_printf(&words, "%s%s", n ? ", " : "", v->type == IRT_REAL ? "(int)(sizeof(real) / 4)" : "1");
        }
    } else {
        sb_printf(&arr, "&%s_w", c);
        sb_printf(&words, "(int)(sizeof(real) / 4)");
        n++;
    }
    if (j->delay) {
        sb_printf(&arr, ", &%s_d", c);
        sb_printf(&words, ", 1");
        n++;
    }
    if (gid) {
        sb_printf(&arr, ", &%s_gid", c);
        sb_printf(&words, ", 2");
        n++;
    }
    if (simt_mpi_rk(S->m, j)) {
        sb_printf(&arr, ", &%s_rk", c);
        sb_printf(&words, ", 1");
        n++;
    }
    for (; n < na; n++) {
        sb_printf(&arr, ", NULL");
        sb_printf(&words, j->plast ? ", 0" : n == 1 ? ", 1" : ", 0");
    }
    out_line(o, "nrt_dmem *arr[%d] = {%s};", na, arr.s);
    out_line(o, "const int words[%d] = {%s};", na, words.s);
    sb_free(&arr);
    sb_free(&words);
    out_line(o, "if (mpi_restrict(&%s_csr, a, b, arr, words, %d, \"%s: this rank's synapses\", %s)) return -1;", c,
             j->rule == IR_FIXED_TOTAL, j->name, save_ranks(S->m, j) ? "ctx.save_conn ? &nc_rk : NULL" : "NULL");
    if (save_ranks(S->m, j)) {   /* rows in draw order: their ranks for --save-connectivity */
        keep_ranks(o, j);
        out_line(o, "nrt_gpu_free(gpu, &nc_rk);");
    }
    out_line(o, "%s_rp = %s_csr.row_ptr;", c, c);
    out_line(o, "%s_col = %s_csr.col;", c, c);
    out_close(o);
}

/* In save_<proj> of a distributed simulator, once this rank's part is in c, w and d (and
 * `bad` says whether reading it failed): every rank's part to rank 0, in one GPU's order
 * (nrt_mpi_gather_csr). Replicated and procedural projections are whole on every rank. */
void simt_mpi_host_save(Out *o, const Simt *S, const IrProj *j)
{
    if (simt_mpi_replicated(S->m, j->post.pop) || j->procedural)
        return;
    const char *rk = save_ranks(S->m, j) ? arena_printf(&S->cc->arena, "%s_hrk", j->cname) : "NULL";
    out_open(o, "if (!bad && nrt_mpi_size(mpi) > 1)");
    out_line(o, "void *wv = w;");
    out_line(o, "bad = nrt_mpi_gather_csr(&ctx, mpi, &c, &wv, (int)sizeof(real), &d, %s) != NRT_OK;", rk);
    out_line(o, "w = wv;");
    if (save_ranks(S->m, j)) {
        out_line(o, "nrt_free(%s_hrk);", j->cname);
        out_line(o, "%s_hrk = NULL;", j->cname);
    }
    out_close(o);
}

/* In main, after nrt_init: the ranks, this rank's device, the refusals that need one rank. */
void simt_mpi_host_start(Out *o, const Simt *S)
{
    cg_mpi_start(o, 1);
    out_begin(o);
    out_line(o, "const char *e = getenv(\"NEUROC_MPI_EVERY_STEP\");");
    out_open(o, "if (e && *e && strcmp(e, \"0\") != 0 && strcmp(e, \"1\") != 0)");
    out_line(o, "if (nrt_mpi_rank(mpi) == 0) fprintf(stderr, \"%%s: error: NEUROC_MPI_EVERY_STEP='%%s' is not 0 or 1\\n\", argv[0], e);");
    out_line(o, "return 2; /* on every rank: MPI_Finalize runs at exit */");
    out_close(o);
    out_line(o, "nc_every_step = e && strcmp(e, \"1\") == 0;");
    out_close(o);
    out_line(o, "/* one GPU per rank: the rank's index on its host, unless --device or $NEUROC_DEVICE says */");
    out_open(o, "if (ctx.device < 0 && !getenv(\"NEUROC_DEVICE\"))");
    out_line(o, "const int ndev = nrt_gpu_count(&ctx, %s);", S->t->api);
    out_line(o, "if (ndev > 0) ctx.device = nrt_mpi_local_rank(mpi) %% ndev;");
    out_close(o);
    out_line(o, "/* --dry-run: rank 0 prints the plan; the others leave, after nrt_mpi_local_rank, which every rank calls */");
    out_line(o, "if (ctx.dry_run && nrt_mpi_rank(mpi) != 0) return 0;");
}

/* In main, once the device is open and the program loaded: the slice table, the exchange
 * buffers, NCCL (more than one rank). */
void simt_mpi_host_slices(Out *o, const Simt *S)
{
    const IrModel *m = S->m;
    out_line(o, "if (!(k_merge = nrt_gpu_kernel(gpu, \"nc_k_merge\", NC_NARGS + 1))) return fail(argv[0]);");
    out_line(o, "if (!(k_rows = nrt_gpu_kernel(gpu, \"nc_k_rows\", NC_NARGS))) return fail(argv[0]);");
    if (simt_mpi_merge_blocks(m)) {
        for (int i = 0; i < m->npops; i++) {
            const char *c = m->pops[i]->cname;
            if (simt_merge_groups(m->pops[i]) == 1)
                continue;
            if (m->pops[i]->has_spikes)
                out_line(o, "if (!(k_mcount_%s = nrt_gpu_kernel(gpu, \"nc_k_mcount_%s\", NC_NARGS + 1))) return fail(argv[0]);", c, c);
            out_line(o, "if (!(k_merge_%s = nrt_gpu_kernel(gpu, \"nc_k_merge_%s\", NC_NARGS + 1))) return fail(argv[0]);", c, c);
        }
        out_line(o, "if (dalloc(&nc_mb, %d * sizeof(int32_t), \"merge groups\")) return fail(argv[0]);", simt_merge_first(m, m->npops));
    }
    if (simt_merge_local_pops(m))
        out_line(o, "if (!(k_lmerge = nrt_gpu_kernel(gpu, \"nc_k_lmerge\", NC_NARGS + 1))) return fail(argv[0]);");
    if (simt_plast_split_pre0(m))
        out_line(o, "if (!(k_pre0 = nrt_gpu_kernel(gpu, \"nc_k_pre0\", NC_NARGS))) return fail(argv[0]);");
    if (simt_plast_split(m))
        out_line(o, "if (!(k_pre1 = nrt_gpu_kernel(gpu, \"nc_k_pre1\", NC_NARGS))) return fail(argv[0]);");
    out_line(o, "if (!(k_rbounds = nrt_gpu_kernel(gpu, \"nc_k_rbounds\", 6))) return fail(argv[0]);");
    out_line(o, "if (!(k_rcopy = nrt_gpu_kernel(gpu, \"nc_k_rcopy\", 6))) return fail(argv[0]);");
    out_line(o, "if (!(k_rrank = nrt_gpu_kernel(gpu, \"nc_k_rrank\", 5))) return fail(argv[0]);");
    if (drawn_rows(m)) {
        out_line(o, "if (!(k_rcount = nrt_gpu_kernel(gpu, \"nc_k_rcount\", 6))) return fail(argv[0]);");
        out_line(o, "if (!(k_rfilt = nrt_gpu_kernel(gpu, \"nc_k_rfilt\", 9))) return fail(argv[0]);");
        out_line(o, "if (!(k_rrankf = nrt_gpu_kernel(gpu, \"nc_k_rrankf\", 7))) return fail(argv[0]);");
    }
    out_begin(o);
    out_line(o, "/* word-aligned slices: population p's words [W r / R, W (r + 1) / R) on rank r */");
    out_line(o, "static const int64_t pop_n[%d] = {", m->npops);
    StrBuf b = {0};
    for (int i = 0; i < m->npops; i++)
        sb_printf(&b, "%s%lld", i ? ", " : "", (long long)m->pops[i]->size);
    out_line(o, "    %s};", b.s);
    sb_free(&b);
    int rep = 0;
    for (int i = 0; i < m->npops; i++)
        rep |= simt_mpi_replicated(m, m->pops[i]);
    if (rep) {   /* replicated populations: rank 0 owns their words, every rank steps them */
        StrBuf rb = {0};
        for (int i = 0; i < m->npops; i++)
            sb_printf(&rb, "%s%d", i ? ", " : "", simt_mpi_replicated(m, m->pops[i]));
        out_line(o, "static const int pop_rep[%d] = {%s};", m->npops, rb.s);
        sb_free(&rb);
    }
    out_line(o, "const int64_t R = nrt_mpi_size(mpi), me = nrt_mpi_rank(mpi);");
    out_line(o, "int64_t *sl = nrt_alloc(&ctx, (size_t)(4 + 3 * R * NC_NPOPS) * sizeof *sl, \"slice table\");");
    out_line(o, "if (!sl) return fail(argv[0]);");
    out_line(o, "int64_t sw = 1;");
    out_open(o, "for (int64_t r = 0; r < R; r++)");
    out_line(o, "int64_t off = 0;");
    out_open(o, "for (int p = 0; p < NC_NPOPS; p++)");
    out_line(o, "const int64_t W = (pop_n[p] + 31) / 32, e = 4 + 3 * (r * NC_NPOPS + p);");
    if (rep) {
        out_line(o, "sl[e] = pop_rep[p] ? (r == 0 ? 0 : W) : W * r / R;");
        out_line(o, "sl[e + 1] = pop_rep[p] ? W : W * (r + 1) / R;");
    } else {
        out_line(o, "sl[e] = W * r / R;");
        out_line(o, "sl[e + 1] = W * (r + 1) / R;");
    }
    out_line(o, "sl[e + 2] = off;");
    out_line(o, "off += sl[e + 1] - sl[e];");
    out_open(o, "if (r == me)");
    out_line(o, "nc_lo[p] = 32 * sl[e];");
    out_line(o, "nc_hi[p] = 32 * sl[e + 1] < pop_n[p] ? 32 * sl[e + 1] : pop_n[p];");
    out_close(o);
    out_close(o);
    out_line(o, "if (off > sw) sw = off;");
    out_close(o);
    out_line(o, "sl[0] = R;");
    out_line(o, "sl[1] = sw;");
    out_line(o, "sl[2] = me;");
    out_line(o, "sl[3] = 1; /* the exchange interval D, once the synapses are built (mpi_interval) */");
    out_line(o, "nc_xbytes = (size_t)sw * 4;");
    out_line(o, "if (dalloc(&nc_sl, (size_t)(4 + 3 * R * NC_NPOPS) * sizeof *sl, \"slice table\")");
    out_line(o, "    || nrt_gpu_write(gpu, nc_sl, 0, sl, (size_t)(4 + 3 * R * NC_NPOPS) * sizeof *sl) != NRT_OK) return fail(argv[0]);");
    out_line(o, "nrt_free(sl);");
    out_close(o);
}

/* In build_instance, once every projection is built: nc_D, the steps between exchanges (the
 * shortest delay of any synapse in steps, less one for a synapse of a plastic projection,
 * over the ranks, at least 1, at most 64; 1 where
 * simt_mpi_every_step says so, with one rank, and with $NEUROC_MPI_EVERY_STEP=1, which
 * measures what the interval gains), then the exchange buffers of D slots. */
void simt_mpi_host_interval(Out *o, const Simt *S)
{
    const IrModel *m = S->m;
    const char *why = simt_mpi_every_step(m);
    out_begin(o);
    out_line(o, "int64_t dmin = 64; /* the cap: a stop or a chunk's end comes at most 64 steps after an exchange */");
    if (why) {
        out_line(o, "dmin = 1; /* %s */", why);
    } else {
        out_line(o, "int32_t md[%d];", m->nprojs);
        out_line(o, "if (nrt_gpu_read(gpu, nc_cnt, %d * sizeof(int32_t), md, sizeof md) != NRT_OK) return fail(argv[0]);",
                 S->cnt_mind);
        for (int k = 0; k < m->nprojs; k++) {
            const IrProj *j = m->projs[k];
            if (!j->delay)
                out_line(o, "dmin = 1; /* %s: one step */", j->name);
            else if (j->plast)   /* its arrivals need the remote spikes a step before they arrive */
                out_line(o, "if (md[%d] > 0 && 0x3fffffff - md[%d] < dmin) dmin = 0x3fffffff - md[%d]; /* %s: plastic, its shortest delay - 1 */",
                         k, k, k, j->name);
            else   /* 0: no synapse */
                out_line(o, "if (md[%d] > 0 && 0x40000000 - md[%d] < dmin) dmin = 0x40000000 - md[%d]; /* %s */", k, k, k,
                         j->name);
        }
    }
    out_line(o, "const int64_t R = nrt_mpi_size(mpi);");
    out_line(o, "nc_D = nrt_mpi_min(mpi, R == 1 || nc_every_step ? 1 : dmin);");
    out_line(o, "if (nc_D < 1) nc_D = 1;");
    out_line(o, "if (!ctx.quiet && R > 1) fprintf(stderr, \"%%s: %%lld ranks, spikes exchanged every %%lld step%%s\\n\", argv[0], (long long)R, (long long)nc_D, nc_D > 1 ? \"s\" : \"\");");
    out_line(o, "if (nrt_gpu_write(gpu, nc_sl, 3 * sizeof(int64_t), &nc_D, sizeof nc_D) != NRT_OK");
    out_line(o, "    || dalloc(&nc_xs, (size_t)nc_D * nc_xbytes, \"spike exchange\")) return fail(argv[0]);");
    out_line(o, "/* one rank merges its own bits; more gather everyone's (NCCL, or MPI through the host) */");
    out_line(o, "if (R == 1) nc_xr = nc_xs;");
    out_line(o, "else if (dalloc(&nc_xr, (size_t)R * (size_t)nc_D * nc_xbytes, \"spike exchange\") || nrt_mpi_gpu_open(&ctx, mpi, gpu) != NRT_OK");
    out_line(o, "    /* a first exchange of the zeroed buffers outside any graph: NCCL connects the ranks now */");
    out_line(o, "    || nrt_mpi_gpu_allgather(&ctx, gpu, nc_xs, nc_xr, (size_t)nc_D * nc_xbytes) != NRT_OK || nrt_gpu_sync(gpu) != NRT_OK) return fail(argv[0]);");
    out_close(o);
}

/* The launches of the plastic phases after the neurons (PL_SCOPES on): gp work-groups. */
static void plast_launches(Out *o, const IrModel *m, int64_t gp)
{
    for (int ph = PL_SCOPES; ph < PL__COUNT; ph++)
        if (simt_plast_has_phase(m, ph))
            out_line(o, "if (nrt_gpu_launch(k_plast[%d], %lld, 128, 0) != NRT_OK) return -1;", ph, (long long)gp);
}

/* enqueue_steps(len) of a distributed simulator: intervals of nc_D steps from the chunk's
 * start, each its neuron phases (top-k; plastic phases 0 before them and, D > 1, the rank's
 * own spikes listed, nc_k_lmerge, and phase 2 after them), its state records (nc_k_rows,
 * D > 1), one exchange of its D slots of spike bits, then per step the merge (nc_k_merge of
 * the step's index in the chunk), the pre { } work (nc_k_pre0, nc_k_pre1; D = 1: plastic
 * phase 2 after it) and the deliveries. A spike of step s is delivered after the
 * neuron phases of at most s + D - 1, before s + D, the earliest step it arrives at; each
 * ring slot receives its additions in one GPU's step order. gn, gp, gs, sg: the launch shapes
 * of the neuron, plastic and synapse kernels (simt_sched.c). */
void simt_mpi_host_steps(Out *o, const Simt *S, int64_t gn, int64_t gp, int64_t gs, int sg)
{
    const IrModel *m = S->m;
    const int split = simt_plast_split(m);
    out_open(o, "for (int64_t s0 = 0; s0 < len; s0 += nc_D)");
    out_line(o, "const int64_t n = len - s0 < nc_D ? len - s0 : nc_D;");
    out_open(o, "for (int64_t s = 0; s < n; s++)");
    for (int ph = 0; ph < PL_SCOPES; ph++)
        if (simt_plast_has_phase(m, ph))
            out_line(o, "if (nrt_gpu_launch(k_plast[%d], %lld, 128, 0) != NRT_OK) return -1;", ph, (long long)gp);
    out_line(o, "if (nrt_gpu_launch(k_neurons, %lld, 256, 0) != NRT_OK) return -1;", (long long)gn);
    if (simt_topk_any(m)) {   /* each pass's histograms summed over the ranks */
        out_open(o, "for (int p = 0; p <= %d; p++)", simt_topk_passes(m));
        out_line(o, "if (nrt_gpu_launch(k_tk[p], %lld, 256, 0) != NRT_OK) return -1;", (long long)gn);
        out_line(o, "if (p < %d && simt_mpi_topk_sum(p)) return -1;", simt_topk_passes(m));
        out_close(o);
        out_line(o, "if (nrt_gpu_launch(k_after, %lld, 256, 0) != NRT_OK) return -1;", (long long)gn);
    }
    if (split) {   /* D > 1: the plastic phases of the step now, with this rank's own spikes */
        out_open(o, "if (nc_D > 1)");
        if (simt_merge_local_pops(m))
            out_line(o, "if (nrt_gpu_arg_i64(k_lmerge, NC_NARGS, s0 + s) != NRT_OK || nrt_gpu_launch(k_lmerge, %lld, 256, 0) != NRT_OK) return -1;",
                     (long long)(gn + 31) / 32);
        plast_launches(o, m, gp);
        out_close(o);
    }
    out_line(o, "if (nc_D > 1 && nrt_gpu_launch(k_rows, %lld, 256, 0) != NRT_OK) return -1;", (long long)gn);
    out_close(o);
    out_line(o, "if (nrt_mpi_size(mpi) > 1 && nrt_mpi_gpu_allgather(&ctx, gpu, nc_xs, nc_xr, (size_t)nc_D * nc_xbytes) != NRT_OK) return -1;");
    out_open(o, "for (int64_t s = 0; s < n; s++)");
    for (int i = 0; i < m->npops; i++) {   /* populations of several merge groups: their own kernels */
        const char *c = m->pops[i]->cname;
        const int g = simt_merge_groups(m->pops[i]);
        if (g == 1)
            continue;
        if (m->pops[i]->has_spikes)
            out_line(o, "if (nrt_gpu_arg_i64(k_mcount_%s, NC_NARGS, s0 + s) != NRT_OK || nrt_gpu_launch(k_mcount_%s, %d, %d, 0) != NRT_OK) return -1;",
                     c, c, g, SIMT_MPI_GROUP);
        out_line(o, "if (nrt_gpu_arg_i64(k_merge_%s, NC_NARGS, s0 + s) != NRT_OK || nrt_gpu_launch(k_merge_%s, %d, %d, 0) != NRT_OK) return -1;",
                 c, c, g, SIMT_MPI_GROUP);
    }
    out_line(o, "if (nrt_gpu_arg_i64(k_merge, NC_NARGS, s0 + s) != NRT_OK || nrt_gpu_launch(k_merge, %d, %d, 0) != NRT_OK) return -1;",
             simt_merge_small(m, m->npops), SIMT_MPI_GROUP);
    if (split) {   /* the pre { } work after the merge; D = 1: the plastic phases after it */
        if (simt_plast_split_pre0(m))
            out_line(o, "if (nrt_gpu_launch(k_pre0, %lld, 128, 0) != NRT_OK) return -1;", (long long)gp);
        out_line(o, "if (nrt_gpu_launch(k_pre1, %lld, 128, 0) != NRT_OK) return -1;", (long long)gp);
        out_open(o, "if (nc_D == 1)");
        plast_launches(o, m, gp);
        out_close(o);
    } else {
        plast_launches(o, m, gp);
    }
    out_line(o, "if (nrt_gpu_launch(k_synapses, %lld, %d, 0) != NRT_OK) return -1;", (long long)gs, sg);
    out_close(o);
    out_close(o);
}

/* ===== host program =====} */

/* {===== projection families (simt_family.c) ===== */

/* A family's members are cut, guarded and gathered as single projections are (above): a
 * stored member's columns cut to the rank's before its values are drawn, keyed by the
 * synapses' ranks in the whole rows (nc_rk); a procedural member's whole rows regenerated,
 * added only into the rank's neurons; each member's shortest delay in nc_cnt by its
 * projection id. What they cannot do (a member onto a replicated population) simt_family.c's
 * fam_ok refuses: such a projection stays single. */

/* In nc_k_synf<f> and nc_k_pscanf<f>, after the atomic max of a synapse's delay dd: the
 * shortest delay of member nc_fj (its projection id), as simt_mpi_min_delay. */
void simt_mpi_fam_min_delay(Out *o, const Simt *S)
{
    if (S->m->mpi)
        out_line(o, "nc_atomic_max_i32(&nc_cnt[%d + nc_fj], 0x40000000 - dd);", S->cnt_mind);
}

/* Around a procedural member's add of synapse (i, j) in nc_deliver_fam<f>_grid: only onto this
 * rank's neurons of post (j is relative to the member's view, which starts at post_off, a C
 * expression). Leaves a block open. */
void simt_mpi_fam_guard(Out *o, const Simt *S, const IrPop *post, const char *post_off)
{
    const char *e = arena_printf(&S->cc->arena, "4 + 3 * (nc_sl[2] * %d + %d)", S->m->npops, post->id);
    out_open(o, "if (j + %s >= 32 * nc_sl[%s] && j + %s < 32 * nc_sl[%s + 1])", post_off, e, post_off, e);
}

/* Around a procedural member's row in nc_deliver_fam<f>_grid: only where its view of post
 * (n neurons from post_off) reaches this rank's neurons, so that a rank skips the rows of the
 * members onto the others' (the multi-area model: most of each spike's members). Leaves a
 * block open. */
void simt_mpi_fam_overlap(Out *o, const Simt *S, const IrPop *post, const char *post_off, const char *n)
{
    const char *e = arena_printf(&S->cc->arena, "4 + 3 * (nc_sl[2] * %d + %d)", S->m->npops, post->id);
    out_open(o, "if (%s + %s > 32 * nc_sl[%s] && %s < 32 * nc_sl[%s + 1])", post_off, n, e, post_off, e);
}

/* In build_fam<f> of a stored family, once member F's whole CSR is in csr: its columns on this
 * rank only, and in nc_rk each one's rank in its whole row (simt_mpi_host_cut_first); the cut's
 * time goes into the member's connectivity stage. */
void simt_mpi_fam_cut(Out *o, const Simt *S, const IrProj *j0)
{
    const int na = restrict_arrays(S->m);
    out_open(o, "if (nrt_mpi_size(mpi) > 1)");
    out_line(o, "/* this rank's part of the member's view: columns [a, b); the values are drawn for them only */");
    out_line(o, "const int64_t a0 = nc_lo[%d] - F->post_off, b0 = nc_hi[%d] - F->post_off;", j0->post.pop->id,
             j0->post.pop->id);
    out_line(o, "const int32_t a = (int32_t)(a0 < 0 ? 0 : a0 > F->n_post ? F->n_post : a0), b = (int32_t)(b0 < a ? a : b0 > F->n_post ? F->n_post : b0);");
    out_line(o, "nrt_dmem *arr[%d] = {NULL};", na);
    out_line(o, "const int words[%d] = {0};", na);
    out_line(o, "snprintf(what, sizeof what, \"%%s: this rank's synapses\", F->name);");
    out_line(o, "if (mpi_restrict(csr, a, b, arr, words, %d, what, &nc_rk)) return -1;", j0->rule == IR_FIXED_TOTAL);
    out_line(o, "ts = nrt_stage(&ctx, F->st_conn, ts);");
    out_close(o);
}

/* The host's ranks of each member's synapses in their whole rows, for --save-connectivity of a
 * stored family whose rows are in draw order (fixed_total: save_ranks). */
void simt_mpi_fam_decls(Out *o, const Simt *S, int f)
{
    const IrProj *j0 = S->m->projs[S->fam.first[f]];
    if (save_ranks(S->m, j0))
        out_line(o, "static int32_t *nc_fhrk%d[%d]; /* --save-connectivity: ranks in the whole rows */", f,
                 S->fam.size[f]);
}

/* ... and in build_fam<f>, once member q's values are drawn: nc_rk kept there, then freed. */
void simt_mpi_fam_after_values(Out *o, const Simt *S, const IrProj *j0, int f)
{
    if (save_ranks(S->m, j0)) {
        out_open(o, "if (ctx.save_conn && nrt_mpi_size(mpi) > 1)");
        out_line(o, "snprintf(what, sizeof what, \"%%s: ranks in the rows\", F->name);");
        out_line(o, "nc_fhrk%d[q] = nrt_alloc(&ctx, (nnz ? nnz : 1) * sizeof(int32_t), what);", f);
        out_line(o, "if (!nc_fhrk%d[q] || (nnz && nrt_gpu_read(gpu, nc_rk, 0, nc_fhrk%d[q], nnz * sizeof(int32_t)) != NRT_OK)) return -1;",
                 f, f);
        out_close(o);
    }
    out_line(o, "nrt_gpu_free(gpu, &nc_rk);");
}

/* In save_fam<f> of a distributed simulator, once member q's part is in c, w and d (`bad`
 * says whether reading it failed): every rank's part to rank 0 (nrt_mpi_gather_csr), which
 * writes the file, as simt_mpi_host_save and simt_emit_host_save do for a projection; a
 * procedural member's stored form is whole on every rank. */
void simt_mpi_fam_save(Out *o, const Simt *S, const IrProj *j0, int f)
{
    const int ranks = save_ranks(S->m, j0);
    out_line(o, "    ;");
    if (!j0->procedural) {
        out_open(o, "if (!bad && nrt_mpi_size(mpi) > 1)");
        out_line(o, "void *wv = w;");
        if (ranks)
            out_line(o, "bad = nrt_mpi_gather_csr(&ctx, mpi, &c, &wv, (int)sizeof(real), &d, nc_fhrk%d[q]) != NRT_OK;", f);
        else
            out_line(o, "bad = nrt_mpi_gather_csr(&ctx, mpi, &c, &wv, (int)sizeof(real), &d, NULL) != NRT_OK;");
        out_line(o, "w = wv;");
        if (ranks) {
            out_line(o, "nrt_free(nc_fhrk%d[q]);", f);
            out_line(o, "nc_fhrk%d[q] = NULL;", f);
        }
        out_close(o);
    }
    out_line(o, "bad = bad || (nrt_mpi_rank(mpi) == 0 && nrt_conn_save(&ctx, F->name, &c, w, (int)sizeof(real), d) != NRT_OK);");
}

/* ===== projection families =====} */
