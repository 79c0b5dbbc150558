/* sema_call.c -- calls in expressions: the built-in functions (random draws, from_file,
 * crossed, pulse, pow, the math functions of ir_builtin_name, topk) and user functions,
 * which are inlined at each call with their parameters bound to the arguments.
 *
 * A new built-in function is a branch of conv_call (or an entry of IrFn in ir.h when it
 * maps to one IR call).
 */
#include <math.h>
#include <string.h>

#include "sema_priv.h"

static Val rand_draw(Ctx *x, AstNode *n, IrRand kind)
{
    Compiler *cc = x->cc;
    if (!x->stream) {
        error_at(cc, n->loc, "random draws are not allowed in %s", x->where);
        return sema_bad(cc);
    }
    return sema_mkval(ir_rand(cc, kind, x->stream, (*x->site)++), DIM_NONE);
}

typedef struct Args {
    AstNode *pos[4];
    int npos;
    AstNode *named;               /* first named argument, for errors */
} Args;

static int split_args(Ctx *x, AstNode *call, Args *a, int minn, int maxn)
{
    memset(a, 0, sizeof *a);
    for (int i = 0; i < call->list.n; i++) {
        AstNode *arg = call->list.v[i];
        if (arg->kind == AST_ARG) {
            error_at(x->cc, arg->loc, "'%s' takes no named arguments", call->name);
            return 0;
        }
        if (a->npos < 4)
            a->pos[a->npos] = arg;
        a->npos++;
    }
    if (a->npos < minn || a->npos > maxn) {
        if (minn == maxn)
            error_at(x->cc, call->loc, "'%s' takes %d argument%s, %d given", call->name, minn,
                     minn == 1 ? "" : "s", a->npos);
        else
            error_at(x->cc, call->loc, "'%s' takes %d to %d arguments, %d given", call->name, minn,
                     maxn, a->npos);
        return 0;
    }
    return 1;
}

static Val conv_func(Ctx *x, AstNode *call, AstNode *fn, Env *denv);

/* `topk(key, k)`, a term of a spike condition (build_body found it): its arguments are kept
 * for the population-wide selection and the term reads as true here, so the rest of the
 * condition says which neurons are candidates. */
static Val conv_topk(Ctx *x, AstNode *n)
{
    Compiler *cc = x->cc;
    if (n != x->S->topk.call) {
        error_at(cc, n->loc, "'topk' is a term of a 'spike when' condition, joined to the other terms "
                             "with '&&'");
        return sema_bad(cc);
    }
    Args a;
    if (!split_args(x, n, &a, 2, 2))
        return sema_bad(cc);
    Val key = sema_conv(x, a.pos[0]), k = sema_conv(x, a.pos[1]);
    if (!key.ok || !k.ok)
        return sema_bad(cc);
    if (key.e->type == IRT_BOOL) {
        error_at(cc, a.pos[0]->loc, "the first argument of 'topk' is the value to rank, a number");
        return sema_bad(cc);
    }
    double kv;
    if (ir_is_const(k.e, &kv) && kv == floor(kv) && fabs(kv) < 2e9)
        k.e = ir_const(cc, kv, IRT_INT);
    if (k.e->type != IRT_INT || (!k.anydim && !dim_is_none(k.d)) || ir_has_per_neuron(k.e) ||
        ir_is_time_varying(k.e)) {
        error_at(cc, a.pos[1]->loc, "the second argument of 'topk' is the number of winners: an integer "
                                    "that is the same for every neuron and step");
        diag_extra(cc, "  hint: a constant, or a parameter 'k: int' of the model");
        return sema_bad(cc);
    }
    x->S->topk.key = key.e;
    x->S->topk.k = k.e;
    return sema_mkval(ir_const(cc, 1, IRT_BOOL), DIM_NONE);
}

/* The `topk(..)` call among the terms of condition e joined by '&&', or NULL; a second one
 * is reported (*dup = 1). */
AstNode *sema_topk_term(Compiler *cc, AstNode *e, AstNode *found, int *dup)
{
    if (e->kind == AST_BINOP && e->op == TK_ANDAND)
        return sema_topk_term(cc, e->b, sema_topk_term(cc, e->a, found, dup), dup);
    if (e->kind != AST_CALL || strcmp(e->name, "topk") != 0)
        return found;
    if (found) {
        error_at(cc, e->loc, "a spike condition has at most one 'topk'");
        note_at(cc, found->loc, "the first is here");
        *dup = 1;
    }
    return found ? found : e;
}

/* The neuron model's spike condition has a `topk` term (its inputs are gathered, not merged). */
int sema_model_has_topk(Compiler *cc, AstNode *model)
{
    for (int m = 0; m < model->list.n; m++) {
        AstNode *mem = model->list.v[m];
        int dup = 0;
        if (mem->kind == AST_SPIKE_WHEN) {
            Mute mu = sema_mute(cc, 1);
            AstNode *t = sema_topk_term(cc, mem->a, NULL, &dup);
            sema_unmute(cc, mu);
            if (t)
                return 1;
        }
    }
    return 0;
}

/* The probability that mean + sd * N(0, 1) falls in [lo, hi] (a missing bound: +-inf). */
static double accept_prob(double mu, double sd, double lo, double hi)
{
    if (!(sd > 0))
        return mu >= lo && mu <= hi;
    double a = (lo - mu) / (sd * sqrt(2.0)), b = (hi - mu) / (sd * sqrt(2.0));
    /* from the nearer tail, so that bounds far out in one tail keep their small probability */
    return a > 0 ? 0.5 * (erfc(a) - erfc(b)) : 0.5 * (erfc(-b) - erfc(-a));
}

/* `normal(mean, sd, lo, hi)`, `normal(mean, sd, lo = …)`, `normal(mean, sd, hi = …)`: a normal
 * draw truncated to [lo, hi] by redrawing (docs/language.md §11): attempt r draws on the
 * call's site + (r << 20), as the blocks of a Poisson draw do, so every back end makes the
 * same attempts; past IR_REDRAW_MAX attempts the value is NaN. */
static Val call_normal_tr(Ctx *x, AstNode *n)
{
    Compiler *cc = x->cc;
    AstNode *arg[4] = {0};
    int npos = 0, bad = 0;
    for (int i = 0; i < n->list.n; i++) {
        AstNode *g = n->list.v[i];
        int slot = g->kind != AST_ARG ? npos++ : strcmp(g->name, "lo") == 0 ? 2 : strcmp(g->name, "hi") == 0 ? 3 : -1;
        if (g->kind != AST_ARG && slot > 3)
            slot = -1;
        if (slot < 0 || (g->kind == AST_ARG && npos > 2) || arg[slot]) {
            error_at(cc, g->loc, "'normal' takes (mean, sd), or (mean, sd, lo, hi), or (mean, sd) "
                                 "with 'lo =' and/or 'hi =': the bounds of a normal truncated by redrawing");
            return sema_bad(cc);
        }
        arg[slot] = g->kind == AST_ARG ? g->a : g;
    }
    if (!arg[0] || !arg[1] || (npos != 2 && npos != 4)) {
        error_at(cc, n->loc, "'normal' takes (mean, sd), or (mean, sd, lo, hi), or (mean, sd) with "
                             "'lo =' and/or 'hi =': the bounds of a normal truncated by redrawing");
        return sema_bad(cc);
    }
    Val r = rand_draw(x, n, IR_NORMAL_TR);
    if (!r.ok)
        return r;
    Val v[4];
    Dim d = DIM_NONE;
    int anyd = 1;
    for (int k = 0; k < 4; k++) {
        if (!arg[k])
            continue;
        v[k] = sema_conv(x, arg[k]);
        bad |= !v[k].ok;
        if (v[k].ok && !v[k].anydim && anyd) {
            d = v[k].d;
            anyd = 0;
        }
    }
    if (bad)
        return sema_bad(cc);
    double c[4] = {0, 0, -HUGE_VAL, HUGE_VAL};
    int konst = 1;
    IrExpr **args = arena_alloc(&cc->arena, 4 * sizeof(IrExpr *));
    for (int k = 0; k < 4; k++) {
        if (!arg[k]) {
            args[k] = ir_const(cc, 0, IRT_REAL);
            continue;
        }
        if (!anyd && !v[k].anydim && !sema_expect_dim(x, v[k], d, arg[k]->loc, "an argument of 'normal'"))
            return sema_bad(cc);
        args[k] = v[k].e;
        konst &= ir_is_const(v[k].e, &c[k]);
    }
    if (konst && arg[2] && arg[3] && !(c[2] <= c[3])) {
        error_at(cc, n->loc, "the bounds of 'normal' are empty: lo > hi");
        return sema_bad(cc);
    }
    double p = konst ? accept_prob(c[0], c[1], c[2], c[3]) : 1;
    if (!(p >= 0.01)) {
        error_at(cc, n->loc, "the bounds of 'normal' keep a draw with probability %.3g: redrawing "
                             "would often need more than %d attempts", p, IR_REDRAW_MAX);
        diag_extra(cc, "  note: a truncated normal redraws until a draw is in bounds, at most %d "
                       "times (docs/language.md §11)", IR_REDRAW_MAX);
        return sema_bad(cc);
    }
    r.e->args = args;
    r.e->nargs = 4;
    r.e->bounds = (arg[2] ? 1 : 0) | (arg[3] ? 2 : 0);
    ir_measure(r.e);
    x->S->m->normal_tr = 1;
    return sema_mkval(r.e, anyd ? DIM_NONE : d);
}

/* `uniform()`, `normal()` and their scaled forms `uniform(low, high)`, `normal(mean, sd)`. */
static Val call_random(Ctx *x, AstNode *n)
{
    Compiler *cc = x->cc;
    const char *s = n->name;
    Args a;
        if (s[0] == 'n' && n->list.n > 2)
            return call_normal_tr(x, n);
        int uni = s[0] == 'u';
        if (!split_args(x, n, &a, 0, 2))
            return sema_bad(cc);
        if (a.npos == 1) {
            error_at(cc, n->loc, "'%s' takes 0 or 2 arguments (%s)", s, uni ? "low, high" : "mean, sd");
            return sema_bad(cc);
        }
        Val r = rand_draw(x, n, uni ? IR_UNIFORM : IR_NORMAL);
        if (!r.ok || a.npos == 0)
            return r;
        Val p = sema_conv(x, a.pos[0]), q = sema_conv(x, a.pos[1]);
        if (!sema_same_dim(x, p, q, n->loc, uni ? "the bounds of 'uniform'" : "the arguments of 'normal'"))
            return sema_bad(cc);
        Dim d = p.anydim ? q.d : p.d;
        IrExpr *e = uni ? ir_bin(cc, IB_ADD, p.e, ir_bin(cc, IB_MUL, ir_bin(cc, IB_SUB, q.e, p.e), r.e))
                        : ir_bin(cc, IB_ADD, p.e, ir_bin(cc, IB_MUL, q.e, r.e));
        Val v = sema_mkval(e, d);
        v.ok = p.ok && q.ok;
        return v;
}

/* `poisson(lambda)`: a Poisson count of mean lambda (docs/language.md §11). */
static Val call_poisson(Ctx *x, AstNode *n)
{
    Compiler *cc = x->cc;
    Args a;
        /* a Poisson count of mean lambda (docs/language.md §11) */
        if (!split_args(x, n, &a, 1, 1))
            return sema_bad(cc);
        Val l = sema_conv(x, a.pos[0]);
        if (!l.ok || !sema_expect_dim(x, l, DIM_NONE, a.pos[0]->loc, "the mean of 'poisson'"))
            return sema_bad(cc);
        Val r = rand_draw(x, n, IR_POISSON);
        if (r.ok) {
            r.e->a = l.e;
            ir_measure(r.e);
        }
        return r;
}

/* `from_file("spikes.csv")` in a spike condition: a spike source. */
static Val call_from_file(Ctx *x, AstNode *n)
{
    Compiler *cc = x->cc;
        /* a spike source: true in the steps that the file lists for this neuron */
        if (!(x->allow & A_CROSSED) || !x->inst) {
            error_at(cc, n->loc, "'from_file' is a connectivity rule or a spike condition: only "
                                 "available in 'connect =' and 'spike when'");
            return sema_bad(cc);
        }
        AstNode *fa = n->list.n == 1 ? n->list.v[0] : NULL;
        Bind *sb = fa && fa->kind == AST_NAME ? sema_env_find(x->env, fa->name) : NULL;
        if (sb && sb->kind != B_STR)
            sb = NULL;
        if (!fa || (fa->kind != AST_STRING && !sb)) {
            error_at(cc, n->loc, "from_file in 'spike when' takes a file name: from_file(\"spikes.csv\")");
            if (fa && fa->kind == AST_NAME)
                diag_extra(cc, "  note: or a parameter declared 'string' (docs/language.md §5.2)");
            return sema_bad(cc);
        }
        IrPop *p = x->inst->pop;
        const char *path = sb ? sb->path : sema_data_file_path(x->S, fa, "spike file");
        if (!path && sb && !sb->ast) /* a string parameter without a value: a generic check */
            return sema_mkval(ir_leaf(cc, IE_SFILE, IRT_BOOL), DIM_NONE);
        if (!path)
            return sema_bad(cc);
        if (p->sfile && strcmp(p->sfile, path) != 0) {
            error_at(cc, n->loc, "a spike condition reads at most one spike file");
            return sema_bad(cc);
        }
        p->sfile = path;
        return sema_mkval(ir_leaf(cc, IE_SFILE, IRT_BOOL), DIM_NONE);
}

/* `crossed(v, th)` in a spike condition: v went from below th to at least th this step,
 * against a copy of v from the previous step (a IV_PREV variable). */
static Val call_crossed(Ctx *x, AstNode *n)
{
    Compiler *cc = x->cc;
    Args a;
        if (!split_args(x, n, &a, 2, 2))
            return sema_bad(cc);
        if (!(x->allow & A_CROSSED) || !x->inst) {
            error_at(cc, n->loc, "'crossed' is only available in 'spike when'");
            return sema_bad(cc);
        }
        Val v = sema_conv(x, a.pos[0]), th = sema_conv(x, a.pos[1]);
        sema_same_dim(x, v, th, n->loc, "'crossed'");
        if (!v.ok || !th.ok)
            return sema_bad(cc);
        if (v.e->op != IE_VAR || v.e->var->kind != IV_STATE) {
            error_at(cc, a.pos[0]->loc, "the first argument of 'crossed' must be a state variable");
            return sema_bad(cc);
        }
        IrVar *sv = v.e->var, *prev = NULL;
        IrPop *p = x->inst->pop;
        for (int i = 0; i < p->nvars; i++)
            if (p->vars[i]->kind == IV_PREV && strcmp(p->vars[i]->label, sv->label) == 0)
                prev = p->vars[i];
        if (!prev) {
            prev = ir_new_var(cc, p, IV_PREV, arena_printf(&cc->arena, "%s_prev", sv->label),
                              IRT_REAL, sv->dim, 1);
            prev->unit = sv->unit;
            prev->init = 0;
            /* prev starts equal to the variable: appended to init after the states */
            IrStmt *st = ir_stmt(cc, IS_ASSIGN);
            st->var = prev;
            st->e = ir_var(cc, sv);
            ir_block_add(cc, &p->init, st);
        }
        IrExpr *e = ir_bin(cc, IB_AND, ir_bin(cc, IB_LT, ir_var(cc, prev), th.e),
                           ir_bin(cc, IB_GE, v.e, th.e));
        return sema_mkval(e, DIM_NONE);
}

/* `pulse(t, t0, w)`: 1 in [t0, t0 + w), else 0. */
static Val call_pulse(Ctx *x, AstNode *n)
{
    Compiler *cc = x->cc;
    Args a;
        if (!split_args(x, n, &a, 3, 3))
            return sema_bad(cc);
        Val t = sema_conv(x, a.pos[0]), t0 = sema_conv(x, a.pos[1]), w = sema_conv(x, a.pos[2]);
        if (!t.ok || !t0.ok || !w.ok)
            return sema_bad(cc);
        sema_expect_dim(x, t, dim_time(), a.pos[0]->loc, "the time argument of 'pulse'");
        sema_expect_dim(x, t0, dim_time(), a.pos[1]->loc, "the start of 'pulse'");
        sema_expect_dim(x, w, dim_time(), a.pos[2]->loc, "the duration of 'pulse'");
        IrExpr *c = ir_bin(cc, IB_AND, ir_bin(cc, IB_GE, t.e, t0.e),
                           ir_bin(cc, IB_LT, t.e, ir_bin(cc, IB_ADD, t0.e, w.e)));
        return sema_mkval(ir_cond(cc, c, ir_const(cc, 1, IRT_REAL), ir_const(cc, 0, IRT_REAL)), DIM_NONE);
}

/* `pow(x, k)`: a dimensioned x needs a constant integer k. */
static Val call_pow(Ctx *x, AstNode *n)
{
    Compiler *cc = x->cc;
    Args a;
        if (!split_args(x, n, &a, 2, 2))
            return sema_bad(cc);
        Val p = sema_conv(x, a.pos[0]), q = sema_conv(x, a.pos[1]);
        if (!p.ok || !q.ok)
            return sema_bad(cc);
        sema_expect_dim(x, q, DIM_NONE, a.pos[1]->loc, "the exponent");
        double k;
        if (!dim_is_none(p.d)) {
            int ok = 0;
            Dim d = p.d;
            if (ir_is_const(q.e, &k) && k == floor(k) && fabs(k) < 64)
                d = dim_pow(p.d, (int)k, 1, &ok);
            if (!ok) {
                error_at(cc, n->loc, "a quantity with dimension %s needs a constant integer exponent",
                         sema_fmt_dim(cc, p.d));
                return sema_bad(cc);
            }
            return sema_mkval(ir_bin(cc, IB_POW, p.e, q.e), d);
        }
        return sema_mkval(ir_bin(cc, IB_POW, p.e, q.e), DIM_NONE);
}

/* A math function of IrFn (ir_builtin_name): abs, min, max, clip, floor, ceil and round keep
 * their argument's dimension, sqrt halves it, the others take and give plain numbers. */
static Val call_math(Ctx *x, AstNode *n, int f)
{
    Compiler *cc = x->cc;
    const char *s = n->name;
    Args a;
    int ar = ir_builtin_arity[f];
    if (!split_args(x, n, &a, ar, ar))
        return sema_bad(cc);
    IrExpr *args[3] = {NULL, NULL, NULL};
    Val v[3] = {{NULL, DIM_NONE, 0, 0}, {NULL, DIM_NONE, 0, 0}, {NULL, DIM_NONE, 0, 0}};
    int ok = 1;
    for (int i = 0; i < ar; i++) {
        v[i] = sema_conv(x, a.pos[i]);
        args[i] = v[i].e;
        ok &= v[i].ok;
    }
    if (!ok)
        return sema_bad(cc);
    Dim d = DIM_NONE;
    if (f == IF_ABS || f == IF_MIN || f == IF_MAX || f == IF_CLIP || f == IF_FLOOR ||
        f == IF_CEIL || f == IF_ROUND) {
        d = v[0].anydim && ar > 1 ? v[1].d : v[0].d;
        for (int i = 1; i < ar; i++)
            if (!sema_same_dim(x, v[0], v[i], n->loc, arena_printf(&cc->arena, "'%s'", s)))
                return sema_bad(cc);
    } else if (f == IF_SQRT) {
        int okp;
        d = dim_pow(v[0].d, 1, 2, &okp);
        if (!okp) {
            error_at(cc, n->loc, "square root of a quantity with dimension %s", sema_fmt_dim(cc, v[0].d));
            return sema_bad(cc);
        }
    } else {
        for (int i = 0; i < ar; i++)
            if (!v[i].anydim && !dim_is_none(v[i].d)) {
                error_at(cc, a.pos[i]->loc, "'%s' needs a dimensionless argument, got %s", s,
                         sema_fmt_dim(cc, v[i].d));
                diag_extra(cc, "  hint: divide by a reference value, or strip the unit "
                               "explicitly with 'in', e.g. 'x in %s'", sema_fmt_dim(cc, v[i].d));
                return sema_bad(cc);
            }
    }
    return sema_mkval(ir_call(cc, (IrFn)f, args, ar), d);
}

/* out of line: conv_node recurses, and its frame would hold this one's locals at every level */
NC_NOINLINE Val sema_conv_call(Ctx *x, AstNode *n)
{
    Compiler *cc = x->cc;
    const char *s = n->name;
    Bind *b = sema_env_find(x->env, s);
    if (b && b->kind == B_FUNC)
        return conv_func(x, n, b->ast, b->denv);
    if (b && b->kind == B_SERIES)
        return sema_call_series(x, n, b);
    if (strcmp(s, "uniform") == 0 || strcmp(s, "normal") == 0)
        return call_random(x, n);
    if (strcmp(s, "poisson") == 0)
        return call_poisson(x, n);
    if (strcmp(s, "from_file") == 0)
        return call_from_file(x, n);
    if (strcmp(s, "crossed") == 0)
        return call_crossed(x, n);
    if (strcmp(s, "pulse") == 0)
        return call_pulse(x, n);
    if (strcmp(s, "pow") == 0)
        return call_pow(x, n);
    for (int f = 0; f < IF__COUNT; f++)
        if (strcmp(s, ir_builtin_name[f]) == 0)
            return call_math(x, n, f);
    if (strcmp(s, "topk") == 0)
        return conv_topk(x, n);
    if (strcmp(s, "deliver") == 0) {
        error_at(cc, n->loc, "'deliver' is a statement of synapse handlers");
        return sema_bad(cc);
    }
    error_at(cc, n->loc, "unknown function '%s'", s);
    sema_suggest(x, s);
    return sema_bad(cc);
}

/* `let name [: type] = expr` whose value is inlined where the name is used (functions,
 * dynamics): a binding of the converted expression, its declared dimension checked. */
Bind sema_inline_let(Ctx *y, AstNode *st, int *ok)
{
    Compiler *cc = y->cc;
    Val v = sema_conv(y, st->b);
    Bind b = {0};
    b.name = st->name;
    b.kind = B_VAL;
    b.loc = st->loc;
    b.e = v.e;
    b.dim = v.d;
    if (st->a) {
        Dim d;
        IrType ty;
        sema_type_of(cc, st->a, &d, &ty);
        sema_expect_dim(y, v, d, st->b->loc, arena_printf(&cc->arena, "'%s'", st->name));
        b.dim = d;
    }
    if (ok)
        *ok = v.ok;
    return b;
}

/* Inline a user function: parameters bound to the argument values; other names resolve
 * where the function is defined (denv), not where it is called. */
static Val conv_func(Ctx *x, AstNode *call, AstNode *fn, Env *denv)
{
    Compiler *cc = x->cc;
    for (const FnFrame *f = x->S->calls; f; f = f->up) {
        if (f->fn != fn)
            continue;
        /* report each recursive function once: inlining every call site again would
         * repeat the message (and fan out exponentially) */
        Sema *S = x->S;
        for (int i = 0; i < S->nrecursive; i++)
            if (S->recursive[i] == fn)
                return sema_bad(cc);
        AstNode **v = arena_alloc(&cc->arena, sizeof *v * (size_t)(S->nrecursive + 1));
        if (S->nrecursive)
            memcpy(v, S->recursive, sizeof *v * (size_t)S->nrecursive);
        v[S->nrecursive++] = fn;
        S->recursive = v;
        error_at(cc, call->loc, "recursive call of '%s' (functions are inlined, so recursion is "
                                "not allowed)", fn->name);
        note_at(cc, fn->loc2, "'%s' declared here", fn->name);
        return sema_bad(cc);
    }
    if (x->depth > 16) {
        error_at(cc, call->loc, "functions nest too deeply (more than 16 calls inside each other)");
        return sema_bad(cc);
    }
    if (call->list.n != fn->list.n) {
        error_at(cc, call->loc, "'%s' takes %d argument%s, %d given", fn->name, fn->list.n,
                 fn->list.n == 1 ? "" : "s", call->list.n);
        note_at(cc, fn->loc, "'%s' declared here", fn->name);
        return sema_bad(cc);
    }
    Env *fenv = arena_alloc(&cc->arena, sizeof *fenv);
    fenv->parent = denv ? denv : x->env;
    int ok = 1;
    for (int i = 0; i < fn->list.n; i++) {
        AstNode *prm = fn->list.v[i], *arg = call->list.v[i];
        if (arg->kind == AST_ARG)
            arg = arg->a;
        Val v = sema_conv(x, arg);
        Dim d;
        IrType ty;
        sema_type_of(cc, prm->a, &d, &ty);
        if (!sema_expect_dim(x, v, d, arg->loc, arena_printf(&cc->arena, "argument '%s' of '%s'",
                                                         prm->name, fn->name)))
            ok = 0;
        Bind b = {0};
        b.name = prm->name;
        b.kind = B_VAL;
        b.loc = prm->loc;
        b.e = v.e;
        b.dim = d;
        sema_add_bind(cc, fenv, b);
        ok &= v.ok;
    }
    if (!ok)
        return sema_bad(cc);
    Dim rd;
    IrType rt;
    sema_type_of(cc, fn->a, &rd, &rt);
    Ctx y = *x;
    FnFrame frame = {fn, x->S->calls};
    y.env = fenv;
    y.depth++;
    x->S->calls = &frame;
    Val r;
    if (fn->b && fn->b->kind == AST_SBLOCK) {
        r = sema_bad(cc);
        int got = 0;
        for (int i = 0; i < fn->b->list.n; i++) {
            AstNode *st = fn->b->list.v[i];
            if (st->kind == AST_LET) {
                sema_add_bind(cc, fenv, sema_inline_let(&y, st, NULL));
            } else if (st->kind == AST_RETURN) {
                r = sema_conv(&y, st->a);
                got = 1;
                break;
            } else {
                error_at(cc, st->loc, "only 'let' and 'return' are supported in function bodies");
                x->S->calls = frame.up;
                return sema_bad(cc);
            }
        }
        if (!got) {
            error_at(cc, fn->loc2, "function '%s' has no 'return'", fn->name);
            x->S->calls = frame.up;
            return sema_bad(cc);
        }
    } else {
        r = sema_conv(&y, fn->b);
    }
    x->S->calls = frame.up;
    if (r.ok && !sema_expect_dim(&y, r, rd, fn->b->loc, arena_printf(&cc->arena, "the result of '%s'", fn->name)))
        return sema_bad(cc);
    r.d = rd;
    return r;
}
