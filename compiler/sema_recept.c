/* sema_recept.c -- receptor instances: a receptor model bound on a post view for one
 * projection or stimulus, with `weight` solved from its emit against the target port; and
 * merged receptors, linear instances with equal parameters sharing one state and one ring.
 */
#include <stdlib.h>
#include <string.h>

#include "nrt_philox.h"
#include "sema_priv.h"

/* How an expression depends on the variables and the local of a set: LZ the constant 0, LC
 * not at all, LL linearly and homogeneously (f(a s) = a f(s)), LN otherwise. */
enum { LZ, LC, LL, LN };

typedef struct LinSet {
    IrVar **v;
    int n;
    int local;                    /* the input's local, or -1 */
} LinSet;

static int lin_class(const IrExpr *e, const LinSet *set)
{
    switch (e->op) {
    case IE_CONST:
        return e->val == 0 ? LZ : LC;
    case IE_VAR:
        for (int i = 0; i < set->n; i++)
            if (set->v[i] == e->var)
                return LL;
        return LC;
    case IE_LOCAL:
        return e->local == set->local ? LL : LN;   /* other locals: lets, not followed */
    case IE_T: case IE_DT: case IE_INDEX: case IE_SERIES:
        return LC;
    case IE_NEG:
        return lin_class(e->a, set);
    case IE_BIN: {
        int a = lin_class(e->a, set), b = lin_class(e->b, set);
        if (a == LN || b == LN)
            return LN;
        switch (e->sub) {
        case IB_ADD: case IB_SUB:
            if (a == LZ || b == LZ)
                return a == LZ ? b : a;
            return a == b ? a : LN;
        case IB_MUL:
            if (a == LZ || b == LZ)
                return LZ;
            return a == LL && b == LL ? LN : a == LL || b == LL ? LL : LC;
        case IB_DIV:
            return b != LC ? LN : a;
        default:
            return a <= LC && b <= LC ? LC : LN;
        }
    }
    case IE_CALL:
        for (int i = 0; i < e->nargs; i++)
            if (lin_class(e->args[i], set) > LC)
                return LN;
        return LC;
    case IE_COND: {
        int c = lin_class(e->a, set), a = lin_class(e->b, set), b = lin_class(e->c, set);
        if (c > LC || a == LN || b == LN)
            return LN;
        if (a <= LC && b <= LC)
            return LC;
        return (a == LL || a == LZ) && (b == LL || b == LZ) ? LL : LN;
    }
    default:                      /* random draws (one instance would draw for all), ... */
        return LN;
    }
}

/* Linear and homogeneous in the set (0 included). */
static int homogeneous(int c)
{
    return c == LL || c == LZ;
}

/* The receptor model of r is linear in its states and input: dynamics s' = A s, updates
 * s = B s + c x, emit linear in (s, x), states starting at 0, no clamps, nothing else. */
static int receptor_linear(Sema *S, RInst *r)
{
    if (r->lin >= 0)
        return r->lin;
    Compiler *cc = S->cc;
    LinSet set = {0};
    set.local = r->input_local;
    int ok = 1;
    for (int m = 0; m < r->model->list.n && ok; m++) {
        AstNode *mem = r->model->list.v[m];
        switch (mem->kind) {
        case AST_BLOCK_DECL:
            if (mem->op != TK_STATE)
                break;
            for (int d = 0; d < mem->list.n; d++) {
                AstNode *decl = mem->list.v[d];
                Bind *b = sema_env_find_here(&r->env, decl->name);
                if (!b || !b->var || decl->c || decl->d)
                    ok = 0;                              /* clamped */
                else {
                    set.v = sema_grow(cc, set.v, set.n, sizeof(IrVar *));
                    set.v[set.n++] = b->var;
                }
                if (decl->b) {
                    Ctx y = {S, cc, &r->env, NULL, NULL, 0, NULL, "an initial value", 0, NULL, 0, 0};
                    double v;
                    Dim vd;
                    Mute mu = sema_mute(cc, 1);
                    if (!sema_const_eval(&y, decl->b, &v, &vd) || v != 0)
                        ok = 0;
                    sema_unmute(cc, mu);
                }
            }
            break;
        case AST_DYNAMICS: case AST_UPDATE: case AST_EMIT: case AST_FUNC:
            break;
        default:
            ok = 0;
        }
    }
    Mute mu = sema_mute(cc, 1);
    const int nerr = cc->diag.nerrors;
    IrBlock tmp = {0};
    Ctx x = {S, cc, &r->env, NULL, &tmp, 0, NULL, "a receptor", A_T, r->post, 0, 0};
    AstNode *dyn = sema_member(r->model, AST_DYNAMICS, 0);
    OdeEq *eqs;
    int n;
    if (ok && dyn && sema_collect_eqs(&x, dyn, &eqs, &n))
        for (int i = 0; i < n; i++)
            ok &= homogeneous(lin_class(eqs[i].rhs, &set));
    AstNode *upd = sema_member(r->model, AST_UPDATE, 0);
    if (ok && upd) {
        sema_conv_block(&x, upd->a, &tmp);
        for (int i = 0; i < tmp.n && ok; i++) {
            const IrStmt *st = tmp.v[i];
            int mine = 0;
            for (int k = 0; k < set.n; k++)
                mine |= st->kind == IS_ASSIGN && st->var == set.v[k];
            ok = mine && homogeneous(lin_class(st->e, &set));
        }
    }
    AstNode *em = sema_member(r->model, AST_EMIT, 0);
    if (ok && em) {
        Val v = sema_conv(&x, em->a);
        ok = v.ok && lin_class(v.e, &set) == LL;
    }
    ok &= cc->diag.nerrors == nerr;
    sema_unmute(cc, mu);
    return r->lin = ok;
}

/* A receptor clause's own initial values of states (`ExpCurr(..) { I = 1 pA }`). */
static int has_inits(const AstNode *clause)
{
    for (int k = 0; clause && k < clause->list.n; k++)
        if (clause->list.v[k]->kind == AST_INIT)
            return 1;
    return 0;
}

/* Two instances of one model bind every parameter to the same value. */
static int same_params(RInst *a, RInst *b)
{
    for (int m = 0; m < a->model->list.n; m++) {
        AstNode *mem = a->model->list.v[m];
        if (mem->kind != AST_BLOCK_DECL || mem->op != TK_PARAM)
            continue;
        for (int d = 0; d < mem->list.n; d++) {
            Bind *x = sema_env_find_here(&a->env, mem->list.v[d]->name);
            Bind *y = sema_env_find_here(&b->env, mem->list.v[d]->name);
            if (!x || !y || x->kind != y->kind)
                return 0;
            if (x->kind == B_STR) {
                if (!x->path || !y->path || strcmp(x->path, y->path) != 0)
                    return 0;
            } else if (!x->e || !y->e || x->e->op != IE_CONST || y->e->op != IE_CONST ||
                       x->e->val != y->e->val) {
                return 0;
            }
        }
    }
    return 1;
}

/* The earlier instance on `post` that r (parameters bound, no states yet) merges into. */
static RInst *merge_lead(Sema *S, Inst *post, RInst *r)
{
    if (!r->merge || !r->port || has_inits(r->inits))
        return NULL;
    for (int k = 0; k < post->nrecs; k++) {
        RInst *l = post->recs[k];
        if (!l->lead && l->merge && l->model == r->model && l->port == r->port && !has_inits(l->inits) &&
            same_params(l, r) && receptor_linear(S, l))
            return l;
    }
    return NULL;
}

/* The rings' owners, sizes and last members (IrProj.ring), and one --explain note per group. */
void sema_finish_rings(Sema *S)
{
    Compiler *cc = S->cc;
    IrModel *m = S->m;
    IrProj **last = xmalloc(sizeof *last * (size_t)(m->nprojs + 1)); /* by ring id */
    memset(last, 0, sizeof *last * (size_t)(m->nprojs + 1));
    for (int k = 0; k < m->nprojs; k++) {
        IrProj *j = m->projs[k];
        j->ring_off = j->post.offset;
        j->ring_size = j->post.size;
    }
    for (int i = 0; i < S->ninsts; i++)   /* a ring holds its group's span */
        for (int k = 0; k < S->insts[i]->nrecs; k++) {
            RInst *r = S->insts[i]->recs[k];
            if (!r->lead && r->ring) {
                r->ring->ring_off = r->span_off;
                r->ring->ring_size = r->span_size;
            }
        }
    for (int k = 0; k < m->nprojs; k++) {
        IrProj *j = m->projs[k];
        int r = j->ring->id >= 0 && j->ring->id < m->nprojs ? j->ring->id : m->nprojs;
        j->ring->ring_n++;
        j->ring->ring_delay |= j->delay != NULL;
        if (last[r])
            last[r]->ring_last = 0;
        j->ring_last = 1;
        last[r] = j;
    }
    free(last);
    for (int i = 0; i < S->ninsts; i++) {
        Inst *in = S->insts[i];
        /* each group's names in one pass: a lead and its members (which come after it) */
        StrBuf *names = xmalloc(sizeof *names * (size_t)(in->nrecs + 1));
        int *count = xmalloc(sizeof *count * (size_t)(in->nrecs + 1));
        for (int k = 0; k < in->nrecs; k++) {
            RInst *r = in->recs[k];
            RInst *l = r->lead ? r->lead : r;
            memset(&names[k], 0, sizeof names[k]);
            count[k] = 0;
            if (l == r || l->slot >= k || in->recs[l->slot] != l) {
                l = r;            /* a lead (or a member whose lead is not here) */
                r->slot = k;
            }
            sb_printf(&names[l->slot], "%s%s %s", count[l->slot] ? ", " : "",
                      r->proj ? "projection" : "stimulus", r->proj ? r->proj->name : r->stim->node->name);
            count[l->slot]++;
        }
        for (int k = 0; k < in->nrecs; k++) {
            RInst *l = in->recs[k];
            StrBuf b = names[k];
            int n = count[k];
            if (n > 1) {
                m->merges = sema_grow(cc, (void *)m->merges, m->nmerges, sizeof(char *));
                m->merges[m->nmerges++] =
                    arena_printf(&cc->arena, "population %s: receptor %s of %s: one state%s (linear, "
                                 "equal parameters, one base population)", in->pop->name, l->model->name, b.s,
                                 l->ring && l->ring->ring_n > 1 ? " and one delay ring" : "");
            }
            sb_free(&b);
        }
        free(names);
        free(count);
    }
}

/* The receptor's states (its own, or its lead's when merged), its input and what it
 * `require`s of the post neuron, declared in r's environment. */
static void receptor_decls(Sema *S, RInst *r, AstNode *clause, int dummy, const char *prefix)
{
    Compiler *cc = S->cc;
    AstNode *model = r->model;
    Inst *post = r->post;
    IrPop *pop = post->pop;
    RInst *lead = r->lead;
    int quiet = !dummy;
    Mute mu = sema_mute(cc, quiet);
    for (int m = 0; m < model->list.n; m++) {
        AstNode *mem = model->list.v[m];
        /* params and derived values were typed (and reported) by bind_params and
         * bind_funcs_derived */
        if (mem->kind != AST_BLOCK_DECL ||
            (mem->op != TK_STATE && mem->op != TK_INPUT && mem->op != TK_REQUIRE))
            continue;
        for (int d = 0; d < mem->list.n; d++) {
            AstNode *decl = mem->list.v[d];
            Dim dim;
            IrType ty;
            sema_type_of(cc, decl->a, &dim, &ty);
            Bind b = {0};
            b.name = decl->name;
            b.kind = B_VAL;
            b.loc = decl->loc;
            b.dim = dim;
            if (mem->op == TK_STATE && lead) {
                Bind *lb = sema_env_find_here(&lead->env, decl->name);
                b.var = lb->var;
                b.e = lb->e;
                sema_declare(cc, &r->env, b);
            } else if (mem->op == TK_STATE) {
                IrVar *v = ir_new_var(cc, pop, IV_RSTATE, arena_printf(&cc->arena, "%s_%s", prefix, decl->name),
                                      ty, dim, 1);
                v->unit = sema_unit_text(cc, dim);
                sema_state_range(S, decl, v);
                b.var = v;
                b.e = ir_var(cc, v);
                sema_declare(cc, &r->env, b);
            } else if (mem->op == TK_INPUT) {
                r->input_local = lead ? lead->input_local : ir_new_local(cc, pop, decl->name, IRT_REAL);
                b.e = ir_local(cc, r->input_local, IRT_REAL);
                sema_declare(cc, &r->env, b);
            } else if (mem->op == TK_REQUIRE) {
                Bind *nb = sema_env_find_here(&post->env, decl->name);
                if (dummy) {
                    IrVar *v = ir_new_var(cc, pop, IV_STATE, decl->name, ty, dim, 1);
                    b.e = ir_var(cc, v);
                } else if (!nb || nb->port || nb->kind != B_VAL) {
                    sema_unmute(cc, mu);
                    error_at(cc, clause ? clause->loc : model->loc2,
                             "receptor '%s' requires '%s', which neuron '%s' does not have",
                             model->name, decl->name, post->model->name);
                    mu = sema_mute(cc, quiet);
                    continue;
                } else {
                    if (!dim_eq(nb->dim, dim)) {
                        sema_unmute(cc, mu);
                        error_at(cc, clause ? clause->loc : model->loc2,
                                 "receptor '%s' requires '%s' in %s, but '%s' of '%s' is %s",
                                 model->name, decl->name, sema_fmt_dim(cc, dim), decl->name,
                                 post->model->name, sema_fmt_dim(cc, nb->dim));
                        mu = sema_mute(cc, quiet);
                    }
                    b.e = nb->e;
                }
                sema_declare(cc, &r->env, b);
            }
        }
    }
    if (r->input_local == 0 && !sema_member(model, AST_BLOCK_DECL, TK_INPUT))
        error_at(cc, model->loc2, "receptor '%s' needs an 'input' declaration", model->name);
    sema_unmute(cc, mu);
}

/* Initial values of r's states (with `weight` standing for wsub): defaults, then the
 * clause's initialisers, within r's view of the post population. */
static void receptor_inits(Sema *S, RInst *r, AstNode *clause, int quiet, Dim wsub)
{
    Compiler *cc = S->cc;
    AstNode *model = r->model;
    Inst *post = r->post;
    IrPop *pop = post->pop;
    IrProj *pj = r->proj;
    Stim *st = r->stim;
    int64_t off = r->off, size = r->size;
    /* initial values of receptor states: defaults, then the projection's initialisers */
    for (int m = 0; m < model->list.n; m++) {
        AstNode *mem = model->list.v[m];
        if (mem->kind != AST_BLOCK_DECL || mem->op != TK_STATE)
            continue;
        for (int d = 0; d < mem->list.n; d++) {
            AstNode *decl = mem->list.v[d];
            Bind *b = sema_env_find_here(&r->env, decl->name);
            if (!b || !b->var)
                continue;
            AstNode *ov = NULL;
            if (clause)
                for (int k = 0; k < clause->list.n; k++)
                    if (clause->list.v[k]->kind == AST_INIT && clause->list.v[k]->name == decl->name)
                        ov = clause->list.v[k];
            uint32_t *site = &r->site;
            IrExpr *init = ir_const(cc, 0, IRT_REAL);
            Ctx ix = {S, cc, &r->env, pop, &pop->init,
                      (NRT_STREAM_RECEPTOR_INIT << 24) |
                          (pj ? (uint32_t)pj->id : st ? 0x800000u | st->id : 0u), site,
                      "a receptor initialiser", A_INDEX, post, 0, off};
            Dim want = dim_subst_weight(b->dim, wsub);
            if (ov) {
                Val v = sema_conv(&ix, ov->a);
                if (sema_expect_dim(&ix, v, want, ov->a->loc, arena_printf(&cc->arena, "initial value of '%s'", decl->name)))
                    init = v.e;
            } else if (decl->b) {
                Mute m2 = sema_mute(cc, quiet);
                Val v = sema_conv(&ix, decl->b);
                if (sema_expect_dim(&ix, v, want, decl->b->loc, arena_printf(&cc->arena, "initial value of '%s'", decl->name)))
                    init = v.e;
                sema_unmute(cc, m2);
            }
            IrBlock tmp = {0};
            sema_emit_assign(cc, &tmp, b->var, init);
            sema_guarded(cc, &pop->init, sema_in_view(cc, off, size, pop->size), &tmp);
        }
    }
    if (clause)
        for (int k = 0; k < clause->list.n; k++) {
            AstNode *it = clause->list.v[k];
            Bind *b = sema_env_find_here(&r->env, it->name);
            if (it->kind == AST_INIT && (!b || !b->var))
                error_at(cc, it->loc, "'%s' is not a state of receptor '%s'", it->name, model->name);
        }
}

/* Create a receptor instance for projection `pj` onto the post population's instance. */
RInst *sema_instantiate_receptor(Sema *S, AstNode *model, AstNode *clause, Inst *post,
                                 Port *port, int64_t off, int64_t size, IrProj *pj, Stim *st,
                                 int dummy, int merge)
{
    Compiler *cc = S->cc;
    RInst *r = arena_alloc(&cc->arena, sizeof *r);
    r->model = model;
    r->proj = pj;
    r->stim = st;
    r->off = off;
    r->size = size;
    r->post = post;
    r->port = port;
    r->inits = clause;
    r->env.parent = &S->global;
    r->merge = merge && !dummy;
    r->lin = -1;
    r->ring = pj;
    int quiet = !dummy;
    AstList *args = clause && clause->a ? &clause->a->list : NULL;
    if (args && !sema_check_args(cc, args, model, "receptor"))
        args = NULL;
    const char *prefix = pj ? pj->name : st ? st->node->name : "r";
    sema_bind_funcs_derived(S, &r->env, model, quiet, 0);
    sema_bind_params(S, &r->env, model, args, NULL, NULL, NULL, quiet, clause ? clause->loc : model->loc2);
    sema_bind_funcs_derived(S, &r->env, model, quiet, 1);
    r->span_off = off;
    r->span_size = size;
    RInst *lead = r->lead = merge_lead(S, post, r);
    if (lead && pj) {             /* the group's projections share the first one's ring */
        r->ring = NULL;
        if (!lead->ring)
            lead->ring = pj;
        pj->ring = lead->ring;
    }
    receptor_decls(S, r, clause, dummy, prefix);
    if (lead && off >= lead->span_off && off + size <= lead->span_off + lead->span_size)
        return r;                 /* the lead's states, and their initial values (0) */
    /* `weight` in the states' units is the unit the emit binds against the target port */
    Dim wsub = DIM_NONE;
    if (port) {
        Dim ed;
        int has_w = 0;
        if (sema_emit_dim(S, r, &ed) && !sema_bind_weight(ed, port->dim, &wsub, &has_w))
            wsub = DIM_NONE;
    }
    if (!lead) {
        receptor_inits(S, r, clause, quiet, wsub);
        return r;
    }
    /* another view of the base population: the lead's span grows to hold it, and the shared
     * states start at 0 on the neurons it gains (before and after the old span) */
    int64_t a = lead->span_off, b = a + lead->span_size;
    int64_t lo = off < a ? off : a, hi = off + size > b ? off + size : b;
    int64_t piece[2][2] = {{lo, a}, {b, hi}};
    for (int k = 0; k < 2; k++) {
        if (piece[k][1] <= piece[k][0])
            continue;
        r->off = piece[k][0];
        r->size = piece[k][1] - piece[k][0];
        receptor_inits(S, r, clause, quiet, wsub);
    }
    r->off = off;
    r->size = size;
    lead->span_off = lo;
    lead->span_size = hi - lo;
    return r;
}

/* Dimension a receptor's `emit` produces (weight placeholder symbolic). */
int sema_emit_dim(Sema *S, RInst *r, Dim *d)
{
    AstNode *em = sema_member(r->model, AST_EMIT, 0);
    if (!em)
        return 0;
    Mute mu = sema_mute(S->cc, 1);
    IrBlock scratch = {0};
    Ctx x = {S, S->cc, &r->env, r->post->pop, &scratch, 0, &r->site, "a receptor", A_T, r->post, 0, 0};
    Val v = sema_conv(&x, em->a);
    sema_unmute(S->cc, mu);
    *d = v.d;
    return v.ok;
}

/* Solve `have` (with weight placeholder W^1 or none) == `want` for W. */
int sema_bind_weight(Dim have, Dim want, Dim *w, int *has_w)
{
    int k = have.e[DIM_W];
    *has_w = k != 0;
    if (k == 0)
        return dim_eq(have, want);
    if (k != 1)
        return 0;
    have.e[DIM_W] = 0;
    *w = dim_div(want, have);
    return 1;
}

/* Contract: sema_priv.h. */
RInst *sema_receptor_of(Sema *S, const IrProj *pj, const char *stim, Stim **st)
{
    for (int i = 0; i < S->ninsts; i++) {
        Inst *in = S->insts[i];
        for (int k = 0; pj && k < in->nrecs; k++)
            if (in->recs[k]->proj == pj)
                return in->recs[k];
        for (int k = 0; !pj && k < in->nstims; k++)
            if (strcmp(in->stims[k].node->name, stim) == 0) {
                *st = &in->stims[k];
                return in->stims[k].rec;
            }
    }
    return NULL;
}
