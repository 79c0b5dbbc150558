/* c_proc.c -- the C back end's procedural projections (IrProj.procedural, docs/language.md
 * §12.4): no synapse arrays; the rows are regenerated from the seed wherever they are needed,
 * through the row loops of cg_proc.c, into the same delay rings as stored projections.
 */
#include "c_priv.h"

/* {===== procedural projections ===== */

/* What the row loops (cg_row_loops) run per synapse of a procedural projection. */
typedef struct ProcBody {
    const IrProj *j;
    const CgDialect *d, *dd;      /* w in real, delay in double */
    int what;                     /* PB_* */
    int mpi;                      /* deliver only into this rank's slice (m->mpi) */
    const char *wt, *dt;          /* a family's w and delay (cgc_proc_fam_row), else NULL */
} ProcBody;

enum { PB_BUILD = CGC_ROW_BUILD, PB_DELIVER = CGC_ROW_DELIVER, PB_FILL = CGC_ROW_FILL,
       PB_SCAN = CGC_ROW_SCAN, PB_BUFFER = CGC_ROW_BUFFER };   /* PB_BUFFER: into the threads' buffers */

/* `steps` (the delay in steps, >= 1), or a return -1 with errmsg: as cgc_proj's build (c_proj.c).
 * The delivery (propagate_*, a void function) regenerates the delays the build checked. */
static void proc_delay(Out *o, const ProcBody *pb)
{
    StrBuf b = {0};
    if (!pb->j->delay) {
        out_line(o, "const int32_t dd = 1;");
        return;
    }
    if (pb->dt)
        sb_puts(&b, pb->dt);
    else
        cg_expr(pb->dd, pb->j->delay, &b);
    out_line(o, "const double delay = %s;", b.s);
    out_line(o, "const double steps = round(delay / dt); /* nearest, halves away from zero */");
    if (pb->what == PB_DELIVER || pb->what == PB_BUFFER) {
        out_line(o, "const int32_t dd = steps < 1 ? 1 : (int32_t)steps; /* checked by build_%s */",
                 pb->dt ? "fam" : pb->j->cname);
        sb_free(&b);
        return;
    }
    out_open(o, "if (!(steps < 1e9))");
    if (pb->what == PB_SCAN) {   /* a part of the build on the pool (cgc_proc_scan) */
        out_line(o, "nc_bad = 1, nc_bi = i, nc_bj = j, nc_bd = delay;");
        out_line(o, "goto nc_done;");
        out_close(o);
        out_line(o, "const int32_t dd = steps < 1 ? 1 : (int32_t)steps;");
        sb_free(&b);
        return;
    }
    if (pb->dt)
        out_line(o, "snprintf(ctx.errmsg, sizeof ctx.errmsg, \"projection %%s: delay %%g ms of synapse %%lld -> %%lld is not a usable time\", F->name, delay, (long long)i, (long long)j);");
    else
        out_line(o, "snprintf(ctx.errmsg, sizeof ctx.errmsg, \"projection %s: delay %%g ms of synapse %%lld -> %%lld is not a usable time\", delay, (long long)i, (long long)j);",
                 pb->j->name);
    out_line(o, "return -1;");
    out_close(o);
    out_line(o, "const int32_t dd = steps < 1 ? 1 : (int32_t)steps;");
    sb_free(&b);
}

static void proc_body(Out *o, const void *arg)
{
    const ProcBody *pb = arg;
    const char *c = pb->j->cname;
    StrBuf b = {0};
    if (pb->what != PB_BUILD && pb->what != PB_SCAN) {
        if (pb->wt)
            sb_puts(&b, pb->wt);
        else
            cg_expr(pb->d, pb->j->w, &b);
        out_line(o, "const real w = %s;", b.s);
        out_line(o, "(void)w;");
    }
    proc_delay(o, pb);
    if (pb->what == PB_SCAN) {
        out_line(o, "if (dd > maxd) maxd = dd;");
        if (pb->mpi)
            out_line(o, "if (dd < nc_dmin) nc_dmin = dd;");
    } else if (pb->what == PB_BUILD) {
        out_line(o, "if (dd > maxd) maxd = dd;");
        if (pb->mpi)
            out_line(o, "if (dd < %s_dmin) %s_dmin = dd;", c, c);
    } else if (pb->what == PB_DELIVER) {
        if (pb->mpi && pb->wt)   /* only this rank's targets: a member's, from its table */
            out_line(o, "if (j >= vlo && j < vhi)");
        else if (pb->mpi)
            out_line(o, "if (j >= %s_vlo && j < %s_vhi)", c, c);
        if (pb->wt)    /* a family member's ring, from its table (c_family.c) */
            out_line(o, "ring[((step + dd) %% D) * width + roff + j] += w;");
        else if (cg_ring_base(pb->j))
            out_line(o, "%s_ring[((step + dd) %% %s_D) * %lld + %lld + j] += w;", pb->j->ring->cname,
                     pb->j->ring->cname, (long long)pb->j->ring->ring_size, cg_ring_base(pb->j));
        else
            out_line(o, "%s_ring[((step + dd) %% %s_D) * %lld + j] += w;", pb->j->ring->cname, pb->j->ring->cname,
                     (long long)pb->j->ring->ring_size);
    } else if (pb->what == PB_BUFFER && pb->wt) {   /* a family member's: by its post's base neuron */
        if (pb->mpi)
            out_line(o, "if (j >= vlo && j < vhi)");
        out_line(o, "nc_pf_push(nc_b, nc_last, ring, m, nrt_owner(F->post_off + j, nc_plo, nc_plen, T), roff + j, "
                 "(step + dd) %% D, (double)w);");
    } else if (pb->what == PB_BUFFER) {   /* to the thread owning post j (c_par.c) */
        if (pb->mpi)
            out_line(o, "if (j >= %s_vlo && j < %s_vhi)", c, c);
        out_line(o, "nrt_pbuf_push(&nc_b[nrt_owner(j, nc_plo, nc_plen, T)], j, (step + dd) %% %s_D, (double)w);",
                 pb->j->ring->cname);
    } else {
        out_line(o, "const int64_t s = c.row_ptr[i] + rank;");
        out_line(o, "c.col[s] = (int32_t)j;");
        out_line(o, "w_[s] = w;");
        if (pb->j->delay)
            out_line(o, "d_[s] = dd;");
    }
    sb_free(&b);
}

/* Row i's loops with `rank` and `key0` declared around them. */
static void proc_row(Out *o, const ProcBody *pb)
{
    out_begin(o);
    out_line(o, "const uint32_t key0 = seedkey;");
    out_line(o, "int64_t rank = 0;");
    cg_row_loops(o, pb->d, pb->j, proc_body, pb);
    out_close(o);
}

/* cgc_proc_scan, with `dmin` each part's shortest delay too (nc_ps_<name>.dmin[t], from 64 down
 * as <J>_dmin: --mpi), which the row keeps in nc_dmin. */
static void proc_scan(Out *o, const char *name, const char *n, const char *preamble,
                      void (*row)(Out *, const void *), const void *arg, int dmin)
{
    out_line(o, "static struct { int64_t maxd[NRT_MAX_THREADS], bi[NRT_MAX_THREADS], bj[NRT_MAX_THREADS]; "
             "int bad[NRT_MAX_THREADS]; double bd[NRT_MAX_THREADS];%s } nc_ps_%s;",
             dmin ? " int64_t dmin[NRT_MAX_THREADS];" : "", name);
    out_line(o, "/* part t of the build's walk over every row: the longest delay, the first unusable one%s */",
             dmin ? ", the shortest" : "");
    out_open(o, "static void scan_%s(void *arg, int t, int T)", name);
    out_line(o, "(void)arg;");
    if (preamble)
        out_line(o, "%s", preamble);
    out_line(o, "int64_t maxd = 1, nc_bi = 0, nc_bj = 0;");
    if (dmin)
        out_line(o, "int64_t nc_dmin = 64;");
    out_line(o, "int nc_bad = 0;");
    out_line(o, "double nc_bd = 0;");
    out_open(o, "for (int64_t i = (%s) * t / T; i < (%s) * (t + 1) / T; i++)", n, n);
    row(o, arg);
    out_close(o);
    out_line(o, "nc_done:");
    out_line(o, "nc_ps_%s.maxd[t] = maxd, nc_ps_%s.bad[t] = nc_bad, nc_ps_%s.bi[t] = nc_bi, nc_ps_%s.bj[t] = nc_bj, "
             "nc_ps_%s.bd[t] = nc_bd;", name, name, name, name, name);
    if (dmin)
        out_line(o, "nc_ps_%s.dmin[t] = nc_dmin;", name);
    out_close(o);
    out_blank(o);
}

/* Contract: c_priv.h. */
void cgc_proc_scan(Out *o, const char *name, const char *n, const char *preamble,
                   void (*row)(Out *, const void *), const void *arg, int dmin)
{
    proc_scan(o, name, n, preamble, row, arg, dmin);
}

static void scan_row(Out *o, const void *arg)
{
    proc_row(o, arg);
}

/* --threads (c_par.c): rows_<J>(arg, t, T) regenerates the rows of thread t's share of the
 * step's spikes into <J>_pb[t T + u], the synapses onto the posts of thread u; put_<J> adds
 * thread u's buffers into the ring in thread order, so each post's sum is the one-thread sum. */
static void emit_proc_par(Out *o, const ProcBody *pb0, const IrModel *m)
{
    const IrProj *j = pb0->j;
    const char *c = j->cname, *pre = j->pre.pop->cname;
    ProcBody pb = *pb0;
    pb.what = PB_BUFFER;
    out_line(o, "/* --threads: thread t's share of the spikes of %s, their rows into its buffers by target thread */",
             j->pre.pop->name);
    out_open(o, "static void rows_%s(void *arg, int t, int T)", c);
    out_line(o, "const int64_t step = *(const int64_t *)arg;");
    out_line(o, "nrt_pbuf *const nc_b = %s_pb + (int64_t)t * T;", c);
    if (m->mpi)
        out_line(o, "const int64_t nc_plo = %s_vlo, nc_plen = %s_vhi - %s_vlo;", c, c, c);
    else
        out_line(o, "const int64_t nc_plo = 0, nc_plen = %lld;", (long long)j->post.size);
    out_line(o, "for (int u = 0; u < T; u++) nc_b[u].n = 0;");
    out_open(o, "for (int64_t k = %s_nspk * t / T; k < %s_nspk * (t + 1) / T; k++)", pre, pre);
    out_line(o, "const int64_t i = %s_spk[k] - %lld;", pre, (long long)j->pre.offset);
    out_line(o, "if (i < 0 || i >= %lld) continue;", (long long)j->pre.size);
    proc_row(o, &pb);
    out_close(o);
    out_close(o);
    out_blank(o);
    out_line(o, "/* --threads: thread u adds the rows' synapses onto its posts, in thread (= spike) order */");
    out_open(o, "static void put_%s(void *arg, int u, int T)", c);
    out_line(o, "(void)arg;");
    out_open(o, "for (int t = 0; t < T; t++)");
    out_line(o, "const nrt_pbuf *const b = %s_pb + (int64_t)t * T + u;", c);
    out_line(o, "for (int64_t q = 0; q < b->n; q++)");
    out_line(o, "    %s_ring[(int64_t)b->e[q].slot * %lld + b->e[q].post] += (real)b->e[q].w;", j->ring->cname,
             (long long)j->ring->ring_size);   /* its own ring: ring_size is post.size */
    out_close(o);
    out_close(o);
    out_blank(o);
}

/* Contract: c_priv.h. */
void cgc_proc_fam_row(Out *o, const CgDialect *d, const IrProj *j0, const char *wt, const char *dt, int what,
                      int mpi)
{
    ProcBody pb = {j0, d, d, what, mpi, wt, dt};
    proc_row(o, &pb);
}

/* A procedural projection (IrProj.procedural): no synapse arrays. build_* walks every row
 * once (the longest delay sizes the ring; a bad delay stops the program as when stored),
 * propagate_* regenerates the rows of this step's spikes and adds into the ring, and
 * save_* (--save-connectivity) writes the synapses as the stored form would hold them. */
void cgc_proc(Out *o, const IrProj *j, const IrModel *m)
{
    const char *c = j->cname;
    CgDialect d = cgc_dialect(m, j->pre.pop);
    d.rng_elem = "i";
    d.rng_sub = "rank";
    d.rng_step = "0";
    d.index = "i";
    CgDialect dd = d;
    dd.dbl = 1;
    dd.real = "double";
    ProcBody pb = {j, &d, &dd, PB_BUILD, m->mpi, NULL, NULL};
    out_line(o, "/* projection %s: %s[%lld:%lld] -> %s[%lld:%lld], procedural (rows regenerated per spike) */",
             j->name, j->pre.pop->name, (long long)j->pre.offset, (long long)(j->pre.offset + j->pre.size),
             j->post.pop->name, (long long)j->post.offset, (long long)(j->post.offset + j->post.size));
    if (j->rule == IR_PAIRS)
        cg_conn_row(o, &d, j, "static", "");   /* for the memory plan's estimate */
    if (j->rule == IR_FIXED_TOTAL)
        out_line(o, "static int64_t *%s_rp; /* row pointers: the row lengths (nrt_conn_total_rows) */", c);
    cgc_ring_decl(o, j);
    if (cgc_par_proc(j))
        out_line(o, "static nrt_pbuf *%s_pb; /* --threads: the rows of a step by thread (c_par.c) */", c);
    if (m->mpi)
        out_line(o, "static int64_t %s_vlo, %s_vhi, %s_dmin = 64; /* this rank's targets, the shortest delay (capped) */",
                 c, c, c);
    out_blank(o);
    ProcBody scan = pb;   /* the walk over every row on the threads (with --mpi its dmin too) */
    scan.what = PB_SCAN;
    char n[32];
    snprintf(n, sizeof n, "%lldLL", (long long)j->pre.size);
    if (j->delay)
        proc_scan(o, c, n, NULL, scan_row, &scan, m->mpi);
    out_open(o, "static int build_%s(void)", c);
    if (m->mpi)
        cgc_mpi_view(o, j, c, "_vlo", "_vhi");
    if (j->rule == IR_FIXED_TOTAL) {
        out_begin(o);
        cg_conn_spec(o, j);
        out_line(o, "%s_rp = nrt_alloc(&ctx, (size_t)%lld * sizeof(int64_t), \"%s: row pointers\");", c,
                 (long long)j->pre.size + 1, j->name);
        out_line(o, "if (!%s_rp || nrt_conn_total_rows(&ctx, &spec, %s_rp) != NRT_OK) return -1;", c, c);
        cgc_own("%s_rp", c);
        out_close(o);
    }
    out_line(o, "int64_t maxd = 1;");
    if (j->delay) {
        out_line(o, "nrt_pool_run(scan_%s, NULL, %lld.0);", c, (long long)j->pre.size);
        cgc_parts_join(o, "nc_ps_", c, "", 1, j->name, NULL);
        if (m->mpi)
            out_line(o, "for (int t = 0; t < (ctx.threads > 1 ? ctx.threads : 1); t++) "
                     "if (nc_ps_%s.dmin[t] < %s_dmin) %s_dmin = nc_ps_%s.dmin[t];", c, c, c, c);
    }
    if (cgc_par_proc(j))
        out_line(o, "if (ctx.threads > 1 && !(%s_pb = nrt_pbufs_new(&ctx, ctx.threads))) return -1;", c);
    cgc_ring_alloc(o, j);
    out_close(o);
    out_blank(o);

    out_line(o, "/* regenerate the rows of this step's spikes of %s, into the ring at step + delay */", j->pre.pop->name);
    out_open(o, "static void propagate_%s(int64_t step)", c);
    out_open(o, "for (int64_t k = 0; k < %s_nspk; k++)", j->pre.pop->cname);
    out_line(o, "const int64_t i = %s_spk[k] - %lld;", j->pre.pop->cname, (long long)j->pre.offset);
    out_line(o, "if (i < 0 || i >= %lld) continue;", (long long)j->pre.size);
    pb.what = PB_DELIVER;
    proc_row(o, &pb);
    out_close(o);
    out_close(o);
    out_blank(o);

    if (cgc_par_proc(j))
        emit_proc_par(o, &pb, m);
    out_line(o, "/* --save-connectivity: the rows, their weights and delays, as stored connectivity holds them */");
    out_open(o, "static int save_%s(void)", c);
    out_line(o, "nrt_csr c = {0};");
    out_line(o, "c.n_pre = %lld;", (long long)j->pre.size);
    out_line(o, "c.n_post = %lld;", (long long)j->post.size);
    out_line(o, "c.row_ptr = nrt_alloc(&ctx, (size_t)(c.n_pre + 1) * sizeof(int64_t), \"connectivity row pointers\");");
    out_line(o, "if (!c.row_ptr) return -1;");
    out_line(o, "c.row_ptr[0] = 0;");
    out_open(o, "for (int64_t i = 0; i < c.n_pre; i++)");
    out_line(o, "const uint32_t key0 = seedkey;");
    out_line(o, "int64_t rank = 0;");
    out_begin(o);
    cg_row_loops(o, &d, j, NULL, NULL);
    out_close(o);
    out_line(o, "c.row_ptr[i + 1] = c.row_ptr[i] + rank;");
    out_close(o);
    out_line(o, "c.nnz = c.row_ptr[c.n_pre];");
    out_line(o, "const size_t n = (size_t)(c.nnz ? c.nnz : 1);");
    out_line(o, "c.col = nrt_alloc(&ctx, n * sizeof(int32_t), \"connectivity columns\");");
    out_line(o, "real *w_ = nrt_alloc(&ctx, n * sizeof(real), \"%s: weights\");", j->name);
    out_line(o, "int32_t *d_ = %s;", j->delay ? "nrt_alloc(&ctx, n * sizeof(int32_t), \"delays\")" : "NULL");
    out_line(o, "int bad = !c.col || !w_%s;", j->delay ? " || !d_" : "");
    out_open(o, "for (int64_t i = 0; i < c.n_pre && !bad; i++)");
    pb.what = PB_FILL;
    proc_row(o, &pb);
    out_close(o);
    out_line(o, "bad = bad || nrt_conn_save(&ctx, \"%s\", &c, w_, (int)sizeof(real), d_) != NRT_OK;", j->name);
    out_line(o, "nrt_csr_free(&c);");
    out_line(o, "nrt_free(w_);");
    out_line(o, "nrt_free(d_);");
    out_line(o, "return bad ? -1 : 0;");
    out_close(o);
    out_blank(o);
}

/* ===== procedural projections =====} */
