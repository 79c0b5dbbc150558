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

/* 1 when every rank steps all of p (replicated, above). */
int cgc_mpi_replicated(const IrModel *m, const IrPop *p)
{
    return p->topk || cg_mpi_reads_pre(m, p);
}

/* The --mpi program's globals and nc_view. */
void cgc_mpi_prelude(Out *o)
{
    out_line(o, "static nrt_mpi *mpi;");
    out_line(o, "static int64_t nc_D = 1; /* steps between spike exchanges: the shortest delay (with plasticity the shortest plastic one - 1) */");
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
