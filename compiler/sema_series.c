/* sema_series.c -- analog input series: the `series` declaration (a global name, visible in
 * models and stimuli) and its reading `name(t)` (docs/language.md §5.3).
 *
 * `series NAME: UNIT = "file" every STEP [held | linear]` becomes an IrSeries of the model:
 * the file's absolute path (read by the simulator at start-up, like a spike file), the
 * declared unit's scale, the steps per sample (STEP a whole number of steps, at least one)
 * and the rule between samples. `NAME(t)` is an IE_SERIES leaf of the series' dimension,
 * allowed wherever a neuron population's step reads time (stimuli, neuron and receptor
 * dynamics and updates); the population records that it reads the series, so that the
 * simulator checks the file's columns against its size. A model parameter of type
 * `series UNIT` is bound per instance to the declared series its value names.
 */
#include <string.h>

#include "sema_priv.h"

/* The declared unit of series `it`: its dimension and scale; 0 (reported) if it has none. */
static int series_unit(Compiler *cc, AstNode *it, Dim *d, double *scale)
{
    *d = DIM_NONE;
    *scale = 1;
    if (!it->a) {
        error_at(cc, it->loc, "series '%s' needs its unit: series %s: UNIT = \"file\" every STEP",
                 it->name, it->name);
        diag_extra(cc, "  note: ': 1' for a dimensionless series (docs/language.md §5.3)");
        return 0;
    }
    if (it->a->kind != AST_TYPE || it->a->op != TY_UNIT) {
        error_at(cc, it->a->loc, "a series holds real values: its type is a unit (pA, mV, 1, ...)");
        return 0;
    }
    return sema_unit_scale(cc, it->a->a, d, scale);
}

/* Contract: sema_priv.h. */
void sema_declare_series(Sema *S, AstNode *it)
{
    double scale;
    Bind b = {0};
    b.name = it->name;
    b.kind = B_SERIES;
    b.loc = it->loc;
    b.ast = it;
    b.sidx = -1;
    Mute mu = sema_mute(S->cc, 1);   /* its errors are reported by sema_do_series */
    (void)series_unit(S->cc, it, &b.dim, &scale);
    sema_unmute(S->cc, mu);
    sema_declare(S->cc, &S->global, b);
}

/* Contract: sema_priv.h. */
void sema_do_series(Sema *S, AstNode *it)
{
    Compiler *cc = S->cc;
    IrSeries sr = {0};
    Dim d;
    sr.name = it->name;
    sr.cname = arena_printf(&cc->arena, "nc_ser%d", S->m->nseries);
    int ok = series_unit(cc, it, &d, &sr.scale);
    AstNode fn = {0};
    fn.kind = AST_STRING;
    fn.str = it->str;
    fn.loc = it->loc2;
    sr.path = sema_data_file_path(S, &fn, "series file");
    ok &= sr.path != NULL;
    int sok = 1;
    sr.every = sema_steps_of(S, it->b, "the sampling step of a series", &sok);
    if (sok && sr.every < 1) {
        error_at(cc, it->b->loc, "the sampling step of a series must be at least one step");
        sok = 0;
    }
    ok &= sok;
    if (it->name2 && strcmp(it->name2, "linear") == 0)
        sr.linear = 1;
    else if (it->name2 && strcmp(it->name2, "held") != 0) {
        error_at(cc, it->c->loc, "expected 'held' or 'linear' (the rule between samples), got '%s'",
                 it->name2);
        ok = 0;
    }
    Bind *b = sema_env_find_here(&S->global, it->name);
    if (!ok || !b || b->ast != it)   /* an error, or a second definition (reported) */
        return;
    IrModel *m = S->m;
    m->series = sema_grow(cc, m->series, m->nseries, sizeof *m->series);
    b->sidx = m->nseries;
    m->series[m->nseries++] = sr;
}

/* Contract: sema_priv.h. */
Val sema_call_series(Ctx *x, AstNode *n, Bind *b)
{
    Compiler *cc = x->cc;
    AstNode *arg = n->list.n == 1 ? n->list.v[0] : NULL;
    if (!arg || arg->kind != AST_NAME || strcmp(arg->name, "t") != 0) {
        error_at(cc, n->loc, "a series is read at the current time: %s(t)", b->name);
        return sema_bad(cc);
    }
    if (!(x->allow & A_T) || !x->inst || x->S->plast.syn || (x->allow & A_PREPOST)) {
        error_at(cc, n->loc, "series '%s' can be read only in stimuli and in the dynamics and "
                             "updates of neurons and receptors", b->name);
        return sema_bad(cc);
    }
    Val t = sema_conv(x, arg);   /* `t` itself: not a local or parameter of that name */
    if (!t.ok)
        return t;
    if (t.e->op != IE_T) {
        error_at(cc, arg->loc, "a series is read at the current time 't', and 't' here names "
                               "something else");
        return sema_bad(cc);
    }
    if (b->sidx == -1)   /* its declaration, or the parameter's value, has an error (reported) */
        return sema_bad(cc);
    IrExpr *e = ir_leaf(cc, IE_SERIES, IRT_REAL);
    e->sub = b->sidx;
    if (b->sidx < 0)     /* a `series` parameter of a generic check: never emitted */
        return sema_mkval(e, b->dim);
    IrPop *p = x->inst->pop;
    int seen = 0;
    for (int i = 0; i < p->nseries; i++)
        seen |= p->series[i] == b->sidx;
    if (!seen) {
        p->series = sema_grow(cc, p->series, p->nseries, sizeof *p->series);
        p->series[p->nseries++] = b->sidx;
    }
    return sema_mkval(e, b->dim);
}

/* Contract: sema_priv.h. A `series UNIT` parameter: bound to the series its value names (the
 * argument where the model is used, else the default), of the declared dimension. */
void sema_bind_series_param(Sema *S, Env *env, AstNode *model, AstNode *decl, AstNode *arg, int quiet,
                            SrcLoc useloc)
{
    Compiler *cc = S->cc;
    Bind b = {0};
    double sc;
    b.name = decl->name;
    b.kind = B_SERIES;
    b.loc = decl->loc;
    b.ast = decl;
    b.sidx = -2;
    Mute mu = sema_mute(cc, quiet);   /* the declared unit: reported by the generic check */
    int uok = sema_unit_scale(cc, decl->a->a, &b.dim, &sc);
    sema_unmute(cc, mu);
    AstNode *val = arg ? arg->a : decl->b;
    mu = sema_mute(cc, quiet && !arg && val);   /* a default: reported by the generic check */
    if (val) {
        Bind *g = val->kind == AST_NAME ? sema_global_find(S, val->name, B_SERIES) : NULL;
        b.sidx = -1;
        if (!g)
            error_at(cc, val->loc, "parameter '%s' of '%s' is a series: the name of a 'series' "
                     "declaration, %s = NAME", decl->name, model->name, decl->name);
        else if (uok && !dim_eq(g->dim, b.dim))
            error_at(cc, val->loc, "series '%s' has dimension %s, but parameter '%s' of '%s' "
                     "is a series of %s", g->name, sema_fmt_dim(cc, g->dim), decl->name,
                     model->name, sema_fmt_dim(cc, b.dim));
        else if (uok)
            b.sidx = g->sidx;
    } else if (quiet) {
        error_at(cc, useloc, "parameter '%s' of '%s' has no default and is not given", decl->name,
                 model->name);
        note_at(cc, decl->loc, "'%s' declared here", decl->name);
        b.sidx = -1;
    }
    sema_unmute(cc, mu);
    sema_declare_q(cc, env, b, quiet);
}
