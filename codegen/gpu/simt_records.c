/* simt_records.c -- what leaves the device: the recording tail of a step on the device
 * (nc_tail: spike counts, recording ends, state rows), the host's side of the
 * double-buffered recordings (simt_emit_host_records), --save-connectivity
 * (simt_emit_host_save) and checkpoints (simt_emit_host_ckpt: ckpt_save and ckpt_load).
 */

#include "simt_priv.h"

/* Whether a state recording's neurons are *a + *s q for q < nidx, s >= 1: a population or a
 * slice of one, the common case, whose columns need no table of indices on the device (a
 * table of 20,683 int64 for a population of the full microcircuit is more than CUDA's 64 KB
 * of constant data). */
int simt_rec_stride(const IrRecord *rec, long long *a, long long *s)
{
    *a = rec->nidx > 0 ? (long long)rec->idx[0] : 0;
    *s = rec->nidx > 1 ? (long long)(rec->idx[1] - rec->idx[0]) : 1;
    if (rec->nidx < 1 || *s < 1)
        return 0;
    for (int k = 2; k < rec->nidx; k++)
        if (rec->idx[k] - rec->idx[k - 1] != *s)
            return 0;
    return 1;
}

/* The neuron of column q (a C expression) of state recording r. */
const char *simt_rec_index(const Simt *S, int r, const char *q)
{
    long long a, s;
    if (!simt_rec_stride(&S->m->recs[r], &a, &s))
        return arena_printf(&S->cc->arena, "rec%d_idx[%s]", r, q);
    if (s == 1)
        return arena_printf(&S->cc->arena, "(%lld + (%s))", a, q);
    return arena_printf(&S->cc->arena, "(%lld + %lld * (%s))", a, s, q);
}

/* The column (int) of state recording r that neuron n (a C expression) is where cond holds,
 * else -1, as one expression where its neurons are a + s q; NULL for a table (search it). */
const char *simt_rec_q(const Simt *S, int r, const char *n, const char *cond)
{
    const IrRecord *rec = &S->m->recs[r];
    long long a, s;
    if (!simt_rec_stride(rec, &a, &s))
        return NULL;
    if (s == 1)
        return arena_printf(&S->cc->arena, "%s && %s >= %lld && %s < %lld ? (int)(%s - %lld) : -1", cond, n, a, n,
                            a + rec->nidx, n, a);
    return arena_printf(&S->cc->arena, "%s && %s >= %lld && %s <= %lld && (%s - %lld) %% %lld == 0 ? (int)((%s - %lld) / %lld) : -1",
                        cond, n, a, n, a + s * (rec->nidx - 1), n, a, s, n, a, s);
}

/* Declares q, the column of state recording r that neuron n is where cond holds, else -1
 * (simt_rec_q, or a search of the table: the last column n is). */
void simt_rec_column(Out *o, const Simt *S, int r, const char *q, const char *n, const char *cond)
{
    const char *e = simt_rec_q(S, r, n, cond);
    if (e) {
        out_line(o, "const int %s = %s;", q, e);
        return;
    }
    out_line(o, "int %s = -1;", q);
    out_line(o, "for (int c = 0; %s && c < %d; c++) if (rec%d_idx[c] == %s) %s = c;", cond, S->m->recs[r].nidx, r, n, q);
}

/* After delivery: per-step spike counts, recording ends and state rows. Any number of
 * work-items (grid-stride); runs after every population's neuron phase of the step. */
void simt_emit_tail(Out *o, const Simt *S)
{
    const IrModel *m = S->m;
    for (int r = 0; r < m->nrecs; r++) {
        const IrRecord *rec = &m->recs[r];
        long long a, s;
        if (rec->spikes || rec->proj || rec->bin || simt_rec_stride(rec, &a, &s))
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
        if (simt_rec_counted(&m->recs[r]))
            out_line(o, "rec%d_ends[(int64_t)hf * NC_CH + k] = nc_cnt[%d + hf];", r, S->cnt_rec + 2 * r);
    for (int v = 0; v < m->nviews; v++)
        out_line(o, "nc_vcnt[((int64_t)hf * NC_CH + k) * %d + %d] = nc_cnt[%d + hf];", m->nviews, v, S->cnt_view + 2 * v);
    out_close(o);
    out_open(o, "if ((nc_sel & 2) && nc_i0 >= 0)");
    for (int r = 0; r < m->nrecs; r++) {
        const IrRecord *rec = &m->recs[r];
        if (rec->spikes || rec->bin)
            continue;
        if (rec->proj) {
            /* synapse states of a plastic projection: a row of nvars x nnz, in CSR order */
            const IrProj *j = rec->proj;
            out_open(o, "if ((step + 1) %% %lld == 0)", (long long)rec->every);
            out_line(o, "const int64_t row = step / %lld - nc_c0 / %lld;", (long long)rec->every,
                     (long long)rec->every);
            out_line(o, "const int64_t nnz = %s_rp[%lld];", j->cname, (long long)j->pre.size);
            /* distributed: a row of the whole projection's synapses, this rank's at their
             * indices (<c>_gid), the others' left +0.0 (merged by a bitwise OR, nrt_mpi_row) */
            const int gid = simt_mpi_gid(m, j);
            const char *gn = gid ? arena_printf(&S->cc->arena, "%s_gnnz", j->cname) : "nnz";
            const char *at = gid ? arena_printf(&S->cc->arena, "%s_gid[s]", j->cname) : "s";
            out_line(o, "NC_G double *dst = rec%d_rows + ((int64_t)hf * %lld + row) * %d * %s;", r,
                     (long long)simt_state_rec_rows(S, rec), rec->nvars, gn);
            if (j->plast->event) {
                /* event-driven synapse dynamics: each work-item brings its synapses up to date
                 * (step + 1 steps done) and copies them */
                out_open(o, "for (int64_t s = NC_GID; s < nnz; s += NC_GSIZE)");
                out_line(o, "nc_pl_catchup1_%s(NC_PASS, step + 1, s);", j->cname);
                for (int v = 0; v < rec->nvars; v++)
                    out_line(o, "dst[%d * %s + %s] = (double)%s[s];", v, gn, at, rec->vars[v]->cname);
                out_close(o);
                out_close(o);
                continue;
            }
            out_open(o, "for (int64_t q = NC_GID; q < %d * nnz; q += NC_GSIZE)", rec->nvars);
            out_line(o, "const int64_t s = q %% nnz;");
            out_line(o, "switch ((int)(q / nnz)) {");
            for (int v = 0; v < rec->nvars; v++)
                if (gid)
                    out_line(o, "case %d: dst[%d * %s + %s] = (double)%s[s]; break;", v, v, gn, at, rec->vars[v]->cname);
                else
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
        out_line(o, "const int64_t n = %s;", simt_rec_index(S, r, arena_printf(&S->cc->arena, "q %% %d", rec->nidx)));
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

/* --save-connectivity: the synapses and their values read back and written as .npy. */
void simt_emit_host_save(Out *o, const Simt *S, const IrProj *j)
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
    if (S->m->mpi) {   /* distributed: every rank's part to rank 0, which writes the file (simt_mpi.c) */
        out_line(o, "    ;");
        simt_mpi_host_save(o, S, j);
        out_line(o, "bad = bad || (nrt_mpi_rank(mpi) == 0 && nrt_conn_save(&ctx, \"%s\", &c, w, (int)sizeof(real), d) != NRT_OK);",
                 j->name);
    } else {
        out_line(o, "    || nrt_conn_save(&ctx, \"%s\", &c, w, (int)sizeof(real), d) != NRT_OK;", j->name);
    }
    out_line(o, "nrt_csr_free(&c);");
    out_line(o, "nrt_free(w);");
    out_line(o, "nrt_free(d);");
    out_line(o, "return bad ? -1 : 0;");
    out_close(o);
    out_blank(o);
}

/* open_records() of `record w, ... of PROJ[pre a:b, post c:d]` or `[sample k]`: the
 * connectivity read back, the subset's synapses (h_rec<r>_sel, rec<r>_n of them, in CSR
 * order) and their (pre, post) file; the device records every synapse, drain picks the
 * subset's columns into h_rec<r>_sub. */
static void emit_host_subset_open(Out *o, const IrRecord *rec, int r, const char *file)
{
    const char *jc = rec->proj->cname;
    out_line(o, "nrt_csr c = {0};");
    out_line(o, "c.n_pre = %s_csr.n_pre;", jc);
    out_line(o, "c.n_post = %s_csr.n_post;", jc);
    out_line(o, "c.nnz = nnz;");
    out_line(o, "c.row_ptr = nrt_alloc(&ctx, (size_t)(c.n_pre + 1) * sizeof(int64_t), \"connectivity row pointers\");");
    out_line(o, "c.col = nrt_alloc(&ctx, (size_t)(nnz ? nnz : 1) * sizeof(int32_t), \"connectivity columns\");");
    out_line(o, "static const int64_t pre_post[4] = {%lld, %lld, %lld, %lld};", (long long)rec->pre_lo,
             (long long)rec->pre_hi, (long long)rec->post_lo, (long long)rec->post_hi);
    out_line(o, "int64_t *sel = NULL;");
    out_line(o, "int bad = !c.row_ptr || !c.col");
    out_line(o, "    || nrt_gpu_read(gpu, %s_csr.row_ptr, 0, c.row_ptr, (size_t)(c.n_pre + 1) * sizeof(int64_t)) != NRT_OK", jc);
    out_line(o, "    || (nnz && nrt_gpu_read(gpu, %s_csr.col, 0, c.col, (size_t)nnz * sizeof(int32_t)) != NRT_OK)", jc);
    out_line(o, "    || !(sel = nrt_syn_select(&ctx, \"%s\", &c, pre_post, %lld, &rec%d_n))", file,
             (long long)rec->nsample, r);
    out_line(o, "    || !(h_rec%d_sel = nrt_gpu_host_alloc(gpu, (size_t)rec%d_n * sizeof(int64_t), \"recording %s\"))", r, r,
             file);
    out_line(o, "    || !(h_rec%d_sub = nrt_gpu_host_alloc(gpu, (size_t)rec%d_n * %d * sizeof(double), \"recording %s\"));", r,
             r, rec->nvars, file);
    out_line(o, "if (!bad) memcpy(h_rec%d_sel, sel, (size_t)rec%d_n * sizeof(int64_t));", r, r);
    out_line(o, "rec%d = bad ? NULL : nrt_rec_state(&ctx, \"%s\", pn, %d, vars, units, (int)rec%d_n, sel, %lld);", r,
             file, rec->nvars, r, (long long)rec->every);
    out_line(o, "if (rec%d && nrt_rec_synapses(rec%d, &c, sel, rec%d_n) != NRT_OK) rec%d = NULL;", r, r, r, r);
    out_line(o, "nrt_free(sel);");
    out_line(o, "nrt_csr_free(&c);");
}

/* open_records(): the device and host buffers of every recording, its files opened. */
static void emit_host_open_records(Out *o, const Simt *S)
{
    const IrModel *m = S->m;
    out_open(o, "static int open_records(void)");
    out_line(o, "if (dalloc(&nc_pcnt, (size_t)2 * NC_CH * NC_NPOPS * sizeof(int32_t), \"spike counts\")) return -1;");
    out_line(o, "h_pcnt = nrt_gpu_host_alloc(gpu, (size_t)NC_CH * NC_NPOPS * sizeof(int32_t), \"spike counts\");");
    out_line(o, "if (!h_pcnt) return -1;");
    if (m->nviews) {
        out_line(o, "if (dalloc(&nc_vcnt, (size_t)2 * NC_CH * %d * sizeof(int32_t), \"view spike counts\")) return -1;", m->nviews);
        out_line(o, "h_vcnt = nrt_gpu_host_alloc(gpu, (size_t)%d * sizeof(int32_t), \"view spike counts\");", m->nviews);
        out_line(o, "if (!h_vcnt) return -1;");
    }
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
        } else if (rec->bin) {
            cg_rate_open(o, rec, r, m->mpi ? "if (nrt_mpi_rank(mpi) == 0) " : "");
            out_line(o, "if (!rec%d%s) return -1;", r, m->mpi ? " && nrt_mpi_rank(mpi) == 0" : "");
            if (simt_rec_counted(rec)) {
                out_line(o, "if (dalloc(&rec%d_ends, (size_t)2 * NC_CH * sizeof(int32_t), \"recording %s\")) return -1;", r, f.s);
                out_line(o, "h_rec%d_ends = nrt_gpu_host_alloc(gpu, (size_t)NC_CH * sizeof(int32_t), \"recording %s\");", r, f.s);
                out_line(o, "if (!h_rec%d_ends) return -1;", r);
            }
        } else if (rec->proj) {
            const char *jc = rec->proj->cname;
            StrBuf vars = {0}, units = {0}, pn = {0};
            cg_cstring(rec->proj->name, &pn);
            cg_rec_columns(rec, &vars, &units);
            const int gid = simt_mpi_gid(m, rec->proj);
            out_begin(o);
            /* distributed: the whole projection's synapses (rank 0 writes them) */
            out_line(o, "const int64_t nnz = %s_%s;", jc, gid ? "gnnz" : "csr.nnz");
            out_open(o, "if (nnz > INT32_MAX)");
            out_line(o, "snprintf(ctx.errmsg, sizeof ctx.errmsg, \"%s: too many synapses to record\");", f.s);
            out_line(o, "return -1;");
            out_close(o);
            if (rec->syn_sel) {
                out_line(o, "static const char *const vars[] = {%s};", vars.s);
                out_line(o, "static const char *const units[] = {%s};", units.s);
                out_line(o, "static const char pn[] = \"%s\";", pn.s);
                emit_host_subset_open(o, rec, r, f.s);
            } else {
                /* the synapses' indices, copied by nrt_rec_state */
                out_line(o, "int64_t *local = nrt_alloc(&ctx, (size_t)(nnz ? nnz : 1) * sizeof *local, \"recording\");");
                out_line(o, "if (!local) return -1;");
                out_line(o, "for (int64_t s = 0; s < nnz; s++) local[s] = s;");
                out_line(o, "static const char *const vars[] = {%s};", vars.s);
                out_line(o, "static const char *const units[] = {%s};", units.s);
                out_line(o, "rec%d = %snrt_rec_state(&ctx, \"%s\", \"%s\", %d, vars, units, (int)nnz, local, %lld);", r,
                         gid ? "nrt_mpi_rank(mpi) != 0 ? NULL : " : "", f.s, pn.s, rec->nvars, (long long)rec->every);
                out_line(o, "nrt_free(local);");
            }
            out_line(o, "if (!rec%d%s) return -1;", r, gid ? " && nrt_mpi_rank(mpi) == 0" : "");
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
            cg_rec_columns(rec, &vars, &units);
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
        cg_rec_view(o, rec, r);
        cg_rec_window(o, rec, r);
        sb_free(&f);
    }
    out_line(o, "return 0;");
    out_close(o);
    out_blank(o);
}

/* A rate recording's steps of the chunk: the whole population's counts (h_pcnt), or a
 * part's running ends read back (rec<r>_ends), one count per step. */
static void emit_drain_rate(Out *o, const Simt *S, const IrRecord *rec, int r)
{
    if (S->m->mpi)
        out_open(o, "if (rec%d) /* rank 0 */", r);
    else
        out_begin(o);
    if (!simt_rec_counted(rec)) {
        out_line(o, "for (int64_t k = 0; k < len; k++)");
        out_line(o, "    if (nrt_rec_rate_add(rec%d, step0 + k, h_pcnt[k * NC_NPOPS + %d]) != NRT_OK) return -1;", r,
                 rec->view.pop->id);
        out_close(o);
        return;
    }
    out_line(o, "if (nrt_gpu_read_after(gpu, hf, rec%d_ends, (size_t)hf * NC_CH * sizeof(int32_t), h_rec%d_ends, (size_t)len * sizeof(int32_t)) != NRT_OK) return -1;",
             r, r);
    out_line(o, "for (int64_t k = 0; k < len; k++)");
    out_line(o, "    if (nrt_rec_rate_add(rec%d, step0 + k, h_rec%d_ends[k] - (k ? h_rec%d_ends[k - 1] : 0)) != NRT_OK) return -1;",
             r, r, r);
    out_close(o);
}

/* drain(hf, step0, len): a finished chunk half read back and written, recording by recording. */
static void emit_host_drain(Out *o, const Simt *S)
{
    const IrModel *m = S->m;
    out_line(o, "/* Write a finished chunk: copy its hf while the device computes the next chunk (only");
    out_line(o, " * its steps up to a non-finite value that --check-finite found, then stop). */");
    out_open(o, "static int drain(int hf, int64_t step0, int64_t len)");
    out_line(o, "if ((len = finite_scan(hf, step0, len)) < 0) return -1;");
    out_line(o, "if (nrt_gpu_read_after(gpu, hf, nc_pcnt, (size_t)hf * NC_CH * NC_NPOPS * sizeof(int32_t), h_pcnt, (size_t)len * NC_NPOPS * sizeof(int32_t)) != NRT_OK) return -1;");
    if (m->nviews)   /* the views' counts of the chunk: its last step's running counts */
        out_line(o, "if (len > 0 && nrt_gpu_read_after(gpu, hf, nc_vcnt, ((size_t)hf * NC_CH + (size_t)(len - 1)) * %d * sizeof(int32_t), h_vcnt, %d * sizeof(int32_t)) != NRT_OK) return -1;",
                 m->nviews, m->nviews);
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
            out_line(o, "nrt_spikes_sort(h_rec%d_ids, h_rec%d_ends, len); /* each step's in order (--threads) */", r, r);
            out_line(o, "int32_t from = 0;");
            out_open(o, "for (int64_t k = 0; k < len; k++)");
            out_line(o, "const int32_t to = h_rec%d_ends[k];", r);
            out_line(o, "for (int32_t q = from; q < to; q++)");
            out_line(o, "    if (nrt_rec_spike(rec%d, step0 + k, h_rec%d_ids[q]) != NRT_OK) return -1;", r, r);
            out_line(o, "from = to;");
            out_close(o);
            out_close(o);
        } else if (rec->bin) {
            emit_drain_rate(o, S, rec, r);
        } else {
            long long ev = (long long)rec->every;
            out_begin(o);
            const char *w = rec->proj ? arena_printf(&S->cc->arena, "(%d * %s_%s)", rec->nvars, rec->proj->cname,
                                                     simt_mpi_gid(m, rec->proj) ? "gnnz" : "csr.nnz")
                                      : arena_printf(&S->cc->arena, "%d", rec->nvars * rec->nidx);
            out_line(o, "const int64_t first = step0 / %lld, rows = (step0 + len) / %lld - first;", ev, ev);
            out_line(o, "if (rows > 0 && nrt_gpu_read_after(gpu, hf, rec%d_rows, (size_t)hf * %lld * %s * sizeof(double), h_rec%d_rows, (size_t)rows * %s * sizeof(double)) != NRT_OK) return -1;",
                     r, (long long)simt_state_rec_rows(S, rec), w, r, w);
            if (m->mpi)   /* every rank's neurons into rank 0's rows */
                out_line(o, "if (rows > 0 && nrt_mpi_row(&ctx, mpi, h_rec%d_rows, (int)(rows * %s)) != NRT_OK) return -1;", r, w);
            if (rec->syn_sel) {   /* the subset's columns of each row */
                out_open(o, "for (int64_t q = 0; q < rows; q++)");
                out_line(o, "const double *row = h_rec%d_rows + q * %s;", r, w);
                out_line(o, "for (int v = 0; v < %d; v++)", rec->nvars);
                out_line(o, "    for (int64_t k = 0; k < rec%d_n; k++) h_rec%d_sub[v * rec%d_n + k] = row[v * %s_csr.nnz + h_rec%d_sel[k]];",
                         r, r, r, rec->proj->cname, r);
                out_line(o, "if (nrt_rec_state_row(rec%d, (first + q + 1) * %lld - 1, h_rec%d_sub) != NRT_OK) return -1;", r,
                         ev, r);
                out_close(o);
            } else {
                out_line(o, "for (int64_t q = 0; q < rows%s; q++)", m->mpi ? arena_printf(&S->cc->arena, " && rec%d", r) : "");
                out_line(o, "    if (nrt_rec_state_row(rec%d, (first + q + 1) * %lld - 1, h_rec%d_rows + q * %s) != NRT_OK) return -1;",
                         r, ev, r, w);
            }
            out_close(o);
        }
    }
    out_line(o, "/* counted once the chunk's recordings are written: a chunk whose recording failed is not");
    out_line(o, " * completed (ctx.step stays at step0) and adds nothing to the counts */");
    out_line(o, "for (int64_t k = 0; k < len; k++)");
    out_line(o, "    for (int p = 0; p < NC_NPOPS; p++) ctx.pops[p].spikes += h_pcnt[k * NC_NPOPS + p];");
    if (m->nviews)
        out_line(o, "for (int v = 0; v < %d && len > 0; v++) ctx.views[v].spikes += h_vcnt[v];", m->nviews);
    out_line(o, "ctx.step = step0 + len;");
    out_line(o, "return finite_failed ? -1 : 0;");
    out_close(o);
    out_blank(o);
}

/* record_initial's row of a distributed recording of synapse states (simt_mpi_gid): each
 * rank puts its synapses' values at their indices, rank 0 receives the bitwise OR and writes. */
static void emit_initial_gid(Out *o, const IrRecord *rec, int r)
{
    const char *c = rec->proj->cname;
    out_begin(o);
    out_line(o, "const int64_t n = %s_csr.nnz, w = %d * %s_gnnz;", c, rec->nvars, c);
    out_line(o, "int64_t *g = nrt_alloc(&ctx, (size_t)(n ? n : 1) * sizeof *g, \"recording\");");
    out_line(o, "if (!g || (n && nrt_gpu_read(gpu, %s_gid, 0, g, (size_t)n * sizeof *g) != NRT_OK)) { nrt_free(g); return -1; }", c);
    out_line(o, "for (int64_t q = 0; q < w; q++) h_rec%d_rows[q] = 0.0;", r);
    for (int v = 0; v < rec->nvars; v++) {
        const IrVar *var = rec->vars[v];
        out_line(o, "%s *x%d = nrt_alloc(&ctx, (size_t)(n ? n : 1) * sizeof *x%d, \"recording\");", simt_vtype(var), v, v);
        out_line(o, "if (!x%d || (n && nrt_gpu_read(gpu, %s, 0, x%d, (size_t)n * sizeof *x%d) != NRT_OK)) { nrt_free(x%d); nrt_free(g); return -1; }",
                 v, var->cname, v, v, v);
        out_line(o, "for (int64_t s = 0; s < n; s++) h_rec%d_rows[%d * %s_gnnz + g[s]] = (double)x%d[s];", r, v, c, v);
        out_line(o, "nrt_free(x%d);", v);
    }
    out_line(o, "nrt_free(g);");
    out_line(o, "if (w > 0 && nrt_mpi_row(&ctx, mpi, h_rec%d_rows, (int)w) != NRT_OK) return -1;", r);
    out_line(o, "if (rec%d && nrt_rec_state_row(rec%d, -1, h_rec%d_rows) != NRT_OK) return -1;", r, r, r);
    out_close(o);
}

/* record_initial(): every state recording's row at t = 0 (step -1), the values after
 * initialisation read from the device (build_instance calls it after open_records, unless
 * the run resumes from a checkpoint). Distributed: rank 0 alone writes, from its copies. */
static void emit_host_record_initial(Out *o, const Simt *S)
{
    const IrModel *m = S->m;
    if (!cg_state_records(m))
        return;
    out_line(o, "/* the state recordings' row at t = 0: the values after initialisation */");
    out_open(o, "static int record_initial(void)");
    for (int r = 0; r < m->nrecs; r++) {
        const IrRecord *rec = &m->recs[r];
        if (rec->spikes || rec->bin)
            continue;
        if (simt_mpi_gid(m, rec->proj)) {
            emit_initial_gid(o, rec, r);
            continue;
        }
        out_open(o, "if (rec%d)", r);
        if (rec->proj) {
            const char *n = arena_printf(&S->cc->arena, "%s_csr.nnz", rec->proj->cname);
            const char *row = rec->syn_sel ? arena_printf(&S->cc->arena, "h_rec%d_sub", r)
                                           : arena_printf(&S->cc->arena, "h_rec%d_rows", r);
            for (int v = 0; v < rec->nvars; v++) {
                const IrVar *var = rec->vars[v];
                out_line(o, "%s *x%d = nrt_alloc(&ctx, (size_t)(%s ? %s : 1) * sizeof *x%d, \"recording\");",
                         simt_vtype(var), v, n, n, v);
                out_line(o, "if (!x%d || (%s && nrt_gpu_read(gpu, %s, 0, x%d, (size_t)%s * sizeof *x%d) != NRT_OK)) { nrt_free(x%d); return -1; }",
                         v, n, var->cname, v, n, v, v);
                if (rec->syn_sel)
                    out_line(o, "for (int64_t k = 0; k < rec%d_n; k++) %s[%d * rec%d_n + k] = (double)x%d[h_rec%d_sel[k]];",
                             r, row, v, r, v, r);
                else
                    out_line(o, "for (int64_t s = 0; s < %s; s++) %s[%d * %s + s] = (double)x%d[s];", n, row, v, n, v);
                out_line(o, "nrt_free(x%d);", v);
            }
            out_line(o, "if (nrt_rec_state_row(rec%d, -1, %s) != NRT_OK) return -1;", r, row);
        } else {
            for (int v = 0; v < rec->nvars; v++) {
                const IrVar *var = rec->vars[v];
                if (!var->per_neuron) {
                    out_line(o, "for (int k = 0; k < %d; k++) h_rec%d_rows[%d * %d + k] = (double)h_scal[%d];",
                             rec->nidx, r, v, rec->nidx, simt_scal_var(S, var));
                    continue;
                }
                out_line(o, "%s *x%d = nrt_alloc(&ctx, (size_t)%lld * sizeof *x%d, \"recording\");", simt_vtype(var), v,
                         (long long)var->pop->size, v);
                out_line(o, "if (!x%d || nrt_gpu_read(gpu, %s, 0, x%d, (size_t)%lld * sizeof *x%d) != NRT_OK) { nrt_free(x%d); return -1; }",
                         v, var->cname, v, (long long)var->pop->size, v, v);
                out_line(o, "for (int k = 0; k < %d; k++) h_rec%d_rows[%d * %d + k] = (double)x%d[rec%d_local[k] + %lld];",
                         rec->nidx, r, v, rec->nidx, v, r, (long long)rec->view.offset);
                out_line(o, "nrt_free(x%d);", v);
            }
            out_line(o, "if (nrt_rec_state_row(rec%d, -1, h_rec%d_rows) != NRT_OK) return -1;", r, r);
        }
        out_close(o);
    }
    out_line(o, "return 0;");
    out_close(o);
    out_blank(o);
}

void simt_emit_host_records(Out *o, const Simt *S)
{
    const IrModel *m = S->m;
    for (int r = 0; r < m->nrecs; r++) {   /* the handles and buffers: members of nc_inst */
        const IrRecord *rec = &m->recs[r];
        if (!rec->spikes && !rec->proj && !rec->bin) {
            StrBuf b = {0};
            for (int k = 0; k < rec->nidx; k++)
                sb_printf(&b, "%s%lld", k ? ", " : "", (long long)(rec->idx[k] - rec->view.offset));
            out_line(o, "static const int64_t rec%d_local[%d] = {%s};", r, rec->nidx, b.s);
            sb_free(&b);
        }
    }
    out_blank(o);
    emit_host_open_records(o, S);
    simt_finite_host(o, S);
    emit_host_drain(o, S);
    emit_host_record_initial(o, S);
}

/* The host program's ckpt_save(phase) and ckpt_load(): the items of cg_ckpt_list (the
 * scalars from h_scal, the arrays staged through host memory) and the flag histories of
 * gathered projections (GPU only); the load then refreshes the host mirrors, the
 * propagators and the device's step counter nc_ctl[0]. Both return 0, or -1 (errmsg). */
void simt_emit_host_ckpt(Out *o, const Simt *S)
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
            if (simt_mirrored(p->vars[j]))
                out_line(o, "if (nrt_gpu_read(gpu, %s, 0, h_%s, (size_t)%lld * sizeof(%s)) != NRT_OK) return -1;",
                         p->vars[j]->cname, p->vars[j]->cname, (long long)p->size, simt_vtype(p->vars[j]));
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
