/* c_mpi.c -- the C back end's distributed runs (--mpi, runtime/include/nrt_mpi.h): which
 * populations every rank steps, and the pieces of a projection's build that keep a rank's
 * synapses. The --mpi forms of the step and of main are the host program's (c_host.c).
 */
#include "c_priv.h"

/* {===== distributed runs (--mpi, runtime/include/nrt_mpi.h) =====
 * Each rank steps a contiguous slice [P_lo, P_hi) of every population and keeps the
 * synapses onto its slice, in their single-rank order, with their single-rank draws (rank in
 * the full row). A population is replicated (every rank steps all of it) when synapse code
 * reads its neurons' changing variables as presynaptic neurons, or it selects top-k: its
 * spikes travel once, from rank 0. */

static int reads_pre_state(const IrExpr *e, const IrPop *pre)
{
    if (!e)
        return 0;
    if (e->op == IE_VAR && e->var->kind != IV_PARAM && e->var->kind < IV_SYN &&
        (e->at == IR_AT_PRE || (e->at == IR_AT_SELF && e->var->pop == pre)))
        return 1;
    for (int i = 0; i < e->nargs; i++)
        if (reads_pre_state(e->args[i], pre))
            return 1;
    return reads_pre_state(e->a, pre) || reads_pre_state(e->b, pre) || reads_pre_state(e->c, pre);
}

static int block_reads_pre_state(const IrBlock *b, const IrPop *pre)
{
    for (int k = 0; k < b->n; k++) {
        const IrStmt *s = b->v[k];
        if (reads_pre_state(s->e, pre) || block_reads_pre_state(&s->body, pre) ||
            block_reads_pre_state(&s->els, pre))
            return 1;
    }
    return 0;
}

/* 1 when every rank steps all of p (replicated, above). */
int cgc_mpi_replicated(const IrModel *m, const IrPop *p)
{
    if (p->topk)
        return 1;
    for (int k = 0; k < m->nprojs; k++) {
        const IrProj *j = m->projs[k];
        if (j->pre.pop != p)
            continue;
        if (j->procedural && (reads_pre_state(j->w, p) || reads_pre_state(j->delay, p)))
            return 1;
        const IrPlast *pl = j->plast;
        if (!pl)
            continue;
        const IrBlock *run[] = {&pl->on_pre, &pl->on_step, &pl->on_post, &pl->on_prepost, &pl->pre_step,
                                &pl->post_step, &pl->pre_spike, &pl->post_spike, &pl->syn_step, &pl->syn_catch};
        for (size_t b = 0; b < sizeof run / sizeof run[0]; b++)
            if (block_reads_pre_state(run[b], p))
                return 1;
    }
    return 0;
}

/* The --mpi program's globals and nc_view. */
void cgc_mpi_prelude(Out *o)
{
    out_line(o, "static nrt_mpi *mpi;");
    out_line(o, "static int64_t nc_D = 1; /* steps between spike exchanges: the shortest delay (1 with plasticity) */");
    out_line(o, "static int nc_stop; /* a stop request on any rank, known at the last exchange */");
    out_open(o, "static inline int64_t nc_view(int64_t x, int64_t off, int64_t size)");
    out_line(o, "x -= off;");
    out_line(o, "return x < 0 ? 0 : (x > size ? size : x);");
    out_close(o);
}

/* <c><lo>, <c><hi>: this rank's slice of the post population, as indices of j's post view. */
void cgc_mpi_view(Out *o, const IrProj *j, const char *c, const char *lo, const char *hi)
{
    const char *pc = j->post.pop->cname;
    out_line(o, "%s%s = nc_view(%s_lo, %lld, %lld);", c, lo, pc, (long long)j->post.offset, (long long)j->post.size);
    out_line(o, "%s%s = nc_view(%s_hi, %lld, %lld);", c, hi, pc, (long long)j->post.offset, (long long)j->post.size);
}

/* 1 when `record ... of j` (synapse states) exists: its ranks keep the full rows' layout. */
int cgc_mpi_recorded(const IrModel *m, const IrProj *j)
{
    for (int r = 0; r < m->nrecs; r++)
        if (m->recs[r].proj == j)
            return 1;
    return 0;
}

/* After the full build: keep the synapses onto this rank's slice, `rk` their ranks; for a
 * recorded projection also <c>_grp, the full rows' pointers (synapse s of row i is column
 * <c>_grp[i] + rk[s] of the recording). */
void cgc_mpi_restrict(Out *o, const IrModel *m, const IrProj *j, int file)
{
    const char *c = j->cname, *pc = j->post.pop->cname;
    long long off = (long long)j->post.offset, n = (long long)j->post.size;
    StrBuf grp = {0}, cols = {0};
    sb_printf(&grp, cgc_mpi_recorded(m, j) ? "&%s_grp" : "NULL", c);
    sb_printf(&cols, file ? "%s_fw, %s_fd" : "NULL, NULL", c, c);
    out_line(o, "int32_t *rk = NULL; /* per kept synapse: its rank in the full row, which keys its draws */");
    out_line(o, "if (nrt_mpi_restrict(&ctx, &%s, nc_view(%s_lo, %lld, %lld), nc_view(%s_hi, %lld, %lld), &rk, %s, %s) != NRT_OK) return -1;",
             c, pc, off, n, pc, off, n, grp.s, cols.s);
    sb_free(&grp);
    sb_free(&cols);
    if (cgc_mpi_recorded(m, j))
        out_line(o, "%s_rk = rk, %s_gnnz = %s_grp[%s.n_pre];", c, c, c, c);
}

/* ===== distributed runs =====} */
