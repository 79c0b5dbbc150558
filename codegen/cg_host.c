/* cg_host.c -- pieces of the host program every back end shares: the spike-file lookup
 * helper, the runtime calls that open recordings, and the start of main (the run context,
 * the command line, the populations; with --mpi, the ranks).
 */
#include <stdio.h>
#include <string.h>

#include "codegen.h"

static const SrcLoc NOLOC = {0, 0, 0, 0};

/* Contract: codegen.h. */
void cg_sf_helper(Out *o, const IrModel *m, const char *qual, const char *gq)
{
    int any = 0;
    for (int i = 0; i < m->npops; i++)
        if (m->pops[i]->sfile) {
            out_line(o, "#define %s_sfn ((int64_t)%lld) /* steps covered by the spike file's CSR */",
                     m->pops[i]->cname, (long long)m->total_steps);
            any = 1;
        }
    if (!any)
        return;
    out_line(o, "/* spike when from_file: is neuron n in the step's sorted list? */");
    out_open(o, "%s int nc_sf_has(%sconst int64_t *p, %sconst int32_t *x, int64_t ns, int64_t step, int64_t n)",
             qual, gq, gq);
    out_line(o, "if (step < 0 || step >= ns) return 0;");
    out_line(o, "int64_t lo = p[step], hi = p[step + 1];");
    out_line(o, "const int64_t end = hi;");
    out_open(o, "while (lo < hi)");
    out_line(o, "const int64_t mid = lo + (hi - lo) / 2;");
    out_line(o, "if ((int64_t)x[mid] < n) lo = mid + 1; else hi = mid;");
    out_close(o);
    out_line(o, "return lo < end && (int64_t)x[lo] == n;");
    out_close(o);
}

/* Contract: codegen.h. */
void cg_series_helper(Out *o, const IrModel *m, const char *qual, const char *gq)
{
    if (!m->nseries)
        return;
    for (int i = 0; i < m->nseries; i++) {
        const IrSeries *s = &m->series[i];
        out_line(o, "#define %s_k ((int64_t)%lld) /* series %s: steps per sample */", s->cname,
                 (long long)s->every, s->name);
        out_line(o, "#define %s_lin %d /* 1: linear between samples, 0: held */", s->cname, s->linear);
    }
    out_line(o, "/* series: sample step / k (held), or linear between it and the next; the last held */");
    out_open(o, "%s real nc_series(%sconst real *v, int64_t rows, int64_t cols, int64_t k, int lin, int64_t step, int64_t n)",
             qual, gq);
    out_line(o, "const int64_t c = cols == 1 ? 0 : n;");
    out_line(o, "const int64_t r = step / k;");
    out_line(o, "if (r >= rows - 1) return v[(rows - 1) * cols + c];");
    out_line(o, "if (!lin) return v[r * cols + c];");
    out_line(o, "const real a = v[r * cols + c], b = v[(r + 1) * cols + c];");
    out_line(o, "return a + (b - a) * ((real)(step - r * k) / (real)k);");
    out_close(o);
}

/* Contract: codegen.h. */
void cg_series_read(Out *o, const IrModel *m, int i)
{
    const IrSeries *s = &m->series[i];
    StrBuf f = {0};
    cg_cstring(s->path, &f);
    out_line(o, "st = nrt_series_file(&ctx, \"%s\", %.17g, (int)sizeof(real), &v, &%s_ns, &%s_nc);", f.s,
             s->scale, s->cname, s->cname);
    out_line(o, "if (st != NRT_OK) return st;");
    sb_free(&f);
}

/* Contract: codegen.h. */
void cg_series_check(Out *o, const IrModel *m, int i)
{
    const IrSeries *s = &m->series[i];
    StrBuf f = {0};
    cg_cstring(s->path, &f);
    for (int k = 0; k < m->npops; k++) {
        const IrPop *p = m->pops[k];
        for (int j = 0; j < p->nseries; j++)
            if (p->series[j] == i) {
                StrBuf pn = {0};
                cg_cstring(p->name, &pn);
                out_line(o, "if ((st = nrt_series_width(&ctx, \"%s\", %s_nc, \"%s\", %lld)) != NRT_OK) return st;",
                         f.s, s->cname, pn.s, (long long)p->size);
                sb_free(&pn);
            }
    }
    sb_free(&f);
}

/* 1 when a recording goes to an HDF5 file (its name ends in .h5). */
static int is_h5(const char *file)
{
    size_t n = strlen(file);
    return n > 3 && strcmp(file + n - 3, ".h5") == 0;
}

/* Contract: see codegen.h. */
const char *cg_spikes_open(const IrRecord *rec)
{
    return is_h5(rec->file) ? "nrt_rec_spikes_h5" : "nrt_rec_spikes";
}

/* Contract: see codegen.h. */
void cg_rec_view(Out *o, const IrRecord *rec, int r)
{
    if (rec->proj || (!rec->view_name && rec->view.offset == 0 && rec->view.size == rec->view.pop->size))
        return;
    StrBuf n = {0};
    if (rec->view_name)
        cg_cstring(rec->view_name, &n);
    out_line(o, "nrt_rec_view(rec%d, %s%s%s, %lld);", r, n.s ? "\"" : "NULL", n.s ? n.s : "", n.s ? "\"" : "",
             (long long)rec->view.offset);
    sb_free(&n);
}

/* Contract: see codegen.h. */
void cg_rate_open(Out *o, const IrRecord *rec, int r, const char *prefix)
{
    StrBuf f = {0}, t = {0};
    cg_cstring(rec->file, &f);
    cg_cstring(rec->target ? rec->target : rec->view.pop->name, &t);
    out_line(o, "%srec%d = nrt_rec_rate(&ctx, \"%s\", \"%s\", \"%s\", %lld, %lld, %lld);", prefix, r, f.s,
             rec->view.pop->name, t.s, (long long)rec->view.offset, (long long)rec->view.size,
             (long long)rec->bin);
    sb_free(&f);
    sb_free(&t);
}

/* Contract: see codegen.h. */
const char *cg_rec_var(const IrRecord *rec, int k)
{
    return rec->names ? rec->names[k] : rec->vars[k]->label;
}

/* Contract: see codegen.h. */
void cg_rec_window(Out *o, const IrRecord *rec, int r)
{
    if (rec->win_hi)
        out_line(o, "nrt_rec_window(rec%d, %lld, %lld);", r, (long long)rec->win_lo, (long long)rec->win_hi);
}

/* Contract: see codegen.h. */
int cg_state_records(const IrModel *m)
{
    for (int r = 0; m->t0_rows && r < m->nrecs; r++)
        if (!m->recs[r].spikes && !m->recs[r].bin)
            return 1;
    return 0;
}

/* Contract: see codegen.h. */
int cg_rec_row_par(const IrRecord *rec)
{
    const size_t n = strlen(rec->file);
    const int csv = n > 4 && strcmp(rec->file + n - 4, ".csv") == 0;
    return !rec->spikes && !rec->bin && (rec->proj || (int64_t)rec->nidx * rec->nvars >= (csv ? 2048 : 16384));
}

/* Contract: see codegen.h. */
int cg_needs_hdf5(const IrModel *m)
{
    for (int r = 0; r < m->nrecs; r++)
        if (is_h5(m->recs[r].file))
            return 1;
    return 0;
}

/* The start of a generated program's main, shared by every back end: the run context (model,
 * back end, seed, dt, steps), the command line, the seed key and the populations. */
void cg_main_open(Out *o, const IrModel *m, const char *backend, const char *before_init)
{
    StrBuf b = {0};
    cg_cstring(m->name, &b);
    out_open(o, "int main(int argc, char **argv)");
    out_line(o, "ctx.model = \"%s\";", b.s);
    out_line(o, "ctx.backend = \"%s\";", backend);
    out_line(o, "ctx.default_seed = %lluULL;", (unsigned long long)m->seed);
    out_line(o, "ctx.dt = dt;");
    out_line(o, "ctx.total_steps = %lld;", (long long)m->total_steps);
    out_line(o, "ctx.nphases = %d;", m->nphases);
    if (m->nrtparams) {
        out_open(o, "static nrt_param nc_params[%d] =", m->nrtparams);
        for (int i = 0; i < m->nrtparams; i++) {
            const IrVar *v = m->rtparams[i].var;
            StrBuf n = {0}, u = {0}, du = {0};
            cg_cstring(m->rtparams[i].name, &n);
            cg_cstring(v->unit ? v->unit : "1", &u);
            cg_cstring(v->decl_unit ? v->decl_unit : "1", &du);
            const IrRtParam *rp = &m->rtparams[i];
            char scope[300] = "";     /* the target for --help: per-neuron and projection rows */
            if (rp->view.pop && (rp->view.offset != 0 || rp->view.size != rp->view.pop->size))
                snprintf(scope, sizeof scope, ", %lld, %lld, \"per neuron of %s[%lld:%lld]\", %d",
                         (long long)rp->view.size, (long long)rp->view.offset, rp->view.pop->name,
                         (long long)rp->view.offset, (long long)(rp->view.offset + rp->view.size),
                         m->dbl ? 8 : 4);
            else if (rp->view.pop)
                snprintf(scope, sizeof scope, ", %lld, 0, \"per neuron of %s\", %d", (long long)rp->view.size,
                         rp->view.pop->name, m->dbl ? 8 : 4);
            else if (rp->proj)
                snprintf(scope, sizeof scope, ", 0, 0, \"projection %s\"", rp->proj->name);
            out_line(o, "{\"%s\", \"%s\", {%d, %d, %d, %d, %d, %d}, %d, %.17g, \"%s\", %.17g%s},", n.s, u.s,
                     v->dim.e[0], v->dim.e[1], v->dim.e[2], v->dim.e[3], v->dim.e[4], v->dim.e[5],
                     v->type == IRT_INT, v->init, du.s, v->decl_unit ? v->decl_scale : 1.0, scope);
            sb_free(&n);
            sb_free(&u);
            sb_free(&du);
        }
        out_close_with(o, ";");
        out_line(o, "ctx.params = nc_params;");
        out_line(o, "ctx.nparams = %d;", m->nrtparams);
    }
    out_line(o, "ctx.model_hash = nc_model_hash;");
    if (before_init)
        out_line(o, "%s", before_init);
    out_line(o, "nrt_status st = nrt_init(&ctx, argc, argv);");
    out_line(o, "if (st == NRT_EHELP) return ctx.exit_status;");
    out_open(o, "if (st != NRT_OK)");
    out_line(o, "fprintf(stderr, \"%%s: error: %%s\\n\", argv[0], ctx.errmsg);");
    out_line(o, "return st == NRT_EINVAL ? 2 : 1;");
    out_close(o);
    out_line(o, "seedkey = nrt_seed_key(ctx.seed);");
    int checked = 0;
    for (int i = 0; i < m->npops; i++)
        checked |= cg_finite_any(m->pops[i]);
    if (!checked)   /* so that --bench and the manifest say so */
        out_line(o, "ctx.check_finite = 0; /* no state to check (or neuroc --no-check-finite) */");
    for (int i = 0; i < m->npops; i++) {
        StrBuf pn = {0};
        cg_cstring(m->pops[i]->name, &pn);
        out_line(o, "nrt_pop_register(&ctx, \"%s\", %lld);", pn.s, (long long)m->pops[i]->size);
        sb_free(&pn);
    }
    for (int v = 0; v < m->nviews; v++) {   /* declared views (the summary, manifest.json) */
        StrBuf vn = {0};
        cg_cstring(m->views[v].name, &vn);
        out_line(o, "nrt_view_register(&ctx, \"%s\", %d, %lld, %lld);", vn.s, m->views[v].view.pop->id,
                 (long long)m->views[v].view.offset, (long long)m->views[v].view.size);
        sb_free(&vn);
    }
    sb_free(&b);
}

/* Contract: codegen.h. */
void cg_mpi_start(Out *o, int ckpt)
{
    out_line(o, "mpi = nrt_mpi_init(&ctx, &argc, &argv);");
    out_open(o, "if (!mpi)");
    out_line(o, "fprintf(stderr, \"%%s: error: %%s\\n\", argv[0], ctx.errmsg);");
    out_line(o, "return 1;");
    out_close(o);
    if (ckpt) {   /* GPU ranks: a checkpoint of R ranks, a part per rank (nrt_mpi_ckpt_parts) */
        out_begin(o);
        out_line(o, "const int ck = nrt_mpi_ckpt_parts(&ctx, mpi);");
        out_line(o, "if (ck == -1) fprintf(stderr, \"%%s: error: %%s\\n\", argv[0], ctx.errmsg);");
        out_line(o, "if (ck) return 1;");
        out_close(o);
        return;   /* the dry run's quiet ranks leave after the device choice (collective) */
    }
    out_open(o, "if ((nrt_mpi_size(mpi) > 1 && ctx.save_conn) || ctx.ckpt_dir || ctx.resume_dir)");
    out_line(o, "snprintf(ctx.errmsg, sizeof ctx.errmsg, \"%%s\", ctx.save_conn && nrt_mpi_size(mpi) > 1 ? \"--save-connectivity needs one rank (mpirun -np 1)\" : \"--checkpoint and --resume need a simulator built without --mpi\");");
    out_line(o, "if (nrt_mpi_rank(mpi) == 0) fprintf(stderr, \"%%s: error: %%s\\n\", argv[0], ctx.errmsg);");
    out_line(o, "return 2; /* on every rank: MPI_Finalize runs at exit */");
    out_close(o);
    out_line(o, "if (ctx.dry_run && nrt_mpi_rank(mpi) != 0) return 0;");
}

/* Contract: codegen.h. */
int cg_assign_mpi_check(Compiler *cc, const IrModel *m)
{
    for (int p = 0; p < m->nphases; p++)
        if (m->phases[p].kind == PH_ASSIGN) {
            error_at(cc, NOLOC, "--mpi: '%s' sets a state or a per-neuron or per-synapse value by an "
                     "expression, which distributed runs do not support; set parameters to constants, or "
                     "build it for one process", m->phases[p].what);
            return -1;
        }
    return 0;
}

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

/* Contract: see codegen.h. */
int cg_mpi_reads_pre(const IrModel *m, const IrPop *p)
{
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

/* Contract: see codegen.h. */
int cg_rt_values_of(const IrModel *m, const IrPop *p, int i, StrBuf *ks)
{
    const IrVar *v = m->rtparams[i].var;
    int n = 0;
    if (m->rtparams[i].view.pop != p)
        return 0;
    for (int j = 0; j < i; j++)
        if (m->rtparams[j].var == v)
            return 0;
    for (int j = i; j < m->nrtparams; j++)
        if (m->rtparams[j].var == v)
            sb_printf(ks, "%s%d", n++ ? ", " : "", j);
    return n;
}

/* Contract: see codegen.h. */
void cg_rec_columns(const IrRecord *rec, StrBuf *vars, StrBuf *units)
{
    for (int k = 0; k < rec->nvars; k++) {
        sb_printf(vars, "%s\"%s\"", k ? ", " : "", cg_rec_var(rec, k));
        sb_printf(units, "%s\"%s\"", k ? ", " : "", rec->vars[k]->unit ? rec->vars[k]->unit : "1");
    }
}
