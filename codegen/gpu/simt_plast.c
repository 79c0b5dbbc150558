/* simt_plast.c -- plastic projections on the GPU back ends (CUDA and OpenCL).
 *
 * The same phases as the C back end (backend_c.c, emit_plast_step; docs/language.md §9),
 * each a device function per projection, run in both families of schedule:
 *
 *   phase           grid schedules (launch, graph, persistent)       block schedule
 *   on pre          a work-group per arriving row, its work-items    each work-item owns a range
 *                   over the row's synapses; deliver: atomic add     of targets (as static delivery):
 *                                                                    deliver in C's order
 *   on step         a work-item per synapse (row by binary search);  each work-item owns a range of
 *                   deliver: atomic add                              targets, column index order
 *   scopes          a work-item per pre / post neuron                the same
 *   on post         a work-group per post spike, its work-items      the same, one group
 *                   over the column index entries
 *   on pre & post   a work-group per arriving row (the arrivals      the same, one group
 *                   walked again), synapses whose target fired
 *   scope on spike  a work-item per spike                            the same
 *   syn dynamics    a work-item per synapse                          the same
 *
 * Every handler writes only its own synapse's state and a synapse is reached at most once
 * per phase (one arrival per step, one post spike per step), so one work-item writes each
 * state per phase: no atomics except for `deliver` in the grid schedules. The presynaptic
 * spike history keeps each step's spike list of the presynaptic population (base indices,
 * the list's order); the column index is built once at load time from the device-built
 * CSR, on the device (nrt_gpu_col_index), in the order the C back end builds it.
 *
 * Handlers read a pre { } state only through its histories: `_h[e]`, the value of step e
 * after the scope's dynamics, and `_ha[e]` (order pre_first, with delays) after its `on
 * spike`, e = the emission step for `on pre`, s - d + 1 for `on post` and the synapse
 * dynamics, s - d for `on step` (hist_elem), d >= 1 the synapse's delay; only a projection
 * without delays reads pre.x itself, in `on post` of pre_first (after the step's `on
 * spike`). So the pre { } work of a step (dynamics, `_h`, `on spike`, `_ha`, the spikes kept
 * in `_hist`) may run anywhere after the step's neuron phase and before the first read of
 * that step's history. Distributed simulators (simt_plast_split) take it out of the phases
 * into nc_pl_pre0/nc_pl_pre1 (emit_pre_split), which run after every rank's spikes of the
 * step are merged: D - 1 steps late at most, or before the rest of phase 2 where D = 1
 * (simt_mpi.c's head comment says why that is in time: D <= the shortest delay - 1).
 */
#include <stdio.h>
#include <string.h>

#include "simt_priv.h"

/* {===== dialect ===== */

typedef struct PlastUser {
    const Simt *S;
    const CgDialect *base;        /* the device dialect's hooks */
    int atomic;
} PlastUser;

static void p_var(const CgDialect *d, const IrVar *v, StrBuf *out)
{
    const PlastUser *u = d->user;
    if (v->kind == IV_PRE && d->pre_hist) {
        sb_printf(out, "%s_h%s[%s]", v->cname, d->pre_after ? "a" : "", d->index);
        return;
    }
    CgDialect t = *d;
    t.user = u->S;
    u->base->var(&t, v, out);
}

static void p_prop(const CgDialect *d, const IrExpr *e, StrBuf *out)
{
    const PlastUser *u = d->user;
    CgDialect t = *d;
    t.user = u->S;
    u->base->prop(&t, e, out);
}

static void p_deliver(const CgDialect *d, const IrProj *p, const char *e, Out *o)
{
    const PlastUser *u = d->user;
    if (u->atomic)
        out_line(o, "nc_atomic_add_f%d(&%s_ring[dslot * %lld + j], %s);", d->dbl ? 64 : 32, p->cname,
                 (long long)p->post.size, e);
    else
        out_line(o, "%s_ring[dslot * %lld + j] += %s;", p->cname, (long long)p->post.size, e);
}

CgDialect simt_plast_dialect(const Simt *S, const IrProj *j, const char *pre_hist, int atomic)
{
    Arena *a = &S->cc->arena;
    CgDialect *base = arena_alloc(a, sizeof *base);
    *base = simt_dev_dialect(S, j->plast->scope);
    PlastUser *u = arena_alloc(a, sizeof *u);
    u->S = S;
    u->base = base;
    u->atomic = atomic;
    CgDialect d = *base;
    d.var = p_var;
    d.prop = p_prop;
    d.deliver = p_deliver;
    d.user = u;
    d.syn = "s";
    d.pre_n = j->pre.offset ? arena_printf(a, "(i + %lld)", (long long)j->pre.offset) : "i";
    d.post_n = j->post.offset ? arena_printf(a, "(j + %lld)", (long long)j->post.offset) : "j";
    d.pre_hist = pre_hist;
    return d;
}

/* ===== dialect =====} */

/* {===== layout ===== */

static int needs_column(const IrPlast *pl)
{
    return pl->on_post.n || pl->on_step.n || (!pl->post_first && pl->on_prepost.n);
}

/* Order pre_first with `on pre & post`: each synapse keeps the step of its last arrival
 * (`_arrs`), so that the walk of `on post` runs `on pre & post` right after it. */
static int needs_arrs(const IrPlast *pl)
{
    return !pl->post_first && pl->on_prepost.n;
}

/* Whether the pre { } work of the plastic projections (the scope's dynamics and `on spike`,
 * its histories, the presynaptic spikes kept for their arrivals) runs in kernels of its own,
 * nc_k_pre0 and nc_k_pre1 (simt_plast_split_kernels), after the merge of the step's spikes of
 * every rank, instead of in the phases: distributed simulators (simt_mpi.c's head comment). */
int simt_plast_split(const IrModel *m)
{
    if (!m->mpi)
        return 0;
    for (int k = 0; k < m->nprojs; k++)
        if (m->projs[k]->plast)
            return 1;
    return 0;
}

/* Whether j has an arrival function ("arrive", emit_on_pre). */
static int has_arrive(const IrProj *j, int split)
{
    const IrPlast *pl = j->plast;
    return pl->on_pre.n || (!pl->post_first && ((pl->pre_spike.n && !split) || pl->on_prepost.n));
}

void simt_plast_args(Simt *S, const IrProj *j)
{
    const IrPlast *pl = j->plast;
    Arena *a = &S->cc->arena;
    const char *c = j->cname;
    for (int k = 0; k < pl->nsyn; k++)
        simt_add_arg(S, pl->syn[k]->cname, pl->syn[k]->type == IRT_REAL ? "real" : "int32_t", ARG_MEM);
    if (needs_column(pl)) {
        simt_add_arg(S, arena_printf(a, "%s_cptr", c), "int64_t", ARG_MEM);
        simt_add_arg(S, arena_printf(a, "%s_csyn", c), "int64_t", ARG_MEM);
        simt_add_arg(S, arena_printf(a, "%s_cpre", c), "int32_t", ARG_MEM);
    }
    simt_add_arg(S, arena_printf(a, "%s_hist", c), "int32_t", ARG_MEM);
    simt_add_arg(S, arena_printf(a, "%s_hist_n", c), "int32_t", ARG_MEM);
    for (int k = 0; k < pl->npre; k++) {
        const char *t = pl->pre[k]->type == IRT_REAL ? "real" : "int32_t";
        simt_add_arg(S, pl->pre[k]->cname, t, ARG_MEM);
        simt_add_arg(S, arena_printf(a, "%s_h", pl->pre[k]->cname), t, ARG_MEM);
        if (cg_pre_after(j))
            simt_add_arg(S, arena_printf(a, "%s_ha", pl->pre[k]->cname), t, ARG_MEM);
    }
    if (needs_arrs(pl))
        simt_add_arg(S, arena_printf(a, "%s_arrs", c), "int64_t", ARG_MEM);
    for (int k = 0; k < pl->npost; k++)
        simt_add_arg(S, pl->post[k]->cname, pl->post[k]->type == IRT_REAL ? "real" : "int32_t", ARG_MEM);
}

/* ===== layout =====} */

/* {===== device functions ===== */

static const char *delay_of(const IrProj *j, Arena *a)
{
    return j->delay ? arena_printf(a, "%s_d[s]", j->cname) : "1";
}

/* `hi`: the element of the pre { } history a handler of synapse (i, s) reads (see
 * backend_c.c, hist_elem): back 0 before the neurons, 1 after. */
static void hist_elem(Out *o, const Simt *S, const IrProj *j, int back)
{
    out_line(o, "const int64_t hi = ((step - %s + %d) %% %s_D + %s_D) %% %s_D * %lld + i;",
             delay_of(j, &S->cc->arena), back, j->cname, j->cname, j->cname, (long long)j->pre.size);
}

static void open_fn(Out *o, const char *what, const IrProj *j, const char *variant)
{
    out_open(o, "NC_DEV void nc_pl_%s_%s%s%s(NC_ARGS, const int64_t step, const int hf)", what, j->cname,
             variant ? "_" : "", variant ? variant : "");
    out_line(o, "const real t = (real)((double)step * dt);");
    out_line(o, "(void)t; (void)hf;");
}

/* The rows whose spikes (emitted k = D-1 .. 1 steps ago) arrive in this step (`a`: "step"),
 * or in the next (order pre_first, "step + 1"), a group per row: defines k, hs, i and the
 * row bounds rs, re. With per-synapse delays k stops at the projection's shortest delay,
 * which construction leaves in nc_cnt (simt_mpi_min_delay; where none is there, every k):
 * each row is walked once per delay in flight, and the 4-D
 * lattice's delays of 18 to 22 steps made that 22 walks a spike instead of 5 (its arrivals
 * kernel took 26.5 ms of a 1.2-million-spike step on an H200). */
static void open_arrivals_grid(Out *o, const Simt *S, const IrProj *j, const char *a)
{
    const char *c = j->cname;
    if (j->delay) {
        out_line(o, "const int nc_md = nc_cnt[%d];", S->cnt_mind + j->id);
        out_line(o, "const int64_t nc_dlo = nc_md > 0 ? 0x40000000 - nc_md : 1; /* the shortest delay */");
        out_open(o, "for (int64_t k = %s_D - 1; k >= nc_dlo; k--)", c);
    } else {
        out_open(o, "for (int64_t k = %s_D - 1; k >= 1; k--)", c);
    }
    out_line(o, "if (k > %s) continue;", a);
    out_line(o, "const int64_t hs = nc_mod(%s - k, %s_D);", a, c);
    out_line(o, "const int nh = %s_hist_n[hs];", c);
    out_open(o, "for (int64_t q = NC_GROUP; q < nh; q += NC_NGROUPS)");
    out_line(o, "const int64_t i = (int64_t)%s_hist[hs * %lld + q] - %lld;", c, (long long)j->pre.pop->size,
             (long long)j->pre.offset);
    out_line(o, "if (i < 0 || i >= %lld) continue;", (long long)j->pre.size);
    out_line(o, "const int64_t rs = %s_rp[i], re = %s_rp[i + 1];", c, c);
}

static void open_spikes(Out *o, const IrPop *pop, int64_t off, int64_t size, const char *idx, int group);

/* `on pre`; grid: atomic delivery; block: each work-item owns targets [a, b) and walks the
 * arrivals in C's order (oldest emission, spike order, synapse order). Order pre_first: the
 * arrivals of step + 1, then the pre { } scope's `on spike` of this step (backend_c.c). */
static void emit_on_pre(Out *o, const Simt *S, const IrProj *j, int block)
{
    const int split = simt_plast_split(S->m);
    const char *c = j->cname;
    const IrPlast *pl = j->plast;
    const char *as = pl->post_first ? "step" : "(step + 1)";
    CgDialect dh = simt_plast_dialect(S, j, "hi", !block);
    if (!pl->post_first)
        dh.step = as;             /* handlers see the synapse dynamics of this step */
    open_fn(o, "arrive", j, block ? "block" : "grid");
    out_line(o, "const int64_t dslot = nc_mod(%s, %s_D);", as, c);
    if (block) {
        long long np = (long long)j->post.size;
        out_line(o, "const int64_t per = (%lld + NC_LSIZE - 1) / NC_LSIZE, a = NC_LID * per, b = a + per;", np);
        out_open(o, "for (int64_t k = a < %lld ? %s_D - 1 : 0; k >= 1; k--)", np, c);
        out_line(o, "if (k > %s) continue;", as);
        out_line(o, "const int64_t hs = nc_mod(%s - k, %s_D);", as, c);
        out_line(o, "const int nh = %s_hist_n[hs];", c);
        out_open(o, "for (int q = 0; q < nh; q++)");
        out_line(o, "const int64_t i = (int64_t)%s_hist[hs * %lld + q] - %lld;", c,
                 (long long)j->pre.pop->size, (long long)j->pre.offset);
        out_line(o, "if (i < 0 || i >= %lld) continue;", (long long)j->pre.size);
        if (j->rule == IR_FIXED_TOTAL) {   /* rows in draw order: the whole row, filtered */
            out_line(o, "const int64_t re = %s_rp[i + 1];", c);
            out_open(o, "for (int64_t s = %s_rp[i]; s < re; s++)", c);
            out_line(o, "if (%s_col[s] < a || %s_col[s] >= b) continue;", c, c);
        } else {
            out_line(o, "int64_t lo = %s_rp[i], up = %s_rp[i + 1];", c, c);
            out_line(o, "const int64_t re = up;");
            out_open(o, "while (lo < up)");
            out_line(o, "const int64_t mid = lo + (up - lo) / 2;");
            out_line(o, "if (%s_col[mid] < a) lo = mid + 1; else up = mid;", c);
            out_close(o);
            out_open(o, "for (int64_t s = lo; s < re && %s_col[s] < b; s++)", c);
        }
    } else {
        open_arrivals_grid(o, S, j, as);
        out_open(o, "for (int64_t s = rs + NC_LID; s < re; s += NC_LSIZE)");
    }
    if (j->delay)
        out_line(o, "if (%s_d[s] != k) continue;", c);
    out_line(o, "const int64_t j = %s_col[s], hi = hs * %lld + i;", c, (long long)j->pre.size);
    out_line(o, "(void)j; (void)hi;");
    cg_block(&dh, &pl->syn_catch, o);
    cg_block(&dh, &pl->on_pre, o);
    if (needs_arrs(pl))
        out_line(o, "%s_arrs[s] = step;", c);
    out_close(o);
    out_close(o);
    out_close(o);
    if (!pl->post_first && pl->pre_spike.n && !split) {   /* split: nc_pl_pre1 */
        CgDialect ds = simt_plast_dialect(S, j, NULL, 0);
        out_line(o, "const int64_t hs = nc_mod(step, %s_D);", c);
        out_line(o, "(void)hs;");
        open_spikes(o, j->pre.pop, j->pre.offset, j->pre.size, "i", 0);
        cg_block(&ds, &pl->pre_spike, o);
        for (int k = 0; k < pl->npre && cg_pre_after(j); k++)
            out_line(o, "%s_ha[hs * %lld + i] = %s[i];", pl->pre[k]->cname, (long long)j->pre.size,
                     pl->pre[k]->cname);
        out_close(o);
    }
    out_close(o);
    out_blank(o);
}

/* The row of synapse s (binary search of the row pointers): defines i. */
static void row_of(Out *o, const IrProj *j)
{
    out_line(o, "int64_t i = 0, up = %lld;", (long long)j->pre.size);
    out_open(o, "while (i < up)");
    out_line(o, "const int64_t mid = (i + up + 1) / 2;");
    out_line(o, "if (%s_rp[mid] <= s) i = mid; else up = mid - 1;", j->cname);
    out_close(o);
}

/* Every synapse, a work-item each: defines s, i, j, hi (for `back`). */
static void open_all_synapses(Out *o, const Simt *S, const IrProj *j, int back)
{
    out_open(o, "for (int64_t s = NC_GID; s < %s_rp[%lld]; s += NC_GSIZE)", j->cname, (long long)j->pre.size);
    row_of(o, j);
    out_line(o, "const int64_t j = %s_col[s];", j->cname);
    hist_elem(o, S, j, back);
    out_line(o, "(void)j; (void)hi;");
}

/* `on step`; block: targets [a, b) per work-item, synapses in column order, which is C's
 * (row, synapse) order for each target. */
static void emit_on_step(Out *o, const Simt *S, const IrProj *j, int block)
{
    const char *c = j->cname;
    CgDialect dh = simt_plast_dialect(S, j, "hi", !block);
    const char *dl = delay_of(j, &S->cc->arena);
    open_fn(o, "onstep", j, block ? "block" : "grid");
    if (block) {
        long long np = (long long)j->post.size;
        out_line(o, "const int64_t per = (%lld + NC_LSIZE - 1) / NC_LSIZE, a = NC_LID * per;", np);
        out_line(o, "const int64_t b = a + per < %lld ? a + per : %lld;", np, np);
        out_open(o, "for (int64_t j = a; j < b; j++)");
        out_open(o, "for (int64_t q = %s_cptr[j]; q < %s_cptr[j + 1]; q++)", c, c);
        out_line(o, "const int64_t s = %s_csyn[q], i = %s_cpre[q];", c, c);
        hist_elem(o, S, j, 0);
        out_line(o, "(void)hi;");
    } else {
        open_all_synapses(o, S, j, 0);
        out_begin(o);
    }
    out_line(o, "const int64_t dslot = nc_mod(step + %s - 1, %s_D); /* delivered after the delay */", dl, c);
    out_line(o, "(void)dslot;");
    cg_block(&dh, &j->plast->on_step, o);
    out_close(o);
    out_close(o);
    out_close(o);
    out_blank(o);
}

/* This step's spikes of pop within the view: defines idx; a work-item per spike. */
static void open_spikes(Out *o, const IrPop *pop, int64_t off, int64_t size, const char *idx, int group)
{
    out_line(o, "const int nspk_%s = nc_cnt[%d + (int)(step & 1)];", idx, 2 * pop->id);
    if (group)
        out_open(o, "for (int64_t k = NC_GROUP; k < nspk_%s; k += NC_NGROUPS)", idx);
    else
        out_open(o, "for (int64_t k = NC_GID; k < nspk_%s; k += NC_GSIZE)", idx);
    out_line(o, "const int64_t %s = (int64_t)%s_spk[k] - %lld;", idx, pop->cname, (long long)off);
    out_line(o, "if (%s < 0 || %s >= %lld) continue;", idx, idx, (long long)size);
}

/* This step's presynaptic spikes, kept for their arrivals (slot hs). */
static void keep_spikes(Out *o, const IrProj *j)
{
    const char *c = j->cname;
    out_line(o, "const int nh = nc_cnt[%d + (int)(step & 1)];", 2 * j->pre.pop->id);
    out_line(o, "for (int64_t k = NC_GID; k < nh; k += NC_GSIZE) %s_hist[hs * %lld + k] = %s_spk[k];", c,
             (long long)j->pre.pop->size, j->pre.pop->cname);
    out_line(o, "if (NC_GID == 0) %s_hist_n[hs] = nh;", c);
}

/* The phases after the neurons (docs/language.md §9; backend_c.c, emit_plast_step). Order
 * pre_first (phase_fn) moves the spike history into `scopes`, the synapse dynamics into the
 * slot of `on post`, the arrivals (emit_on_pre) into that of `on pre & post`, `on post` into
 * that of the scopes' `on spike`, which it runs for the synapses that had an arrival in this
 * step right after their `on post` (C runs every `on post`, then every `on pre & post`: the
 * same, as each writes only its own synapse), and the post { } `on spike` into the last. */
static void emit_learn(Out *o, const Simt *S, const IrProj *j)
{
    const IrPlast *pl = j->plast;
    const char *c = j->cname;
    const int pre_first = !pl->post_first, split = simt_plast_split(S->m);
    long long npre = (long long)j->pre.size, npost = (long long)j->post.size;
    CgDialect dh = simt_plast_dialect(S, j, "hi", 0);
    CgDialect ds = simt_plast_dialect(S, j, NULL, 0);
    CgDialect dp = dh;
    if (pre_first) {
        dp.pre_hist = j->delay ? "hi" : NULL;
        dp.pre_after = cg_pre_after(j);
        dp.step = "(step + 1)";
    }

    if (split ? pl->post_step.n > 0 : pl->npre || pl->pre_step.n || pl->post_step.n || pre_first) {
        open_fn(o, "scopes", j, NULL);
        out_line(o, "const int64_t hs = nc_mod(step, %s_D);", c);
        out_line(o, "(void)hs;");
        if ((pl->npre || pl->pre_step.n) && !split) {
            out_open(o, "for (int64_t i = NC_GID; i < %lld; i += NC_GSIZE)", npre);
            cg_block(&ds, &pl->pre_step, o);
            for (int k = 0; k < pl->npre; k++) {
                out_line(o, "%s_h[hs * %lld + i] = %s[i];", pl->pre[k]->cname, npre, pl->pre[k]->cname);
                if (dp.pre_after)
                    out_line(o, "%s_ha[hs * %lld + i] = %s[i];", pl->pre[k]->cname, npre, pl->pre[k]->cname);
            }
            out_close(o);
        }
        if (pl->post_step.n) {
            out_open(o, "for (int64_t j = NC_GID; j < %lld; j += NC_GSIZE)", npost);
            cg_block(&ds, &pl->post_step, o);
            out_close(o);
        }
        if (pre_first && !split)
            keep_spikes(o, j);
        out_close(o);
        out_blank(o);
    }
    if (pl->on_post.n || (pre_first && pl->on_prepost.n)) {
        open_fn(o, "onpost", j, NULL);
        open_spikes(o, j->post.pop, j->post.offset, j->post.size, "j", 1);
        out_open(o, "for (int64_t q = %s_cptr[j] + NC_LID; q < %s_cptr[j + 1]; q += NC_LSIZE)", c, c);
        out_line(o, "const int64_t s = %s_csyn[q], i = %s_cpre[q];", c, c);
        hist_elem(o, S, j, 1);
        out_line(o, "(void)hi;");
        cg_block(&dp, &pl->syn_catch, o);
        cg_block(&dp, &pl->on_post, o);
        if (pre_first && pl->on_prepost.n) {
            out_open(o, "if (%s_arrs[s] == step)", c);
            cg_block(&dp, &pl->syn_catch, o);
            cg_block(&dp, &pl->on_prepost, o);
            out_close(o);
        }
        out_close(o);
        out_close(o);
        out_close(o);
        out_blank(o);
    }
    if (pl->on_prepost.n && !pre_first) {
        open_fn(o, "prepost", j, NULL);
        open_arrivals_grid(o, S, j, "step");
        out_open(o, "for (int64_t s = rs + NC_LID; s < re; s += NC_LSIZE)");
        if (j->delay)
            out_line(o, "if (%s_d[s] != k) continue;", c);
        out_line(o, "const int64_t j = %s_col[s];", c);
        out_line(o, "if (!%s_fl[j + %lld]) continue;", j->post.pop->cname, (long long)j->post.offset);
        hist_elem(o, S, j, 1);      /* as C: the pre { } history after the neurons */
        out_line(o, "(void)hi;");
        cg_block(&dh, &pl->syn_catch, o);
        cg_block(&dh, &pl->on_prepost, o);
        out_close(o);
        out_close(o);
        out_close(o);
        out_close(o);
        out_blank(o);
    }
    /* scope `on spike`, and this step's presynaptic spikes kept for their arrivals */
    if ((!pre_first && !split) || pl->post_spike.n) {
        open_fn(o, "spikes", j, NULL);
        out_line(o, "const int64_t hs = nc_mod(step, %s_D);", c);
        if (pre_first || split)
            out_line(o, "(void)hs;");
        if (pl->pre_spike.n && !pre_first && !split) {
            out_begin(o);
            open_spikes(o, j->pre.pop, j->pre.offset, j->pre.size, "i", 0);
            cg_block(&ds, &pl->pre_spike, o);
            out_close(o);
            out_close(o);
        }
        if (pl->post_spike.n) {
            out_begin(o);
            open_spikes(o, j->post.pop, j->post.offset, j->post.size, "j", 0);
            cg_block(&ds, &pl->post_spike, o);
            out_close(o);
            out_close(o);
        }
        if (!pre_first && !split)
            keep_spikes(o, j);
        out_close(o);
        out_blank(o);
    }
    if (pl->syn_step.n) {
        open_fn(o, "synstep", j, NULL);
        open_all_synapses(o, S, j, 1);
        cg_block(&dh, &pl->syn_step, o);
        out_close(o);
        out_close(o);
        out_blank(o);
    }
}

/* Split (simt_plast_split): the pre { } work of a step, run after the merge of its spikes
 * of every rank (simt_plast_split_kernels). nc_pl_pre0: the scope's dynamics (2a) and its
 * histories; nc_pl_pre1: its `on spike` for the step's spikers (2d, or d′ with the history
 * after it), and the step's presynaptic spikes kept for their arrivals (2f). Nothing else
 * reads the scope but through its histories, so running this work later than the phases of
 * the step, or earlier (after the merge, before phase 2), gives the same values. */
static void emit_pre_split(Out *o, const Simt *S, const IrProj *j)
{
    const IrPlast *pl = j->plast;
    const char *c = j->cname;
    const long long npre = (long long)j->pre.size;
    CgDialect ds = simt_plast_dialect(S, j, NULL, 0);
    if (pl->npre || pl->pre_step.n) {
        open_fn(o, "pre0", j, NULL);
        out_line(o, "const int64_t hs = nc_mod(step, %s_D);", c);
        out_line(o, "(void)hs;");
        out_open(o, "for (int64_t i = NC_GID; i < %lld; i += NC_GSIZE)", npre);
        cg_block(&ds, &pl->pre_step, o);
        for (int k = 0; k < pl->npre; k++) {
            out_line(o, "%s_h[hs * %lld + i] = %s[i];", pl->pre[k]->cname, npre, pl->pre[k]->cname);
            if (cg_pre_after(j))
                out_line(o, "%s_ha[hs * %lld + i] = %s[i];", pl->pre[k]->cname, npre, pl->pre[k]->cname);
        }
        out_close(o);
        out_close(o);
        out_blank(o);
    }
    open_fn(o, "pre1", j, NULL);
    out_line(o, "const int64_t hs = nc_mod(step, %s_D);", c);
    if (pl->pre_spike.n) {
        out_begin(o);
        open_spikes(o, j->pre.pop, j->pre.offset, j->pre.size, "i", 0);
        cg_block(&ds, &pl->pre_spike, o);
        for (int k = 0; k < pl->npre && cg_pre_after(j); k++)
            out_line(o, "%s_ha[hs * %lld + i] = %s[i];", pl->pre[k]->cname, npre, pl->pre[k]->cname);
        out_close(o);
        out_close(o);
    }
    keep_spikes(o, j);
    out_close(o);
    out_blank(o);
}

int simt_plast_split_pre0(const IrModel *m)
{
    for (int k = 0; k < m->nprojs; k++)
        if (m->projs[k]->plast && (m->projs[k]->plast->npre || m->projs[k]->plast->pre_step.n))
            return 1;
    return 0;
}

void simt_plast_split_kernels(Out *o, const Simt *S)
{
    const IrModel *m = S->m;
    for (int x = simt_plast_split_pre0(m) ? 0 : 1; x < 2; x++) {
        out_line(o, "/* distributed runs: the pre { } work of plastic projections of step nc_ctl[3], after its merge (%s) */",
                 x ? "`on spike`, the spikes kept" : "dynamics, histories");
        simt_kernel_open(o, S, "NC_KERNEL nc_k_pre%d(NC_ARGS)", x);
        out_line(o, "const int64_t step = nc_ctl[3];");
        out_line(o, "const int hf = (int)nc_ctl[2];");
        for (int k = 0; k < m->nprojs; k++) {
            const IrProj *j = m->projs[k];
            if (j->plast && (x || j->plast->npre || j->plast->pre_step.n))
                out_line(o, "nc_pl_pre%d_%s(NC_PASS, step, hf);", x, j->cname);
        }
        out_close(o);
        out_blank(o);
    }
}

/* Event-driven synapse dynamics: every synapse of j brought up to `step` steps done, a
 * work-item per synapse (records in nc_tail, and nc_k_catchup_* before a `set`). */
static void emit_catchup(Out *o, const Simt *S, const IrProj *j)
{
    CgDialect dh = simt_plast_dialect(S, j, NULL, 0);
    out_open(o, "NC_DEV void nc_pl_catchup1_%s(NC_ARGS, const int64_t step, const int64_t s)", j->cname);
    cg_block(&dh, &j->plast->syn_catch, o);
    out_close(o);
    out_blank(o);
    out_open(o, "NC_DEV void nc_pl_catchup_%s(NC_ARGS, const int64_t step)", j->cname);
    out_line(o, "for (int64_t s = NC_GID; s < %s_rp[%lld]; s += NC_GSIZE) nc_pl_catchup1_%s(NC_PASS, step, s);",
             j->cname, (long long)j->pre.size, j->cname);
    out_close(o);
    out_blank(o);
    out_line(o, "/* before a `set` of %s's parameters: its synapses up to the steps done (nc_ctl[0]) */", j->name);
    char kb[16];
    simt_kernel_open(o, S, "NC_KERNEL nc_k_catchup_%s(NC_ARGS)", cg_kname(j, kb));
    out_line(o, "nc_pl_catchup_%s(NC_PASS, nc_ctl[0]);", j->cname);
    out_close(o);
    out_blank(o);
}

/* Load time: per-synapse initial values come with the CSR (simt_device.c, nc_k_syn_g*); this
 * kernel sets the scopes' initial values and fills the pre history with them. */
static void emit_scope_init(Out *o, const Simt *S, const IrProj *j)
{
    const IrPlast *pl = j->plast;
    CgDialect d = simt_plast_dialect(S, j, NULL, 0);
    long long npre = (long long)j->pre.size, npost = (long long)j->post.size;
    out_line(o, "/* %s: initial values of the pre { } and post { } scopes */", j->name);
    char kb[16];
    simt_kernel_open(o, S, "NC_KERNEL nc_k_scope_%s(NC_ARGS)", cg_kname(j, kb));
    out_line(o, "const int64_t step = 0;");
    out_line(o, "(void)step;");
    out_open(o, "for (int64_t i = NC_GID; i < %lld; i += NC_GSIZE)", npre);
    cg_block(&d, &pl->pre_init, o);
    for (int k = 0; k < pl->npre; k++) {
        out_line(o, "for (int64_t h = 0; h < %s_D; h++) %s_h[h * %lld + i] = %s[i];", j->cname, pl->pre[k]->cname,
                 npre, pl->pre[k]->cname);
        if (cg_pre_after(j))
            out_line(o, "for (int64_t h = 0; h < %s_D; h++) %s_ha[h * %lld + i] = %s[i];", j->cname,
                     pl->pre[k]->cname, npre, pl->pre[k]->cname);
    }
    out_close(o);
    if (needs_arrs(pl))
        out_line(o, "for (int64_t s = NC_GID; s < %s_rp[%lld]; s += NC_GSIZE) %s_arrs[s] = -1;", j->cname, npre,
                 j->cname);
    out_open(o, "for (int64_t j = NC_GID; j < %lld; j += NC_GSIZE)", npost);
    cg_block(&d, &pl->post_init, o);
    out_close(o);
    out_close(o);
    out_blank(o);
}

void simt_plast_device(Out *o, const Simt *S)
{
    const IrModel *m = S->m;
    for (int k = 0; k < m->nprojs; k++) {
        const IrProj *j = m->projs[k];
        if (!j->plast)
            continue;
        out_line(o, "/* projection %s: plastic synapse %s */", j->name, j->plast->scope->model);
        emit_scope_init(o, S, j);
        if (j->plast->event)
            emit_catchup(o, S, j);
        if (has_arrive(j, simt_plast_split(m))) {
            emit_on_pre(o, S, j, 0);
            emit_on_pre(o, S, j, 1);
        }
        if (j->plast->on_step.n) {
            emit_on_step(o, S, j, 0);
            emit_on_step(o, S, j, 1);
        }
        emit_learn(o, S, j);
        if (simt_plast_split(m))
            emit_pre_split(o, S, j);
    }
}

/* ===== device functions =====} */

/* {===== phases ===== */

/* The function name of phase ph of j ("arrive", ...), or NULL where j has no such work;
 * *ordered: the phase has a block variant. */
static const char *phase_fn(const IrProj *j, int split, int ph, int *ordered)
{
    const IrPlast *pl = j->plast;
    *ordered = 0;
    if (!pl)
        return NULL;
    if (!pl->post_first) {        /* order pre_first: see emit_learn */
        switch (ph) {
        case PL_ARRIVE:
            return NULL;
        case PL_ON_STEP:
            *ordered = 1;
            return pl->on_step.n ? "onstep" : NULL;
        case PL_SCOPES:
            return !split || pl->post_step.n ? "scopes" : NULL;
        case PL_ON_POST:
            return pl->syn_step.n ? "synstep" : NULL;
        case PL_PREPOST:
            *ordered = 1;
            return has_arrive(j, split) ? "arrive" : NULL;
        case PL_SPIKES:
            return pl->on_post.n || pl->on_prepost.n ? "onpost" : NULL;
        default:
            return pl->post_spike.n ? "spikes" : NULL;
        }
    }
    switch (ph) {
    case PL_ARRIVE:
        *ordered = 1;
        return pl->on_pre.n ? "arrive" : NULL;
    case PL_ON_STEP:
        *ordered = 1;
        return pl->on_step.n ? "onstep" : NULL;
    case PL_SCOPES:
        return (pl->npre || pl->pre_step.n) && !split ? "scopes" : pl->post_step.n ? "scopes" : NULL;
    case PL_ON_POST:
        return pl->on_post.n ? "onpost" : NULL;
    case PL_PREPOST:
        return pl->on_prepost.n ? "prepost" : NULL;
    case PL_SPIKES:
        return !split || pl->post_spike.n ? "spikes" : NULL;
    default:
        return pl->syn_step.n ? "synstep" : NULL;
    }
}

int simt_plast_has_phase(const IrModel *m, int phase)
{
    int ordered;
    for (int k = 0; k < m->nprojs; k++)
        if (phase_fn(m->projs[k], simt_plast_split(m), phase, &ordered))
            return 1;
    return 0;
}

void simt_plast_calls(Out *o, const Simt *S, int phase, const char *variant)
{
    for (int k = 0; k < S->m->nprojs; k++) {
        const IrProj *j = S->m->projs[k];
        int ordered;
        const char *f = phase_fn(j, simt_plast_split(S->m), phase, &ordered);
        if (f)
            out_line(o, "nc_pl_%s_%s%s%s(NC_PASS, step, hf);", f, j->cname, ordered ? "_" : "",
                     ordered ? variant : "");
    }
}

/* ===== phases =====} */

/* {===== host ===== */

void simt_plast_host_build(Out *o, const Simt *S, const IrProj *j)
{
    const IrPlast *pl = j->plast;
    const char *c = j->cname;
    long long npre = (long long)j->pre.size, npost = (long long)j->post.size;
    for (int k = 0; k < pl->nsyn; k++)
        out_line(o, "if (dalloc(&%s, nnz * sizeof(%s), \"%s: %s\")) return -1;", pl->syn[k]->cname,
                 pl->syn[k]->type == IRT_REAL ? "real" : "int32_t", j->name, pl->syn[k]->label);
    if (j->delay)
        out_line(o, "if (dalloc(&%s_d, nnz * sizeof(int32_t), \"%s: delays\")) return -1;", c, j->name);
    out_line(o, "if (bind(k_syn_%s)) return -1;", c);
    out_line(o, "if (nrt_gpu_launch(k_syn_%s, %lld, 128, 0) != NRT_OK || nrt_gpu_sync(gpu) != NRT_OK) return -1;", c,
             (npre + 127) / 128);
    out_line(o, "ts = nrt_stage(&ctx, \"%s: synapse values\", ts);", j->name);
    simt_host_maxd(o, S, j);
    out_line(o, "%s_D = (int64_t)maxd + 1;", c);
    if (S->m->mpi)   /* distributed: the synapses onto this rank's neurons (simt_mpi.c) */
        simt_mpi_host_restrict(o, S, j);
    out_line(o, "if (dalloc(&%s_ring, (size_t)%s_D * %lld * sizeof(real), \"%s: receptor input ring\")) return -1;", c,
             c, npost, j->name);
    out_line(o, "if (dalloc(&%s_hist, (size_t)%s_D * %lld * sizeof(int32_t), \"%s: spike history\")) return -1;", c, c,
             (long long)j->pre.pop->size, j->name);
    out_line(o, "if (dalloc(&%s_hist_n, (size_t)%s_D * sizeof(int32_t), \"%s: spike history\")) return -1;", c, c,
             j->name);
    for (int k = 0; k < pl->npre; k++) {
        const char *t = pl->pre[k]->type == IRT_REAL ? "real" : "int32_t";
        out_line(o, "if (dalloc(&%s, (size_t)%lld * sizeof(%s), \"%s: pre.%s\")) return -1;", pl->pre[k]->cname, npre,
                 t, j->name, pl->pre[k]->label);
        out_line(o, "if (dalloc(&%s_h, (size_t)%s_D * %lld * sizeof(%s), \"%s: pre.%s history\")) return -1;",
                 pl->pre[k]->cname, c, npre, t, j->name, pl->pre[k]->label);
        if (cg_pre_after(j))
            out_line(o, "if (dalloc(&%s_ha, (size_t)%s_D * %lld * sizeof(%s), \"%s: pre.%s history\")) return -1;",
                     pl->pre[k]->cname, c, npre, t, j->name, pl->pre[k]->label);
    }
    if (needs_arrs(pl))
        out_line(o, "if (dalloc(&%s_arrs, %s * sizeof(int64_t), \"%s: arrivals\")) return -1;", c,
                 S->m->mpi ? arena_printf(&S->cc->arena, "(size_t)%s_csr.nnz", c) : "nnz", j->name);
    for (int k = 0; k < pl->npost; k++)
        out_line(o, "if (dalloc(&%s, (size_t)%lld * sizeof(%s), \"%s: post.%s\")) return -1;", pl->post[k]->cname,
                 npost, pl->post[k]->type == IRT_REAL ? "real" : "int32_t", j->name, pl->post[k]->label);
    if (needs_column(pl)) {
        out_line(o, "/* the column index, built on the device from its CSR as the C back end builds it (nrt_gpu_col_index) */");
        out_line(o, "if (nrt_gpu_col_index(&ctx, gpu, &%s_csr, %uu, \"%s: column index\", &%s_cptr, &%s_csyn, &%s_cpre) != NRT_OK) return -1;",
                 c, (unsigned)j->id, j->name, c, c, c);
        out_line(o, "(void)nrt_stage(&ctx, \"%s: column index\", ts);", j->name);
    }
    out_line(o, "if (bind(k_scope_%s)) return -1;", c);
    out_line(o, "return nrt_gpu_launch(k_scope_%s, %lld, 128, 0) == NRT_OK ? 0 : -1;", c,
             ((npre > npost ? npre : npost) + 127) / 128);
}

/* ===== host =====} */
