/* cg_family.c -- the plan of projection families, the same for every back end
 * (docs/architecture.md, "Projection families"): which static projections are the same but
 * for their constants, the text of their w and delay with every constant a slot of a table,
 * the slots' values, and the runs of consecutive members (units).
 *
 * A projection's family key is its rule and options, its pre and post base populations,
 * whether it has delays, whether it is procedural (and the shape of its row loops), and the
 * text of its w and delay printed in the back end's dialects (CgFamHooks.dialects) with every
 * real literal and every draw's stream turned into a slot (CgDialect.lit): F->r[k] (real),
 * F->x[k] (double) or F->ks[k] (uint32_t), typed as the literal is printed, so the arithmetic
 * is the same. Projections with equal keys, CG_FAM_MIN or more of them, form a family. The
 * back ends write the table and the code from the plan (codegen/c/c_family.c,
 * codegen/gpu/simt_family.c).
 */
#include <string.h>

#include "codegen.h"

/* The slots a template collects (CgDialect.user of fam_lit). */
typedef struct Coll {
    StrBuf xs, rs, ks;
    int nx, nr, nk;
} Coll;

static void fam_lit(const CgDialect *d, const IrExpr *e, StrBuf *out)
{
    Coll *c = (Coll *)d->user;
    if (e->op == IE_RAND) {
        sb_printf(&c->ks, "%s0x%08xu", c->nk ? ", " : "", e->stream);
        sb_printf(out, "F->ks[%d]", c->nk++);
        return;
    }
    StrBuf *b = d->dbl ? &c->xs : &c->rs;
    int *n = d->dbl ? &c->nx : &c->nr;
    if (*n)
        sb_puts(b, ", ");
    cg_real(d, e->val, b);
    sb_printf(out, "F->%s[%d]", d->dbl ? "x" : "r", (*n)++);
}

/* 1 when j may be a member: static (stored or procedural), built from a spec, neither
 * recorded nor changed by a phase, not into or out of a top-k population, and what the back
 * end takes (h->ok: a distributed program's members are the back end's to refuse). */
static int candidate(const Compiler *cc, const IrModel *m, const IrProj *j, int k, const CgFamHooks *h)
{
    if (cc->opt.no_proj_tables || j->plast || j->id != k)
        return 0;
    if (j->rule == IR_FROM_FILE || j->rule == IR_PAIRS || j->pre.pop->topk || j->post.pop->topk)
        return 0;
    for (int r = 0; r < m->nrecs; r++)
        if (m->recs[r].proj == j)
            return 0;
    for (int p = 0; p < m->nphases; p++)
        if (m->phases[p].proj == j)
            return 0;
    return !h->ok || h->ok(h->user, m, j);
}

/* j's key and slots. */
static void key_of(Compiler *cc, const IrModel *m, const IrProj *j, CgFamCand *c, const CgFamHooks *h)
{
    CgDialect d, dd;
    Coll col = {0};
    StrBuf w = {0}, dl = {0};
    h->dialects(h->user, m, j, &d, &dd);
    d.lit = dd.lit = fam_lit;
    d.user = dd.user = &col;
    cg_expr(&d, j->w, &w);
    if (j->delay)
        cg_expr(&dd, j->delay, &dl);
    c->wt = arena_strdup(&cc->arena, w.s ? w.s : "");
    c->dt = arena_strdup(&cc->arena, dl.s ? dl.s : "");
    /* procedural: the row loops' shape depends on fixed_prob's p (none, skips, every pair) */
    const int pclass = !j->procedural || j->rule != IR_FIXED_PROB ? 0 : !(j->p > 0) ? 1 : j->p < 1 ? 2 : 3;
    c->key = arena_printf(&cc->arena, "%d %d %d %s %s %d %d %d\n%s\n%s", (int)j->rule, j->autapses, j->multapses,
                          j->pre.pop->cname, j->post.pop->cname, j->delay != NULL, j->procedural, pclass, c->wt,
                          c->dt);
    c->hash = 0xcbf29ce484222325ull;
    for (const char *p = c->key; *p; p++)
        c->hash = (c->hash ^ (unsigned char)*p) * 0x100000001b3ull;
    c->xs = arena_strdup(&cc->arena, col.xs.s ? col.xs.s : "");
    c->rs = arena_strdup(&cc->arena, col.rs.s ? col.rs.s : "");
    c->ks = arena_strdup(&cc->arena, col.ks.s ? col.ks.s : "");
    c->nx = col.nx, c->nr = col.nr, c->nk = col.nk;
    sb_free(&w);
    sb_free(&dl);
    sb_free(&col.xs);
    sb_free(&col.rs);
    sb_free(&col.ks);
}

/* Groups of equal keys numbered as families (CG_FAM_MIN members or more), the runs. */
static void number(Compiler *cc, const IrModel *m, CgFamPlan *P, const int *size, int ngroups)
{
    int *num = arena_alloc(&cc->arena, ((size_t)ngroups + 1) * sizeof *num);
    P->size = arena_alloc(&cc->arena, ((size_t)ngroups + 1) * sizeof *P->size);
    P->first = arena_alloc(&cc->arena, ((size_t)ngroups + 1) * sizeof *P->first);
    for (int g = 0; g < ngroups; g++) {
        num[g] = size[g] >= CG_FAM_MIN ? P->nfam : -1;
        if (num[g] >= 0)
            P->size[P->nfam++] = size[g];
    }
    P->u = arena_alloc(&cc->arena, (size_t)m->nprojs * sizeof *P->u);
    for (int k = 0; k < m->nprojs; k++) {
        CgFamCand *c = &P->c[k];
        if (c->fam < 0 || (c->fam = num[c->fam]) < 0)
            continue;
        if (c->q == 0)
            P->first[c->fam] = k;
        if (k > 0 && P->c[k - 1].fam == c->fam && P->c[k - 1].q + 1 == c->q)
            P->u[P->nu - 1].b++;
        else
            P->u[P->nu++] = (CgFamUnit){c->fam, c->q, c->q + 1};
        c->unit = P->nu - 1;
    }
}

/* Contract: codegen.h. */
void cg_fam_plan(Compiler *cc, const IrModel *m, const CgFamHooks *h, CgFamPlan *P)
{
    memset(P, 0, sizeof *P);
    if (m->nprojs < CG_FAM_MIN)
        return;
    P->n = m->nprojs;
    P->c = arena_alloc(&cc->arena, (size_t)m->nprojs * sizeof *P->c);
    int *lead = arena_alloc(&cc->arena, (size_t)m->nprojs * sizeof *lead);   /* a group's first */
    int *size = arena_alloc(&cc->arena, (size_t)m->nprojs * sizeof *size);
    int ngroups = 0;
    for (int k = 0; k < m->nprojs; k++) {
        CgFamCand *c = &P->c[k];
        c->fam = -1;
        if (!candidate(cc, m, m->projs[k], k, h))
            continue;
        key_of(cc, m, m->projs[k], c, h);
        int g = 0;
        while (g < ngroups && (P->c[lead[g]].hash != c->hash || strcmp(P->c[lead[g]].key, c->key) != 0))
            g++;
        if (g == ngroups) {
            lead[ngroups] = k;
            size[ngroups++] = 0;
        }
        c->q = size[g]++;
        c->fam = g;   /* the group for now; numbered as a family below */
    }
    number(cc, m, P, size, ngroups);
}

/* Contract: codegen.h. */
int cg_fam_of(const CgFamPlan *P, const IrProj *j)
{
    /* a member's id is its index */
    return P->c && j->id >= 0 && j->id < P->n ? P->c[j->id].fam : -1;
}

/* Contract: codegen.h. */
int cg_fam_unit(const CgFamPlan *P, int k, int *u)
{
    if (!P->c || P->c[k].fam < 0)
        return 0;
    *u = P->c[k].unit;
    return P->u[*u].b - P->u[*u].a;
}

/* Contract: codegen.h. */
int cg_fam_seg(const CgFamPlan *P, int k, int *u0, int *u1)
{
    if (!P->c || P->c[k].fam < 0)
        return 0;
    int n = 1;
    while (k + n < P->n && P->c[k + n].fam >= 0)
        n++;
    *u0 = P->c[k].unit;
    *u1 = P->c[k + n - 1].unit + 1;
    return n;
}

/* Contract: codegen.h. */
void cg_fam_spec(Out *o, const IrProj *j0, int f)
{
    out_open(o, "static void spec_fam%d(const nc_fam%d_t *F, nrt_conn_spec *spec)", f, f);
    out_line(o, "memset(spec, 0, sizeof *spec);");
    out_line(o, "spec->rule = %s;", cg_rule_name(j0->rule));
    out_line(o, "spec->n_pre = F->n_pre;");
    out_line(o, "spec->n_post = F->n_post;");
    out_line(o, "spec->p = F->p;");
    out_line(o, "spec->k = F->k;");
    out_line(o, "spec->autapses = %d;", j0->autapses);
    out_line(o, "spec->multapses = %d;", j0->multapses);
    out_line(o, "spec->same_base = %d;", j0->pre.pop == j0->post.pop);
    out_line(o, "spec->pre_offset = F->pre_off;");
    out_line(o, "spec->post_offset = F->post_off;");
    out_line(o, "spec->seed = ctx.seed;");
    out_line(o, "spec->proj_id = F->id;");
    out_close(o);
    out_blank(o);
}

/* Contract: codegen.h. */
void cg_fam_mem_head(Out *o, const IrProj *j0, int f)
{
    out_open(o, "static void mem_fam%d(int a, int b)", f);
    out_open(o, "for (int q = a; q < b; q++)");
    out_line(o, "const nc_fam%d_t *F = &nc_fam%d[q];", f, f);
    out_line(o, "const double syn = sizeof(real) * 1 + %d, ring = F->slots * F->width * sizeof(real);",
             j0->delay ? 4 : 0);
    out_line(o, "nrt_conn_spec spec;");
    out_line(o, "spec_fam%d(F, &spec);", f);
}

/* Contract: codegen.h. */
void cg_fam_slot_fields(Out *o, const CgFamCand *c0)
{
    if (c0->nx)
        out_line(o, "double x[%d];", c0->nx);
    if (c0->nr)
        out_line(o, "real r[%d];", c0->nr);
    if (c0->nk)
        out_line(o, "uint32_t ks[%d];", c0->nk);
}

/* Contract: codegen.h. */
void cg_fam_slot_inits(StrBuf *b, const CgFamCand *c)
{
    if (c->nx)
        sb_printf(b, ", {%s}", c->xs);
    if (c->nr)
        sb_printf(b, ", {%s}", c->rs);
    if (c->nk)
        sb_printf(b, ", {%s}", c->ks);
}

/* Contract: codegen.h. */
void cg_fam_units(Out *o, const CgFamPlan *P, const char *who, const CgFamCall *calls, int ncalls)
{
    out_line(o, "/* the runs of family members (family, first, end) in projection order (%s) */", who);
    out_open(o, "static const struct { int f, a, b; } nc_units[%d] =", P->nu);
    for (int u = 0; u < P->nu; u++)
        out_line(o, "{%d, %d, %d},", P->u[u].f, P->u[u].a, P->u[u].b);
    out_close_with(o, ";");
    out_blank(o);
    for (int c = 0; c < ncalls; c++) {
        const CgFamCall *x = &calls[c];
        const int isint = x->ret[0] == 'i';
        out_open(o, "static %s %s_units(%sint u0, int u1)", x->ret, x->name, x->arg);
        out_open(o, "for (int u = u0; u < u1; u++)");
        out_open(o, "switch (nc_units[u].f)");
        for (int f = 0; f < P->nfam; f++) {
            if (isint)
                out_line(o, "case %d: if (%s_fam%d(%snc_units[u].a, nc_units[u].b) != 0) return -1; break;", f,
                         x->name, f, x->pass);
            else
                out_line(o, "case %d: %s_fam%d(%snc_units[u].a, nc_units[u].b); break;", f, x->name, f, x->pass);
        }
        out_close(o);
        out_close(o);
        if (isint)
            out_line(o, "return 0;");
        out_close(o);
        out_blank(o);
    }
}
