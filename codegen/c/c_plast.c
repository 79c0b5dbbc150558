/* c_plast.c -- the C back end's plastic projections (IrPlast, docs/language.md §9): the
 * synapse, pre { } and post { } storage, build_<J> (synapses, delays, the column index, the
 * spike history), arrive_<J> (phase 0 or 1) and learn_<J> (the learning phases), and
 * catchup_<J> for event-driven synapse dynamics. Recording `of PROJ` is the host's (c_host.c).
 * With --mpi the pre { } work of learn_<J> is learn_pre_<J>'s, which runs once every rank's
 * spikes of the step are there (emit_learn_pre; c_host.c, cgc_step_mpi).
 */
#include <stdio.h>

#include "c_priv.h"

/* {===== plastic projections ===== */

/* Index spellings of a plastic projection's code (see IrPlast). */
typedef struct PlastNames {
    char pre_n[64], post_n[64];   /* base-population indices of the pre and post neuron */
} PlastNames;

static void c_deliver(const CgDialect *d, const IrProj *p, const char *e, Out *o)
{
    (void)d;
    out_line(o, "%s_ring[dslot * %lld + j] += %s;", p->cname, (long long)p->post.size, e);
}

static CgDialect plast_dialect(const IrModel *m, const IrProj *j, PlastNames *nm, const char *pre_hist)
{
    CgDialect d = cgc_dialect(m, j->plast->scope);
    snprintf(nm->pre_n, sizeof nm->pre_n, j->pre.offset ? "(i + %lld)" : "i", (long long)j->pre.offset);
    snprintf(nm->post_n, sizeof nm->post_n, j->post.offset ? "(j + %lld)" : "j", (long long)j->post.offset);
    d.syn = "s";
    d.pre_n = nm->pre_n;
    d.post_n = nm->post_n;
    d.pre_hist = pre_hist;
    d.deliver = c_deliver;
    return d;
}

static void emit_plast_storage(Out *o, const IrProj *j, const IrModel *m)
{
    const IrPlast *pl = j->plast;
    out_line(o, "/* projection %s: %s[%lld:%lld] -> %s[%lld:%lld], plastic synapse %s */", j->name,
             j->pre.pop->name, (long long)j->pre.offset, (long long)(j->pre.offset + j->pre.size),
             j->post.pop->name, (long long)j->post.offset, (long long)(j->post.offset + j->post.size),
             pl->scope->model);
    out_line(o, "static nrt_csr %s;", j->cname);
    out_line(o, "static int32_t *%s_d; /* delays in steps (NULL: all one step) */", j->cname);
    out_line(o, "static int64_t %s_D; /* history slots: longest delay + 1 */", j->cname);
    out_line(o, "static real *%s_ring; /* receptor input, [slot][post neuron] */", j->cname);
    if (pl->on_post.n)   /* only `on post` walks the column index */
        out_line(o, "static int64_t *%s_cptr, *%s_csyn, *%s_cpre; /* column index: synapses onto each post neuron, ascending, and their pre neuron */",
                 j->cname, j->cname, j->cname);
    out_line(o, "static int32_t *%s_hist; /* presynaptic spikes of the last D steps, [slot][k] */", j->cname);
    out_line(o, "static int64_t *%s_hist_n;", j->cname);
    out_line(o, "static int64_t *%s_arr, *%s_arr_pre; /* synapses whose spike arrived this step, */", j->cname,
             j->cname);
    out_line(o, "static int64_t %s_narr[NRT_MAX_THREADS], %s_abase[NRT_MAX_THREADS + 1]; /* thread t's: its %s_narr[t] at %s_abase[t] */",
             j->cname, j->cname, j->cname, j->cname);
    out_line(o, "static unsigned char *%s_fired; /* post neurons that spiked this step */", j->cname);
    out_line(o, "static nrt_split %s_sp; /* its synapses by thread, of the posts [%s_slo, %s_slo + %s_slen) (c_plast.c) */",
             j->cname, j->cname, j->cname, j->cname);
    out_line(o, "static int64_t %s_slo, %s_slen;", j->cname, j->cname);
    if (m->mpi && cgc_mpi_recorded(m, j))
        out_line(o, "static int32_t *%s_rk; static int64_t *%s_grp, %s_gnnz; /* the full rows' layout, for recording */",
                 j->cname, j->cname, j->cname);
    for (int k = 0; k < pl->nsyn; k++)
        out_line(o, "static %s *%s; /* %s [%s], per synapse */", cgc_storage_type(pl->syn[k]->type),
                 pl->syn[k]->cname, pl->syn[k]->label, pl->syn[k]->unit);
    for (int k = 0; k < pl->npre; k++) {
        out_line(o, "static %s *%s; /* pre.%s [%s], per presynaptic neuron */", cgc_storage_type(pl->pre[k]->type),
                 pl->pre[k]->cname, pl->pre[k]->label, pl->pre[k]->unit);
        out_line(o, "static %s *%s_h; /* ... after the dynamics of each of the last D steps, [slot][i] */",
                 cgc_storage_type(pl->pre[k]->type), pl->pre[k]->cname);
        if (cg_pre_after(j))
            out_line(o, "static %s *%s_ha; /* ... and after the `on spike` of each, [slot][i] */",
                     cgc_storage_type(pl->pre[k]->type), pl->pre[k]->cname);
    }
    for (int k = 0; k < pl->npost; k++)
        out_line(o, "static %s *%s; /* post.%s [%s], per postsynaptic neuron */", cgc_storage_type(pl->post[k]->type),
                 pl->post[k]->cname, pl->post[k]->label, pl->post[k]->unit);
    for (int k = 0; k < pl->scope->nprops; k++) {
        IrProp *pr = pl->scope->props[k];
        out_line(o, "static real %s[4][%d]; /* Phi, Psi, Phi_refr, Psi_refr (%dx%d) */", pr->cname,
                 pr->n * pr->n, pr->n, pr->n);
    }
    for (int k = 0; k < pl->scope->nvars; k++) {
        const IrVar *v = pl->scope->vars[k];
        if (v->kind != IV_PARAM)
            continue;
        StrBuf b = {0};
        CgDialect d = cgc_dialect(m, pl->scope);
        if (v->type == IRT_REAL)
            cg_real(&d, v->init, &b);
        else
            sb_printf(&b, "%lld", (long long)v->init);
        out_line(o, "static %s %s = %s; /* %s [%s], settable */", cgc_storage_type(v->type), v->cname, b.s,
                 v->label, v->unit ? v->unit : "1");
        sb_free(&b);
    }
    out_blank(o);
}

/* Allocate array <base><suffix> of `count` elements at load time. */
static void alloc_line(Out *o, const char *base, const char *suffix, const char *count, const char *what,
                       const char *pname)
{
    out_line(o, "%s%s = nrt_alloc(&ctx, (size_t)(%s) * sizeof *%s%s, \"%s: %s\");", base, suffix, count, base,
             suffix, pname, what);
    out_line(o, "if (!%s%s) return -1;", base, suffix);
    cgc_own("%s%s", base, suffix);
}

/* props_<J>: the exact propagators of j's synapse scopes (dd: in double), from the
 * current parameters (load time and after 'set'). */
static void emit_plast_props(Out *o, const IrProj *j, const CgDialect *dd)
{
    const IrPlast *pl = j->plast;
    const char *c = j->cname;
    out_line(o, "/* exact propagators of %s's synapse scopes, from the current parameters (load time and after 'set') */",
             j->name);
    out_open(o, "static int props_%s(void)", c);
    for (int k = 0; k < pl->scope->nprops; k++)
        cgc_one_prop(o, dd, pl->scope->props[k], pl->scope->props[k]->A, 0);
    out_line(o, "return 0;");
    out_close(o);
    out_blank(o);
}

/* In build_<J>: the column index of j, the synapses onto each post neuron (<J>_cptr, in
 * ascending synapse order <J>_csyn, with their pre neuron <J>_cpre), for `on post` (built
 * only where the rule has one). */
static void emit_col_index(Out *o, const IrProj *j)
{
    const char *c = j->cname;
    StrBuf cnt = {0};
    sb_setf(&cnt, "%lld + 1", (long long)j->post.size);
    alloc_line(o, c, "_cptr", cnt.s, "column index", j->name);
    alloc_line(o, c, "_csyn", "nnz", "column index", j->name);
    alloc_line(o, c, "_cpre", "nnz", "column index", j->name);
    out_line(o, "if (nrt_col_index(&ctx, &%s, %s_cptr, %s_csyn, %s_cpre) != NRT_OK) return -1;", c, c, c, c);
    sb_free(&cnt);
}

/* In build_<J>: the synapses of each thread (<J>_sp), by the posts it owns: the projection's
 * post view, or with --mpi this rank's part of it (the learning phases on the threads, below). */
static void emit_plast_split(Out *o, const IrProj *j, const IrModel *m)
{
    const char *c = j->cname, *pc = j->post.pop->cname;
    const long long po = (long long)j->post.offset, pe = po + (long long)j->post.size;
    if (m->mpi) {
        out_line(o, "%s_slo = (%s_lo < %lld ? %lld : %s_lo > %lld ? %lld : %s_lo) - %lld;", c, pc, po, po, pc, pe, pe,
                 pc, po);
        out_line(o, "%s_slen = (%s_hi < %lld ? %lld : %s_hi > %lld ? %lld : %s_hi) - %lld - %s_slo;", c, pc, po, po, pc,
                 pe, pe, pc, po, c);
    } else {
        out_line(o, "%s_slo = 0;", c);
        out_line(o, "%s_slen = %lld;", c, pe - po);
    }
    out_line(o, "if (nrt_split_build(&ctx, &%s, %s_slo, %s_slo + %s_slen, ctx.threads, &%s_sp) != NRT_OK) return -1;",
             c, c, c, c, c);
    cgc_own("%s_sp.seg", c);
    cgc_own("%s_sp.perm", c);
    out_line(o, "nrt_split_base(&%s_sp, &%s, %s_abase);", c, c, c);
}

/* props_<J>, then build_<J>: the synapses and their initial state, the delays, the ring, the
 * column index, the spike history and the arrivals, the pre { } and post { } scopes. */
static void emit_plast_build(Out *o, const IrProj *j, const IrModel *m)
{
    const IrPlast *pl = j->plast;
    const char *c = j->cname;
    long long npre = (long long)j->pre.size, npost = (long long)j->post.size;
    PlastNames nm;
    CgDialect d = plast_dialect(m, j, &nm, NULL);
    d.rng_elem = "i";
    d.rng_sub = "rank";
    d.rng_step = "0";
    CgDialect dd = d; /* delays and propagator coefficients are evaluated in double */
    dd.dbl = 1;
    dd.real = "double";
    StrBuf b = {0};
    StrBuf cnt = {0};
    emit_plast_props(o, j, &dd);
    out_open(o, "static int build_%s(void)", c);
    out_line(o, "double ts = nrt_now(); /* construction stages (nrt_stage) */");
    cg_conn_spec(o, j);
    out_line(o, "if (nrt_conn_build(&ctx, &spec, &%s) != NRT_OK) return -1;", c);
    if (m->mpi)
        cgc_mpi_restrict(o, m, j, 0);
    out_line(o, "ts = nrt_stage(&ctx, \"%s: connectivity\", ts);", j->name);
    out_line(o, "const int64_t nnz = %s.nnz ? %s.nnz : 1;", c, c);
    for (int k = 0; k < pl->nsyn; k++)
        alloc_line(o, pl->syn[k]->cname, "", "nnz", pl->syn[k]->label, j->name);
    if (j->delay)
        alloc_line(o, c, "_d", "nnz", "delays", j->name);
    out_line(o, "int64_t maxd = 1;");
    out_open(o, "for (int64_t i = 0; i < %s.n_pre; i++)", c);
    out_open(o, "for (int64_t s = %s.row_ptr[i]; s < %s.row_ptr[i + 1]; s++)", c, c);
    if (m->mpi)
        out_line(o, "const int64_t j = %s.col[s], rank = rk[s]; /* its rank in the full row */", c);
    else
        out_line(o, "const int64_t j = %s.col[s], rank = s - %s.row_ptr[i];", c, c);
    out_line(o, "(void)j; (void)rank;");
    cg_block(&d, &pl->syn_init, o);
    if (j->delay) {
        b.len = 0;
        cg_expr(&dd, j->delay, &b);
        out_line(o, "const double delay = %s;", b.s);
        out_line(o, "const double steps = round(delay / dt); /* nearest, halves away from zero */");
        out_open(o, "if (!(steps < 1e9))");
        out_line(o, "snprintf(ctx.errmsg, sizeof ctx.errmsg, \"projection %s: delay %%g ms of synapse %%lld -> %%lld is not a usable time\", delay, (long long)i, (long long)j);",
                 j->name);
        out_line(o, "return -1;");
        out_close(o);
        out_line(o, "const int32_t dd = steps < 1 ? 1 : (int32_t)steps;");
        out_line(o, "%s_d[s] = dd;", c);
        out_line(o, "if (dd > maxd) maxd = dd;");
    }
    out_close(o);
    out_close(o);
    out_line(o, "%s_D = maxd + 1;", c);
    if (m->mpi && !cgc_mpi_recorded(m, j))
        out_line(o, "nrt_free(rk);");
    sb_setf(&cnt, "%s_D * %lld", c, npost);
    alloc_line(o, c, "_ring", cnt.s, "receptor input ring", j->name);
    out_line(o, "ts = nrt_stage(&ctx, \"%s: synapse values\", ts);", j->name);
    if (pl->on_post.n) {
        emit_col_index(o, j);
        out_line(o, "(void)nrt_stage(&ctx, \"%s: column index\", ts);", j->name);
    }
    sb_setf(&cnt, "%s_D * %lld", c, npre);
    alloc_line(o, c, "_hist", cnt.s, "spike history", j->name);
    sb_setf(&cnt, "%s_D", c);
    alloc_line(o, c, "_hist_n", cnt.s, "spike history", j->name);
    alloc_line(o, c, "_arr", "nnz", "arrivals", j->name);
    alloc_line(o, c, "_arr_pre", "nnz", "arrivals", j->name);
    sb_setf(&cnt, "%lld", npost);
    alloc_line(o, c, "_fired", cnt.s, "post spikes", j->name);
    for (int k = 0; k < pl->npre; k++) {
        sb_setf(&cnt, "%lld", npre);
        alloc_line(o, pl->pre[k]->cname, "", cnt.s, pl->pre[k]->label, j->name);
        sb_setf(&cnt, "%s_D * %lld", c, npre);
        alloc_line(o, pl->pre[k]->cname, "_h", cnt.s, pl->pre[k]->label, j->name);
        if (cg_pre_after(j))
            alloc_line(o, pl->pre[k]->cname, "_ha", cnt.s, pl->pre[k]->label, j->name);
    }
    for (int k = 0; k < pl->npost; k++) {
        sb_setf(&cnt, "%lld", npost);
        alloc_line(o, pl->post[k]->cname, "", cnt.s, pl->post[k]->label, j->name);
    }
    if (pl->pre_init.n) {
        out_open(o, "for (int64_t i = 0; i < %lld; i++)", npre);
        cg_block(&d, &pl->pre_init, o);
        for (int k = 0; k < pl->npre; k++) {
            out_line(o, "for (int64_t h = 0; h < %s_D; h++) %s_h[h * %lld + i] = %s[i];", c,
                     pl->pre[k]->cname, npre, pl->pre[k]->cname);
            if (cg_pre_after(j))
                out_line(o, "for (int64_t h = 0; h < %s_D; h++) %s_ha[h * %lld + i] = %s[i];", c,
                         pl->pre[k]->cname, npre, pl->pre[k]->cname);
        }
        out_close(o);
    }
    if (pl->post_init.n) {
        out_open(o, "for (int64_t j = 0; j < %lld; j++)", npost);
        cg_block(&d, &pl->post_init, o);
        out_close(o);
    }
    emit_plast_split(o, j, m);
    out_line(o, "return props_%s();", c);
    out_close(o);
    out_blank(o);
    sb_free(&b);
    sb_free(&cnt);
}

/* Loop over this step's spikes of `pop` inside the view (off, size): defines `idx`. */
static void open_spikes(Out *o, const IrPop *pop, int64_t off, int64_t size, const char *idx)
{
    out_open(o, "for (int64_t k = 0; k < %s_nspk; k++)", pop->cname);
    out_line(o, "const int64_t %s = %s_spk[k] - %lld;", idx, pop->cname, (long long)off);
    out_line(o, "if (%s < 0 || %s >= %lld) continue;", idx, idx, (long long)size);
}

/* The delay of synapse s in steps, as generated code. */
static const char *delay_of(const IrProj *j, StrBuf *buf)
{
    return j->delay ? sb_setf(buf, "%s_d[s]", j->cname) : "1";
}

/* Define `hi`, the element of the pre { } history a handler of synapse (i, s) reads: the
 * state after the dynamics of step `step - dd + back` (back 0 in phase 1, 1 after the
 * neurons), which is what the synapse sees through its delay dd. */
static void hist_elem(Out *o, const IrProj *j, int back)
{
    StrBuf dl = {0};
    out_line(o, "const int64_t hi = ((step - %s + %d) %% %s_D + %s_D) %% %s_D * %lld + i;",
             delay_of(j, &dl), back, j->cname, j->cname, j->cname, (long long)j->pre.size);
    sb_free(&dl);
}

/* {===== the learning phases on the threads (c_par.c) =====
 *
 * A plastic projection's per-synapse phases run on the threads of --threads by the ring's
 * owner rule: thread t of T visits only the synapses onto the posts it owns (<J>_sp, an
 * nrt_split of the post range [<J>_slo, <J>_slo + <J>_slen)), each row's in row order, so
 * every synapse state and every ring element is written by one thread, in the one-thread
 * order (handlers and synapse dynamics write only their synapse's states, §7, and deliver
 * into their post's ring). The scope dynamics split the pre and post neurons into ranges.
 * `on pre & post` runs over each thread's own list of its arrivals. The spike history
 * (<J>_hist), the scopes' `on spike` and the post-spike flags run on the calling thread
 * between the regions. */

/* Open region function NAME_<J>(nc_arg, nc_t, nc_T) of a step: `step`, the time `t`, the
 * history slot `hs`, and the split of the synapses (<J>_sp). */
static void open_region(Out *o, const IrProj *j, const char *name, const char *what)
{
    const char *c = j->cname;
    out_line(o, "/* %s: %s */", j->name, what);
    out_open(o, "static void %s_%s(void *nc_arg, int nc_t, int nc_T)", name, c);
    out_line(o, "const int64_t step = *(const int64_t *)nc_arg;");
    out_line(o, "const real t = (real)((double)step * dt);");
    out_line(o, "const int64_t hs = step %% %s_D;", c);
    out_line(o, "const int64_t *const nc_sg = %s_sp.seg, nc_T1 = %s_sp.T + 1;", c, c);
    out_line(o, "const uint32_t *const nc_pm = %s_sp.perm;", c);
    out_line(o, "(void)t; (void)hs; (void)nc_t; (void)nc_T; (void)nc_sg; (void)nc_T1; (void)nc_pm;");
}

/* Open the loop over the synapses s of row i that thread nc_t visits (one brace). */
static void open_row(Out *o, const IrProj *j)
{
    const char *c = j->cname;
    out_line(o, "const int64_t nc_a = nc_sg ? nc_sg[i * nc_T1 + nc_t] : %s.row_ptr[i];", c);
    out_line(o, "const int64_t nc_b = nc_sg ? nc_sg[i * nc_T1 + nc_t + 1] : %s.row_ptr[i + 1];", c);
    out_open(o, "for (int64_t nc_q = nc_a; nc_q < nc_b; nc_q++)");
    out_line(o, "const int64_t s = nc_pm ? %s.row_ptr[i] + (int64_t)nc_pm[nc_q] : nc_q;", c);
}

/* Loop over every synapse (i, s, j) of thread nc_t, with `hi` for `back` (see hist_elem);
 * two braces. */
static void open_all_synapses(Out *o, const IrProj *j, int back)
{
    out_open(o, "for (int64_t i = 0; i < %lld; i++)", (long long)j->pre.size);
    open_row(o, j);
    out_line(o, "const int64_t j = %s.col[s];", j->cname);
    hist_elem(o, j, back);
    out_line(o, "(void)j; (void)hi;");
}

/* Loop over the spikes j of j's post view that thread nc_t owns (one brace). */
static void open_post_spikes(Out *o, const IrProj *j)
{
    const char *c = j->cname;
    open_spikes(o, j->post.pop, j->post.offset, j->post.size, "j");
    out_line(o, "if (nc_T > 1 && nrt_owner(j, %s_slo, %s_slen, nc_T) != nc_t) continue;", c, c);
}

/* The arrivals of step `step + ahead`: `on pre` where a spike of steps step + ahead - D + 1 ..
 * step + ahead - 1 reaches a synapse, oldest emission first (the static ring's order),
 * delivering into that step's slot; ahead 1: order pre_first, run in step's learning phase.
 * With `on pre & post`, thread t lists its arrivals in <J>_arr from <J>_abase[t] (a synapse
 * arrives at most once a step, so they fit). */
static void emit_arrivals(Out *o, const IrProj *j, const CgDialect *dh, int ahead)
{
    const IrPlast *pl = j->plast;
    const char *c = j->cname;
    long long npre = (long long)j->pre.size;
    if (!pl->on_pre.n && !pl->on_prepost.n)
        return;
    if (pl->on_prepost.n) {   /* this thread's list of arrivals, its count kept in a local */
        out_line(o, "int64_t *const nc_arr = %s_arr + %s_abase[nc_t], *const nc_arp = %s_arr_pre + %s_abase[nc_t];", c,
                 c, c, c);
        out_line(o, "int64_t nc_na = 0;");
    }
    out_line(o, "/* emissions of steps step%s - D + 1 .. step%s - 1, oldest first: the static ring's order */",
             ahead ? " + 1" : "", ahead ? " + 1" : "");
    out_open(o, "for (int64_t k = %s_D - 1; k >= 1; k--)", c);
    out_line(o, "if (k > step%s) continue;", ahead ? " + 1" : "");
    out_line(o, "const int64_t hs = (step%s - k) %% %s_D, dslot = %s %% %s_D;", ahead ? " + 1" : "", c,
             ahead ? "(step + 1)" : "step", c);
    out_line(o, "(void)dslot;");
    out_open(o, "for (int64_t q = 0; q < %s_hist_n[hs]; q++)", c);
    out_line(o, "const int64_t i = %s_hist[hs * %lld + q];", c, npre);
    open_row(o, j);
    if (j->delay)
        out_line(o, "if (%s_d[s] != k) continue;", c);
    out_line(o, "const int64_t j = %s.col[s], hi = hs * %lld + i;", c, npre);
    out_line(o, "(void)j; (void)hi;");
    cg_block(dh, &pl->syn_catch, o);
    cg_block(dh, &pl->on_pre, o);
    if (pl->on_prepost.n) {
        out_line(o, "nc_arp[nc_na] = i;");
        out_line(o, "nc_arr[nc_na++] = s;");
    }
    out_close(o);
    out_close(o);
    out_close(o);
    if (pl->on_prepost.n)
        out_line(o, "%s_narr[nc_t] = nc_na;", c);
}

/* Store this step's presynaptic spikes for their arrivals (the history slot hs). */
static void emit_keep_spikes(Out *o, const IrProj *j)
{
    const char *c = j->cname;
    out_line(o, "/* this step's presynaptic spikes, for their arrivals */");
    out_line(o, "%s_hist_n[hs] = 0;", c);
    open_spikes(o, j->pre.pop, j->pre.offset, j->pre.size, "i");
    out_line(o, "%s_hist[hs * %lld + %s_hist_n[hs]++] = (int32_t)i;", c, (long long)j->pre.size, c);
    out_close(o);
}

/* nc_scope_<J>: the scope dynamics of this step (pre neurons, then post neurons, each thread
 * a range of both), and the pre { } history slot hs; `split` (--mpi): the post neurons only,
 * the pre ones in nc_prescope_<J> (learn_pre_<J>). */
static void emit_scope_region(Out *o, const IrProj *j, const CgDialect *ds, const CgDialect *dp, int split)
{
    const IrPlast *pl = j->plast;
    long long npre = (long long)j->pre.size, npost = (long long)j->post.size;
    if (split == 2)
        open_region(o, j, "nc_prescope", "pre { } dynamics, a range of the pre neurons per thread");
    else
        open_region(o, j, "nc_scope", split ? "post { } dynamics, a range of the post neurons per thread"
                                            : "scope dynamics, a range of the pre and of the post neurons per thread");
    if ((pl->npre || pl->pre_step.n) && split != 1) {
        out_open(o, "for (int64_t i = %lld * nc_t / nc_T; i < %lld * (nc_t + 1) / nc_T; i++)", npre, npre);
        cg_block(ds, &pl->pre_step, o);
        for (int k = 0; k < pl->npre; k++) {
            out_line(o, "%s_h[hs * %lld + i] = %s[i];", pl->pre[k]->cname, npre, pl->pre[k]->cname);
            if (dp->pre_after)
                out_line(o, "%s_ha[hs * %lld + i] = %s[i];", pl->pre[k]->cname, npre, pl->pre[k]->cname);
        }
        out_close(o);
    }
    if (pl->post_step.n && split != 2) {
        out_open(o, "for (int64_t j = %lld * nc_t / nc_T; j < %lld * (nc_t + 1) / nc_T; j++)", npost, npost);
        cg_block(ds, &pl->post_step, o);
        out_close(o);
    }
    out_close(o);
    out_blank(o);
}

/* Generated code declaring `nc_w`, the synapses the arrivals of this step visit, about:
 * those of the spikes in the history (what the pool weighs, never the bits). */
static void arrivals_work(Out *o, const IrProj *j)
{
    const char *c = j->cname;
    out_line(o, "double nc_w = 0;");
    out_line(o, "for (int64_t h = 0; h < %s_D; h++) nc_w += (double)%s_hist_n[h];", c, c);
    out_line(o, "nc_w *= (double)%s.nnz / %lld.0;", c, (long long)(j->pre.size ? j->pre.size : 1));
}

/* nc_arrive_<J> (phase 0 or 1): the arrivals of the step (post_first), then `on step`. */
static int emit_arrive_region(Out *o, const IrProj *j, const CgDialect *dh)
{
    const IrPlast *pl = j->plast;
    const char *c = j->cname;
    int arr = pl->post_first && (pl->on_pre.n || pl->on_prepost.n);
    StrBuf dlb = {0};
    if (!arr && !pl->on_step.n)
        return 0;
    open_region(o, j, "nc_arrive", arr ? "this step's arrivals, then 'on step': the synapses of thread nc_t's posts"
                                       : "'on step': the synapses of thread nc_t's posts");
    if (arr)
        emit_arrivals(o, j, dh, 0);
    if (pl->on_step.n) {
        open_all_synapses(o, j, 0);
        out_line(o, "const int64_t dslot = (step + %s - 1) %% %s_D; /* delivered after the delay */", delay_of(j, &dlb),
                 c);
        out_line(o, "(void)dslot;");
        cg_block(dh, &pl->on_step, o);
        out_close(o);
        out_close(o);
    }
    out_close(o);
    out_blank(o);
    sb_free(&dlb);
    return 1;
}

/* arrive_<J>: phase 0 ('on step'), or phase 1 with the arrivals of the step (post_first). */
static void emit_arrive(Out *o, const IrProj *j, const CgDialect *dh)
{
    const IrPlast *pl = j->plast;
    const char *c = j->cname;
    int region = emit_arrive_region(o, j, dh);
    if (pl->post_first)
        out_line(o, "/* %s, phase 1: 'on pre' where this step's arrivals reach a synapse, then 'on step' */", j->name);
    else
        out_line(o, "/* %s, phase 0: 'on step' (pre_first: 'on pre' runs in the step before) */", j->name);
    out_open(o, "static void arrive_%s(int64_t step)", c);
    if (region) {
        if (pl->post_first && (pl->on_pre.n || pl->on_prepost.n))
            arrivals_work(o, j);
        else
            out_line(o, "double nc_w = 0;");
        if (pl->on_step.n)
            out_line(o, "nc_w += (double)%s.nnz;", c);
        out_line(o, "nrt_pool_run(nc_arrive_%s, &step, nc_w);", c);
    } else {
        out_line(o, "(void)step;");
    }
    out_close(o);
    out_blank(o);
}

/* nc_syn_<J> (pre_first): synapse dynamics, then the arrivals of the next step, on the
 * synapses of thread nc_t's posts. */
static int emit_syn_region(Out *o, const IrProj *j, const CgDialect *dh, const CgDialect *da)
{
    const IrPlast *pl = j->plast;
    if (!pl->syn_step.n && !pl->on_pre.n && !pl->on_prepost.n)
        return 0;
    open_region(o, j, "nc_syn", "synapse dynamics, then the next step's arrivals");
    if (pl->syn_step.n) {
        open_all_synapses(o, j, 1);
        cg_block(dh, &pl->syn_step, o);
        out_close(o);
        out_close(o);
    }
    emit_arrivals(o, j, da, 1);
    out_close(o);
    out_blank(o);
    return 1;
}

/* nc_post_<J>: `on post` of the post spikes thread nc_t owns, through the column index. */
static void emit_post_region(Out *o, const IrProj *j, const CgDialect *dp)
{
    const IrPlast *pl = j->plast;
    const char *c = j->cname;
    open_region(o, j, "nc_post", "'on post' of the spikes of thread nc_t's posts");
    open_post_spikes(o, j);
    out_open(o, "for (int64_t q = %s_cptr[j]; q < %s_cptr[j + 1]; q++)", c, c);
    out_line(o, "const int64_t s = %s_csyn[q], i = %s_cpre[q];", c, c);
    hist_elem(o, j, 1);
    out_line(o, "(void)hi;");
    cg_block(dp, &pl->syn_catch, o);
    cg_block(dp, &pl->on_post, o);
    out_close(o);
    out_close(o);
    out_close(o);
    out_blank(o);
}

/* nc_dyn_<J> (post_first): synapse dynamics on the synapses of thread nc_t's posts. */
static void emit_dyn_region(Out *o, const IrProj *j, const CgDialect *dh)
{
    open_region(o, j, "nc_dyn", "synapse dynamics: the synapses of thread nc_t's posts");
    open_all_synapses(o, j, 1);
    cg_block(dh, &j->plast->syn_step, o);
    out_close(o);
    out_close(o);
    out_close(o);
    out_blank(o);
}

/* nc_pp_<J>: `on pre & post` of thread nc_t's arrivals of this step whose post fired (every
 * synapse is written by one handler a step: the lists' order does not matter). */
static void emit_prepost_region(Out *o, const IrProj *j, const CgDialect *dp)
{
    const IrPlast *pl = j->plast;
    const char *c = j->cname;
    open_region(o, j, "nc_pp", "'on pre & post' of thread nc_t's arrivals");
    out_open(o, "for (int64_t q = %s_abase[nc_t]; q < %s_abase[nc_t] + %s_narr[nc_t]; q++)", c, c, c);
    out_line(o, "const int64_t s = %s_arr[q], i = %s_arr_pre[q], j = %s.col[s];", c, c, c);
    out_line(o, "if (!%s_fired[j]) continue;", c);
    hist_elem(o, j, 1);
    out_line(o, "(void)hi;");
    cg_block(dp, &pl->syn_catch, o);
    cg_block(dp, &pl->on_prepost, o);
    out_close(o);
    out_close(o);
    out_blank(o);
}

/* In learn_<J>: the post spikes' flags, nc_pp_<J> on the threads, the flags cleared. */
static void emit_prepost(Out *o, const IrProj *j)
{
    const char *c = j->cname;
    open_spikes(o, j->post.pop, j->post.offset, j->post.size, "j");
    out_line(o, "%s_fired[j] = 1;", c);
    out_close(o);
    out_begin(o);
    out_line(o, "double nc_w = 0;");
    out_line(o, "for (int q = 0; q < ctx.threads && q < NRT_MAX_THREADS; q++) nc_w += (double)%s_narr[q];", c);
    out_line(o, "nrt_pool_run(nc_pp_%s, &step, nc_w);", c);
    out_close(o);
    open_spikes(o, j->post.pop, j->post.offset, j->post.size, "j");
    out_line(o, "%s_fired[j] = 0;", c);
    out_close(o);
}

/* The regions of learn_<J>: nc_scope_, nc_syn_ (pre_first), nc_post_, nc_dyn_ (post_first). */
static void emit_learn_regions(Out *o, const IrProj *j, const CgDialect *dh, const CgDialect *ds,
                               const CgDialect *dp, const CgDialect *da, int split)
{
    const IrPlast *pl = j->plast;
    if (split ? pl->post_step.n > 0 : pl->npre || pl->pre_step.n || pl->post_step.n)
        emit_scope_region(o, j, ds, dp, split);
    if (split && (pl->npre || pl->pre_step.n))
        emit_scope_region(o, j, ds, dp, 2);
    if (!pl->post_first)
        emit_syn_region(o, j, dh, da);
    if (pl->on_post.n)
        emit_post_region(o, j, dp);
    if (pl->on_prepost.n)
        emit_prepost_region(o, j, dp);
    if (pl->post_first && pl->syn_step.n)
        emit_dyn_region(o, j, dh);
}

/* learn_pre_<J> (--mpi, `split` of emit_learn): the pre { } work of a step, which
 * deliver_step runs once every rank's spikes of it are there (c_host.c, cgc_step_mpi): the
 * scope's dynamics and history (nc_prescope_<J>), its `on spike` with the history after it
 * (pre_first), the step's spikes kept for their arrivals. Handlers read the scope only
 * through its histories, so this work may run after learn_<J> of later steps, or before
 * learn_<J> of its own step (codegen/gpu/simt_mpi.c's head comment). */
static void emit_learn_pre(Out *o, const IrProj *j, const CgDialect *ds, const CgDialect *dp)
{
    const IrPlast *pl = j->plast;
    const char *c = j->cname;
    long long npre = (long long)j->pre.size;
    out_line(o, "/* %s, the pre { } work of a step (--mpi): dynamics, 'on spike', the spikes kept */", j->name);
    out_open(o, "static void learn_pre_%s(int64_t step)", c);
    out_line(o, "const real t = (real)((double)step * dt);");
    out_line(o, "(void)t;");
    out_line(o, "const int64_t hs = step %% %s_D;", c);
    out_line(o, "(void)hs;");
    if (pl->npre || pl->pre_step.n)
        out_line(o, "nrt_pool_run(nc_prescope_%s, &step, %lld.0);", c, npre);
    if (pl->pre_spike.n) {
        open_spikes(o, j->pre.pop, j->pre.offset, j->pre.size, "i");
        cg_block(ds, &pl->pre_spike, o);
        for (int k = 0; k < pl->npre && dp->pre_after; k++)
            out_line(o, "%s_ha[hs * %lld + i] = %s[i];", pl->pre[k]->cname, npre, pl->pre[k]->cname);
        out_close(o);
    }
    emit_keep_spikes(o, j);
    out_close(o);
    out_blank(o);
}

/* learn_<J>: the learning phases, in the order of pl->post_first (see emit_plast_step); the
 * per-neuron and per-synapse ones on the threads, the per-spike ones on this thread. */
static void emit_learn(Out *o, const IrProj *j, const CgDialect *dh, const CgDialect *ds, const CgDialect *dp,
                       const CgDialect *da, int split)
{
    const IrPlast *pl = j->plast;
    const char *c = j->cname;
    long long npre = (long long)j->pre.size, npost = (long long)j->post.size;
    int pre_first = !pl->post_first;
    emit_learn_regions(o, j, dh, ds, dp, da, split);
    if (pre_first)
        out_line(o, "/* %s, phase 2 (pre_first): scope dynamics, synapse dynamics, 'on pre' of the next step's "
                    "arrivals, pre 'on spike', 'on post', 'on pre & post', post 'on spike' */", j->name);
    else
        out_line(o, "/* %s, phases 5-7: scope dynamics, 'on post', 'on pre & post', scope 'on spike', synapse dynamics */",
                 j->name);
    out_open(o, "static void learn_%s(int64_t step)", c);
    out_line(o, "const real t = (real)((double)step * dt);");
    out_line(o, "(void)t;");
    out_line(o, "const int64_t hs = step %% %s_D;", c);
    out_line(o, "(void)hs;");
    if (split ? pl->post_step.n > 0 : pl->npre || pl->pre_step.n || pl->post_step.n)
        out_line(o, "nrt_pool_run(nc_scope_%s, &step, %lld.0);", c, split ? npost : npre + npost);
    if (pre_first) {
        if (!split)
            emit_keep_spikes(o, j);
        if (pl->syn_step.n || pl->on_pre.n || pl->on_prepost.n) {
            out_begin(o);
            if (pl->on_pre.n || pl->on_prepost.n)
                arrivals_work(o, j);
            else
                out_line(o, "double nc_w = 0;");
            if (pl->syn_step.n)
                out_line(o, "nc_w += (double)%s.nnz;", c);
            out_line(o, "nrt_pool_run(nc_syn_%s, &step, nc_w);", c);
            out_close(o);
        }
        if (pl->pre_spike.n && !split) {
            open_spikes(o, j->pre.pop, j->pre.offset, j->pre.size, "i");
            cg_block(ds, &pl->pre_spike, o);
            for (int k = 0; k < pl->npre && dp->pre_after; k++)
                out_line(o, "%s_ha[hs * %lld + i] = %s[i];", pl->pre[k]->cname, npre, pl->pre[k]->cname);
            out_close(o);
        }
    }
    if (pl->on_post.n)
        out_line(o, "nrt_pool_run(nc_post_%s, &step, (double)%s_nspk * (double)%s.nnz / %lld.0);", c,
                 j->post.pop->cname, c, npost ? npost : 1);
    if (pl->on_prepost.n)
        emit_prepost(o, j);
    if (pl->pre_spike.n && !pre_first && !split) {
        open_spikes(o, j->pre.pop, j->pre.offset, j->pre.size, "i");
        cg_block(ds, &pl->pre_spike, o);
        out_close(o);
    }
    if (pl->post_spike.n) {
        open_spikes(o, j->post.pop, j->post.offset, j->post.size, "j");
        cg_block(ds, &pl->post_spike, o);
        out_close(o);
    }
    if (pl->syn_step.n && !pre_first)
        out_line(o, "nrt_pool_run(nc_dyn_%s, &step, (double)%s.nnz);", c, c);
    if (!pre_first && !split)
        emit_keep_spikes(o, j);
    out_close(o);
    out_blank(o);
    if (split)
        emit_learn_pre(o, j, ds, dp);
}

/* catchup_<J>: event-driven synapse dynamics (pl->event), brought up to a step, each
 * thread the synapses of its posts. */
static void emit_catchup(Out *o, const IrProj *j, const CgDialect *dh)
{
    const char *c = j->cname;
    open_region(o, j, "nc_catchup", "event-driven synapse dynamics up to `step`: the synapses of thread nc_t's posts");
    out_open(o, "for (int64_t i = 0; i < %lld; i++)", (long long)j->pre.size);
    open_row(o, j);
    cg_block(dh, &j->plast->syn_catch, o);
    out_close(o);
    out_close(o);
    out_close(o);
    out_blank(o);
    out_line(o, "/* %s: event-driven synapse dynamics, every synapse brought up to `step` steps done */", j->name);
    out_open(o, "static void catchup_%s(int64_t step)", c);
    out_line(o, "nrt_pool_run(nc_catchup_%s, &step, (double)%s.nnz);", c, c);
    out_close(o);
    out_blank(o);
}

/* ===== the learning phases on the threads =====} */

/* Phase 0 (arrivals) and phase 2 (learning) of a plastic projection; docs/language.md §9. In
 * order pre_first the arrivals of step + 1 run in learn_ of step, after the synapse dynamics
 * of the step (the handlers catch up to step + 1), before `on post`; `on post` and `on pre &
 * post` read the pre { } scope after its `on spike` (dp). */
static void emit_plast_step(Out *o, const IrProj *j, const IrModel *m)
{
    const IrPlast *pl = j->plast;
    int pre_first = !pl->post_first;
    PlastNames nm;
    CgDialect dh = plast_dialect(m, j, &nm, "hi");   /* handlers */
    CgDialect ds = plast_dialect(m, j, &nm, NULL);   /* scopes */
    CgDialect dp = dh;                               /* on post, on pre & post */
    CgDialect da = dh;                               /* the arrivals */
    if (pre_first) {                                 /* handlers see the dynamics of this step */
        dp.pre_hist = j->delay ? "hi" : NULL;
        dp.pre_after = cg_pre_after(j);
        dp.step = da.step = "(step + 1)";
    }
    emit_arrive(o, j, &dh);
    emit_learn(o, j, &dh, &ds, &dp, &da, m->mpi);
    if (pl->event)
        emit_catchup(o, j, &dh);
}

/* Contract: c_priv.h. */
void cgc_plast(Out *o, const IrProj *j, const IrModel *m)
{
    if (j->rule == IR_PAIRS) {   /* prob, within, where: the row function */
        CgDialect d = cgc_dialect(m, j->pre.pop);
        cg_conn_row(o, &d, j, "static", "");
    }
    emit_plast_storage(o, j, m);
    emit_plast_build(o, j, m);
    emit_plast_step(o, j, m);
}

/* ===== plastic projections =====} */

/* Contract: c_priv.h. Draws keyed by row i and rank, at the boundary's step (syn_init's). */
void cgc_plast_assign(Out *o, const IrModel *m, const IrPhase *ph)
{
    const IrProj *j = ph->proj;
    const char *c = j->cname;
    PlastNames nm;
    char at[32];
    snprintf(at, sizeof at, "%lld", (long long)ph->at);
    CgDialect d = plast_dialect(m, j, &nm, NULL);
    d.pop = ph->owner;
    d.rng_elem = "i";
    d.rng_sub = "rank";
    d.rng_step = at;
    out_open(o, "for (int64_t i = 0; i < %s.n_pre; i++)", c);
    out_open(o, "for (int64_t s = %s.row_ptr[i]; s < %s.row_ptr[i + 1]; s++)", c, c);
    out_line(o, "const int64_t j = %s.col[s], rank = s - %s.row_ptr[i];", c, c);
    out_line(o, "(void)j; (void)rank;");
    cg_block(&d, &ph->body, o);
    out_close(o);
    out_close(o);
}
