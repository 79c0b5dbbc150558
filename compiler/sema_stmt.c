/* sema_stmt.c -- statements and equations: assignments, lets, if and blocks of update and
 * handler code lowered to IR statements; `dynamics` blocks collected into equations for
 * ode.c; clamps applied after each update.
 *
 * A new statement is a case of conv_stmt (its AST node comes from the grammar).
 */
#include <math.h>
#include <string.h>

#include "sema_priv.h"

void sema_emit_assign(Compiler *cc, IrBlock *out, IrVar *v, IrExpr *e)
{
    IrStmt *s = ir_stmt(cc, IS_ASSIGN);
    s->var = v;
    s->e = e;
    ir_block_add(cc, out, s);
}

int sema_emit_local(Ctx *x, const char *hint, IrType t, IrExpr *e, IrBlock *out)
{
    int id = ir_new_local(x->cc, x->pop, hint, t);
    IrStmt *s = ir_stmt(x->cc, IS_LOCAL);
    s->local = id;
    s->type = t;
    s->e = e;
    ir_block_add(x->cc, out, s);
    return id;
}

void sema_conv_stmt(Ctx *x, AstNode *st, IrBlock *out)
{
    Compiler *cc = x->cc;
    switch (st->kind) {
    case AST_ASSIGN: {
        AstNode *lv = st->a;
        if (x->S->plast.syn && !sema_syn_assign_check(x, st, sema_env_find(x->env, lv->name)))
            return;
        if (lv->kind != AST_NAME) {
            error_at(cc, lv->loc, "cannot assign to '%s.%s' here", lv->name, lv->name2);
            return;
        }
        Bind *b = sema_env_find(x->env, lv->name);
        if (!b) {
            error_at(cc, lv->loc, "unknown name '%s'", lv->name);
            sema_suggest(x, lv->name);
            return;
        }
        if (!b->var) {
            error_at(cc, lv->loc, "cannot assign to '%s': only state variables can change",
                     lv->name);
            if (b->loc.file)
                note_at(cc, b->loc, "'%s' declared here", lv->name);
            return;
        }
        Val v = sema_conv(x, st->b);
        if (!v.ok)
            return;
        Val cur = sema_mkval(ir_var(cc, b->var), b->dim);
        IrExpr *e = v.e;
        if ((b->var->type == IRT_BOOL) != (v.e->type == IRT_BOOL)) {
            error_at(cc, st->b->loc, b->var->type == IRT_BOOL
                                         ? "'%s' is a bool state: assign a condition"
                                         : "'%s' is a number: a condition cannot be assigned to it",
                     lv->name);
            return;
        }
        if (b->var->type == IRT_BOOL && st->op != TK_ASSIGN) {
            error_at(cc, st->loc, "'%s' is a bool state: only '=' applies", lv->name);
            return;
        }
        switch (st->op) {
        case TK_ASSIGN:
            sema_expect_dim(x, v, b->dim, st->b->loc, arena_printf(&cc->arena, "the value assigned to '%s'", lv->name));
            break;
        case TK_PLUSEQ:
        case TK_MINUSEQ:
            sema_expect_dim(x, v, b->dim, st->b->loc, arena_printf(&cc->arena, "the value added to '%s'", lv->name));
            e = ir_bin(cc, st->op == TK_PLUSEQ ? IB_ADD : IB_SUB, cur.e, v.e);
            break;
        case TK_STAREQ:
        case TK_SLASHEQ:
            sema_expect_dim(x, v, DIM_NONE, st->b->loc, arena_printf(&cc->arena, "the factor of '%s'", lv->name));
            e = ir_bin(cc, st->op == TK_STAREQ ? IB_MUL : IB_DIV, cur.e, v.e);
            break;
        default:
            NC_UNREACHABLE();
        }
        sema_emit_assign(cc, out, b->var, e);
        return;
    }
    case AST_LET: {
        Val v = sema_conv(x, st->b);
        Dim d = v.d;
        IrType ty = v.e->type;
        if (st->a) {
            sema_type_of(cc, st->a, &d, &ty);
            sema_expect_dim(x, v, d, st->b->loc, arena_printf(&cc->arena, "'%s'", st->name));
        }
        int id = sema_emit_local(x, st->name, ty, v.e, out);
        Bind b = {0};
        b.name = st->name;
        b.kind = B_VAL;
        b.loc = st->loc;
        b.e = ir_local(cc, id, ty);
        b.dim = d;
        sema_declare(cc, x->env, b);
        return;
    }
    case AST_IF: {
        Val c = sema_conv(x, st->a);
        if (c.ok && c.e->type != IRT_BOOL) {
            error_at(cc, st->a->loc, "the condition of 'if' must be a condition");
            return;
        }
        IrStmt *s = ir_stmt(cc, IS_IF);
        s->e = c.e;
        sema_conv_block(x, st->b, &s->body);
        if (st->c) {
            if (st->c->kind == AST_IF)
                sema_conv_stmt(x, st->c, &s->els);
            else
                sema_conv_block(x, st->c, &s->els);
        }
        ir_block_add(cc, out, s);
        return;
    }
    case AST_SBLOCK:
        sema_conv_block(x, st, out);
        return;
    case AST_CALLSTMT:
        if (st->a && strcmp(st->a->name, "deliver") == 0 && x->S->plast.syn) {
            sema_syn_deliver(x, st, out);
            return;
        }
        if (st->a && strcmp(st->a->name, "deliver") == 0) {
            error_at(cc, st->loc, "'deliver' is only allowed in synapse 'on pre' and 'on step' handlers");
            return;
        }
        error_at(cc, st->loc, "a function call has no effect as a statement");
        return;
    case AST_RETURN:
        error_at(cc, st->loc, "'return' outside a function");
        return;
    default:
        error_at(cc, st->loc, "unexpected statement");
        return;
    }
}

/* A block opens a scope: its lets are not visible after it. */
void sema_conv_block(Ctx *x, AstNode *blk, IrBlock *out)
{
    Env inner = {0};
    inner.parent = x->env;
    Ctx y = *x;
    y.env = &inner;
    for (int i = 0; i < blk->list.n; i++)
        sema_conv_stmt(&y, blk->list.v[i], out);
}

OdeMethod sema_method_of(Compiler *cc, AstNode *dyn, int *substeps)
{
    *substeps = 1;
    if (!dyn->name)
        return ODE_AUTO;
    const char *m = dyn->name;
    OdeMethod r;
    if (strcmp(m, "auto") == 0) r = ODE_AUTO;
    else if (strcmp(m, "exact") == 0) r = ODE_EXACT;
    else if (strcmp(m, "exp_euler") == 0) r = ODE_EXP_EULER;
    else if (strcmp(m, "rk4") == 0) r = ODE_RK4;
    else if (strcmp(m, "euler") == 0) r = ODE_EULER;
    else if (strcmp(m, "event") == 0 || strcmp(m, "clock") == 0) {
        error_at(cc, dyn->loc2.line ? dyn->loc2 : dyn->loc, "'using %s' applies to per-synapse dynamics only", m);
        diag_extra(cc, "  note: neuron, receptor and pre { }/post { } dynamics are integrated every step; "
                       "methods are auto, exact, exp_euler, rk4, euler(substeps = n)");
        return ODE_AUTO;
    } else {
        error_at(cc, dyn->loc2.line ? dyn->loc2 : dyn->loc, "unknown integration method '%s'", m);
        diag_extra(cc, "  note: methods are auto, exact, exp_euler, rk4, euler(substeps = n)");
        return ODE_AUTO;
    }
    for (int i = 0; i < dyn->list2.n; i++) {
        AstNode *a = dyn->list2.v[i];
        if (r == ODE_EULER && a->kind == AST_ARG && strcmp(a->name, "substeps") == 0 &&
            a->a->kind == AST_NUM && !a->a->str && a->a->num >= 1 && a->a->num <= 1000 &&
            a->a->num == floor(a->a->num)) {
            *substeps = (int)a->a->num;
        } else {
            error_at(cc, a->loc, "invalid option for '%s'%s", m,
                     r == ODE_EULER ? " (expected substeps = integer from 1 to 1000)" : "");
        }
    }
    return r;
}

/* Convert a dynamics block's equations (lets inlined) in env. */
int sema_collect_eqs(Ctx *x, AstNode *dyn, OdeEq **eqs_out, int *n_out)
{
    Compiler *cc = x->cc;
    Env lets = {0};
    lets.parent = x->env;
    Ctx y = *x;
    y.env = &lets;
    y.stream = 0;
    y.where = "dynamics (noise would have to be scaled with dt; use a stimulus)";
    OdeEq *eqs = arena_alloc(&cc->arena, sizeof *eqs * (size_t)(dyn->list.n + 1));
    int n = 0, ok = 1;
    for (int i = 0; i < dyn->list.n; i++) {
        AstNode *eq = dyn->list.v[i];
        if (eq->kind == AST_LET) {
            int vok;
            Bind b = sema_inline_let(&y, eq, &vok);
            ok &= vok;
            sema_declare(cc, &lets, b);
            continue;
        }
        Bind *b = sema_env_find(x->env, eq->name);
        if (!b || !b->var || b->var->kind == IV_PARAM) {
            error_at(cc, eq->loc, "'%s' is not a state variable", eq->name);
            if (!b)
                sema_suggest(x, eq->name);
            ok = 0;
            continue;
        }
        for (int k = 0; k < n; k++)
            if (eqs[k].var == b->var) {
                error_at(cc, eq->loc, "second equation for '%s'", eq->name);
                ok = 0;
            }
        Val v = sema_conv(&y, eq->a);
        if (v.ok && !v.anydim && !dim_eq(v.d, dim_div(b->dim, dim_time()))) {
            error_at(cc, eq->a->loc, "dimension mismatch in derivative of '%s'", eq->name);
            diag_extra(cc, "  right-hand side is %s", sema_fmt_dim(cc, v.d));
            diag_extra(cc, "  '%s' is %s, so %s' must be %s", eq->name, sema_fmt_dim(cc, b->dim), eq->name,
                       sema_fmt_dim(cc, dim_div(b->dim, dim_time())));
            ok = 0;
        }
        if (b->var->type != IRT_REAL) {
            error_at(cc, eq->loc, "'%s' is not a real-valued state", eq->name);
            ok = 0;
        }
        eqs[n].var = b->var;
        eqs[n].rhs = v.e;
        eqs[n].frozen = eq->flag;
        eqs[n].loc = eq->loc;
        n++;
        ok &= v.ok;
    }
    *eqs_out = eqs;
    *n_out = n;
    return ok;
}

void sema_add_note(Sema *S, const char *s)
{
    IrModel *m = S->m;
    m->notes = sema_grow(S->cc, (void *)m->notes, m->nnotes, sizeof(char *));
    m->notes[m->nnotes++] = s;
}

/* `clamp(lo, hi)` on state declarations: enforced after every update of the step. */
void sema_apply_clamps(Ctx *x, AstNode *model, IrBlock *out)
{
    Compiler *cc = x->cc;
    for (int m = 0; m < model->list.n; m++) {
        AstNode *mem = model->list.v[m];
        if (mem->kind != AST_BLOCK_DECL || mem->op != TK_STATE)
            continue;
        for (int d = 0; d < mem->list.n; d++) {
            AstNode *decl = mem->list.v[d];
            if (!decl->c || !decl->d)
                continue;
            Bind *b = sema_env_find_here(x->env, decl->name);
            if (!b || !b->var)
                continue;
            Ctx y = *x;
            y.stream = 0;
            y.where = "a clamp bound";
            Val lo = sema_conv(&y, decl->c), hi = sema_conv(&y, decl->d);
            Val cur = sema_mkval(ir_var(cc, b->var), b->dim);
            if (!lo.ok || !hi.ok || !sema_same_dim(&y, cur, lo, decl->c->loc, "the lower clamp bound") ||
                !sema_same_dim(&y, cur, hi, decl->d->loc, "the upper clamp bound"))
                continue;
            IrExpr *args[3] = {cur.e, lo.e, hi.e};
            sema_emit_assign(cc, out, b->var, ir_call(cc, IF_CLIP, args, 3));
        }
    }
}
