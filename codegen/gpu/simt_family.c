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
 * Delivery in the grid schedules (launch, graph, persistent): nc_deliver_fam<f>_grid, a
 * sub-group of 32 or more work-items per (spike, slot of members), the member's buffers, ring and
 * numbers read from the table nc_fdt<f> that fam_tables() writes after construction. So the
 * members' own buffers (row pointers, columns, weights, delays) are no kernel arguments
 * (simt_fam_args: the host's nc_inst holds them, for construction, --save-connectivity, the
 * memory plan) unless the block or cluster schedule is compiled, which delivers per member.
 * Under --mpi a stored member is cut to the rank's columns before nc_k_synf<f> draws its
 * values (keyed by nc_rk), a procedural member adds only into the rank's neurons, and both
 * keep their shortest delays: simt_mpi.c's simt_mpi_fam_* pieces.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simt_priv.h"

/* What the GPU back ends take as a family member: stored, or procedural fixed_total (other
 * procedural rules are delivered per projection), and delivered into no gather (top-k:
 * excluded by the plan already). */
/* A stored member is delivered from its family's table in the grid schedules, which costs
 * the microcircuit's step 12 % on an H200 against its per-projection delivery
 * (docs/performance.md, "Projection families", session 19): stored projections form families
 * only in a model of more than SIMT_FAM_STORED projections, whose per-projection program
 * would take minutes to build, or under --proj-tables=on. Procedural ones always may. */
enum { SIMT_FAM_STORED = 128 };
/* Under --mpi a member is cut, guarded and gathered as a single projection (simt_mpi.c), but
 * not one onto a replicated population, whose synapses every rank keeps whole and whose words
 * are rank 0's: that one stays single. */
static int fam_ok(void *user, const IrModel *m, const IrProj *j)
{
    const Simt *S = user;
    if (!j->procedural && m->nprojs <= SIMT_FAM_STORED && !S->cc->opt.proj_tables_on)
        return 0;
    if (S->fam_rep && S->fam_rep[j->post.pop->id])
        return 0;
    return !simt_gathers(j) && (!j->procedural || j->rule == IR_FIXED_TOTAL);
}

/* w and delay as the family's code prints them: a stored member's in its construction
 * (simt_syn_dialect), a procedural one's in its delivery (not out of line) */
static void fam_dialects(void *user, const IrModel *m, const IrProj *j, CgDialect *d, CgDialect *dd)
{
    const Simt *S = user;
    (void)m;
    if (j->procedural) {
        *d = simt_dev_dialect(S, j->pre.pop);
        d->rng_elem = "i";
        d->rng_sub = "rank";
        d->rng_step = "0";
        d->index = "i";
    } else {
        *d = simt_syn_dialect(S, j);
    }
    *dd = *d;
    dd->dbl = 1;
    dd->real = "double";
}

/* Family f's members are procedural (built per projection, delivered by family). */
static int fam_proc(const Simt *S, int f)
{
    return S->m->projs[S->fam.first[f]]->procedural;
}

/* Contract: simt_priv.h. */
void simt_fam_plan(Simt *S)
{
    if (S->m->mpi) {   /* which populations are replicated, once: each answer walks every projection */
        char *rep = arena_alloc(&S->cc->arena, (size_t)S->m->npops + 1);
        for (int i = 0; i < S->m->npops; i++)
            rep[i] = (char)simt_mpi_replicated(S->m, S->m->pops[i]);
        S->fam_rep = rep;
    }
    const CgFamHooks h = {fam_dialects, fam_ok, S};
    cg_fam_plan(S->cc, S->m, &h, &S->fam);
}

/* Contract: simt_priv.h. */
int simt_fam_member(const Simt *S, const IrProj *j)
{
    return cg_fam_of(&S->fam, j) >= 0;
}

/* F, the slots of a kernel's parameters (slot_params) as the templates read them. */
static void emit_slots_local(Out *o, const CgFamCand *c0, int f)
{
    if (!(c0->nx + c0->nr + c0->nk))
        return;
    out_line(o, "nc_fk%d_t nc_F;", f);
    for (int i = 0; i < c0->nx; i++)
        out_line(o, "nc_F.x[%d] = nc_x%d;", i, i);
    for (int i = 0; i < c0->nr; i++)
        out_line(o, "nc_F.r[%d] = nc_r%d;", i, i);
    for (int i = 0; i < c0->nk; i++)
        out_line(o, "nc_F.ks[%d] = nc_k%d;", i, i);
    out_line(o, "const nc_fk%d_t *const F = &nc_F;", f);
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

/* The body of a row of nc_k_pscanf<f> (cg_row_loops): the synapse's delay, the longest. */
static void pscan_body(Out *o, const void *arg)
{
    const Simt *S = ((const void *const *)arg)[0];
    const CgFamCand *c0 = ((const void *const *)arg)[1];
    out_begin(o);
    out_line(o, "const double delay = %s;", c0->dt);
    out_line(o, "const double steps = round(delay / dt);");
    out_line(o, "if (!(steps < 1e9)) nc_cnt[%d] = 1;", S->cnt_err);
    out_line(o, "const int32_t dd = !(steps < 1e9) || steps < 1 ? 1 : (int32_t)steps;");
    out_line(o, "nc_atomic_max_i32(&nc_cnt[%d + nc_fj], dd);", S->cnt_maxd);
    simt_mpi_fam_min_delay(o, S);
    out_close(o);
}

/* nc_k_pscanf<f>: a procedural member's rows walked once for the longest delay, as
 * nc_k_pscan_<proj> (simt_deliver.c) walks one projection's; its numbers the arguments. */
static void emit_pscan(Out *o, const Simt *S, int f)
{
    const IrProj *j0 = S->m->projs[S->fam.first[f]];
    const CgFamCand *c0 = &S->fam.c[S->fam.first[f]];
    CgDialect d = simt_dev_dialect(S, j0->pre.pop);
    const CgRowSpell rs = {"nc_fnp", "nc_faut", "nc_fcs", "0.0", "nc_frp"};
    d.row = &rs;
    StrBuf ps = {0};
    slot_params(S, c0, &ps);
    out_line(o, "/* projection family %d, procedural: a member's rows walked once for the longest delay */", f);
    simt_kernel_open(o, S,
                     "NC_KERNEL nc_k_pscanf%d(NC_ARGS, NC_G const int64_t *nc_frp, const int64_t nc_npre, const int64_t nc_fnp, const int64_t nc_faut, const uint32_t nc_fcs, const int nc_fj%s)",
                     f, ps.s ? ps.s : "");
    sb_free(&ps);
    emit_slots_local(o, c0, f);
    out_line(o, "(void)nc_faut;");
    out_open(o, "for (int64_t i = NC_GID; i < nc_npre; i += NC_GSIZE)");
    out_line(o, "const uint32_t key0 = seedkey;");
    out_line(o, "int64_t rank = 0;");
    const void *arg[2] = {S, c0};
    cg_row_loops(o, &d, j0, pscan_body, arg);
    out_close(o);
    out_close(o);
    out_blank(o);
}

/* nc_k_synf<f>: the per-synapse values of one member of family f. */
static void emit_device_family(Out *o, const Simt *S, int f)
{
    const CgFamCand *c0 = &S->fam.c[S->fam.first[f]];
    const IrProj *j0 = S->m->projs[S->fam.first[f]];
    const int slots = c0->nx + c0->nr + c0->nk;
    if (slots) {   /* the slots, as the templates read them (F->r[k]) */
        out_open(o, "typedef struct nc_fk%d_t", f);
        cg_fam_slot_fields(o, c0);
        char tail[32];
        snprintf(tail, sizeof tail, " nc_fk%d_t;", f);
        out_close_with(o, tail);
    }
    if (fam_proc(S, f) && j0->delay)
        emit_pscan(o, S, f);
    StrBuf ps = {0};
    slot_params(S, c0, &ps);
    out_line(o, "/* projection family %d (simt_family.c): the per-synapse values of a member of %d like %s", f,
             S->fam.size[f], j0->name);
    out_line(o, " * (SYNAPSE_INIT draws keyed by row and rank), its buffers and constants the last arguments */");
    simt_kernel_open(o, S,
                     "NC_KERNEL nc_k_synf%d(NC_ARGS, NC_G const int64_t *nc_frp, NC_G const int32_t *nc_fcol, NC_G real *nc_fw, NC_G int32_t *nc_fd, const int64_t nc_npre, const int nc_fj%s)",
                     f, ps.s ? ps.s : "");
    sb_free(&ps);
    emit_slots_local(o, c0, f);
    if (!j0->delay)
        out_line(o, "(void)nc_fd; (void)nc_fj;");
    out_open(o, "for (int64_t i = NC_GID; i < nc_npre; i += NC_GSIZE)");
    out_open(o, "for (int64_t s = nc_frp[i]; s < nc_frp[i + 1]; s++)");
    if (S->m->mpi && !j0->procedural)   /* distributed: cut to the rank's columns first (simt_mpi_fam_cut) */
        out_line(o, "const int64_t j = nc_fcol[s], rank = nc_sl[0] > 1 ? (int64_t)nc_rk[s] : s - nc_frp[i];");
    else
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
        simt_mpi_fam_min_delay(o, S);
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
    out_line(o, "const char *name, *st_conn, *st_vals, *ring_what, *mem; /* messages, stages, the memory plan */");
    out_line(o, "double slots; /* the memory plan's ring slots (cg_mem_slots) */");
    out_line(o, "uint32_t id; /* the projection's: its RNG streams, its nc_cnt slot */");
    out_line(o, "int alloc; /* the last projection into the ring: allocates it */");
    out_line(o, "int64_t n_pre, n_post, pre_off, post_off, k, width, base; /* base: its post view in the ring (cg_ring_base) */");
    out_line(o, "double p;");
    out_line(o, "size_t csr, rp, col, w, d, ring, D; /* its buffers: offsets in nc_inst */");
    cg_fam_slot_fields(o, c0);
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
        sb_printf(&b, "\"projection %s%s\", %.1f, ", j->name, j->procedural ? " (procedural)" : "", cg_mem_slots(m, j));
        sb_printf(&b, "%du, %d, ", j->id, j->ring_last);
        sb_printf(&b, "%lld, %lld, %lld, %lld, %lld, %lld, %lld, %.17g, ", (long long)j->pre.size,
                  (long long)j->post.size, (long long)j->pre.offset, (long long)j->post.offset, (long long)j->k,
                  (long long)j->ring->ring_size, cg_ring_base(j), j->p);
        sb_printf(&b, "offsetof(nc_inst, i_%s_csr), offsetof(nc_inst, i_%s_rp), offsetof(nc_inst, i_%s_col), ", jc, jc,
                  jc);
        sb_printf(&b, "offsetof(nc_inst, i_%s_w), ", jc);
        if (j->delay)
            sb_printf(&b, "offsetof(nc_inst, i_%s_d), ", jc);
        else
            sb_puts(&b, "0, ");
        sb_printf(&b, "offsetof(nc_inst, i_%s_ring), offsetof(nc_inst, i_%s_D)", rc, rc);
        cg_fam_slot_inits(&b, c);
        out_line(o, "%s},", b.s);
        sb_free(&b);
    }
    out_close_with(o, ";");
    out_line(o, "static nrt_kernel *k_synf%d;", f);
    if (m->mpi)
        simt_mpi_fam_decls(o, S, f);
    if (fam_proc(S, f) && m->projs[k0]->delay)
        out_line(o, "static nrt_kernel *k_pscanf%d;", f);
    out_blank(o);
}

/* mem_fam<f>, save_fam<f>, stat_fam<f>: cg_mem_plan's lines of a member (simt's layout),
 * save_<proj> (simt_records.c: what build_<proj> built, or for a procedural member the
 * stored form it builds under --save-connectivity) and the built counts, of members a .. b - 1. */
static void emit_host_parts(Out *o, const Simt *S, const IrProj *j0, int f)
{
    cg_fam_mem_head(o, j0, f);
    if (j0->procedural) {
        out_line(o, "double nnz = 0;");
        out_line(o, "(void)nrt_conn_bytes(&spec, syn, &nnz);");
        out_line(o, "nrt_mem_add(&ctx, F->mem, nnz, ring + 8.0 * (F->n_pre + 1));");   /* fixed_total's row pointers */
    } else {
        out_line(o, "double nnz = 0, bytes = nrt_conn_bytes(&spec, syn, &nnz);");
        out_line(o, "nrt_mem_add(&ctx, F->mem, nnz, bytes + ring);");
    }
    out_line(o, "nrt_proj_stat(&ctx, (int)F->id, %d, nnz);", j0->pre.pop->id);
    out_close(o);
    out_close(o);
    out_blank(o);
    out_open(o, "static int save_fam%d(int a, int b)", f);
    out_open(o, "for (int q = a; q < b; q++)");
    out_line(o, "const nc_fam%d_t *F = &nc_fam%d[q];", f, f);
    out_line(o, "const nrt_dcsr *csr = (const nrt_dcsr *)((char *)nc_I + F->csr);");
    out_line(o, "const nrt_dmem dw = *(nrt_dmem *)((char *)nc_I + F->w);");
    out_line(o, "nrt_csr c = {0};");
    out_line(o, "c.n_pre = csr->n_pre;");
    out_line(o, "c.n_post = csr->n_post;");
    out_line(o, "c.nnz = csr->nnz;");
    out_line(o, "const size_t n = (size_t)(c.nnz ? c.nnz : 1);");
    out_line(o, "c.row_ptr = nrt_alloc(&ctx, (size_t)(c.n_pre + 1) * sizeof(int64_t), \"connectivity row pointers\");");
    out_line(o, "c.col = nrt_alloc(&ctx, n * sizeof(int32_t), \"connectivity columns\");");
    out_line(o, "real *w = nrt_alloc(&ctx, n * sizeof(real), \"weights\");");
    out_line(o, "int32_t *d = %s;", j0->delay ? "nrt_alloc(&ctx, n * sizeof(int32_t), \"delays\")" : "NULL");
    out_line(o, "int bad = !c.row_ptr || !c.col || !w || %s", j0->delay ? "!d" : "0");
    out_line(o, "    || nrt_gpu_read(gpu, csr->row_ptr, 0, c.row_ptr, (size_t)(c.n_pre + 1) * sizeof(int64_t)) != NRT_OK");
    out_line(o, "    || (c.nnz && nrt_gpu_read(gpu, csr->col, 0, c.col, (size_t)c.nnz * sizeof(int32_t)) != NRT_OK)");
    out_line(o, "    || (c.nnz && nrt_gpu_read(gpu, dw, 0, w, (size_t)c.nnz * sizeof(real)) != NRT_OK)");
    if (j0->delay)
        out_line(o, "    || (c.nnz && nrt_gpu_read(gpu, *(nrt_dmem *)((char *)nc_I + F->d), 0, d, (size_t)c.nnz * sizeof(int32_t)) != NRT_OK)");
    if (S->m->mpi)   /* distributed: every rank's part to rank 0, which writes the file */
        simt_mpi_fam_save(o, S, j0, f);
    else
        out_line(o, "    || nrt_conn_save(&ctx, F->name, &c, w, (int)sizeof(real), d) != NRT_OK;");
    out_line(o, "nrt_csr_free(&c);");
    out_line(o, "nrt_free(w);");
    out_line(o, "nrt_free(d);");
    out_line(o, "if (bad) return -1;");
    out_close(o);
    out_line(o, "return 0;");
    out_close(o);
    out_blank(o);
    out_open(o, "static void stat_fam%d(int a, int b)", f);
    if (j0->procedural)
        out_line(o, "(void)a; (void)b; /* procedural: nothing built to count */");
    else
        out_line(o, "for (int q = a; q < b; q++) nrt_proj_stat(&ctx, (int)nc_fam%d[q].id, %d, (double)((const nrt_dcsr *)((char *)nc_I + nc_fam%d[q].csr))->nnz);",
                 f, j0->pre.pop->id, f);
    out_close(o);
    out_blank(o);
}

/* nc_units[], the runs of members in projection order, and X_units(u0, u1) for X in mem,
 * save, stat: X_fam<f> of runs u0 .. u1 - 1 in order (as c_family.c's emit_units). */
static void emit_units(Out *o, const Simt *S)
{
    static const CgFamCall cs[] = {{"mem", "void", "", ""}, {"save", "int", "", ""}, {"stat", "void", "", ""}};
    cg_fam_units(o, &S->fam, "simt_family.c", cs, 3);
}

/* Contract: simt_priv.h. */
int simt_fam_seg(const Simt *S, int k, int *u0, int *u1)
{
    return cg_fam_seg(&S->fam, k, u0, u1);
}

/* cg_mem_plan's CgMemUnit: the Simt whose plan it reads, while simt_emit_host writes mem_plan */
static const Simt *mem_S;

static int mem_seg(Out *o, const IrModel *m, int k)
{
    int u0, u1;
    (void)m;
    const int n = mem_S ? cg_fam_seg(&mem_S->fam, k, &u0, &u1) : 0;
    if (n)
        out_line(o, "mem_units(%d, %d);", u0, u1);
    return n;
}

/* Contract: simt_priv.h. */
void simt_fam_mem_plan(Out *o, const Simt *S)
{
    mem_S = S;
    cg_mem_plan(o, S->m, 1, S->fam.nfam ? mem_seg : NULL);
    mem_S = NULL;
}

/* The slots as a kernel's arguments NC_NARGS + a on (slot_params), into rc. */
static void emit_slot_args(Out *o, const Simt *S, const CgFamCand *c0, int a)
{
    for (int i = 0; i < c0->nx; i++)
        out_line(o, "rc |= nrt_gpu_arg_f64(k, NC_NARGS + %d, F->x[%d]) != NRT_OK;", a++, i);
    for (int i = 0; i < c0->nr; i++)
        out_line(o, "rc |= nrt_gpu_arg_%s(k, NC_NARGS + %d, F->r[%d]) != NRT_OK;", S->m->dbl ? "f64" : "f32", a++, i);
    for (int i = 0; i < c0->nk; i++)
        out_line(o, "rc |= nrt_gpu_arg_i32(k, NC_NARGS + %d, (int32_t)F->ks[%d]) != NRT_OK;", a++, i);
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
    emit_slot_args(o, S, c0, 6);
    out_line(o, "if (rc) return -1;");
}

/* A procedural member's build without --save-connectivity, as build_<proj>'s (simt_alloc.c):
 * fixed_total's row pointers from the host, the longest delay by nc_k_pscanf<f>. */
static void emit_proc_build(Out *o, const Simt *S, const CgFamCand *c0, const IrProj *j0, int f)
{
    out_line(o, "(void)ts; (void)col; (void)w;%s", j0->delay ? " (void)d;" : "");
    out_line(o, "snprintf(what, sizeof what, \"%%s: row pointers\", F->name);");
    out_line(o, "int64_t *hrp = nrt_alloc(&ctx, (size_t)(F->n_pre + 1) * sizeof(int64_t), what);");
    out_line(o, "int bad = !hrp || nrt_conn_total_rows(&ctx, &spec, hrp) != NRT_OK");
    out_line(o, "    || dalloc(&csr->row_ptr, (size_t)(F->n_pre + 1) * sizeof(int64_t), what)");
    out_line(o, "    || nrt_gpu_write(gpu, csr->row_ptr, 0, hrp, (size_t)(F->n_pre + 1) * sizeof(int64_t)) != NRT_OK;");
    out_line(o, "nrt_free(hrp);");
    out_line(o, "if (bad) return -1;");
    out_line(o, "*rp = csr->row_ptr;");
    if (!j0->delay)
        return;
    out_line(o, "nrt_kernel *const k = k_pscanf%d;", f);
    out_line(o, "int rc = bind(k) != 0;");
    out_line(o, "rc |= nrt_gpu_arg_mem(k, NC_NARGS + 0, *rp) != NRT_OK;");
    out_line(o, "rc |= nrt_gpu_arg_i64(k, NC_NARGS + 1, F->n_pre) != NRT_OK;");
    out_line(o, "rc |= nrt_gpu_arg_i64(k, NC_NARGS + 2, F->n_post) != NRT_OK;");
    out_line(o, "rc |= nrt_gpu_arg_i64(k, NC_NARGS + 3, F->pre_off - F->post_off) != NRT_OK;");
    out_line(o, "rc |= nrt_gpu_arg_i32(k, NC_NARGS + 4, (int32_t)((3u << 24) | (F->id & 0xFFFFFFu))) != NRT_OK; /* NRT_STREAM_CONNECT */");
    out_line(o, "rc |= nrt_gpu_arg_i32(k, NC_NARGS + 5, (int32_t)F->id) != NRT_OK;");
    emit_slot_args(o, S, c0, 6);
    out_line(o, "if (rc || nrt_gpu_launch(k, (size_t)((F->n_pre + 127) / 128), 128, 0) != NRT_OK) return -1;");
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
    out_line(o, "nrt_conn_spec spec;");
    out_line(o, "spec_fam%d(F, &spec);", f);
    out_line(o, "nrt_dcsr *csr = (nrt_dcsr *)((char *)nc_I + F->csr);");
    out_line(o, "nrt_dmem *rp = (nrt_dmem *)((char *)nc_I + F->rp), *col = (nrt_dmem *)((char *)nc_I + F->col);");
    out_line(o, "nrt_dmem *w = (nrt_dmem *)((char *)nc_I + F->w);");
    if (j0->delay)
        out_line(o, "nrt_dmem *d = (nrt_dmem *)((char *)nc_I + F->d);");
    out_line(o, "int64_t *D = (int64_t *)((char *)nc_I + F->D);");
    out_line(o, "int32_t maxd = 1;");
    if (j0->procedural) {   /* the rows' lengths and the longest delay; the synapses only to save them */
        out_open(o, "if (!ctx.save_conn)");
        emit_proc_build(o, S, c0, j0, f);
        out_close(o);
        out_open(o, "else");
    }
    out_line(o, "if (nrt_gpu_conn_build(&ctx, gpu, &spec, csr) != NRT_OK) return -1;");
    out_line(o, "ts = nrt_stage(&ctx, F->st_conn, ts);");
    if (S->m->mpi && !j0->procedural)   /* distributed: this rank's columns before the values */
        simt_mpi_fam_cut(o, S, j0);
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
    if (S->m->mpi && !j0->procedural)
        simt_mpi_fam_after_values(o, S, j0, f);
    if (j0->procedural)
        out_close(o);
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
        cg_fam_spec(o, S->m->projs[S->fam.first[f]], f);
        emit_build(o, S, f);
        emit_host_parts(o, S, S->m->projs[S->fam.first[f]], f);
    }
    if (S->fam.nfam)
        emit_units(o, S);
}

/* Contract: simt_priv.h. */
void simt_fam_kernels(Out *o, const Simt *S)
{
    for (int f = 0; f < S->fam.nfam; f++) {
        const CgFamCand *c0 = &S->fam.c[S->fam.first[f]];
        if (fam_proc(S, f) && S->m->projs[S->fam.first[f]]->delay)
            out_line(o, "if (!(k_pscanf%d = nrt_gpu_kernel(gpu, \"nc_k_pscanf%d\", NC_NARGS + %d))) return fail(argv[0]);", f,
                     f, 6 + c0->nx + c0->nr + c0->nk);
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

/* --- delivery in the grid (launch, graph, persistent): nc_deliver_fam<f>_grid --------- */

/* The segments of family f's pre base population: cut[0 .. ns] (0, every member's view's
 * ends, the population's size; ascending, unique), and for segment sg the members whose pre
 * view holds it, list[start[sg] .. start[sg + 1] - 1] (ascending); *width the longest list. */
typedef struct FamSeg {
    int64_t *cut;
    int *start, *list;
    int ns, width;
    int slots;                    /* the members of a segment that holds any, on average (rounded down) */
} FamSeg;

static FamSeg fam_segments(const Simt *S, int f)
{
    const IrModel *m = S->m;
    Arena *a = &S->cc->arena;
    const int n = S->fam.size[f];
    const IrPop *pre = m->projs[S->fam.first[f]]->pre.pop;
    FamSeg g = {0};
    g.cut = arena_alloc(a, sizeof *g.cut * (size_t)(2 * n + 2));
    g.cut[g.ns++] = 0;
    g.cut[g.ns++] = pre->size;
    for (int k = 0; k < m->nprojs; k++)
        if (S->fam.c[k].fam == f) {
            g.cut[g.ns++] = m->projs[k]->pre.offset;
            g.cut[g.ns++] = m->projs[k]->pre.offset + m->projs[k]->pre.size;
        }
    for (int i = 1; i < g.ns; i++)   /* insertion sort */
        for (int q = i; q > 0 && g.cut[q - 1] > g.cut[q]; q--) {
            int64_t t = g.cut[q];
            g.cut[q] = g.cut[q - 1];
            g.cut[q - 1] = t;
        }
    int u = 0;
    for (int i = 1; i < g.ns; i++)
        if (g.cut[i] != g.cut[u])
            g.cut[++u] = g.cut[i];
    g.ns = u;   /* segments [cut[sg], cut[sg + 1]) */
    g.start = arena_alloc(a, sizeof *g.start * (size_t)(g.ns + 1));
    int total = 0;
    for (int pass = 0; pass < 2; pass++) {
        int at = 0;
        for (int sg = 0; sg < g.ns; sg++) {
            if (pass)
                g.start[sg] = at;
            for (int k = 0; k < m->nprojs; k++) {
                const IrProj *j = m->projs[k];
                if (S->fam.c[k].fam != f || !(j->pre.offset <= g.cut[sg] && g.cut[sg + 1] <= j->pre.offset + j->pre.size))
                    continue;
                if (pass)
                    g.list[at] = S->fam.c[k].q;
                at++;
            }
            if (pass && at - g.start[sg] > g.width)
                g.width = at - g.start[sg];
        }
        if (!pass) {
            total = at;
            g.list = arena_alloc(a, sizeof *g.list * (size_t)(total ? total : 1));
        } else {
            g.start[g.ns] = at;
        }
    }
    if (!g.width)
        g.width = 1;
    int full = 0;
    for (int sg = 0; sg < g.ns; sg++)
        full += g.start[sg + 1] > g.start[sg];
    g.slots = full ? total / full : 1;
    return g;
}

/* Contract: simt_priv.h. */
int simt_fam_grid(const Simt *S, const IrProj *j)
{
    return S->fam_grid && cg_fam_of(&S->fam, j) >= 0;
}

static int cmp_name(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* Whether argument a is a buffer of its own of a family member (row pointers, columns,
 * weights, delays; not a ring, which the neuron phase reads), which no device code names where
 * only the grid schedules deliver: the construction kernels take it as an argument of their
 * own, the delivery reads it from nc_fdt<f>, the host from nc_inst. members: the members'
 * cnames, sorted (a cname spells '_' as "_0", so "<cname>_rp" has one reading). */
static int member_buffer(const char *const *members, int n, const Arg *a)
{
    static const char *const own[] = {"_rp", "_col", "_w", "_d"};
    const char *u = strrchr(a->name, '_');
    int mine = 0;
    for (size_t i = 0; u && i < sizeof own / sizeof own[0]; i++)
        mine |= strcmp(u, own[i]) == 0;
    if (!mine)
        return 0;
    char buf[512];
    const size_t len = (size_t)(u - a->name);
    if (len >= sizeof buf)
        return 0;
    memcpy(buf, a->name, len);
    buf[len] = 0;
    const char *key = buf;
    return bsearch(&key, members, (size_t)n, sizeof *members, cmp_name) != NULL;
}

/* Contract: simt_priv.h. */
void simt_fam_args(Simt *S)
{
    S->fam_grid = S->fam.nfam > 0;
    for (int f = 0; f < S->fam.nfam; f++)
        simt_add_arg(S, arena_printf(&S->cc->arena, "nc_fdt%d", f), "int64_t", ARG_MEM);
    /* The members' own buffers leave the kernels' arguments (the full multi-area model's
     * 33,378 of 33,395 made 7.6 of its 8.1 MB of CUDA and most of nvcc's 7 minutes), but
     * where the block or cluster schedule is compiled, whose deliveries are per member. */
    if (!S->fam_grid || S->has[SCHED_BLOCK] || S->has[SCHED_CLUSTER])
        return;
    const char **members = xmalloc(sizeof *members * (size_t)S->m->nprojs);
    int nm = 0;
    for (int k = 0; k < S->m->nprojs; k++)
        if (cg_fam_of(&S->fam, S->m->projs[k]) >= 0)
            members[nm++] = S->m->projs[k]->cname;
    qsort(members, (size_t)nm, sizeof *members, cmp_name);
    Arg *host = xmalloc(sizeof *host * (size_t)S->nargs);
    int n = 0, nh = 0;
    for (int i = 0; i < S->nargs; i++) {
        if (member_buffer(members, nm, &S->args[i]))
            host[nh++] = S->args[i];
        else
            S->args[n++] = S->args[i];
    }
    memcpy(S->args + n, host, sizeof *host * (size_t)nh);
    free(host);
    free(members);
    S->nargs = n;
    S->nall = n + nh;
}

/* Words of a member's row of nc_fdt<f>: its buffers (rp, col, w, d, ring), D, the ring's
 * width, its base there, pre offset and size; n_post, autapse offset, stream, log1p(-p) (the
 * row loops' numbers); the slots (doubles and reals by their bits, streams). */
enum { FAM_ROW = 14 };
static int fam_nfw(const Simt *S, int f)
{
    const CgFamCand *c0 = &S->fam.c[S->fam.first[f]];
    return FAM_ROW + c0->nx + c0->nr + c0->nk;
}

/* A stored member's row i: its synapses strided over the sub-group's lanes. */
static void emit_grid_stored(Out *o, const Simt *S, const IrProj *j0)
{
    out_line(o, "NC_G const int64_t *const rp = NC_FP(const int64_t, R[0]);");
    out_line(o, "NC_G const int32_t *const col = NC_FP(const int32_t, R[1]);");
    out_line(o, "NC_G const real *const w = NC_FP(const real, R[2]);");
    if (j0->delay)
        out_line(o, "NC_G const int32_t *const dl = NC_FP(const int32_t, R[3]);");
    out_line(o, "const int64_t s0 = nc_mod(step, D), re = rp[i + 1];");
    out_open(o, "for (int64_t s = rp[i] + nc_lane; s < re; s += nc_nl)");
    out_line(o, "nc_atomic_add_f%d(&ring[nc_wrap(s0 + %s, D) * width + base + col[s]], w[s]);", S->m->dbl ? 64 : 32,
             j0->delay ? "dl[s]" : "1");
    out_close(o);
}

/* A procedural fixed_total member's row regenerated as emit_prop_total (simt_deliver.c) does
 * one projection's, a synapse (rank) per lane of the sub-group: its post from word rank % 4
 * of the Philox block rank / 4, the numbers from the table's row. */
static void emit_grid_proc(Out *o, const Simt *S, const IrProj *j0, const CgFamCand *c0, int f)
{
    CgDialect d = simt_dev_dialect(S, j0->pre.pop);
    const CgRowSpell rs = {"nc_fnp", "nc_faut", "nc_fcs", "0.0", "nc_frp"};
    d.row = &rs;
    if (c0->nx + c0->nr + c0->nk) {
        out_line(o, "nc_fk%d_t nc_F;", f);
        int w = FAM_ROW;
        for (int i = 0; i < c0->nx; i++)
            out_line(o, "nc_F.x[%d] = NC_FD(R[%d]);", i, w++);
        for (int i = 0; i < c0->nr; i++)
            out_line(o, "nc_F.r[%d] = %s(R[%d]);", i, S->m->dbl ? "NC_FD" : "NC_FF", w++);
        for (int i = 0; i < c0->nk; i++)
            out_line(o, "nc_F.ks[%d] = (uint32_t)R[%d];", i, w++);
        out_line(o, "const nc_fk%d_t *const F = &nc_F;", f);
    }
    out_line(o, "NC_G const int64_t *const nc_frp = NC_FP(const int64_t, R[0]);");
    out_line(o, "const int64_t nc_fnp = R[10], nc_faut = R[11];");
    out_line(o, "const uint32_t nc_fcs = (uint32_t)R[12], key0 = seedkey;");
    out_line(o, "(void)nc_faut;");
    cg_total_head(o, j0, &d);
    if (S->m->mpi) {   /* distributed: this rank's targets only; R[8] - R[11] is the member's post offset */
        /* each lane first walks its synapses to its next one onto this rank (the posts only),
         * then the sub-group's lanes draw the values of one such synapse each: not every lane
         * waiting while one draws (1 / ranks of the synapses are this rank's) */
        simt_mpi_fam_overlap(o, S, j0->post.pop, "(R[8] - R[11])", "nc_fnp");
        out_line(o, "int64_t rank = nc_lane;");
        out_open(o, "for (;;)");
        out_line(o, "int64_t nc_jl = -1;");
        out_open(o, "for (; rank < nc_n; rank += nc_nl)");
        out_line(o, "const nrt_u32x4 nc_x = nrt_rng(key0, nc_fcs, (uint32_t)i, (uint32_t)(rank / 4), 0u, 0u);");
        cg_total_post(o, "nc_x.v[rank & 3]");
        simt_mpi_fam_guard(o, S, j0->post.pop, "(R[8] - R[11])");
        out_line(o, "nc_jl = j;");
        out_line(o, "break;");
        out_close(o);
        out_close(o);
        out_line(o, "if (nc_jl < 0) break;");
        out_line(o, "const int64_t j = nc_jl;");
    } else {
        out_open(o, "for (int64_t rank = nc_lane; rank < nc_n; rank += nc_nl)");
        out_line(o, "const nrt_u32x4 nc_x = nrt_rng(key0, nc_fcs, (uint32_t)i, (uint32_t)(rank / 4), 0u, 0u);");
        cg_total_post(o, "nc_x.v[rank & 3]");
    }
    out_line(o, "const real wv = %s;", c0->wt);
    if (j0->delay) {
        out_line(o, "const double delay = %s;", c0->dt);
        out_line(o, "const double steps = round(delay / dt);");
        out_line(o, "const int32_t dd = !(steps < 1e9) || steps < 1 ? 1 : (int32_t)steps;");
    } else {
        out_line(o, "const int32_t dd = 1;");
    }
    out_line(o, "nc_atomic_add_f%d(&ring[nc_mod(step + dd, D) * width + base + j], wv);", S->m->dbl ? 64 : 32);
    if (S->m->mpi) {
        out_line(o, "rank += nc_nl;");
        out_close(o);
    }
    out_close(o);
}

/* nc_deliver_fam<f>_grid: a sub-group of nc_fw work-items (by index arithmetic: LID / nc_fw,
 * LID % nc_fw; the last one of a work-group narrower where NC_LSIZE is not a multiple) per
 * (spike, slot): slot l < S of a spike takes the members l, l + S, l + 2 S, ... of its segment
 * (the members whose pre view holds it), S the segments' mean member count (FamSeg.slots), each
 * member's row over the sub-group's lanes, a synapse each. nc_fw is NC_FSUB (32), doubled up to
 * the work-group while the step's pairs times it fit the grid: the multi-area model's step has
 * tens of thousands of pairs, most rows short (between areas: median 2 synapses, mean 27),
 * which a work-group per (spike, member) left to a few of its work-items, and its first
 * family's segments hold 59 members on average but up to 246, so a slot per member up to the
 * most was 76 % empty; the procedural microcircuit's step has a few hundred pairs of rows of
 * hundreds, which keep a work-group each. The adds are the per-projection program's, in
 * another order (they are atomic). */
static void emit_grid_family(Out *o, const Simt *S, int f)
{
    const IrProj *j0 = S->m->projs[S->fam.first[f]];
    const IrPop *pre = j0->pre.pop;
    const FamSeg g = fam_segments(S, f);
    const int nfw = fam_nfw(S, f);
    const long long rows = (long long)S->fam.size[f] * nfw, cut = rows, start = cut + g.ns + 1,
                    list = start + g.ns + 1;
    const int slots = g.slots;
    out_line(o, "/* projection family %d: the spikes of %s, a sub-group of work-items per (spike, slot l < %d:", f,
             pre->name, slots);
    out_line(o, " * members l, l + %d, ... of the %d segments, at most %d members each), atomic adds; the members'",
             slots, g.ns, g.width);
    out_line(o, " * buffers, rings and numbers from nc_fdt%d (rows of %d words, then the segments' cuts, starts,", f,
             nfw);
    out_line(o, " * members) */");
    out_open(o, "NC_DEV void nc_deliver_fam%d_grid(NC_ARGS, const int64_t step, NC_FARENA)", f);
    out_line(o, "NC_G const int64_t *const T = nc_fdt%d;", f);
    out_line(o, "const int64_t npair = (int64_t)nc_cnt[%d + (int)(step & 1)] * %d;", 2 * pre->id, slots);
    out_line(o, "int nc_fw = NC_FSUB; /* lanes per pair: NC_FSUB, more while the grid has room for every pair */");
    out_line(o, "while (2 * nc_fw <= NC_LSIZE && npair * 2 * nc_fw <= NC_NGROUPS * NC_LSIZE) nc_fw *= 2;");
    out_line(o, "const int64_t nc_nsg = (NC_LSIZE + nc_fw - 1) / nc_fw; /* sub-groups of a work-group */");
    out_line(o, "const int nc_sg = NC_LID / nc_fw, nc_lane = NC_LID %% nc_fw;");
    out_line(o, "const int nc_nl = NC_LSIZE - nc_sg * nc_fw < nc_fw ? NC_LSIZE - nc_sg * nc_fw : nc_fw; /* its lanes */");
    out_open(o, "for (int64_t q = NC_GROUP * nc_nsg + nc_sg; q < npair; q += NC_NGROUPS * nc_nsg)");
    out_line(o, "const int64_t n = (int64_t)%s_spk[q / %d];", pre->cname, slots);
    out_line(o, "int64_t lo = 0, hi = %d; /* the segment: T[%lld + lo] <= n < T[%lld + lo + 1] */", g.ns - 1, cut, cut);
    out_open(o, "while (lo < hi)");
    out_line(o, "const int64_t mid = (lo + hi + 1) / 2;");
    out_line(o, "if (T[%lld + mid] <= n) lo = mid; else hi = mid - 1;", cut);
    out_close(o);
    out_open(o, "for (int64_t l = T[%lld + lo] + q %% %d, le = T[%lld + lo + 1]; l < le; l += %d)", start, slots, start,
             slots);
    out_line(o, "NC_G const int64_t *const R = T + T[%lld + l] * %d;", list, nfw);
    out_line(o, "const int64_t i = n - R[8];");
    out_line(o, "NC_G real *const ring = NC_FP(real, R[4]);");
    out_line(o, "const int64_t D = R[5], width = R[6], base = R[7];");
    if (j0->procedural)
        emit_grid_proc(o, S, j0, &S->fam.c[S->fam.first[f]], f);
    else
        emit_grid_stored(o, S, j0);
    out_close(o);
    out_close(o);
    out_close(o);
    out_blank(o);
}

/* Contract: simt_priv.h. */
void simt_fam_grid_device(Out *o, const Simt *S)
{
    if (!S->fam_grid)
        return;
    out_line(o, "/* a family member's buffer from its word in nc_fdt<f> (simt_family.c): CUDA, its device");
    out_line(o, " * address; OpenCL (table mode), its offset in the arena, which the kernel passes on */");
    out_line(o, "#if defined(__CUDACC__)");
    out_line(o, "#define NC_FP(T, w) ((T *)(uintptr_t)(w))");
    out_line(o, "#define NC_FD(w) __longlong_as_double((long long)(w))");
    out_line(o, "#define NC_FF(w) __int_as_float((int)(w))");
    out_line(o, "#define NC_FARENA const int nc_farena");
    out_line(o, "#define NC_FARENA_PASS 0");
    out_line(o, "#else");
    out_line(o, "#define NC_FP(T, w) ((NC_G T *)(nc_arena + (w)))");
    out_line(o, "#define NC_FD(w) as_double((long)(w))");
    out_line(o, "#define NC_FF(w) as_float((int)(w))");
    out_line(o, "#define NC_FARENA NC_G uchar *nc_arena");
    out_line(o, "#define NC_FARENA_PASS nc_arena");
    out_line(o, "#endif");
    out_line(o, "#define NC_FSUB 32 /* the fewest work-items per (spike, slot) pair of a family's delivery */");
    for (int f = 0; f < S->fam.nfam; f++)
        emit_grid_family(o, S, f);
}

/* Contract: simt_priv.h. */
void simt_fam_grid_calls(Out *o, const Simt *S)
{
    for (int f = 0; S->fam_grid && f < S->fam.nfam; f++)
        out_line(o, "nc_deliver_fam%d_grid(NC_PASS, step, NC_FARENA_PASS);", f);
}

/* Contract: simt_priv.h. */
void simt_fam_tables_host(Out *o, const Simt *S)
{
    if (!S->fam_grid)
        return;
    const IrModel *m = S->m;
    out_line(o, "/* nc_fdt<f>: each member's buffers (words: device addresses or arena offsets), ring and");
    out_line(o, " * views, then the segments of the pre population (simt_family.c), once every ring's size is known */");
    out_open(o, "static int fam_tables(void)");
    for (int f = 0; f < S->fam.nfam; f++) {
        const FamSeg g = fam_segments(S, f);
        const int n = S->fam.size[f];
        StrBuf b = {0};
        for (int i = 0; i <= g.ns; i++)
            sb_printf(&b, "%s%lld", i ? ", " : "", (long long)g.cut[i]);
        for (int i = 0; i <= g.ns; i++)
            sb_printf(&b, ", %d", g.start[i]);
        for (int i = 0; i < g.start[g.ns]; i++)
            sb_printf(&b, ", %d", g.list[i]);
        out_line(o, "/* family %d */", f);
        out_begin(o);
        out_line(o, "static const int64_t seg[%d] = {%s};", 2 * (g.ns + 1) + g.start[g.ns], b.s);
        sb_free(&b);
        const CgFamCand *c0 = &S->fam.c[S->fam.first[f]];
        const int nfw = fam_nfw(S, f);
        out_line(o, "const size_t nw = (size_t)%d * %d + sizeof seg / sizeof seg[0];", n, nfw);
        out_line(o, "int64_t *t = nrt_alloc(&ctx, nw * sizeof(int64_t), \"projection family %d: its table\");", f);
        out_line(o, "if (!t) return -1;");
        out_open(o, "for (int q = 0; q < %d; q++)", n);
        out_line(o, "const nc_fam%d_t *F = &nc_fam%d[q];", f, f);
        out_line(o, "int64_t *r = t + (size_t)q * %d;", nfw);
        out_line(o, "r[0] = nrt_gpu_mem_word(gpu, *(nrt_dmem *)((char *)nc_I + F->rp));");
        out_line(o, "r[1] = nrt_gpu_mem_word(gpu, *(nrt_dmem *)((char *)nc_I + F->col));");
        out_line(o, "r[2] = nrt_gpu_mem_word(gpu, *(nrt_dmem *)((char *)nc_I + F->w));");
        out_line(o, "r[3] = F->d ? nrt_gpu_mem_word(gpu, *(nrt_dmem *)((char *)nc_I + F->d)) : 0;");
        out_line(o, "r[4] = nrt_gpu_mem_word(gpu, *(nrt_dmem *)((char *)nc_I + F->ring));");
        out_line(o, "r[5] = *(int64_t *)((char *)nc_I + F->D);");
        out_line(o, "r[6] = F->width;");
        out_line(o, "r[7] = F->base;");
        out_line(o, "r[8] = F->pre_off;");
        out_line(o, "r[9] = F->n_pre;");
        out_line(o, "r[10] = F->n_post;");
        out_line(o, "r[11] = F->pre_off - F->post_off; /* j == i + this: an autapse */");
        out_line(o, "r[12] = (int64_t)((3u << 24) | (F->id & 0xFFFFFFu)); /* NRT_STREAM_CONNECT */");
        out_line(o, "r[13] = 0;");
        int w = FAM_ROW;
        for (int i = 0; i < c0->nx; i++)
            out_line(o, "memcpy(&r[%d], &F->x[%d], sizeof(double));", w++, i);
        for (int i = 0; i < c0->nr; i++)
            out_line(o, "r[%d] = 0, memcpy(&r[%d], &F->r[%d], sizeof(real));", w, w, i), w++;
        for (int i = 0; i < c0->nk; i++)
            out_line(o, "r[%d] = F->ks[%d];", w++, i);
        out_close(o);
        out_line(o, "memcpy(t + (size_t)%d * %d, seg, sizeof seg);", n, nfw);
        out_line(o, "int bad = dalloc(&nc_fdt%d, nw * sizeof(int64_t), \"projection family %d: its table\")", f, f);
        out_line(o, "    || nrt_gpu_write(gpu, nc_fdt%d, 0, t, nw * sizeof(int64_t)) != NRT_OK;", f);
        out_line(o, "nrt_free(t);");
        out_line(o, "if (bad) return -1;");
        out_close(o);
    }
    (void)m;
    out_line(o, "return 0;");
    out_close(o);
    out_blank(o);
}

/* Contract: gpu.h. */
void simt_fam_explain(Compiler *cc, const IrModel *m, const char *arch, const SimtTarget *t)
{
    BuildOpts bo;
    memset(&bo, 0, sizeof bo);
    bo.gpu_arch = arch;
    bo.gpu_mode = cc->opt.gpu_mode;
    Simt S;
    simt_setup(&S, cc, m, &bo, t);
    if (S.fam.nfam) {
        int n[2] = {0, 0}, all[2] = {0, 0};   /* members and static projections: stored, procedural */
        for (int k = 0; k < m->nprojs; k++) {
            const IrProj *j = m->projs[k];
            n[j->procedural] += S.fam.c[k].fam >= 0;
            all[j->procedural] += !j->plast;
        }
        printf("projection families (%s): %d of %d stored ", t->name, n[0], all[0]);
        if (all[1])
            printf("and %d of %d procedural ", n[1], all[1]);
        printf("projections in %d famil%s (", S.fam.nfam, S.fam.nfam == 1 ? "y" : "ies");
        for (int f = 0; f < S.fam.nfam; f++)
            printf("%s%d like %s", f ? ", " : "", S.fam.size[f], m->projs[S.fam.first[f]]->name);
        printf("), a table, one construction kernel and one delivery in the grid schedules each (block and "
               "cluster: per projection; stored projections only in a model of more than %d projections "
               "or with --proj-tables=on; --proj-tables=off: none)\n", SIMT_FAM_STORED);
    }
    free(S.args);
}
