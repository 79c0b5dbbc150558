/* sema_plast.c -- plastic synapses: a synapse model with state lowered into an IrPlast of its
 * projection: per-synapse states, pre { } and post { } scopes, the handlers on pre, on post,
 * on pre & post and on step, deliver(), and per-synapse dynamics (event- or clock-driven).
 *
 * Synapse code sees `pre.x` and `post.y` through Sema.plast.syn (syn_name, syn_field), which
 * conv_name and conv_node consult.
 */
#include <string.h>

#include "nrt_philox.h"
#include "sema_priv.h"

/* What synapse code may see and do (Sema.plast.syn). Handlers see the synapse's parameters and
 * states, `pre.x`/`post.y` (scope states and neuron variables, read-only); a scope body
 * sees its own states, the synapse's parameters and its neuron's variables by bare name. */
typedef struct SynCtx {
    Inst *pre, *post;             /* the projection's neuron instances */
    Env *pre_env, *post_env;      /* `pre { }` / `post { }` states (NULL: no such scope) */
    int side;                     /* in a scope body: IR_AT_PRE or IR_AT_POST; 0 elsewhere */
    int ev;                       /* the handler being converted (EV_*), 0 elsewhere */
    IrProj *pj;
    AstNode *model;
    Dim rin;                      /* the receptor's input dimension */
    int wbound;                   /* wdim holds the `weight` unit a deliver() bound */
    Dim wdim;
} SynCtx;

/* 1 unless the model is static: param/state declarations and one `on pre { deliver(x) }`. */
int sema_syn_is_plastic(AstNode *smodel)
{
    int npre = 0;
    for (int m = 0; m < smodel->list.n; m++) {
        AstNode *mem = smodel->list.v[m];
        if (mem->kind == AST_SETTING ||
            (mem->kind == AST_BLOCK_DECL && (mem->op == TK_PARAM || mem->op == TK_STATE)))
            continue;
        if (mem->kind == AST_ON && mem->op == EV_PRE && mem->a->list.n == 1 &&
            mem->a->list.v[0]->kind == AST_CALLSTMT &&
            strcmp(mem->a->list.v[0]->a->name, "deliver") == 0 && mem->a->list.v[0]->a->list.n == 1) {
            npre++;
            continue;
        }
        return 1;
    }
    return npre > 1;
}

/* `order = pre_first | post_first`: which of `on pre` and `on post` runs first when a
 * spike reaches a synapse in the step in which its target spikes (docs/language.md §7). */
void sema_syn_order(Compiler *cc, IrPlast *pl, AstNode *mem)
{
    const char *v = mem->a && mem->a->kind == AST_NAME ? mem->a->name : "";
    if (strcmp(mem->name, "order") != 0) {
        error_at(cc, mem->loc, "unknown synapse setting '%s'", mem->name);
        diag_extra(cc, "  note: a synapse has one setting: order = pre_first | post_first");
    } else if (pl->order_set++) {
        error_at(cc, mem->loc, "a second 'order' in this synapse");
    } else if (strcmp(v, "pre_first") == 0 || strcmp(v, "post_first") == 0) {
        pl->post_first = v[1] == 'o';
    } else {
        error_at(cc, mem->a->loc, "'order' is pre_first or post_first");
    }
}

/* Copy of e whose neuron variables are read at the synapse's pre or post neuron. */
static IrExpr *at_side(Compiler *cc, IrExpr *e, int at)
{
    if (!e)
        return NULL;
    IrExpr *c = arena_alloc(&cc->arena, sizeof *c);
    *c = *e;
    if (e->op == IE_VAR && e->var->kind != IV_SYN && e->var->kind != IV_PRE && e->var->kind != IV_POST)
        c->at = at;
    c->a = at_side(cc, e->a, at);
    c->b = at_side(cc, e->b, at);
    c->c = at_side(cc, e->c, at);
    if (e->nargs) {
        c->args = arena_alloc(&cc->arena, sizeof(IrExpr *) * (size_t)e->nargs);
        for (int k = 0; k < e->nargs; k++)
            c->args[k] = at_side(cc, e->args[k], at);
    }
    return c;
}

/* `name` of the neuron instance `in` read from synapse code; 0 if `in` has no such name. */
static int neuron_name(Ctx *x, Inst *in, int at, SrcLoc loc, const char *name, Val *out)
{
    Compiler *cc = x->cc;
    Bind *b = sema_env_find_here(&in->env, name);
    if (!b)
        return 0;
    if (b->port) {
        error_at(cc, loc, "input port '%s' of '%s' cannot be read from a synapse", name, in->model->name);
        diag_extra(cc, "  note: ports are sums formed inside the neuron's step; read a state instead");
        *out = sema_bad(cc);
    } else if (b->kind == B_VAL) {
        *out = sema_mkval(at_side(cc, b->e, at), b->dim);
    } else if (b->kind == B_DERIVED) {
        Ctx y = *x;
        y.env = b->denv;
        struct SynCtx *keep = x->S->plast.syn;
        x->S->plast.syn = NULL;
        Val v = sema_conv(&y, b->ast);
        x->S->plast.syn = keep;
        if (v.ok)
            v.e = at_side(cc, v.e, at);
        v.d = b->dim;
        *out = v;
    } else {
        error_at(cc, loc, "'%s' is not a value", name);
        *out = sema_bad(cc);
    }
    return 1;
}

/* Bare names in a scope body: the scope's neuron (conv_name, after the environment). */
int sema_syn_name(Ctx *x, AstNode *n, Val *out)
{
    SynCtx *sy = x->S->plast.syn;
    if (!sy->side)
        return 0;
    return neuron_name(x, sy->side == IR_AT_PRE ? sy->pre : sy->post, sy->side, n->loc, n->name, out);
}

/* `pre.x` / `post.y`: a scope state, else a variable of the pre or post neuron. */
/* out of line: conv_node recurses, and its frame would hold this one's locals at every level */
NC_NOINLINE Val sema_syn_field(Ctx *x, AstNode *n)
{
    Compiler *cc = x->cc;
    SynCtx *sy = x->S->plast.syn;
    int pre = strcmp(n->name, "pre") == 0;
    if (!pre && strcmp(n->name, "post") != 0) {
        error_at(cc, n->loc, "'%s.%s' is not available in a synapse", n->name, n->name2);
        diag_extra(cc, "  note: synapses read 'pre.NAME' and 'post.NAME'");
        return sema_bad(cc);
    }
    int at = pre ? IR_AT_PRE : IR_AT_POST;
    if (sy->side && sy->side != at) {
        error_at(cc, n->loc, "a %s { } scope cannot read '%s.%s'", sy->side == IR_AT_PRE ? "pre" : "post",
                 n->name, n->name2);
        diag_extra(cc, "  note: a scope holds one value per %s neuron and sees only that neuron",
                   sy->side == IR_AT_PRE ? "presynaptic" : "postsynaptic");
        return sema_bad(cc);
    }
    Env *se = pre ? sy->pre_env : sy->post_env;
    Bind *b = se ? sema_env_find_here(se, n->name2) : NULL;
    if (b && b->kind == B_VAL && b->var)
        return sema_mkval(ir_var(cc, b->var), b->dim);
    Inst *in = pre ? sy->pre : sy->post;
    Val v;
    if (neuron_name(x, in, at, n->loc, n->name2, &v))
        return v;
    error_at(cc, n->loc, "unknown name '%s.%s': not a state of the synapse's %s { } scope nor a "
                         "variable of neuron '%s'", n->name, n->name2, n->name, in->model->name);
    return sema_bad(cc);
}

/* Assignments in synapse code may change the code's own states only. */
int sema_syn_assign_check(Ctx *x, AstNode *st, Bind *b)
{
    Compiler *cc = x->cc;
    SynCtx *sy = x->S->plast.syn;
    AstNode *lv = st->a;
    if (lv->kind == AST_FIELD) {
        error_at(cc, lv->loc, "cannot assign to '%s.%s' from synapse code", lv->name, lv->name2);
        diag_extra(cc, "  note: pre { } and post { } states change only in their own dynamics and "
                       "'on spike', and neurons only in their model; one handler runs for many "
                       "synapses of a neuron in the same step, so such writes would race");
        return 0;
    }
    if (!b && sy->side) {
        Inst *in = sy->side == IR_AT_PRE ? sy->pre : sy->post;
        if (sema_env_find_here(&in->env, lv->name)) {
            error_at(cc, lv->loc, "cannot assign to '%s', a variable of neuron '%s', from a synapse",
                     lv->name, in->model->name);
            return 0;
        }
    }
    return 1;
}

/* deliver(x): add x to the receptor's input (on pre: this step; on step: after the delay). */
void sema_syn_deliver(Ctx *x, AstNode *st, IrBlock *out)
{
    Compiler *cc = x->cc;
    SynCtx *sy = x->S->plast.syn;
    AstNode *call = st->a;
    if (sy->ev != EV_PRE && sy->ev != EV_STEP) {
        error_at(cc, st->loc, "'deliver' is only allowed in 'on pre' and 'on step' handlers");
        if (sy->ev)
            diag_extra(cc, "  note: a synapse transmits when a presynaptic spike arrives ('on pre') "
                           "or every step ('on step', rate transmission)");
        return;
    }
    if (call->list.n != 1 || call->list.v[0]->kind == AST_ARG) {
        error_at(cc, call->loc, "'deliver' takes one value");
        return;
    }
    Val v = sema_conv(x, call->list.v[0]);
    if (!v.ok)
        return;
    Dim ws;
    int hw = 0;
    if (!v.anydim && !sema_bind_weight(v.d, sy->rin, &ws, &hw)) {
        error_at(cc, call->list.v[0]->loc, "synapse '%s' delivers %s, but the receptor takes %s",
                 sy->model->name, sema_fmt_dim(cc, v.d), sema_fmt_dim(cc, sy->rin));
        return;
    }
    if (hw && !sy->wbound) {
        sy->wbound = 1;
        sy->wdim = ws;
    }
    IrStmt *s = ir_stmt(cc, IS_DELIVER);
    s->proj = sy->pj;
    s->e = v.e;
    ir_block_add(cc, out, s);
}

static int block_writes(const IrBlock *b)
{
    for (int k = 0; k < b->n; k++)
        if (b->v[k]->kind != IS_DELIVER)
            return 1;
    return 0;
}

/* One `pre { }` or `post { }` scope: states (one per neuron), dynamics, on spike. */
static void lower_scope(Sema *S, IrPlast *pl, AstNode *scope, int at, Env *ce, Ctx base, int notes)
{
    Compiler *cc = S->cc;
    SynCtx *sy = S->plast.syn;
    int pre = at == IR_AT_PRE;
    const char *what = pre ? "a pre { } scope" : "a post { } scope";
    IrBlock *init = pre ? &pl->pre_init : &pl->post_init;
    IrBlock *step = pre ? &pl->pre_step : &pl->post_step;
    IrBlock *spike = pre ? &pl->pre_spike : &pl->post_spike;
    Ctx x = base;
    x.env = ce;
    x.allow = A_T;
    x.where = what;
    sy->side = at;
    for (int m = 0; m < scope->list.n; m++) {
        AstNode *mem = scope->list.v[m];
        if (mem->kind != AST_BLOCK_DECL || mem->op != TK_STATE)
            continue;
        for (int d = 0; d < mem->list.n; d++) {
            AstNode *decl = mem->list.v[d];
            Dim dim;
            IrType ty;
            sema_type_of(cc, decl->a, &dim, &ty);
            if (S->plast.has_wsub)
                dim = dim_subst_weight(dim, S->plast.wsub);
            IrVar *v = ir_new_var(cc, pl->scope, pre ? IV_PRE : IV_POST, decl->name, ty, dim, 1);
            v->unit = sema_unit_text(cc, dim);
            IrVar ***vs = pre ? &pl->pre : &pl->post;
            int *nv = pre ? &pl->npre : &pl->npost;
            *vs = sema_grow(cc, *vs, *nv, sizeof(IrVar *));
            (*vs)[(*nv)++] = v;
            IrExpr *iv = ir_const(cc, 0, ty);
            if (decl->b) {
                Ctx y = x;
                y.allow = 0;
                y.where = "a state's initial value";
                Val v2 = sema_conv(&y, decl->b);
                if (sema_expect_dim(&y, v2, dim, decl->b->loc,
                                    arena_printf(&cc->arena, "initial value of '%s'", decl->name)) && v2.ok)
                    iv = v2.e;
            }
            sema_emit_assign(cc, init, v, iv);
            Bind b = {0};
            b.name = decl->name;
            b.kind = B_VAL;
            b.loc = decl->loc;
            b.e = ir_var(cc, v);
            b.dim = dim;
            b.var = v;
            sema_declare(cc, ce, b);
        }
    }
    int ndyn = 0, nspike = 0;
    for (int m = 0; m < scope->list.n; m++) {
        AstNode *mem = scope->list.v[m];
        if (mem->kind == AST_BLOCK_DECL && mem->op == TK_STATE)
            continue;
        if (mem->kind == AST_DYNAMICS && !ndyn++) {
            OdeEq *eqs;
            int n, sub;
            OdeMethod meth = sema_method_of(cc, mem, &sub);
            const char *note;
            if (sema_collect_eqs(&x, mem, &eqs, &n) &&
                ode_lower(cc, pl->scope, eqs, n, meth, sub, NULL, step, mem->loc, &note) && notes)
                sema_add_note(S, arena_printf(&cc->arena, "projection %s: synapse %s: %s scope: %s",
                                              sy->pj->name, sy->model->name, pre ? "pre" : "post", note));
            continue;
        }
        if (mem->kind == AST_ON && mem->op == EV_SPIKE && !nspike++) {
            sema_conv_block(&x, mem->a, spike);
            continue;
        }
        if (mem->kind == AST_DYNAMICS || (mem->kind == AST_ON && mem->op == EV_SPIKE)) {
            error_at(cc, mem->loc, "second %s in %s", mem->kind == AST_DYNAMICS ? "'dynamics' block" : "'on spike'", what);
            continue;
        }
        error_at(cc, mem->loc, "only 'state', 'dynamics' and 'on spike' belong in %s", what);
    }
    sema_apply_clamps(&x, scope, step);
    if (spike->n)
        sema_apply_clamps(&x, scope, spike);
    sy->side = 0;
}

static const char *const ev_name[] = {"", "on spike", "on pre", "on post", "on pre & post", "on step"};

/* Per-synapse `dynamics`: event-driven when the compiler may (docs/language.md,
 * "Per-synapse dynamics") or `using event` asks for it, else clock-driven (syn_step). */
static void lower_syn_dynamics(Sema *S, IrPlast *pl, IrProj *pj, AstNode *smodel, AstNode *mem, Ctx *base,
                               int notes)
{
    Compiler *cc = S->cc;
    IrPop *sp = pl->scope;
    OdeEq *eqs;
    int n, sub = 1;
    int force = 0; /* 1: using event; -1: using clock */
    OdeMethod meth = ODE_AUTO;
    if (mem->name && strcmp(mem->name, "event") == 0)
        force = 1;
    else if (mem->name && strcmp(mem->name, "clock") == 0)
        force = -1;
    else
        meth = sema_method_of(cc, mem, &sub);
    if (force && mem->list2.n)
        error_at(cc, mem->list2.v[0]->loc, "'using %s' takes no options", mem->name);
    if (!sema_collect_eqs(base, mem, &eqs, &n))
        return;
    /* may it be event-driven? */
    const char *why = NULL;
    if (meth != ODE_AUTO && meth != ODE_EXACT)
        why = arena_printf(&cc->arena, "'using %s' asks for a clock-driven integrator", mem->name);
    for (int m = 0; m < smodel->list.n && !why; m++) {
        AstNode *h = smodel->list.v[m];
        if (h->kind == AST_ON && h->op == EV_STEP)
            why = "the synapse has an 'on step' handler, which touches every synapse every step";
    }
    for (int m = 0; m < smodel->list.n && !why; m++) {
        AstNode *d0 = smodel->list.v[m];
        if (d0->kind != AST_BLOCK_DECL || d0->op != TK_STATE)
            continue;
        for (int d = 0; d < d0->list.n && !why; d++) {
            AstNode *decl = d0->list.v[d];
            if (!decl->c || !decl->d)
                continue;
            for (int i = 0; i < n; i++)
                if (strcmp(eqs[i].var->label, decl->name) == 0)
                    why = arena_printf(&cc->arena, "'%s' has a clamp, enforced every step", decl->name);
        }
    }
    if (!why && n > 0) {
        const char *w2;
        if (!ode_event_ok(cc, eqs, n, &w2))
            why = w2;
    }
    if (n == 0)
        why = "no equations";
    if (force == 1 && why) {
        error_at(cc, mem->loc, "synapse '%s' cannot have event-driven dynamics ('using event')", smodel->name);
        diag_extra(cc, "  note: they need x' = A x with A constant (parameters only) in the synapse's own "
                       "variables, no clamp on them and no 'on step'");
        diag_extra(cc, "  %s; use 'using clock' or leave 'using' out", why);
        return;
    }
    if (!why && force != -1) {
        pl->event = 1;
        pl->last = ir_new_var(cc, sp, IV_SYN, "_last", IRT_INT, DIM_NONE, 1);
        pl->last->unit = "1";
        pl->syn = sema_grow(cc, pl->syn, pl->nsyn, sizeof(IrVar *));
        pl->syn[pl->nsyn++] = pl->last;
        sema_emit_assign(cc, &pl->syn_init, pl->last, ir_const(cc, 0, IRT_INT));
        if (notes) {
            S->plast.ev = sema_grow(cc, S->plast.ev, S->plast.nev, sizeof(EvPending));
            S->plast.ev[S->plast.nev++] = (EvPending){pl, eqs, n};
            const char *vars = "";
            for (int i = 0; i < n; i++)
                vars = arena_printf(&cc->arena, "%s%s%s", vars, i ? ", " : "", eqs[i].var->label);
            sema_add_note(S, arena_printf(&cc->arena, "projection %s: synapse %s: event-driven%s: (%s) is x' = A x with "
                                          "A constant and there is no 'on step'; each synapse is advanced exactly "
                                          "over the steps since it was last touched (propagators exp(A 2^k dt) "
                                          "at load time) before its handlers, records and the end of each run",
                                          pj->name, smodel->name, force == 1 ? " (using event)" : " (auto)", vars));
        }
        return;
    }
    const char *note;
    if (ode_lower(cc, sp, eqs, n, meth, sub, NULL, &pl->syn_step, mem->loc, &note) && notes)
        sema_add_note(S, arena_printf(&cc->arena, "projection %s: synapse %s: clock-driven%s: %s", pj->name,
                                      smodel->name,
                                      force == -1 ? " (using clock)"
                                      : arena_printf(&cc->arena, " (not event-driven: %s)", why),
                                      note));
}

/* Per-synapse states: one IV_SYN variable each, initialised from the projection's clause
 * (`w = ...`), else the default; `w` first, so its draws are those of a static synapse. */
static void syn_states(Sema *S, IrPlast *pl, IrProj *pj, AstNode *smodel, AstNode *wc, Ctx *base,
                       Env *senv, int quiet_body)
{
    Compiler *cc = S->cc;
    IrPop *sp = pl->scope;
    Ctx ix = *base;
    ix.stream = (NRT_STREAM_SYNAPSE_INIT << 24) | (uint32_t)pj->id;
    ix.allow = A_PREPOST;
    ix.where = "a synapse initialiser";
    const char *wname = intern_cstr(cc, "w");
    int has_w = 0;
    for (int pass = 0; pass < 2; pass++) /* `w` first: its draws are those of a static synapse */
        for (int m = 0; m < smodel->list.n; m++) {
            AstNode *mem = smodel->list.v[m];
            if (mem->kind != AST_BLOCK_DECL || mem->op != TK_STATE)
                continue;
            for (int d = 0; d < mem->list.n; d++) {
                AstNode *decl = mem->list.v[d];
                if ((decl->name == wname) != (pass == 0))
                    continue;
                Dim dim;
                IrType ty;
                Mute mu = sema_mute(cc, quiet_body);
                sema_type_of(cc, decl->a, &dim, &ty);
                sema_unmute(cc, mu);
                if (S->plast.has_wsub)
                    dim = dim_subst_weight(dim, S->plast.wsub);
                IrVar *v = ir_new_var(cc, sp, IV_SYN, decl->name, ty, dim, 1);
                v->unit = sema_unit_text(cc, dim);
                pl->syn = sema_grow(cc, pl->syn, pl->nsyn, sizeof(IrVar *));
                pl->syn[pl->nsyn++] = v;
                AstNode *src = (wc && decl->name == wname) ? wc->a : decl->b;
                has_w |= decl->name == wname;
                IrExpr *iv = ir_const(cc, 0, ty);
                if (src) {
                    Mute mu2 = sema_mute(cc, quiet_body && src == decl->b);
                    Val v2 = sema_conv(&ix, src);
                    if (sema_expect_dim(&ix, v2, dim, src->loc, src == decl->b
                                       ? arena_printf(&cc->arena, "initial value of '%s'", decl->name)
                                       : "the weight") && v2.ok)
                        iv = v2.e;
                    sema_unmute(cc, mu2);
                }
                sema_emit_assign(cc, &pl->syn_init, v, iv);
                if (decl->name == wname)
                    pj->w = iv;
                Bind b = {0};
                b.name = decl->name;
                b.kind = B_VAL;
                b.loc = decl->loc;
                b.e = ir_var(cc, v);
                b.dim = dim;
                b.var = v;
                sema_declare_q(cc, senv, b, quiet_body);
            }
        }
    if (wc && !has_w)
        error_at(cc, wc->loc, "synapse '%s' has no state 'w'", smodel->name);
    if (!pj->w)
        pj->w = ir_const(cc, 0, IRT_REAL);
}

/* The `pre { }` and `post { }` scopes, at most one of each. */
static void syn_scopes(Sema *S, IrPlast *pl, AstNode *smodel, Env *penv, Ctx base, int notes)
{
    Compiler *cc = S->cc;
    SynCtx *sy = S->plast.syn;
    for (int m = 0; m < smodel->list.n; m++) {
        AstNode *mem = smodel->list.v[m];
        if (mem->kind != AST_SCOPE)
            continue;
        int at = mem->op == TK_PRE ? IR_AT_PRE : IR_AT_POST;
        Env **slot = at == IR_AT_PRE ? &sy->pre_env : &sy->post_env;
        if (*slot) {
            error_at(cc, mem->loc, "second %s { } scope", at == IR_AT_PRE ? "pre" : "post");
            continue;
        }
        *slot = arena_alloc(&cc->arena, sizeof(Env));
        (*slot)->parent = penv;
        lower_scope(S, pl, mem, at, *slot, base, notes);
    }
}

/* The synapse's members past its declarations and scopes: `dynamics`, the `order` setting
 * and the handlers on pre, on post, on pre & post and on step (each at most once, and only
 * where the neurons it waits for can spike). `mu` is the caller's muting, lifted for a
 * handler that would never run. */
static void syn_handlers(Sema *S, IrPlast *pl, IrProj *pj, AstNode *smodel, AstNode *syn, Ctx *base,
                         int quiet_body, int notes, Mute *mu)
{
    Compiler *cc = S->cc;
    SynCtx *sy = S->plast.syn;
    Inst *pre = sy->pre, *post = sy->post;
    int seen[6] = {0}, ndyn = 0;
    for (int m = 0; m < smodel->list.n; m++) {
        AstNode *mem = smodel->list.v[m];
        if (mem->kind == AST_SCOPE || mem->kind == AST_FUNC ||
            (mem->kind == AST_BLOCK_DECL && (mem->op == TK_PARAM || mem->op == TK_STATE || mem->op == TK_DERIVED)))
            continue;
        if (mem->kind == AST_DYNAMICS) {
            if (ndyn++) {
                error_at(cc, mem->loc, "second 'dynamics' block in synapse '%s'", smodel->name);
                continue;
            }
            lower_syn_dynamics(S, pl, pj, smodel, mem, base, notes);
            continue;
        }
        if (mem->kind == AST_SETTING) {
            sema_syn_order(cc, pl, mem);
            continue;
        }
        if (mem->kind != AST_ON) {
            error_at(cc, mem->loc, "this member does not belong in a synapse");
            diag_extra(cc, "  note: a synapse has param, derived, state, dynamics, pre { }, post { }, "
                           "func and the handlers on pre, on post, on pre & post, on step");
            continue;
        }
        if (mem->op == EV_SPIKE) {
            error_at(cc, mem->loc, "'on spike' in a synapse belongs in a pre { } or post { } scope");
            continue;
        }
        if (seen[mem->op]++) {
            error_at(cc, mem->loc, "second '%s' handler in synapse '%s'", ev_name[mem->op], smodel->name);
            continue;
        }
        IrBlock *dst = mem->op == EV_PRE ? &pl->on_pre : mem->op == EV_POST ? &pl->on_post
                     : mem->op == EV_PREPOST ? &pl->on_prepost : &pl->on_step;
        int needs_pre = mem->op == EV_PRE || mem->op == EV_PREPOST;
        int needs_post = mem->op == EV_POST || mem->op == EV_PREPOST;
        Inst *never = needs_pre && !sema_member(pre->model, AST_SPIKE_WHEN, 0) ? pre
                    : needs_post && !sema_member(post->model, AST_SPIKE_WHEN, 0) ? post : NULL;
        if (never) {
            sema_unmute(cc, *mu);
            error_at(cc, syn->loc, "'%s' of synapse '%s' would never run: "
                     "neuron model '%s' has no 'spike when'", ev_name[mem->op], smodel->name,
                     never->model->name);
            note_at(cc, mem->loc, "handler declared here");
            *mu = sema_mute(cc, quiet_body);
            continue;
        }
        sy->ev = mem->op;
        Ctx hx = *base;
        hx.out = dst;
        sema_conv_block(&hx, mem->a, dst);
        sy->ev = 0;
    }
}

/* Lower synapse model `smodel` of projection pj into an IrPlast (NULL after errors that
 * leave nothing to lower). `quiet_body` mutes errors inside the model (a later use of a
 * model repeats what its first use reported); `notes` adds --explain lines. */
static IrPlast *lower_synapse(Sema *S, IrProj *pj, AstNode *smodel, AstNode *syn, AstNode *wc,
                              Dim rin, Inst *pre, Inst *post, SynCtx *sy, int quiet_body, int notes)
{
    Compiler *cc = S->cc;
    IrPlast *pl = arena_alloc(&cc->arena, sizeof *pl);
    IrPop *sp = arena_alloc(&cc->arena, sizeof *sp);
    sp->id = -1;
    sp->name = pj->name;
    sp->cname = pj->cname;
    sp->model = smodel->name;
    pl->scope = sp;
    *sy = (SynCtx){pre, post, NULL, NULL, 0, 0, pj, smodel, rin, 0, DIM_NONE};
    Env *penv = arena_alloc(&cc->arena, sizeof *penv);
    Env *senv = arena_alloc(&cc->arena, sizeof *senv);
    penv->parent = &S->global;
    senv->parent = penv;
    AstList *args = syn->a->flag ? &syn->a->list : NULL;
    if (args && !sema_check_args(cc, args, smodel, "synapse"))
        args = NULL;
    sema_bind_funcs_derived(S, penv, smodel, quiet_body, 0);
    sema_bind_params(S, penv, smodel, args, NULL, sp, pj->name, 1, syn->loc);
    sema_bind_funcs_derived(S, penv, smodel, quiet_body, 1);
    uint32_t site = 0;
    Ctx base = {S, cc, senv, sp, NULL, 0, &site, "a synapse handler", A_T | A_PREPOST, NULL, 0, 0};

    syn_states(S, pl, pj, smodel, wc, &base, senv, quiet_body);
    while (S->plast.nenvs <= pj->id) {   /* for `set proj.x = expr` */
        S->plast.envs = sema_grow(cc, S->plast.envs, S->plast.nenvs, sizeof *S->plast.envs);
        S->plast.envs[S->plast.nenvs++] = NULL;
    }
    S->plast.envs[pj->id] = senv;

    S->plast.syn = sy;
    Mute mu = sema_mute(cc, quiet_body);
    syn_scopes(S, pl, smodel, penv, base, notes);
    syn_handlers(S, pl, pj, smodel, syn, &base, quiet_body, notes, &mu);
    IrBlock *blocks[] = {&pl->on_pre, &pl->on_post, &pl->on_prepost, &pl->on_step, &pl->syn_step};
    for (int k = 0; k < 5; k++)
        if (block_writes(blocks[k]))
            sema_apply_clamps(&base, smodel, blocks[k]);
    for (int k = 0; k < sp->nprops; k++)
        if (sp->props[k]->per_neuron)
            error_at(cc, syn->loc, "synapse '%s': exact integration with per-neuron coefficients is not "
                                   "supported in synapses; use 'dynamics using exp_euler'", smodel->name);
    sema_unmute(cc, mu);
    S->plast.syn = NULL;
    return pl;
}

/* A projection with a plastic synapse: find the unit `weight` stands for (the first
 * deliver() against the receptor input `rin`), then lower the model with it bound. */
int sema_plastic_projection(Sema *S, IrProj *pj, AstNode *smodel, AstNode *syn, AstNode *wc,
                            Dim rin, Inst *pre, Inst *post)
{
    Compiler *cc = S->cc;
    int seen = 0;
    for (int k = 0; k < S->plast.nseen; k++)
        seen |= S->plast.seen[k] == smodel;
    if (!seen) {
        S->plast.seen = sema_grow(cc, S->plast.seen, S->plast.nseen, sizeof(AstNode *));
        S->plast.seen[S->plast.nseen++] = smodel;
    }
    SynCtx probe, real;
    Mute mu = sema_mute(cc, 1);
    IrExpr *w0 = pj->w;
    lower_synapse(S, pj, smodel, syn, wc, rin, pre, post, &probe, 1, 0);
    pj->w = w0;
    sema_unmute(cc, mu);
    S->plast.has_wsub = probe.wbound;
    S->plast.wsub = probe.wdim;
    int nerr = cc->diag.nerrors;
    IrPlast *pl = lower_synapse(S, pj, smodel, syn, wc, rin, pre, post, &real, seen, 1);
    S->plast.has_wsub = 0;
    pj->plast = pl;
    return cc->diag.nerrors == nerr;
}
