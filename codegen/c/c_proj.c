/* c_proj.c -- the C back end's stored static projections: build_<J> makes the synapses
 * (nrt_conn_build or an edge file, then the weights and delays), propagate_<J> pushes a
 * step's spikes into the delay ring of the target (IrProj.ring), which the target's step
 * reads (c_neuron.c). The rings are also those of procedural projections (c_proc.c).
 */
#include "c_priv.h"

/* The end of build_<j>, its longest delay in `maxd`: j's ring has maxd + 1 slots; a ring
 * shared by merged receptors (IrProj.ring) has the most any of its projections needs and is
 * allocated by the last of them. */
void cgc_ring_alloc(Out *o, const IrProj *j)
{
    const char *r = j->ring->cname;
    if (j->ring->ring_n == 1) {
        out_line(o, "%s_D = maxd + 1;", r);
    } else {
        out_line(o, "if (maxd + 1 > %s_D) %s_D = maxd + 1;", r, r);
        if (!j->ring_last) {
            out_line(o, "return 0; /* the last projection into the ring of %s allocates it */", j->ring->name);
            return;
        }
    }
    out_line(o, "%s_ring = nrt_alloc(&ctx, (size_t)%s_D * %lld * sizeof(real), \"%s: delay ring\");", r, r,
             (long long)j->ring->ring_size, j->ring->name);
    out_line(o, "return %s_ring ? 0 : -1;", r);
    cgc_own("%s_ring", r);
}

/* The declarations of j's ring, if j owns one. */
void cgc_ring_decl(Out *o, const IrProj *j)
{
    if (j->ring != j)
        return;
    out_line(o, "static int64_t %s_D; /* ring slots: longest delay + 1 */", j->cname);
    out_line(o, "static real *%s_ring; /* arrivals, [slot][post neuron] */", j->cname);
}

/* The ring slot and post of synapse s, and its weight added there. */
static void emit_push(Out *o, const IrProj *j)
{
    if (j->delay)
        out_line(o, "const int64_t slot = (step + %s_d[s]) %% %s_D;", j->cname, j->ring->cname);
    else
        out_line(o, "const int64_t slot = (step + 1) %% %s_D;", j->ring->cname);
    if (cg_ring_base(j))
        out_line(o, "%s_ring[slot * %lld + %lld + %s.col[s]] += %s_w[s];", j->ring->cname,
                 (long long)j->ring->ring_size, cg_ring_base(j), j->cname, j->cname);
    else
        out_line(o, "%s_ring[slot * %lld + %s.col[s]] += %s_w[s];", j->ring->cname, (long long)j->ring->ring_size,
                 j->cname, j->cname);
}

/* propagate_<J>(step): every synapse of the step's spikes, on one thread. */
static void emit_propagate(Out *o, const IrProj *j)
{
    out_line(o, "/* push this step's spikes of %s into the ring, to arrive at step + delay */", j->pre.pop->name);
    out_open(o, "static void propagate_%s(int64_t step)", j->cname);
    out_open(o, "for (int64_t k = 0; k < %s_nspk; k++)", j->pre.pop->cname);
    out_line(o, "const int64_t i = %s_spk[k] - %lld;", j->pre.pop->cname, (long long)j->pre.offset);
    out_line(o, "if (i < 0 || i >= %lld) continue;", (long long)j->pre.size);
    out_open(o, "for (int64_t s = %s.row_ptr[i]; s < %s.row_ptr[i + 1]; s++)", j->cname, j->cname);
    emit_push(o, j);
    out_close(o);
    out_close(o);
    out_close(o);
}

/* propagate_<J>(step, t): thread t's part, the synapses onto the posts it owns (<J>_sp:
 * nrt_split, built at the end of build_<J>; NULL bounds: one thread, whole rows), each row's
 * in row order, so that every post's sum is the one-thread sum. */
static void emit_propagate_par(Out *o, const IrProj *j)
{
    const char *c = j->cname;
    out_line(o, "/* push this step's spikes of %s into the ring, to arrive at step + delay: thread t's posts */",
             j->pre.pop->name);
    out_open(o, "static void propagate_%s(int64_t step, int t)", c);
    out_line(o, "const int64_t *const sg = %s_sp.seg;", c);
    out_line(o, "const uint32_t *const perm = %s_sp.perm;", c);
    out_line(o, "const int64_t T1 = %s_sp.T + 1;", c);
    out_open(o, "for (int64_t k = 0; k < %s_nspk; k++)", j->pre.pop->cname);
    out_line(o, "const int64_t i = %s_spk[k] - %lld;", j->pre.pop->cname, (long long)j->pre.offset);
    out_line(o, "if (i < 0 || i >= %lld) continue;", (long long)j->pre.size);
    out_line(o, "const int64_t a = sg ? sg[i * T1 + t] : %s.row_ptr[i], b = sg ? sg[i * T1 + t + 1] : %s.row_ptr[i + 1];",
             c, c);
    out_open(o, "if (perm)");
    out_open(o, "for (int64_t q = a; q < b; q++)");
    out_line(o, "const int64_t s = %s.row_ptr[i] + perm[q];", c);
    emit_push(o, j);
    out_close(o);
    out_close(o);
    out_open(o, "else");
    out_open(o, "for (int64_t s = a; s < b; s++)");
    emit_push(o, j);
    out_close(o);
    out_close(o);
    out_close(o);
    out_close(o);
}

/* The loops over rows i = a .. b - 1 (C expressions) of j's synapses setting
 * their weights and delays and the longest delay in maxd; an unusable delay: the message and
 * return -1, or in a part (vals_<J>) its record in <J>_v and a jump to done. */
static void emit_vals_rows(Out *o, const IrProj *j, const IrModel *m, const CgDialect *d, const CgDialect *dd,
                           const char *a, const char *b, int part)
{
    StrBuf e = {0};
    out_open(o, "for (int64_t i = %s; i < %s; i++)", a, b);
    out_open(o, "for (int64_t s = %s.row_ptr[i]; s < %s.row_ptr[i + 1]; s++)", j->cname, j->cname);
    if (m->mpi)
        out_line(o, "const int64_t j = %s.col[s], rank = rk[s]; /* its rank in the full row */", j->cname);
    else
        out_line(o, "const int64_t j = %s.col[s], rank = s - %s.row_ptr[i];", j->cname, j->cname);
    out_line(o, "(void)j; (void)rank;");
    cgc_expr_str(d, j->w, &e);
    out_line(o, "%s_w[s] = %s;", j->cname, e.s);
    if (j->delay) {
        cgc_expr_str(dd, j->delay, &e);
        out_line(o, "const double delay = %s;", e.s);
        out_line(o, "const double steps = round(delay / dt); /* nearest, halves away from zero */");
        out_open(o, "if (!(steps < 1e9))");
        if (part) {
            out_line(o, "%s_v.bad[t] = 1, %s_v.bi[t] = i, %s_v.bj[t] = j, %s_v.bd[t] = delay;", j->cname, j->cname,
                     j->cname, j->cname);
            out_line(o, "goto done;");
        } else {
            out_line(o, "snprintf(ctx.errmsg, sizeof ctx.errmsg, \"projection %s: delay %%g ms of synapse %%lld -> %%lld is not a usable time\", delay, (long long)i, (long long)j);",
                     j->name);
            out_line(o, "return -1;");
        }
        out_close(o);
        out_line(o, "const int32_t dd = steps < 1 ? 1 : (int32_t)steps;");
        out_line(o, "%s_d[s] = dd;", j->cname);
        out_line(o, "if (dd > maxd) maxd = dd;");
    }
    out_close(o);
    out_close(o);
    sb_free(&e);
}

/* vals_<J>(arg, t, T): j's weights and delays, part t of its rows (nrt_rows_part) on the pool.
 * A synapse's values are functions of its row and rank (the draws keyed by them), so they are
 * the same on any thread; each part keeps its longest delay and its first unusable delay, which
 * build_<J> combines in part order: the one-thread result and message. */
static void emit_vals(Out *o, const IrProj *j, const IrModel *m, const CgDialect *d, const CgDialect *dd)
{
    const char *c = j->cname;
    out_line(o, "static struct { int64_t maxd[NRT_MAX_THREADS], bad[NRT_MAX_THREADS], bi[NRT_MAX_THREADS], "
             "bj[NRT_MAX_THREADS]; double bd[NRT_MAX_THREADS]; } %s_v;", c);
    out_open(o, "static void vals_%s(void *arg, int t, int T)", c);
    out_line(o, "int64_t maxd = 1, i0, i1;");
    out_line(o, "(void)arg;");
    out_line(o, "nrt_rows_part(&%s, t, T, &i0, &i1);", c);
    out_line(o, "%s_v.bad[t] = 0;", c);
    emit_vals_rows(o, j, m, d, dd, "i0", "i1", 1);
    if (j->delay)
        out_line(o, "done:");
    out_line(o, "%s_v.maxd[t] = maxd;", c);
    out_close(o);
    out_blank(o);
}

/* A stored static projection: its synapses (nrt_csr, weights, delays) built at load time,
 * and propagate_<J>, which pushes a step's spikes into the ring at step + delay. */
void cgc_proj(Compiler *cc, Out *o, const IrProj *j, const IrModel *m)
{
    CgDialect d = cgc_dialect(m, j->pre.pop);
    d.rng_elem = "i";
    d.rng_sub = "rank";
    d.rng_step = "0";
    d.index = "i";
    StrBuf b = {0};
    out_line(o, "/* projection %s: %s[%lld:%lld] -> %s[%lld:%lld] */", j->name, j->pre.pop->name,
             (long long)j->pre.offset, (long long)(j->pre.offset + j->pre.size), j->post.pop->name,
             (long long)j->post.offset, (long long)(j->post.offset + j->post.size));
    out_line(o, "static nrt_csr %s;", j->cname);
    if (j->rule == IR_FROM_FILE) {
        StrBuf f = {0};
        cg_cstring(j->file, &f);
        out_line(o, "static const char *const %s_file = \"%s\";", j->cname, f.s);
        out_line(o, "static double *%s_fw, *%s_fd; /* the file's w and delay columns, or NULL */",
                 j->cname, j->cname);
        sb_free(&f);
        d.edge[0] = arena_printf(&cc->arena, "%s_fw[s]", j->cname);
        d.edge[1] = arena_printf(&cc->arena, "(%s_fd ? %s_fd[s] : 0.0)", j->cname, j->cname);
    }
    if (j->rule == IR_PAIRS)
        cg_conn_row(o, &d, j, "static", "");
    out_line(o, "static real *%s_w;", j->cname);
    out_line(o, "static int32_t *%s_d; /* delays in steps (NULL: all one step) */", j->cname);
    if (cgc_par_proj(m, j))
        out_line(o, "static nrt_split %s_sp; /* its synapses by thread (c_par.c) */", j->cname);
    cgc_ring_decl(o, j);
    out_blank(o);
    CgDialect dd = d;
    dd.dbl = 1;
    dd.real = "double";
    if (!m->mpi)
        emit_vals(o, j, m, &d, &dd);
    out_open(o, "static int build_%s(void)", j->cname);
    out_line(o, "double ts = nrt_now(); /* construction stages (nrt_stage) */");
    if (j->rule == IR_FROM_FILE) {
        out_line(o, "if (nrt_conn_file(&ctx, %s_file, %lld, %lld, %d, &%s, &%s_fw, &%s_fd) != NRT_OK) return -1;",
                 j->cname, (long long)j->pre.size, (long long)j->post.size, cg_uses_edge(j->w, 0),
                 j->cname, j->cname, j->cname);
    } else {
        cg_conn_spec(o, j);
        out_line(o, "if (nrt_conn_build(&ctx, &spec, &%s) != NRT_OK) return -1;", j->cname);
    }
    if (m->mpi)
        cgc_mpi_restrict(o, m, j, j->rule == IR_FROM_FILE);
    out_line(o, "ts = nrt_stage(&ctx, \"%s: connectivity\", ts);", j->name);
    out_line(o, "%s_w = nrt_alloc(&ctx, (size_t)(%s.nnz ? %s.nnz : 1) * sizeof(real), \"%s: weights\");",
             j->cname, j->cname, j->cname, j->name);
    out_line(o, "if (!%s_w) return -1;", j->cname);
    cgc_own("%s_w", j->cname);
    if (j->delay) {
        out_line(o, "%s_d = nrt_alloc(&ctx, (size_t)(%s.nnz ? %s.nnz : 1) * sizeof(int32_t), \"%s: delays\");",
                 j->cname, j->cname, j->cname, j->name);
        out_line(o, "if (!%s_d) return -1;", j->cname);
        cgc_own("%s_d", j->cname);
    }
    out_line(o, "int64_t maxd = 1;");
    if (m->mpi) {
        StrBuf n_pre = {0};
        sb_printf(&n_pre, "%s.n_pre", j->cname);
        emit_vals_rows(o, j, m, &d, &dd, "0", n_pre.s, 0);
        sb_free(&n_pre);
        out_line(o, "nrt_free(rk);");
    } else {
        out_line(o, "nrt_pool_run(vals_%s, NULL, (double)%s.nnz);", j->cname, j->cname);
        cgc_parts_join(o, "", j->cname, "_v", j->delay != NULL, j->name, NULL);
    }
    out_line(o, "(void)nrt_stage(&ctx, \"%s: synapse values\", ts);", j->name);
    if (cgc_par_proj(m, j)) {   /* the synapses of each thread's posts (c_par.c) */
        /* thread t owns the ring's neurons [R t / T, R (t + 1) / T) of this rank's (nrt_split_build
         * takes them in the projection's post indices): the same owner for every projection
         * adding into the ring, so its sums keep the one-thread order */
        const long long ro = (long long)j->ring->ring_off, re = ro + (long long)j->ring->ring_size,
                        po = (long long)j->post.offset;
        const char *pc = j->post.pop->cname;
        if (m->mpi)
            out_line(o, "if (nrt_split_build(&ctx, &%s, (%s_lo < %lld ? %lld : %s_lo > %lld ? %lld : %s_lo) - %lld, "
                     "(%s_hi < %lld ? %lld : %s_hi > %lld ? %lld : %s_hi) - %lld, ctx.threads, &%s_sp) != NRT_OK) return -1;",
                     j->cname, pc, ro, ro, pc, re, re, pc, po, pc, ro, ro, pc, re, re, pc, po, j->cname);
        else
            out_line(o, "if (nrt_split_build(&ctx, &%s, %lld, %lld, ctx.threads, &%s_sp) != NRT_OK) return -1;",
                     j->cname, ro - po, re - po, j->cname);
        cgc_own("%s_sp.seg", j->cname);
        cgc_own("%s_sp.perm", j->cname);
    }
    cgc_ring_alloc(o, j);
    out_close(o);
    out_blank(o);

    if (cgc_par_proj(m, j))
        emit_propagate_par(o, j);
    else
        emit_propagate(o, j);
    out_blank(o);
    sb_free(&b);
}
