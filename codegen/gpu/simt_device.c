/* simt_device.c -- the device program's driver (simt_emit_device): the dialect prelude
 * (nrt_simt.h and friends pasted, NC_ARGS), then the kernels of the schedules the layout
 * compiled: the grid kernels of launch and graph (emit_kernels), nc_k_block and
 * nc_k_cluster (the whole network in one work-group, or over one thread-block cluster) and
 * nc_k_persistent (one cooperative grid). Each kernel is a sequence of phases written by
 * the concerns: plastic arrivals and learning (simt_plast.c), neuron updates
 * (simt_neurons.c), top-k selection (simt_topk.c), spike delivery (simt_deliver.c), the
 * recording tail (simt_records.c); resident buffers come from simt_shmem.c, the free
 * schedule's kernel from simt_free.c, the push step's from simt_push.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simt_priv.h"

static const SrcLoc NOLOC = {0, 0, 0, 0};

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
    if (S->has[SCHED_CLUSTER]) {
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
    cg_rand_helpers(o, "NC_DEV", "NC_DEV_COLD", m->normal_tr);
    cg_sf_helper(o, m, "NC_DEV", "NC_G ");
    cg_series_helper(o, m, "NC_DEV", "NC_G ");
    out_line(o, "#if defined(__CUDACC__)");
    out_line(o, "/* \"set but never used\": a batch row (emit_batch_row) sets arguments a kernel may not read */");
    out_line(o, "#pragma nv_diag_suppress 550");
    out_line(o, "#endif");
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
            if (simt_n_fused(S, m->pops[i], v))
                out_line(o, "nc_deliver_from_%s_%s(NC_PASS, step);", m->pops[i]->cname, variant);
        for (int k = 0; k < m->nprojs; k++)
            if (!m->projs[k]->plast && !simt_fused_in(m, m->projs[k], v) && !(v == V_GRID && simt_fam_grid(S, m->projs[k])))
                out_line(o, "nc_deliver_%s_%s(NC_PASS, step%s);", m->projs[k]->cname, variant,
                         v == V_GRID && simt_coop_row(m->projs[k]) ? ", nc_t64" : "");
        if (v == V_GRID)
            simt_fam_grid_calls(o, S);
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

/* nc_k_init: the per-neuron initial values of every population. */
static void emit_init_kernel(Out *o, const Simt *S)
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
}

/* The dialect of projection j's construction code: draws keyed by row i and rank. */
CgDialect simt_syn_dialect(const Simt *S, const IrProj *j)
{
    CgDialect d = simt_dev_dialect(S, j->pre.pop);
    d.cold = 1;               /* run once, at construction */
    d.rng_elem = "i";
    d.rng_sub = "rank";
    d.rng_step = "0";
    d.index = "i";
    d.edge[0] = arena_printf(&S->cc->arena, "%s_fw[s]", j->cname);
    d.edge[1] = arena_printf(&S->cc->arena, "%s_fd[s]", j->cname);
    return d;
}

/* The loops of projection k's construction: its per-synapse values (initial values, delays
 * into nc_cnt), a case of its group's nc_k_syn_g<n>. */
static void emit_syn_body(Out *o, const Simt *S, int k)
{
    const IrProj *j = S->m->projs[k];
    CgDialect d = simt_syn_dialect(S, j);
    CgDialect dd = d;
    dd.dbl = 1;
    dd.real = "double";
    StrBuf b = {0};
    out_line(o, "/* per-synapse values of %s (SYNAPSE_INIT draws keyed by row and rank) */", j->name);
    out_open(o, "case %d:", simt_syn_index(S, j) % SIMT_SYN_GROUP);
    out_open(o, "for (int64_t i = NC_GID; i < %lld; i += NC_GSIZE)", (long long)j->pre.size);
    out_open(o, "for (int64_t s = %s_rp[i]; s < %s_rp[i + 1]; s++)", j->cname, j->cname);
    if (simt_mpi_cut_first(S->m, j))   /* distributed: cut to the rank's columns first (simt_mpi.c) */
        out_line(o, "const int64_t j = %s_col[s], rank = nc_sl[0] > 1 ? (int64_t)nc_rk[s] : s - %s_rp[i];", j->cname,
                 j->cname);
    else
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
        simt_mpi_min_delay(o, S, j);
    }
    out_close(o);
    out_close(o);
    out_close_with(o, " break;");
    sb_free(&b);
}

/* nc_k_syn_g<n>: the per-synapse values of projections n*SIMT_SYN_GROUP on, one per launch
 * (nc_sel), and nc_k_pscan_<proj> for a procedural projection with delays. */
static void emit_syn_kernels(Out *o, const Simt *S)
{
    const IrModel *m = S->m;
    for (int k = 0; k < m->nprojs; k++) {
        const IrProj *j = m->projs[k];
        if (j->rule == IR_PAIRS) {
            CgDialect d = simt_syn_dialect(S, j);
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
        if (j->procedural && j->delay && !simt_fam_member(S, j))   /* a member's: nc_k_pscanf<f> */
            simt_emit_pscan(o, S, j);
    }
    /* the projections that are no family's member, SIMT_SYN_GROUP to a kernel */
    for (int k = 0, g = 0; k < m->nprojs; k++) {
        if (simt_fam_member(S, m->projs[k]))
            continue;
        const int x = simt_syn_index(S, m->projs[k]);
        if (x % SIMT_SYN_GROUP == 0) {
            simt_kernel_open(o, S, "NC_KERNEL nc_k_syn_g%d(NC_ARGS, const int nc_sel)", g++);
            out_open(o, "switch (nc_sel)");
        }
        emit_syn_body(o, S, k);
        int next = k + 1;   /* the next projection of this kernel */
        while (next < m->nprojs && simt_fam_member(S, m->projs[next]))
            next++;
        if (next == m->nprojs || (x + 1) % SIMT_SYN_GROUP == 0) {
            out_close(o);
            out_close(o);
            out_blank(o);
        }
    }
    simt_fam_device(o, S);
}

/* The device functions of the phases, called by every schedule's kernels: top-k passes,
 * neurons and deliveries per variant, plastic projections, the recording tail, --mpi. */
static void emit_phase_functions(Out *o, const Simt *S)
{
    const IrModel *m = S->m;
    if (simt_any_coop(m))
        simt_emit_scan64(o);
    simt_topk_common(o, m);
    for (int i = 0; i < m->npops; i++)
        if (m->pops[i]->topk) {
            CgDialect d = simt_dev_dialect(S, m->pops[i]);
            simt_topk_pop(o, &d, m, m->pops[i]);
        }
    for (int i = 0; i < m->npops; i++) {
        simt_emit_neurons(o, S, m->pops[i], V_GRID);
        simt_emit_neurons(o, S, m->pops[i], V_BLOCK);
        if (S->has[SCHED_CLUSTER])
            simt_emit_neurons(o, S, m->pops[i], V_CLUSTER);
    }
    for (int k = 0; k < m->nprojs; k++) {
        const IrProj *j = m->projs[k];
        if (j->plast)
            continue;
        if (!simt_fused_in(m, j, V_GRID) && !simt_fam_grid(S, j))
            simt_emit_prop(o, S, j, V_GRID);
        if (S->has[SCHED_BLOCK] && !simt_fused_in(m, j, V_BLOCK))
            simt_emit_prop(o, S, j, V_BLOCK);
        if (S->has[SCHED_CLUSTER] && !simt_fused_in(m, j, V_CLUSTER))
            simt_emit_prop(o, S, j, V_CLUSTER);
    }
    for (int i = 0; i < m->npops; i++) {
        if (simt_n_fused(S, m->pops[i], V_GRID))
            simt_emit_prop_fused(o, S, m->pops[i], V_GRID);
        if (S->has[SCHED_BLOCK] && simt_n_fused(S, m->pops[i], V_BLOCK))
            simt_emit_prop_fused(o, S, m->pops[i], V_BLOCK);
        if (S->has[SCHED_CLUSTER] && simt_n_fused(S, m->pops[i], V_CLUSTER))
            simt_emit_prop_fused(o, S, m->pops[i], V_CLUSTER);
    }
    simt_fam_grid_device(o, S);
    simt_plast_device(o, S);
    simt_emit_tail(o, S);
    if (m->mpi)
        simt_mpi_device(o, S, simt_spike_recs_atomic);
}

/* nc_k_chunk: the start of a recording chunk; the free schedule's kernels. */
static void emit_chunk_kernel(Out *o, const Simt *S)
{
    const IrModel *m = S->m;
    out_line(o, "/* the start of a recording chunk: its first step, its half, its counters (one work-item) */");
    simt_kernel_open(o, S, "NC_KERNEL nc_k_chunk(NC_ARGS, const int64_t step0, const int hf, NC_G const int64_t *nc_tab, const int nc_batch)");
    emit_batch_row(o, S);
    out_open(o, "if (NC_GID == 0)");
    out_line(o, "nc_ctl[1] = step0;");
    out_line(o, "nc_ctl[2] = hf;");
    for (int r = 0; r < m->nrecs; r++)
        if (simt_rec_counted(&m->recs[r]))
            out_line(o, "nc_cnt[%d + hf] = 0;", S->cnt_rec + 2 * r);
    for (int v = 0; v < m->nviews; v++)
        out_line(o, "nc_cnt[%d + hf] = 0;", S->cnt_view + 2 * v);
    out_close(o);
    simt_finite_reset(o, S);
    out_close(o);
    out_blank(o);
    if (S->has[SCHED_FREE])
        simt_free_device(o, S);
    if (S->has[SCHED_FREE] || S->push)
        simt_free_post(o, S);
}

/* The launch and graph schedules' kernels: nc_k_neurons, the top-k passes, nc_k_synapses
 * and nc_k_plast<phase>, one grid each per step. */
static void emit_grid_kernels(Out *o, const Simt *S)
{
    const IrModel *m = S->m;
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
    if (simt_any_coop(m))
        out_line(o, "NC_L int64_t nc_t64[258]; /* procedural rows: work-groups of up to 256 */");
    out_line(o, "const int64_t step = nc_ctl[3];");
    out_line(o, "const int hf = (int)nc_ctl[2];");
    emit_phase_calls(o, S, 0, "grid");
    /* --mpi exchanging every D > 1 steps: the states were recorded after the neuron phase (nc_k_rows) */
    out_line(o, "nc_tail(NC_PASS, step, hf, 0, 0, 1, nc_ctl[1], nc_fin[0], %s, 0);", m->mpi ? "nc_sl[3] > 1 ? 1 : 3" : "3");
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
}

static void emit_kernels(Out *o, const Simt *S)
{
    emit_init_kernel(o, S);
    emit_syn_kernels(o, S);
    simt_set_kernels(o, S);
    emit_phase_functions(o, S);
    emit_chunk_kernel(o, S);
    emit_grid_kernels(o, S);
    if (S->has[SCHED_BLOCK])
        emit_block_kernel(o, S, 0);
    if (S->has[SCHED_CLUSTER])
        emit_block_kernel(o, S, 1);
    if (S->push)
        simt_push_device(o, S);
    if (S->has[SCHED_PERSISTENT])
        emit_persistent_kernel(o, S);
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
        simt_emit_resident_cluster(o, S, RES_IN);
        out_line(o, "NC_BARRIER();");
        simt_emit_own_tables(o, S);
    } else if (S->res_bytes) {
        out_line(o, "#if defined(__CUDACC__)");
        out_line(o, "/* %lld bytes of buffers resident in shared memory for the launch (plan_resident) */",
                 (long long)S->res_bytes);
        out_line(o, "extern __shared__ __align__(16) unsigned char nc_res[];");
        simt_emit_resident(o, S, RES_IN);
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
        simt_emit_resident_cluster(o, S, RES_NAMES);
    } else if (S->res_bytes) {
        out_line(o, "#if defined(__CUDACC__)");
        simt_emit_resident(o, S, RES_NAMES);
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
        simt_emit_resident_cluster(o, S, RES_OUT);
    } else if (S->res_bytes) {
        out_line(o, "#if defined(__CUDACC__)");
        simt_emit_resident(o, S, RES_OUT);
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
    if (simt_any_coop(m))
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
    simt_setup(&S, cc, m, bo, t);
    Out body = {0};
    out_line(&body, "#define NRT_MATH_PASTED 1 /* nrt_math.h's two halves follow it here */");
    int rc = paste_file(&S, bo, "nrt_simt.h", &body);
    if (!rc)
        rc = paste_file(&S, bo, "nrt_math.h", &body);
    if (!rc)
        rc = paste_file(&S, bo, "nrt_math_d.h", &body);
    if (!rc)
        rc = paste_file(&S, bo, "nrt_math_f.h", &body);
    if (!rc)
        rc = paste_file(&S, bo, "nrt_philox.h", &body);
    if (!rc)
        rc = paste_file(&S, bo, "nrt_space.h", &body);
    if (!rc)
        rc = paste_file(&S, bo, "nrt_conn_dev.h", &body);
    if (rc) {
        out_free(&body);
        free(S.args);
        return -1;
    }
    emit_dev_prelude(&body, &S);
    emit_args_macros(&body, &S);
    out_blank(&body);
    emit_kernels(&body, &S);
    out_line(o, "/* %s device program -- generated by neuroc %s from %s.neuro for the %s back end.", m->name,
             NEUROC_VERSION, m->name, t->name);
    out_line(o, " * One text for CUDA and OpenCL (nrt_simt.h). Do not edit: change the model. */");
    /* only where a kernel uses it (the persistent and cluster schedules): parsing it took
     * nvcc 0.8 s of the microcircuit's build, before anything runs in parallel */
    if (strstr(body.buf.s, "cooperative_groups::")) {
        out_line(o, "#if defined(__CUDACC__)");
        out_line(o, "#include <cooperative_groups.h>");
        out_line(o, "#endif");
    }
    sb_putn(&o->buf, body.buf.s, body.buf.len);
    out_free(&body);
    free(S.args);
    return 0;
}
