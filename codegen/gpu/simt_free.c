/* simt_free.c -- the free schedule: models without projections (batches of independent
 * neurons, such as the HH f-I batch) on the GPU back ends.
 *
 * No neuron reads another's state, so nothing orders one neuron's steps against another's:
 * nc_k_free gives each work-item a neuron and lets it run through the whole chunk (up to
 * NC_CH steps) with its state in its own hands, with no barrier and no launch per step. The
 * graph schedule pays two graph nodes and a grid-wide drain per step instead (12.9 us per
 * step for 10^4 HH neurons on an H200, most of it waiting).
 *
 * What the other schedules make per step from the spike lists is made afterwards, per chunk,
 * from spike bits: the neuron phase sets bit n of word (k, n / 32) of its population's
 * <pop>_fb when neuron n fires in chunk step k; then
 *   nc_k_fcount  a work-group per step counts the bits per population and per recorded view
 *                (nc_fcnt[slot * NC_CH + k]; slots: populations, then spike recordings),
 *   nc_k_fscan   one work-group turns the counts into per-step spike counts (nc_pcnt) and,
 *                for each spike recording, running ends (rec<r>_ends) and offsets,
 *   nc_k_fwrite  a work-group per step writes each recording's indices at its offset in
 *                index order (a prefix sum over the words) and clears the step's bits and
 *                counts (zero as allocated, so zero when the next chunk starts),
 * the same buffers the host reads after the other schedules (the cluster schedule's push
 * step records its spikes the same way: simt_push.c). State recordings are written by
 * the work-item that owns the recorded neuron; --check-finite looks at each neuron after its
 * own K-th steps (simt_finite_one).
 */
#include "simt_priv.h"

enum { FREE_GROUP = 64, FREE_REC_MAX = 256 };

/* Contract: 1 when m can take the free schedule: no projections (nothing couples neurons),
 * no top-k (a selection over the population each step), one process, and state recordings
 * of at most FREE_REC_MAX neurons in all (each work-item looks them up every recorded step). */
int simt_free_ok(const IrModel *m)
{
    int nidx = 0;
    if (m->nprojs || m->mpi)
        return 0;
    for (int i = 0; i < m->npops; i++)
        if (m->pops[i]->topk)
            return 0;
    for (int r = 0; r < m->nrecs; r++) {
        if (m->recs[r].bin)   /* rate recordings: the grid schedules count them */
            return 0;
        long long a, st;
        if (!m->recs[r].spikes && !simt_rec_stride(&m->recs[r], &a, &st))   /* a slice's column is found at once */
            nidx += m->recs[r].nidx;
    }
    return nidx <= FREE_REC_MAX;
}

static int n_spike_recs(const IrModel *m)
{
    int n = 0;
    for (int r = 0; r < m->nrecs; r++)
        n += m->recs[r].spikes;
    return n;
}

static long long words(const IrPop *p)
{
    return (long long)((p->size + 31) / 32);
}

/* Contract: the free schedule's buffers (call once, in the layout, when S->has[SCHED_FREE]). */
void simt_free_args(Simt *S)
{
    for (int i = 0; i < S->m->npops; i++)
        simt_add_arg(S, arena_printf(&S->cc->arena, "%s_fb", S->m->pops[i]->cname), "uint32_t", ARG_MEM);
    simt_add_arg(S, "nc_fcnt", "int32_t", ARG_MEM);
}

static void d_spike_free(const CgDialect *d, const IrPop *pop, Out *o)
{
    (void)d;
    out_line(o, "nc_atomic_or_u32(&%s_fb[k * %lld + (n >> 5)], 1u << (n & 31));", pop->cname, words(pop));
}

/* Neuron n of p's state recordings, after step `step`. */
static void state_recs(Out *o, const Simt *S, const IrPop *p)
{
    for (int r = 0; r < S->m->nrecs; r++) {
        const IrRecord *rec = &S->m->recs[r];
        if (rec->spikes || rec->view.pop != p)
            continue;
        const long long ev = (long long)rec->every;
        if (ev > 1)
            out_open(o, "if (nc_mod(step + 1, %lld) == 0)", ev);
        else
            out_begin(o);
        out_line(o, "const int64_t row = %s;", ev > 1 ? arena_printf(&S->cc->arena, "step / %lld - step0 / %lld", ev, ev)
                                                      : "step - step0");
        out_line(o, "NC_G double *dst = rec%d_rows + ((int64_t)hf * %lld + row) * %d;", r,
                 (long long)simt_state_rec_rows(S, rec), rec->nvars * rec->nidx);
        const char *col = simt_rec_q(S, r, "n", "1");
        if (col) {   /* a slice: its column at once */
            out_line(o, "const int q = %s;", col);
            out_open(o, "if (q >= 0)");
        } else {     /* a table: every column that is n */
            out_open(o, "for (int q = 0; q < %d; q++)", rec->nidx);
            out_line(o, "if (rec%d_idx[q] != n) continue;", r);
        }
        for (int v = 0; v < rec->nvars; v++) {
            const IrVar *var = rec->vars[v];
            if (var->per_neuron)
                out_line(o, "dst[%d + q] = (double)%s[n];", v * rec->nidx, var->cname);
            else
                out_line(o, "dst[%d + q] = (double)nc_scal[%d];", v * rec->nidx, simt_scal_var(S, var));
        }
        out_close(o);
        out_close(o);
    }
}

/* A mask of the bits of word w for neurons lo .. hi - 1 (w in that range). */
static void emit_view_mask(Out *o)
{
    out_open(o, "NC_DEV uint32_t nc_view_mask(int64_t w, int64_t lo, int64_t hi)");
    out_line(o, "const int64_t a = 32 * w;");
    out_line(o, "uint32_t m = 0xffffffffu;");
    out_line(o, "if (lo > a) m &= 0xffffffffu << (lo - a);");
    out_line(o, "if (hi < a + 32) m &= 0xffffffffu >> (a + 32 - hi);");
    out_line(o, "return m;");
    out_close(o);
    out_blank(o);
}

/* Contract: the free schedule's device functions and kernels (S->has[SCHED_FREE]). */
void simt_free_device(Out *o, const Simt *S)
{
    const IrModel *m = S->m;
    for (int i = 0; i < m->npops; i++) {
        const IrPop *p = m->pops[i];
        CgDialect d = simt_dev_dialect(S, p);
        d.spike = d_spike_free;
        out_line(o, "/* population %s (%s, %lld neurons), free schedule: a work-item runs its neurons", p->name,
                 p->model, (long long)p->size);
        out_line(o, " * through the chunk's steps step0 .. step0 + nsteps - 1 */");
        out_open(o, "NC_DEV void nc_free_%s(NC_ARGS, const int64_t step0, const int64_t nsteps, const int hf)",
                 p->cname);
        out_open(o, "for (int64_t n = NC_GID; n < %lld; n += NC_GSIZE)", (long long)p->size);
        out_open(o, "for (int64_t step = step0; step < step0 + nsteps; step++)");
        out_line(o, "const int64_t k = step - step0;");
        out_line(o, "const real t = (real)((double)step * dt);");
        out_line(o, "(void)t; (void)k; (void)hf;");
        cg_block(&d, &p->body, o);
        state_recs(o, S, p);
        simt_finite_one(o, S, p, 0);
        out_close(o);
        out_close(o);
        out_close(o);
        out_blank(o);
    }
    out_line(o, "/* free schedule: every population's neurons through a chunk of nsteps steps */");
    simt_kernel_open(o, S, "NC_KERNEL nc_k_free(NC_ARGS, const int64_t nsteps)");
    out_line(o, "const int hf = (int)nc_ctl[2];");
    out_line(o, "const int64_t step0 = nc_ctl[1];");
    for (int i = 0; i < m->npops; i++)
        out_line(o, "nc_free_%s(NC_PASS, step0, nsteps, hf);", m->pops[i]->cname);
    out_close(o);
    out_blank(o);
}

/* Contract: the kernels that turn a chunk's spike bits (<pop>_fb) into the recordings and
 * counts (the free schedule, and the cluster schedule's push step, simt_push.c); each
 * returns at once after a stalled cluster launch (nc_ctl[4]), whose bits are not whole. */
void simt_free_post(Out *o, const Simt *S)
{
    const IrModel *m = S->m;
    emit_view_mask(o);
    out_line(o, "/* free schedule and push step: the chunk's spike bits counted, a work-group per step */");
    simt_kernel_open(o, S, "NC_KERNEL nc_k_fcount(NC_ARGS, const int64_t nsteps)");
    out_line(o, "const int64_t k = NC_GROUP;");
    out_line(o, "(void)nsteps;");
    out_line(o, "if (nc_ctl[4]) return;");
    for (int i = 0; i < m->npops; i++) {
        const IrPop *p = m->pops[i];
        out_begin(o);
        out_line(o, "int c = 0;");
        out_line(o, "for (int64_t w = NC_LID; w < %lld; w += NC_LSIZE) c += nc_popc(%s_fb[k * %lld + w]);", words(p),
                 p->cname, words(p));
        out_line(o, "if (c) nc_atomic_add_i32(&nc_fcnt[%d * NC_CH + k], c);", i);
        out_close(o);
    }
    for (int r = 0, s = 0; r < m->nrecs; r++) {
        const IrRecord *rec = &m->recs[r];
        if (!rec->spikes)
            continue;
        const long long lo = (long long)rec->view.offset, hi = lo + (long long)rec->view.size;
        out_begin(o);
        out_line(o, "int c = 0;");
        out_line(o, "for (int64_t w = %lld + NC_LID; w <= %lld; w += NC_LSIZE)", lo >> 5, (hi - 1) >> 5);
        out_line(o, "    c += nc_popc(%s_fb[k * %lld + w] & nc_view_mask(w, %lld, %lld));", rec->view.pop->cname,
                 words(rec->view.pop), lo, hi);
        out_line(o, "if (c) nc_atomic_add_i32(&nc_fcnt[%d * NC_CH + k], c);", m->npops + s++);
        out_close(o);
    }
    for (int v = 0; v < m->nviews; v++) {   /* the declared views (the summary's counts) */
        const IrView *vw = &m->views[v].view;
        const long long lo = (long long)vw->offset, hi = lo + (long long)vw->size;
        out_begin(o);
        out_line(o, "int c = 0;");
        out_line(o, "for (int64_t w = %lld + NC_LID; w <= %lld; w += NC_LSIZE)", lo >> 5, (hi - 1) >> 5);
        out_line(o, "    c += nc_popc(%s_fb[k * %lld + w] & nc_view_mask(w, %lld, %lld));", vw->pop->cname,
                 words(vw->pop), lo, hi);
        out_line(o, "if (c) nc_atomic_add_i32(&nc_fcnt[%d * NC_CH + k], c);", m->npops + n_spike_recs(m) + v);
        out_close(o);
    }
    out_close(o);
    out_blank(o);

    out_line(o, "/* free schedule and push step: per-step spike counts; each spike recording's running ends and offsets");
    out_line(o, " * (one work-group, in order over the chunk's steps) */");
    simt_kernel_open(o, S, "NC_KERNEL nc_k_fscan(NC_ARGS, const int64_t nsteps)");
    out_line(o, "NC_L int nc_tmp[%d];", S->block + 64);
    out_line(o, "if (nc_ctl[4]) return;");
    out_line(o, "const int hf = (int)nc_ctl[2];");
    out_line(o, "for (int64_t q = NC_LID; q < nsteps * %d; q += NC_LSIZE)", m->npops);
    out_line(o, "    nc_pcnt[((int64_t)hf * NC_CH + q / %d) * %d + q %% %d] = nc_fcnt[(q %% %d) * NC_CH + q / %d];",
             m->npops, m->npops, m->npops, m->npops, m->npops);
    for (int r = 0, s = 0; r < m->nrecs; r++) {
        if (!m->recs[r].spikes)
            continue;
        const int slot = m->npops + s++;
        out_begin(o);
        out_line(o, "int run = 0;");
        out_open(o, "for (int64_t k0 = 0; k0 < nsteps; k0 += NC_LSIZE)");
        out_line(o, "const int64_t k = k0 + NC_LID;");
        out_line(o, "const int c = k < nsteps ? nc_fcnt[%d * NC_CH + k] : 0;", slot);
        out_line(o, "int total;");
        out_line(o, "const int at = run + nc_block_scan(c, nc_tmp, &total);");
        out_open(o, "if (k < nsteps)");
        out_line(o, "nc_fcnt[%d * NC_CH + k] = at;", slot);
        out_line(o, "rec%d_ends[(int64_t)hf * NC_CH + k] = at + c;", r);
        out_close(o);
        out_line(o, "run += total;");
        out_close(o);
        out_close(o);
    }
    if (m->nviews) {   /* each view's running count over the chunk's steps (nc_vcnt) */
        out_open(o, "for (int v = NC_LID; v < %d; v += NC_LSIZE)", m->nviews);
        out_line(o, "int run = 0;");
        out_line(o, "for (int64_t k = 0; k < nsteps; k++)");
        out_line(o, "    nc_vcnt[((int64_t)hf * NC_CH + k) * %d + v] = run += nc_fcnt[(%d + v) * NC_CH + k];", m->nviews,
                 m->npops + n_spike_recs(m));
        out_close(o);
    }
    out_close(o);
    out_blank(o);

    out_line(o, "/* free schedule and push step: each spike recording's indices of step k in index order; the step's");
    out_line(o, " * bits cleared for the next chunk; the step counter advanced */");
    simt_kernel_open(o, S, "NC_KERNEL nc_k_fwrite(NC_ARGS, const int64_t nsteps)");
    out_line(o, "NC_L int nc_tmp[%d];", S->block + 64);
    out_line(o, "if (nc_ctl[4]) return;");
    out_line(o, "const int64_t k = NC_GROUP;");
    out_line(o, "const int hf = (int)nc_ctl[2];");
    out_line(o, "(void)hf;");
    for (int r = 0, s = 0; r < m->nrecs; r++) {
        const IrRecord *rec = &m->recs[r];
        if (!rec->spikes)
            continue;
        const long long lo = (long long)rec->view.offset, hi = lo + (long long)rec->view.size;
        const IrPop *p = rec->view.pop;
        out_begin(o);
        out_line(o, "int at0 = nc_fcnt[%d * NC_CH + k];", m->npops + s++);
        out_open(o, "for (int64_t w0 = %lld; w0 <= %lld; w0 += NC_LSIZE)", lo >> 5, (hi - 1) >> 5);
        out_line(o, "const int64_t w = w0 + NC_LID;");
        out_line(o, "uint32_t b = w <= %lld ? %s_fb[k * %lld + w] & nc_view_mask(w, %lld, %lld) : 0u;", (hi - 1) >> 5,
                 p->cname, words(p), lo, hi);
        out_line(o, "int total;");
        out_line(o, "int at = at0 + nc_block_scan(nc_popc(b), nc_tmp, &total);");
        out_open(o, "while (b)");
        out_line(o, "rec%d_ids[(int64_t)hf * %lld + at++] = (int32_t)(w * 32 + nc_ctz(b) - %lld);", r,
                 (long long)simt_spike_rec_cap(S, rec), lo);
        out_line(o, "b &= b - 1u;");
        out_close(o);
        out_line(o, "at0 += total;");
        out_close(o);
        out_close(o);
    }
    out_line(o, "NC_BARRIER();");
    for (int i = 0; i < m->npops; i++)
        out_line(o, "for (int64_t w = NC_LID; w < %lld; w += NC_LSIZE) %s_fb[k * %lld + w] = 0u;", words(m->pops[i]),
                 m->pops[i]->cname, words(m->pops[i]));
    out_line(o, "for (int q = NC_LID; q < %d; q += NC_LSIZE) nc_fcnt[q * NC_CH + k] = 0;",
             m->npops + n_spike_recs(m) + m->nviews);
    out_line(o, "if (NC_GID == 0) nc_ctl[0] = nc_ctl[1] + nsteps;");
    out_close(o);
    out_blank(o);
}

/* Contract: host code of main (fail, dalloc in scope): the free schedule's buffers. */
void simt_free_host_alloc(Out *o, const Simt *S)
{
    const int nspk = n_spike_recs(S->m);
    for (int i = 0; i < S->m->npops; i++) {
        const IrPop *p = S->m->pops[i];
        out_line(o, "if (dalloc(&%s_fb, (size_t)NC_CH * %lld * sizeof(uint32_t), \"%s: spike bits of a chunk\")) return fail(argv[0]);",
                 p->cname, words(p), p->name);
    }
    out_line(o, "if (dalloc(&nc_fcnt, (size_t)NC_CH * %d * sizeof(int32_t), \"spike counts of a chunk\")) return fail(argv[0]);",
             S->m->npops + nspk + S->m->nviews);
}

/* Contract: host code of enqueue (len in scope): the chunk's launches; returns from it. */
void simt_free_host_enqueue(Out *o, const Simt *S)
{
    int64_t most = 1;
    for (int i = 0; i < S->m->npops; i++)
        if (S->m->pops[i]->size > most)
            most = S->m->pops[i]->size;
    out_line(o, "if (nrt_gpu_arg_i64(k_free, NC_NARGS, len) != NRT_OK) return -1;");
    out_line(o, "if (nrt_gpu_launch(k_free, %lld, %d, 0) != NRT_OK) return -1;", (long long)((most + FREE_GROUP - 1) / FREE_GROUP),
             FREE_GROUP);
    simt_free_host_post(o);
}

/* Contract: host code (len in scope): the launches of simt_free_post's kernels after a
 * chunk's; returns from the enclosing function. */
void simt_free_host_post(Out *o)
{
    out_line(o, "if (nrt_gpu_arg_i64(k_fcount, NC_NARGS, len) != NRT_OK || nrt_gpu_arg_i64(k_fscan, NC_NARGS, len) != NRT_OK ||");
    out_line(o, "    nrt_gpu_arg_i64(k_fwrite, NC_NARGS, len) != NRT_OK) return -1;");
    out_line(o, "if (nrt_gpu_launch(k_fcount, (size_t)len, 128, 0) != NRT_OK) return -1;");
    out_line(o, "if (nrt_gpu_launch(k_fscan, 1, 256, 0) != NRT_OK) return -1;");
    out_line(o, "return nrt_gpu_launch(k_fwrite, (size_t)len, 256, 0) == NRT_OK ? 0 : -1;");
}
