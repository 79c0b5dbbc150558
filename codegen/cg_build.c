/* cg_build.c -- what back ends share around the text: running the toolchain, and the
 * --dump=ir form of the lowered model (printed through the same cg_print layer).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "codegen.h"
#include "nrt_math.h"

int cg_spawn(Compiler *cc, char *const argv[], int verbose)
{
    (void)cc;
    if (verbose) {
        for (int i = 0; argv[i]; i++)
            fprintf(stderr, "%s%s", i ? " " : "", argv[i]);
        fputc('\n', stderr);
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        execvp(argv[0], argv);
        fprintf(stderr, "neuroc: error: cannot run '%s'\n", argv[0]);
        _exit(127);
    }
    return (int)pid;
}

/* Contract: codegen.h. */
int cg_wait(int pid)
{
    int st;
    if (pid < 0 || waitpid((pid_t)pid, &st, 0) < 0)
        return -1;
    if (WIFEXITED(st))
        return WEXITSTATUS(st) == 127 ? -1 : WEXITSTATUS(st);
    return -1;
}

/* Contract: codegen.h. */
int cg_run(Compiler *cc, char *const argv[], int verbose)
{
    return cg_wait(cg_spawn(cc, argv, verbose));
}

/* Contract: codegen.h. */
char **cg_cc_argv(Compiler *cc, const BuildOpts *bo, const char *const *args)
{
    /* -O3 and no FP traps: gcc vectorises the C back end's neuron loops in select form
     * (backend_c.c; both sides of a select are computed); neither changes a value (no
     * reassociation, no contraction under -std=c11). The alias checks of a loop over a
     * dozen arrays exceed gcc's default limit of 10. */
    const char *const head[] = {bo->cc, "-std=c11", "-O3", "-fno-trapping-math", "--param",
                                "vect-max-version-for-alias-checks=200", "-w"};
    enum { NHEAD = sizeof head / sizeof head[0] };
    const char *f = bo->cflags ? bo->cflags : "";
    size_t n = 0, k = 0;
    while (args[n])
        n++;
    char **argv = arena_alloc(&cc->arena, sizeof *argv * (NHEAD + strlen(f) / 2 + 1 + n + 1));
    for (; k < NHEAD; k++)
        argv[k] = (char *)head[k];
    while (*f) {
        size_t len = strcspn(f, " \t\n");
        if (len)
            argv[k++] = arena_strndup(&cc->arena, f, len);
        f += len;
        f += strspn(f, " \t\n");
    }
    for (size_t i = 0; i < n; i++)
        argv[k++] = (char *)args[i];
    argv[k] = NULL;
    return argv;
}

static const char *rule_name(IrRule r)
{
    switch (r) {
    case IR_ALL_TO_ALL: return "NRT_ALL_TO_ALL";
    case IR_ONE_TO_ONE: return "NRT_ONE_TO_ONE";
    case IR_FIXED_PROB: return "NRT_FIXED_PROB";
    case IR_FIXED_INDEGREE: return "NRT_FIXED_INDEGREE";
    case IR_FIXED_OUTDEGREE: return "NRT_FIXED_OUTDEGREE";
    case IR_FIXED_TOTAL: return "NRT_FIXED_TOTAL";
    case IR_PAIRS: return "NRT_PAIRS";
    case IR_FROM_FILE: break;                 /* nrt_conn_file, not a spec */
    }
    NC_UNREACHABLE();
}

/* The nrt_conn_spec of projection j as C statements declaring `spec` (host programs of
 * every back end: rt_conn.c and rt_gpu_conn.c take the same spec). */
void cg_conn_spec(Out *o, const IrProj *j)
{
    out_line(o, "nrt_conn_spec spec = {0};");
    out_line(o, "spec.rule = %s;", rule_name(j->rule));
    out_line(o, "spec.n_pre = %lld;", (long long)j->pre.size);
    out_line(o, "spec.n_post = %lld;", (long long)j->post.size);
    out_line(o, "spec.p = %.17g;", j->p);
    out_line(o, "spec.k = %lld;", (long long)j->k);
    out_line(o, "spec.autapses = %d;", j->autapses);
    out_line(o, "spec.multapses = %d;", j->multapses);
    out_line(o, "spec.same_base = %d;", j->pre.pop == j->post.pop);
    out_line(o, "spec.pre_offset = %lld;", (long long)j->pre.offset);
    out_line(o, "spec.post_offset = %lld;", (long long)j->post.offset);
    out_line(o, "spec.seed = ctx.seed;");
    out_line(o, "spec.proj_id = %du;", j->id);
    if (j->rule == IR_PAIRS) {
        char kb[16];
        out_line(o, "spec.row = nc_row_%s;", j->cname);
        out_line(o, "spec.row_kernels = \"%s\";", cg_kname(j, kb));
    }
}

#define CG_KNAME_MAX 128 /* nc_k_catchup_ + 128 bytes: far below a file name's 255 */

const char *cg_kname(const IrProj *j, char buf[16])
{
    if (strlen(j->cname) <= CG_KNAME_MAX)
        return j->cname;
    snprintf(buf, 16, "%d", j->id); /* C names start with prj_: no clash */
    return buf;
}

/* 1 when e reads column `col` of an edge file (IE_EDGE). */
int cg_uses_edge(const IrExpr *e, int col)
{
    if (!e)
        return 0;
    if (e->op == IE_EDGE && e->sub == col)
        return 1;
    for (int i = 0; i < e->nargs; i++)
        if (cg_uses_edge(e->args[i], col))
            return 1;
    return cg_uses_edge(e->a, col) || cg_uses_edge(e->b, col) || cg_uses_edge(e->c, col);
}

/* The row function of an IR_PAIRS projection (rt_conn.c specifies it):
 *   <qual> int64_t nc_row_<proj>(int64_t i, uint32_t key0, <outq> int32_t *out)
 * writes row i's posts (ascending) to out unless out is null, and returns their number.
 * Expressions are printed through d (pre "i", post "j"), so the C and SIMT programs compute
 * the same conditions and probabilities. */
static void row_out(Out *o, const void *arg)
{
    (void)arg;
    out_line(o, "if (out) out[rank] = (int32_t)j;");
}

void cg_conn_row(Out *o, const CgDialect *d, const IrProj *j, const char *qual, const char *outq)
{
    out_line(o, "/* projection %s: the posts of row i, ascending (rt_conn.c, PAIRS) */", j->name);
    out_open(o, "%s int64_t nc_row_%s(int64_t i, uint32_t key0, %s int32_t *out)", qual, j->cname, outq);
    out_line(o, "int64_t rank = 0;");
    out_line(o, "(void)key0;");
    out_begin(o);
    cg_row_loops(o, d, j, row_out, NULL);
    out_close(o);
    out_line(o, "return rank;");
    out_close(o);
    out_blank(o);
}

static void dump_var(const CgDialect *d, const IrVar *v, StrBuf *out)
{
    sb_puts(out, v->cname);
    if (v->per_neuron)
        sb_printf(out, "[%s]", d->index);
}

static void dump_prop(const CgDialect *d, const IrExpr *e, StrBuf *out)
{
    static const char *const w[] = {"Phi", "Psi", "Phi_refr", "Psi_refr"};
    sb_printf(out, "%s.%s[%d][%d]", e->prop->cname, w[e->sub], e->row, e->col);
    (void)d;
}

static void dump_recv(const CgDialect *d, const IrProj *p, const char *local, Out *o)
{
    out_line(o, "%s = arrivals(%s)", local, p->name);
    (void)d;
}

static void dump_spike(const CgDialect *d, const IrPop *pop, Out *o)
{
    out_line(o, "spike");
    (void)d;
    (void)pop;
}

static CgDialect dump_dialect(const IrPop *p)
{
    CgDialect d = cg_dialect(1, p);
    d.var = dump_var;
    d.prop = dump_prop;
    d.recv = dump_recv;
    d.spike = dump_spike;
    return d;
}

static void dump_deliver(const CgDialect *d, const IrProj *p, const char *e, Out *o)
{
    out_line(o, "deliver(%s) -> %s", e, p->name);
    (void)d;
}

/* The blocks of a plastic projection, in the order of a step. */
static void dump_plast(Out *o, const IrProj *j)
{
    const IrPlast *pl = j->plast;
    static const char *const kinds[] = {"synapse", "pre", "post"};
    CgDialect d = dump_dialect(pl->scope);
    d.syn = "s";
    d.pre_n = "pre(i)";
    d.post_n = "post(j)";
    d.deliver = dump_deliver;
    CgDialect dh = d;
    dh.pre_hist = "i@synapse";
    out_open(o, "synapse %s of %s", pl->scope->model, j->name);
    IrVar *const *vs[] = {pl->syn, pl->pre, pl->post};
    const int ns[] = {pl->nsyn, pl->npre, pl->npost};
    for (int k = 0; k < 3; k++)
        for (int v = 0; v < ns[k]; v++)
            out_line(o, "%s state %s: %s", kinds[k], vs[k][v]->cname, vs[k][v]->unit ? vs[k][v]->unit : "1");
    for (int k = 0; k < pl->scope->nprops; k++) {
        IrProp *pr = pl->scope->props[k];
        StrBuf b = {0};
        for (int e = 0; e < pr->n * pr->n; e++) {
            if (e)
                sb_puts(&b, ", ");
            cg_expr(&d, pr->A[e], &b);
        }
        out_line(o, "propagator %s (%dx%d): A = [%s]", pr->cname, pr->n, pr->n, b.s);
        sb_free(&b);
    }
    const struct { const char *name; const IrBlock *b; const CgDialect *d; } blocks[] = {
        {"init synapse", &pl->syn_init, &d},  {"init pre", &pl->pre_init, &d},
        {"init post", &pl->post_init, &d},    {"on pre", &pl->on_pre, &dh},
        {"on step", &pl->on_step, &dh},       {"pre dynamics", &pl->pre_step, &d},
        {"post dynamics", &pl->post_step, &d}, {"on post", &pl->on_post, &dh},
        {"on pre & post", &pl->on_prepost, &dh}, {"pre on spike", &pl->pre_spike, &d},
        {"post on spike", &pl->post_spike, &d}, {"synapse dynamics", &pl->syn_step, &dh},
        {"synapse dynamics, event-driven catch-up", &pl->syn_catch, &dh},
    };
    for (size_t k = 0; k < sizeof blocks / sizeof blocks[0]; k++) {
        if (!blocks[k].b->n)
            continue;
        out_open(o, "%s", blocks[k].name);
        cg_block(blocks[k].d, blocks[k].b, o);
        out_close(o);
    }
    out_close(o);
}

void cg_dump_ir(IrModel *m, StrBuf *out)
{
    Out o = {0};
    out_line(&o, "model %s: dt %.17g ms, seed %llu, %s", m->name, m->dt, (unsigned long long)m->seed,
             m->dbl ? "double" : "float");
    for (int i = 0; i < m->npops; i++) {
        IrPop *p = m->pops[i];
        CgDialect d = dump_dialect(p);
        out_open(&o, "population %s = %s[%lld]", p->name, p->model, (long long)p->size);
        for (int k = 0; k < p->nvars; k++) {
            IrVar *v = p->vars[k];
            static const char *const kinds[] = {"state", "param", "receptor", "prev", "refractory"};
            char rg[96] = "", lo[32] = "(-inf", hi[32] = "inf)";
            if (v->has_lo)    /* the declared range, `range(lo, hi)` */
                snprintf(lo, sizeof lo, "[%.17g", v->lo);
            if (v->has_hi)
                snprintf(hi, sizeof hi, "%.17g]", v->hi);
            if (v->has_lo || v->has_hi)
                snprintf(rg, sizeof rg, " range %s, %s", lo, hi);
            out_line(&o, "%s %s: %s%s%s", kinds[v->kind], v->cname, v->unit ? v->unit : "1",
                     v->per_neuron ? " per-neuron" : "", rg);
        }
        for (int k = 0; k < p->nprops; k++) {
            IrProp *pr = p->props[k];
            StrBuf b = {0};
            for (int e = 0; e < pr->n * pr->n; e++) {
                if (e)
                    sb_puts(&b, ", ");
                cg_expr(&d, pr->A[e], &b);
            }
            out_line(&o, "propagator %s (%dx%d%s): A = [%s]", pr->cname, pr->n, pr->n,
                     pr->A_refr ? ", refractory variant" : "", b.s);
            sb_free(&b);
        }
        if (p->sfile) {
            const char *slash = strrchr(p->sfile, '/');
            out_line(&o, "spike file %s (CSR by step: %s_sfp, %s_sfi)", slash ? slash + 1 : p->sfile, p->cname,
                     p->cname);
        }
        out_open(&o, "init");
        cg_block(&d, &p->init, &o);
        out_close(&o);
        out_open(&o, "step");
        cg_block(&d, &p->body, &o);
        out_close(&o);
        if (p->topk) {
            StrBuf b = {0};
            cg_expr(&d, p->topk->k, &b);
            out_line(&o, "topk: among %s != 0 and %s not NaN, the %s largest (key %s, tie stream %#x)",
                     p->topk->win->cname, p->topk->key->cname, b.s, p->topk->key->cname, p->topk->stream);
            sb_free(&b);
            out_open(&o, "after topk");
            cg_block(&d, &p->topk->after, &o);
            out_close(&o);
        }
        out_close(&o);
    }
    for (int k = 0; k < m->nprojs; k++) {
        IrProj *j = m->projs[k];
        CgDialect d = dump_dialect(j->pre.pop);
        d.index = "i";
        d.rng_elem = "i";
        d.rng_sub = "rank";
        d.rng_step = "0";
        StrBuf w = {0}, dl = {0};
        cg_expr(&d, j->w, &w);
        if (j->delay)
            cg_expr(&d, j->delay, &dl);
        out_line(&o, "projection %s: %s[%lld:%lld] -> %s[%lld:%lld] rule %d p %g k %lld autapses %d "
                     "multapses %d w = %s delay = %s%s%s%s",
                 j->name, j->pre.pop->name, (long long)j->pre.offset,
                 (long long)(j->pre.offset + j->pre.size), j->post.pop->name,
                 (long long)j->post.offset, (long long)(j->post.offset + j->post.size), j->rule, j->p,
                 (long long)j->k, j->autapses, j->multapses, w.s, j->delay ? dl.s : "1 step",
                 j->procedural ? " storage procedural" : "", j->ring != j ? " ring " : "",
                 j->ring != j ? j->ring->name : "");
        sb_free(&w);
        sb_free(&dl);
        if (j->plast)
            dump_plast(&o, j);
    }
    for (int r = 0; r < m->nrecs; r++)
        out_line(&o, "record %s of %s[%lld:%lld] every %lld to \"%s\"", m->recs[r].spikes ? "spikes" : "state",
                 m->recs[r].view.pop->name, (long long)m->recs[r].view.offset,
                 (long long)(m->recs[r].view.offset + m->recs[r].view.size), (long long)m->recs[r].every,
                 m->recs[r].file);
    for (int p = 0; p < m->nphases; p++) {
        if (m->phases[p].kind == PH_RUN)
            out_line(&o, "run %lld steps", (long long)m->phases[p].steps);
        else
            out_line(&o, "set %s = %.17g", m->phases[p].var->cname, m->phases[p].value);
    }
    sb_puts(out, o.buf.s ? o.buf.s : "");
    out_free(&o);
}

/* Contract: codegen.h. */
void cg_rand_helpers(Out *o, const char *qual, const char *cold_qual)
{
    const char *args = "uint32_t key, uint32_t stream, uint32_t elem, uint32_t sub, uint32_t step, uint32_t site";
    out_line(o, "/* draws from the counter-based generator (nrt_philox.h): the same on every back end */");
    out_open(o, "%s real nc_uniform_k(%s)", qual, args);
    out_line(o, "return (real)nrt_u01(nrt_rng(key, stream, elem, sub, step, site).v[0]);");
    out_close(o);
    out_open(o, "%s double nc_gauss(nrt_u32x4 r)", qual);
    out_line(o, "return sqrt(-2.0 * nrt_log(nrt_u01(r.v[0]))) * nrt_cos(6.283185307179586 * nrt_u01(r.v[1]));");
    out_close(o);
    out_open(o, "%s real nc_normal_k(%s)", qual, args);
    out_line(o, "return (real)nc_gauss(nrt_rng(key, stream, elem, sub, step, site));");
    out_close(o);
    /* docs/language.md §11: a sum of m independent Poisson(lam / m) counts, each found by
     * inversion of a 53-bit uniform (two per Philox block; block j of a draw moves the site
     * by j << 20), in double with + - * / and nrt_exp only, so every back end gets the
     * same count; above 2^22 the rounded normal approximation */
    out_open(o, "%s real nc_poisson_m(%s, int m, double l, double e0, int kmax)", qual, args);
    out_line(o, "double n = 0.0;");
    out_line(o, "nrt_u32x4 r = nrt_rng(key, stream, elem, sub, step, site);");
    out_open(o, "for (int c = 0; c < m; c++)");
    out_line(o, "if (c > 0 && (c & 1) == 0) r = nrt_rng(key, stream, elem, sub, step, site + ((uint32_t)(c >> 1) << 20));");
    out_line(o, "const double u = (c & 1) ? nrt_u01_53(r.v[2], r.v[3]) : nrt_u01_53(r.v[0], r.v[1]);");
    out_line(o, "double p = e0, F = e0;");
    out_line(o, "int k = 0;");
    out_open(o, "while (u > F && k < kmax)");
    out_line(o, "k++;");
    out_line(o, "p = p * l / (double)k;");
    out_line(o, "F += p;");
    out_close(o);
    out_line(o, "n += (double)k;");
    out_close(o);
    out_line(o, "return (real)n;");
    out_close(o);
    /* the split, its mean and e^-mean: cg_poisson_split's, for a mean known when compiling */
    out_open(o, "%s real nc_poisson_k(%s, double lam)", qual, args);
    out_line(o, "if (!(lam > 0.0)) return (real)0;");
    out_open(o, "if (lam > 4194304.0)");
    out_line(o, "double n = floor(lam + sqrt(lam) * nc_gauss(nrt_rng(key, stream, elem, sub, step, site)) + 0.5);");
    out_line(o, "return (real)(n > 0.0 ? n : 0.0);");
    out_close(o);
    out_line(o, "const int m = lam <= 65536.0 ? (int)ceil(lam / 8.0) : 8192;");
    out_line(o, "const double l = lam / (double)m;");
    out_line(o, "return nc_poisson_m(key, stream, elem, sub, step, site, m, l, nrt_exp(-l), (int)(l + 12.0 * sqrt(l)) + 30);");
    out_close(o);
    /* fixed arity: OpenCL C has no variadic macros (NVIDIA's compiler rejects them) */
    out_line(o, "#define nc_uniform(a, b, c, d, e) nc_uniform_k(seedkey, a, b, c, d, e)");
    out_line(o, "#define nc_normal(a, b, c, d, e) nc_normal_k(seedkey, a, b, c, d, e)");
    out_line(o, "#define nc_poisson(a, b, c, d, e, f) nc_poisson_k(seedkey, a, b, c, d, e, f)");
    out_line(o, "#define nc_poisson_c(a, b, c, d, e, m, l, e0, kmax) nc_poisson_m(seedkey, a, b, c, d, e, m, l, e0, kmax)");
    /* construction code (CgDialect.cold): the same draws through one out-of-line copy */
    if (!cold_qual)
        return;
    out_open(o, "%s real nc_uniform_ck(%s)", cold_qual, args);
    out_line(o, "return nc_uniform_k(key, stream, elem, sub, step, site);");
    out_close(o);
    out_open(o, "%s real nc_normal_ck(%s)", cold_qual, args);
    out_line(o, "return nc_normal_k(key, stream, elem, sub, step, site);");
    out_close(o);
    out_line(o, "#define nc_uniform_cold(a, b, c, d, e) nc_uniform_ck(seedkey, a, b, c, d, e)");
    out_line(o, "#define nc_normal_cold(a, b, c, d, e) nc_normal_ck(seedkey, a, b, c, d, e)");
}

/* Contract: codegen.h. */
int cg_poisson_split(double lam, int *m, double *l, double *e0, int *kmax)
{
    if (!(lam > 0.0) || lam > 4194304.0)
        return 0;
    *m = lam <= 65536.0 ? (int)ceil(lam / 8.0) : 8192;
    *l = lam / (double)*m;
    *e0 = nrt_exp(-*l);
    *kmax = (int)(*l + 12.0 * sqrt(*l)) + 30;
    return 1;
}

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

/* The start of a generated program's main, shared by every back end: the run context (model,
 * back end, seed, dt, steps), the command line, the seed key and the populations. */
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
int cg_needs_hdf5(const IrModel *m)
{
    for (int r = 0; r < m->nrecs; r++)
        if (is_h5(m->recs[r].file))
            return 1;
    return 0;
}

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
            out_line(o, "{\"%s\", \"%s\", {%d, %d, %d, %d, %d, %d}, %d, %.17g, \"%s\", %.17g},", n.s, u.s,
                     v->dim.e[0], v->dim.e[1], v->dim.e[2], v->dim.e[3], v->dim.e[4], v->dim.e[5],
                     v->type == IRT_INT, v->init, du.s, v->decl_unit ? v->decl_scale : 1.0);
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
    sb_free(&b);
}

/* Contract: codegen.h. */
void cg_mpi_start(Out *o)
{
    out_line(o, "mpi = nrt_mpi_init(&ctx, &argc, &argv);");
    out_open(o, "if (!mpi)");
    out_line(o, "fprintf(stderr, \"%%s: error: %%s\\n\", argv[0], ctx.errmsg);");
    out_line(o, "return 1;");
    out_close(o);
    out_open(o, "if ((nrt_mpi_size(mpi) > 1 && ctx.save_conn) || ctx.ckpt_dir || ctx.resume_dir)");
    out_line(o, "snprintf(ctx.errmsg, sizeof ctx.errmsg, \"%%s\", ctx.save_conn && nrt_mpi_size(mpi) > 1 ? \"--save-connectivity needs one rank (mpirun -np 1)\" : \"--checkpoint and --resume need a simulator built without --mpi\");");
    out_line(o, "if (nrt_mpi_rank(mpi) == 0) fprintf(stderr, \"%%s: error: %%s\\n\", argv[0], ctx.errmsg);");
    out_line(o, "return 2; /* on every rank: MPI_Finalize runs at exit */");
    out_close(o);
    out_line(o, "if (ctx.dry_run && nrt_mpi_rank(mpi) != 0) return 0;");
}
