/* simt_family.c -- projection families on the GPU back ends (docs/architecture.md,
 * "Projection families"): the construction of static stored projections that are the same
 * but for their constants, by one kernel per family.
 *
 * The plan is cg_family.c's (Simt.fam), with w and delay printed in the construction's
 * device dialect (simt_syn_dialect). Per family f:
 *   device  nc_k_synf<f>(NC_ARGS, rp, col, w, d, n_pre, proj, slots...): one member's
 *           per-synapse values, as its case of nc_k_syn_g<n> computes them; the member's
 *           buffers and constants are the kernel's last arguments, so its text is the
 *           family's and the program holds no per-member code;
 *   host    nc_fam<f>[], the members' constants (sizes, offsets, the rule's numbers, the
 *           slots, names) and where their buffers are in nc_inst (offsetof: every instance
 *           of a batch has its own), and build_fam<f>(a, b), which builds members a .. b - 1
 *           as build_<proj> builds one (simt_alloc.c): connectivity, the kernel launched per
 *           member, its longest delay, its ring. build_instance calls it per run of members
 *           (CgFamPlan.u) in projection order, so every projection's synapses are the same
 *           values in the same order as without families.
 * Everything after construction (delivery, --save-connectivity, the memory plan, checkpoints)
 * reads the members' buffers by their own names as for any projection.
 */
#include <math.h>
#include <string.h>

#include "simt_priv.h"

/* What the GPU back ends build as a family member: stored (procedural projections are
 * built and delivered per projection), and delivered into no gather (top-k: excluded by
 * the plan already). */
static int fam_ok(void *user, const IrModel *m, const IrProj *j)
{
    (void)user;
    (void)m;
    return !j->procedural && !simt_gathers(j);
}

static void fam_dialects(void *user, const IrModel *m, const IrProj *j, CgDialect *d, CgDialect *dd)
{
    (void)m;
    *d = simt_syn_dialect((const Simt *)user, j);
    *dd = *d;
    dd->dbl = 1;
    dd->real = "double";
}

/* Contract: simt_priv.h. */
void simt_fam_plan(Simt *S)
{
    const CgFamHooks h = {fam_dialects, fam_ok, S};
    cg_fam_plan(S->cc, S->m, &h, &S->fam);
}

/* Contract: simt_priv.h. */
int simt_fam_member(const Simt *S, const IrProj *j)
{
    return cg_fam_of(&S->fam, j) >= 0;
}

/* The slots as kernel parameters ("const real nc_r0, ..."). */
static void slot_params(const Simt *S, const CgFamCand *c0, StrBuf *b)
{
    for (int i = 0; i < c0->nx; i++)
        sb_printf(b, ", const double nc_x%d", i);
    for (int i = 0; i < c0->nr; i++)
        sb_printf(b, ", const %s nc_r%d", S->m->dbl ? "double" : "float", i);
    for (int i = 0; i < c0->nk; i++)
        sb_printf(b, ", const uint32_t nc_k%d", i);
}

/* nc_k_synf<f>: the per-synapse values of one member of family f. */
static void emit_device_family(Out *o, const Simt *S, int f)
{
    const CgFamCand *c0 = &S->fam.c[S->fam.first[f]];
    const IrProj *j0 = S->m->projs[S->fam.first[f]];
    const int slots = c0->nx + c0->nr + c0->nk;
    if (slots) {
        out_open(o, "typedef struct nc_fk%d_t", f);
        if (c0->nx)
            out_line(o, "double x[%d];", c0->nx);
        if (c0->nr)
            out_line(o, "real r[%d];", c0->nr);
        if (c0->nk)
            out_line(o, "uint32_t ks[%d];", c0->nk);
        char tail[32];
        snprintf(tail, sizeof tail, " nc_fk%d_t;", f);
        out_close_with(o, tail);
    }
    StrBuf ps = {0};
    slot_params(S, c0, &ps);
    out_line(o, "/* projection family %d (simt_family.c): the per-synapse values of a member of %d like %s", f,
             S->fam.size[f], j0->name);
    out_line(o, " * (SYNAPSE_INIT draws keyed by row and rank), its buffers and constants the last arguments */");
    simt_kernel_open(o, S,
                     "NC_KERNEL nc_k_synf%d(NC_ARGS, NC_G const int64_t *nc_frp, NC_G const int32_t *nc_fcol, NC_G real *nc_fw, NC_G int32_t *nc_fd, const int64_t nc_npre, const int nc_fj%s)",
                     f, ps.s ? ps.s : "");
    sb_free(&ps);
    if (slots) {
        out_line(o, "nc_fk%d_t nc_F;", f);
        for (int i = 0; i < c0->nx; i++)
            out_line(o, "nc_F.x[%d] = nc_x%d;", i, i);
        for (int i = 0; i < c0->nr; i++)
            out_line(o, "nc_F.r[%d] = nc_r%d;", i, i);
        for (int i = 0; i < c0->nk; i++)
            out_line(o, "nc_F.ks[%d] = nc_k%d;", i, i);
        out_line(o, "const nc_fk%d_t *const F = &nc_F;", f);
    }
    if (!j0->delay)
        out_line(o, "(void)nc_fd; (void)nc_fj;");
    out_open(o, "for (int64_t i = NC_GID; i < nc_npre; i += NC_GSIZE)");
    out_open(o, "for (int64_t s = nc_frp[i]; s < nc_frp[i + 1]; s++)");
    out_line(o, "const int64_t j = nc_fcol[s], rank = s - nc_frp[i];");
    out_line(o, "(void)j; (void)rank;");
    out_line(o, "nc_fw[s] = %s;", c0->wt);
    if (j0->delay) {
        out_line(o, "const double delay = %s;", c0->dt);
        out_line(o, "const double steps = round(delay / dt);");
        out_open(o, "if (!(steps < 1e9))");
        out_line(o, "nc_cnt[%d] = 1;", S->cnt_err);
        out_line(o, "nc_fd[s] = 1;");
        out_line(o, "continue;");
        out_close(o);
        out_line(o, "const int32_t dd = steps < 1 ? 1 : (int32_t)steps;");
        out_line(o, "nc_fd[s] = dd;");
        out_line(o, "nc_atomic_max_i32(&nc_cnt[%d + nc_fj], dd);", S->cnt_maxd);
    }
    out_close(o);
    out_close(o);
    out_close(o);
    out_blank(o);
}

/* Contract: simt_priv.h. */
void simt_fam_device(Out *o, const Simt *S)
{
    for (int f = 0; f < S->fam.nfam; f++)
        emit_device_family(o, S, f);
}

/* The table nc_fam<f>[] of the members of family f, one row each. */
static void emit_table(Out *o, const Simt *S, int f)
{
    const IrModel *m = S->m;
    const int k0 = S->fam.first[f];
    const CgFamCand *c0 = &S->fam.c[k0];
    out_line(o, "/* projection family %d (simt_family.c): %d stored projections like %s that differ only in", f,
             S->fam.size[f], m->projs[k0]->name);
    out_line(o, " * constants; build_fam%d builds a run of them with one kernel, nc_k_synf%d */", f, f);
    out_open(o, "typedef struct nc_fam%d_t", f);
    out_line(o, "const char *name, *st_conn, *st_vals, *ring_what; /* messages, stages */");
    out_line(o, "uint32_t id; /* the projection's: its RNG streams, its nc_cnt slot */");
    out_line(o, "int alloc; /* the last projection into the ring: allocates it */");
    out_line(o, "int64_t n_pre, n_post, pre_off, post_off, k, width;");
    out_line(o, "double p;");
    out_line(o, "size_t csr, rp, col, w, d, ring, D; /* its buffers: offsets in nc_inst */");
    if (c0->nx)
        out_line(o, "double x[%d];", c0->nx);
    if (c0->nr)
        out_line(o, "real r[%d];", c0->nr);
    if (c0->nk)
        out_line(o, "uint32_t ks[%d];", c0->nk);
    char tail[32];
    snprintf(tail, sizeof tail, " nc_fam%d_t;", f);
    out_close_with(o, tail);
    out_open(o, "static const nc_fam%d_t nc_fam%d[%d] =", f, f, S->fam.size[f]);
    for (int k = k0; k < m->nprojs; k++) {
        const CgFamCand *c = &S->fam.c[k];
        const IrProj *j = m->projs[k];
        if (c->fam != f)
            continue;
        const char *jc = j->cname, *rc = j->ring->cname;
        StrBuf b = {0};
        sb_printf(&b, "{\"%s\", \"%s: connectivity\", \"%s: synapse values\", ", j->name, j->name, j->name);
        if (j->ring_last)
            sb_printf(&b, "\"%s: delay ring\", ", j->ring->name);
        else
            sb_puts(&b, "NULL, ");
        sb_printf(&b, "%du, %d, ", j->id, j->ring_last);
        sb_printf(&b, "%lld, %lld, %lld, %lld, %lld, %lld, %.17g, ", (long long)j->pre.size, (long long)j->post.size,
                  (long long)j->pre.offset, (long long)j->post.offset, (long long)j->k, (long long)j->ring->ring_size,
                  j->p);
        sb_printf(&b, "offsetof(nc_inst, i_%s_csr), offsetof(nc_inst, i_%s_rp), offsetof(nc_inst, i_%s_col), ", jc, jc,
                  jc);
        sb_printf(&b, "offsetof(nc_inst, i_%s_w), ", jc);
        if (j->delay)
            sb_printf(&b, "offsetof(nc_inst, i_%s_d), ", jc);
        else
            sb_puts(&b, "0, ");
        sb_printf(&b, "offsetof(nc_inst, i_%s_ring), offsetof(nc_inst, i_%s_D)", rc, rc);
        if (c->nx)
            sb_printf(&b, ", {%s}", c->xs);
        if (c->nr)
            sb_printf(&b, ", {%s}", c->rs);
        if (c->nk)
            sb_printf(&b, ", {%s}", c->ks);
        out_line(o, "%s},", b.s);
        sb_free(&b);
    }
    out_close_with(o, ";");
    out_line(o, "static nrt_kernel *k_synf%d;", f);
    out_blank(o);
}

/* The member's arguments of nc_k_synf<f> after NC_ARGS (bind). */
static void emit_set_args(Out *o, const Simt *S, const CgFamCand *c0, const IrProj *j0, int f)
{
    out_line(o, "nrt_kernel *const k = k_synf%d;", f);
    out_line(o, "int rc = bind(k) != 0;");
    out_line(o, "rc |= nrt_gpu_arg_mem(k, NC_NARGS + 0, *rp) != NRT_OK;");
    out_line(o, "rc |= nrt_gpu_arg_mem(k, NC_NARGS + 1, *col) != NRT_OK;");
    out_line(o, "rc |= nrt_gpu_arg_mem(k, NC_NARGS + 2, *w) != NRT_OK;");
    out_line(o, "rc |= nrt_gpu_arg_mem(k, NC_NARGS + 3, %s) != NRT_OK;", j0->delay ? "*d" : "nc_dummy");
    out_line(o, "rc |= nrt_gpu_arg_i64(k, NC_NARGS + 4, F->n_pre) != NRT_OK;");
    out_line(o, "rc |= nrt_gpu_arg_i32(k, NC_NARGS + 5, (int32_t)F->id) != NRT_OK;");
    int a = 6;
    for (int i = 0; i < c0->nx; i++)
        out_line(o, "rc |= nrt_gpu_arg_f64(k, NC_NARGS + %d, F->x[%d]) != NRT_OK;", a++, i);
    for (int i = 0; i < c0->nr; i++)
        out_line(o, "rc |= nrt_gpu_arg_%s(k, NC_NARGS + %d, F->r[%d]) != NRT_OK;", S->m->dbl ? "f64" : "f32", a++, i);
    for (int i = 0; i < c0->nk; i++)
        out_line(o, "rc |= nrt_gpu_arg_i32(k, NC_NARGS + %d, (int32_t)F->ks[%d]) != NRT_OK;", a++, i);
    out_line(o, "if (rc) return -1;");
}

/* build_fam<f>(a, b): members a .. b - 1 built as build_<proj> builds one (simt_alloc.c). */
static void emit_build(Out *o, const Simt *S, int f)
{
    const int k0 = S->fam.first[f];
    const CgFamCand *c0 = &S->fam.c[k0];
    const IrProj *j0 = S->m->projs[k0];
    out_open(o, "static int build_fam%d(int a, int b)", f);
    out_open(o, "for (int q = a; q < b; q++)");
    out_line(o, "const nc_fam%d_t *F = &nc_fam%d[q];", f, f);
    out_line(o, "double ts = nrt_now(); /* construction stages (nrt_stage) */");
    out_line(o, "char what[300];");
    out_line(o, "nrt_conn_spec spec = {0};");
    out_line(o, "spec.rule = %s;", cg_rule_name(j0->rule));
    out_line(o, "spec.n_pre = F->n_pre;");
    out_line(o, "spec.n_post = F->n_post;");
    out_line(o, "spec.p = F->p;");
    out_line(o, "spec.k = F->k;");
    out_line(o, "spec.autapses = %d;", j0->autapses);
    out_line(o, "spec.multapses = %d;", j0->multapses);
    out_line(o, "spec.same_base = %d;", j0->pre.pop == j0->post.pop);
    out_line(o, "spec.pre_offset = F->pre_off;");
    out_line(o, "spec.post_offset = F->post_off;");
    out_line(o, "spec.seed = ctx.seed;");
    out_line(o, "spec.proj_id = F->id;");
    out_line(o, "nrt_dcsr *csr = (nrt_dcsr *)((char *)nc_I + F->csr);");
    out_line(o, "nrt_dmem *rp = (nrt_dmem *)((char *)nc_I + F->rp), *col = (nrt_dmem *)((char *)nc_I + F->col);");
    out_line(o, "nrt_dmem *w = (nrt_dmem *)((char *)nc_I + F->w);");
    if (j0->delay)
        out_line(o, "nrt_dmem *d = (nrt_dmem *)((char *)nc_I + F->d);");
    out_line(o, "int64_t *D = (int64_t *)((char *)nc_I + F->D);");
    out_line(o, "if (nrt_gpu_conn_build(&ctx, gpu, &spec, csr) != NRT_OK) return -1;");
    out_line(o, "ts = nrt_stage(&ctx, F->st_conn, ts);");
    out_line(o, "*rp = csr->row_ptr;");
    out_line(o, "*col = csr->col;");
    out_line(o, "const size_t nnz = (size_t)csr->nnz;");
    out_line(o, "snprintf(what, sizeof what, \"%%s: weights\", F->name);");
    out_line(o, "if (dalloc(w, nnz * sizeof(real), what)) return -1;");
    if (j0->delay) {
        out_line(o, "snprintf(what, sizeof what, \"%%s: delays\", F->name);");
        out_line(o, "if (dalloc(d, nnz * sizeof(int32_t), what)) return -1;");
    }
    emit_set_args(o, S, c0, j0, f);
    out_line(o, "if (nrt_gpu_launch(k, (size_t)((F->n_pre + 127) / 128), 128, 0) != NRT_OK || nrt_gpu_sync(gpu) != NRT_OK) return -1;");
    out_line(o, "ts = nrt_stage(&ctx, F->st_vals, ts);");
    out_line(o, "int32_t maxd = 1;");
    if (j0->delay) {
        out_line(o, "int32_t flags[2];");
        out_line(o, "if (nrt_gpu_read(gpu, nc_cnt, (%d + F->id) * sizeof(int32_t), &flags[0], sizeof(int32_t)) != NRT_OK) return -1;",
                 S->cnt_maxd);
        out_line(o, "if (nrt_gpu_read(gpu, nc_cnt, %d * sizeof(int32_t), &flags[1], sizeof(int32_t)) != NRT_OK) return -1;",
                 S->cnt_err);
        out_open(o, "if (flags[1])");
        out_line(o, "snprintf(ctx.errmsg, sizeof ctx.errmsg, \"projection %%s: a synapse's delay is not a usable time (not finite, or over 1e9 steps)\", F->name);");
        out_line(o, "return -1;");
        out_close(o);
        out_line(o, "if (flags[0] > maxd) maxd = flags[0];");
    }
    out_line(o, "if ((int64_t)maxd + 1 > *D) *D = (int64_t)maxd + 1;");
    out_line(o, "if (!F->alloc) continue; /* the last projection into the ring allocates it */");
    out_line(o, "if (dalloc((nrt_dmem *)((char *)nc_I + F->ring), (size_t)*D * F->width * sizeof(real), F->ring_what)) return -1;");
    out_close(o);
    out_line(o, "return 0;");
    out_close(o);
    out_blank(o);
}

/* Contract: simt_priv.h. */
void simt_fam_host(Out *o, const Simt *S)
{
    for (int f = 0; f < S->fam.nfam; f++) {
        emit_table(o, S, f);
        emit_build(o, S, f);
    }
}

/* Contract: simt_priv.h. */
void simt_fam_kernels(Out *o, const Simt *S)
{
    for (int f = 0; f < S->fam.nfam; f++) {
        const CgFamCand *c0 = &S->fam.c[S->fam.first[f]];
        out_line(o, "if (!(k_synf%d = nrt_gpu_kernel(gpu, \"nc_k_synf%d\", NC_NARGS + %d))) return fail(argv[0]);", f, f,
                 6 + c0->nx + c0->nr + c0->nk);
    }
}

/* Contract: simt_priv.h. */
int simt_fam_build(Out *o, const Simt *S, int k)
{
    int u;
    const int n = cg_fam_unit(&S->fam, k, &u);
    if (n)
        out_line(o, "if (build_fam%d(%d, %d)) return fail(argv[0]);", S->fam.u[u].f, S->fam.u[u].a, S->fam.u[u].b);
    return n;
}

/* Contract: simt_priv.h. */
int simt_syn_index(const Simt *S, const IrProj *j)
{
    if (simt_fam_member(S, j))
        return -1;
    int x = 0;
    for (int k = 0; k < S->m->nprojs && S->m->projs[k] != j; k++)
        x += !simt_fam_member(S, S->m->projs[k]);
    return x;
}
