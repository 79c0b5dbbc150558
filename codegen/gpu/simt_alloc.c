/* simt_alloc.c -- the host program's building of the network on the device: each
 * projection's connectivity (build_<proj>: synapse kernels, CSR, delays), the buffers and
 * initial state of one run (build_instance), and --instances side by side in one process
 * (simt_emit_host_batch).
 */

#include "simt_priv.h"

void simt_emit_host_build(Out *o, const Simt *S, const IrProj *j)
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
    out_line(o, "double ts = nrt_now(); /* construction stages (nrt_stage) */");
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
        out_line(o, "ts = nrt_stage(&ctx, \"%s: connectivity\", ts);", j->name);
    } else {
        if (j->procedural) {
            /* no synapse arrays; --save-connectivity builds the stored form to write it */
            out_open(o, "if (!ctx.save_conn)");
            if (j->rule == IR_FIXED_TOTAL) {   /* the row pointers: its rows' lengths */
                out_begin(o);
                cg_conn_spec(o, j);
                out_line(o, "int64_t *rp = nrt_alloc(&ctx, (size_t)%lld * sizeof(int64_t), \"%s: row pointers\");",
                         (long long)j->pre.size + 1, j->name);
                out_line(o, "int bad = !rp || nrt_conn_total_rows(&ctx, &spec, rp) != NRT_OK");
                out_line(o, "    || dalloc(&%s_csr.row_ptr, (size_t)%lld * sizeof(int64_t), \"%s: row pointers\")",
                         j->cname, (long long)j->pre.size + 1, j->name);
                out_line(o, "    || nrt_gpu_write(gpu, %s_csr.row_ptr, 0, rp, (size_t)%lld * sizeof(int64_t)) != NRT_OK;",
                         j->cname, (long long)j->pre.size + 1);
                out_line(o, "nrt_free(rp);");
                out_line(o, "if (bad) return -1;");
                out_line(o, "%s_rp = %s_csr.row_ptr;", j->cname, j->cname);
                out_close(o);
            }
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
        out_line(o, "ts = nrt_stage(&ctx, \"%s: connectivity\", ts);", j->name);
        if (simt_mpi_cut_first(S->m, j))   /* distributed: this rank's columns before the values */
            simt_mpi_host_cut_first(o, S, j);
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
    out_line(o, "if (nrt_gpu_launch(k_syn_%s, %lld, 128, 0) != NRT_OK || nrt_gpu_sync(gpu) != NRT_OK) return -1;",
             j->cname, (long long)((j->pre.size + 127) / 128));
    out_line(o, "ts = nrt_stage(&ctx, \"%s: synapse values\", ts);", j->name);
    if (j->procedural)
        out_close(o);
    simt_host_maxd(o, S, j);
    const char *r = j->ring->cname;
    if (j->ring->ring_n == 1)
        out_line(o, "%s_D = (int64_t)maxd + 1;", r);
    else   /* a ring merged receptors share (IrProj.ring): the most its projections need */
        out_line(o, "if ((int64_t)maxd + 1 > %s_D) %s_D = (int64_t)maxd + 1;", r, r);
    if (simt_mpi_cut_first(S->m, j))
        simt_mpi_host_after_values(o, S, j);
    else if (S->m->mpi && !j->procedural)
        simt_mpi_host_restrict(o, S, j);
    if (simt_gathers(j)) {
        simt_gather_host(o, j);
        out_line(o, "(void)nrt_stage(&ctx, \"%s: column index\", ts);", j->name);
    }
    if (j->ring_last)
        out_line(o, "return dalloc(&%s_ring, (size_t)%s_D * %lld * sizeof(real), \"%s: delay ring\");", r, r,
                 (long long)j->ring->ring_size, j->ring->name);
    else
        out_line(o, "return 0; /* the last projection into the ring of %s allocates it */", j->ring->name);
    out_close(o);
    out_blank(o);
}

/* A batch side by side (batched): whether --instances runs so (the block schedule runs),
 * the instances' contexts, and the table of their arguments that nc_k_chunk and nc_k_block
 * read (emit_batch_row). */
void simt_emit_host_batch(Out *o, const Simt *S)
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

/* The per-neuron run-time parameters of p (`runtime P.x` of a per-neuron x, `runtime V.x` of
 * a view): after the init kernel, the values --set gave, each parameter's neurons in the
 * order of the command line, written to the device (and to the host mirror); the caller
 * then computes p's propagators. */
static void emit_rt_values(Out *o, const IrModel *m, const IrPop *p)
{
    for (int i = 0; i < m->nrtparams; i++) {
        const IrVar *v = m->rtparams[i].var;
        StrBuf ks = {0};
        int n = cg_rt_values_of(m, p, i, &ks);
        if (!n)
            continue;
        out_begin(o);
        out_line(o, "static const int ks[] = {%s}; /* runtime %s.%s: --set's values */", ks.s, p->name,
                 v->label);
        out_line(o, "const nrt_param *q;");
        out_open(o, "for (int r = 0; (q = nrt_param_nth(&ctx, ks, %d, r)) != NULL; r++)", n);
        out_line(o, "%s *tmp = nrt_alloc(&ctx, (size_t)q->count * sizeof *tmp, \"runtime %s\");", simt_vtype(v),
                 v->label);
        out_line(o, "if (!tmp) return fail(argv[0]);");
        out_line(o, "for (int64_t n = 0; n < q->count; n++) tmp[n] = (%s)nrt_param_at(q, n);", simt_vtype(v));
        out_line(o, "if (nrt_gpu_write(gpu, %s, (size_t)q->offset * sizeof *tmp, tmp, (size_t)q->count * sizeof *tmp) != NRT_OK) return fail(argv[0]);",
                 v->cname);
        if (simt_mirrored(v))
            out_line(o, "memcpy(h_%s + q->offset, tmp, (size_t)q->count * sizeof *tmp);", v->cname);
        out_line(o, "nrt_free(tmp);");
        out_close(o);
        out_close(o);
        sb_free(&ks);
    }
}

/* build_instance's construction of the projections: each built (a family's runs by
 * build_fam), the families' tables, the exchange interval of a distributed program,
 * --save-connectivity and the built counts for --bench, in projection order. */
static void emit_build_projs(Out *o, const Simt *S)
{
    const IrModel *m = S->m;
    for (int k = 0, n; k < m->nprojs; k++) {
        if ((n = simt_fam_build(o, S, k)) != 0)   /* a run of a family's members */
            k += n - 1;
        else
            out_line(o, "if (build_%s()) return fail(argv[0]);", m->projs[k]->cname);
    }
    if (S->fam_grid)   /* the members' buffers and rings, for their delivery (simt_family.c) */
        out_line(o, "if (fam_tables()) return fail(argv[0]);");
    out_line(o, "if (nrt_gpu_sync(gpu) != NRT_OK) return fail(argv[0]);");
    if (m->mpi)
        simt_mpi_host_interval(o, S);
    for (int k = 0, n, u0, u1; k < m->nprojs; k++) {
        if ((n = simt_fam_seg(S, k, &u0, &u1)) != 0) {   /* a stretch of family members */
            out_line(o, "if (ctx.save_conn && save_units(%d, %d)) return fail(argv[0]);", u0, u1);
            k += n - 1;
        } else {
            out_line(o, "if (ctx.save_conn && save_%s()) return fail(argv[0]);", m->projs[k]->cname);
        }
    }
    for (int k = 0, n, u0, u1; k < m->nprojs; k++) {   /* the built synapse counts, for --bench */
        if ((n = simt_fam_seg(S, k, &u0, &u1)) != 0) {
            out_line(o, "stat_units(%d, %d);", u0, u1);
            k += n - 1;
        } else if (!m->projs[k]->procedural) {
            out_line(o, "nrt_proj_stat(&ctx, %d, %d, (double)%s_csr.nnz);", k, m->projs[k]->pre.pop->id,
                     m->projs[k]->cname);
        }
    }
}

/* Contract: simt_priv.h. `static int build_instance(char **argv, double t0)`: the current run's
 * buffers, initial values, synapses and recordings (t0: when its build began); 0, or fail()'s
 * status. */
void simt_emit_host_build_instance(Out *o, const Simt *S)
{
    const IrModel *m = S->m;
    simt_series_host(o, S);
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
                         n, simt_vtype(v), p->name, v->label);
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
    if (S->has[SCHED_CLUSTER])   /* nc_ctl[4]: a stalled cluster launch; [5]: a stall to act (rt_fault.c) */
        out_line(o, "if (nrt_gpu_write(gpu, nc_ctl, 5 * sizeof(int64_t), &ctx.fault.cluster_stall, sizeof(int64_t)) != NRT_OK) return fail(argv[0]);");
    if (S->has[SCHED_FREE] || S->push) {
        out_open(o, "if (mode == %s)", S->has[SCHED_FREE] ? "M_FREE" : "M_CLUSTER");
        simt_free_host_alloc(o, S);
        out_close(o);
    }
    simt_series_load(o, S);
    simt_finite_init(o, S);
    if (S->has[SCHED_CLUSTER] && simt_n_own_tables(m)) {   /* simt_emit_own_tables: a region per group, its header cleared */
        out_line(o, "if (dalloc(&nc_otc, mode == M_CLUSTER ? g_cluster * NC_CLUSTER_SHMEM : 16, \"cluster schedule: own synapses\")) return fail(argv[0]);");
        out_open(o, "for (size_t r = 0; mode == M_CLUSTER && r < g_cluster; r++)");
        out_line(o, "static const uint32_t z[4];");
        out_line(o, "if (nrt_gpu_write(gpu, nc_otc, r * NC_CLUSTER_SHMEM, z, sizeof z) != NRT_OK) return fail(argv[0]);");
        out_close(o);
    }
    for (int i = 0; i < simt_n_prop_owners(m); i++) {
        const IrPop *p = simt_prop_owner(m, i);
        for (int j = 0; j < p->nvars; j++) {
            const IrVar *v = p->vars[j];
            int rt = -1;
            for (int k = 0; k < m->nrtparams; k++)
                if (m->rtparams[k].var == v && !m->rtparams[k].view.pop)
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
             (long long)((simt_max_pop(m) + 255) / 256));
    for (int i = 0; i < m->npops; i++) {
        const IrPop *p = m->pops[i];
        for (int j = 0; j < p->nvars; j++) {
            const IrVar *v = p->vars[j];
            if (!simt_mirrored(v))
                continue;
            out_line(o, "h_%s = nrt_alloc(&ctx, (size_t)%lld * sizeof(%s), \"%s.%s\");", v->cname, (long long)p->size,
                     simt_vtype(v), p->name, v->label);
            out_line(o, "if (!h_%s || nrt_gpu_read(gpu, %s, 0, h_%s, (size_t)%lld * sizeof(%s)) != NRT_OK) return fail(argv[0]);",
                     v->cname, v->cname, v->cname, (long long)p->size, simt_vtype(v));
        }
        emit_rt_values(o, m, p);
        out_line(o, "if (props_%s()) return fail(argv[0]);", p->cname);
    }
    for (int k = 0; k < m->nprojs; k++)
        if (m->projs[k]->plast)
            out_line(o, "if (props_%s()) return fail(argv[0]);", m->projs[k]->plast->scope->cname);
    out_line(o, "if (nrt_gpu_sync(gpu) != NRT_OK) return fail(argv[0]);");
    out_line(o, "ctx.t_build = nrt_now() - t0;");
    out_line(o, "t0 = nrt_now();");
    emit_build_projs(o, S);
    out_line(o, "ctx.t_construct = nrt_now() - t0;");
    out_line(o, "if (ctx.resume_dir && ckpt_load()) return fail(argv[0]);");
    out_line(o, "if (open_records()) return fail(argv[0]);");
    out_line(o, "return 0;");
    out_close(o);
    out_blank(o);
}
