/* sema_set.c -- `set` between runs with expressions: states and parameters of a population
 * or view, per-synapse states of a plastic projection, states of the receptor a projection or
 * a `stimulus ... via` feeds (docs/language.md §12.8).
 *
 * `set X.x = expr` and `set X { x = e; y = e }` lower to one PH_ASSIGN phase (ir.h): per
 * element, every new value into a local first (so each expression reads the values of the
 * end of the previous run), then the assignments. A parameter of a whole population set to a
 * constant keeps the scalar PH_SET (sema_net.c), after the phase's per-element part.
 */
#include <string.h>

#include "nrt_philox.h"
#include "sema_priv.h"

typedef struct SetItem {
    const char *name;
    SrcLoc loc;
    AstNode *e;
} SetItem;

/* Contract: sema_priv.h. */
int sema_set_is_const(Sema *S, AstNode *e)
{
    Compiler *cc = S->cc;
    Ctx x = {S, cc, &S->global, NULL, NULL, 0, NULL, "the value of 'set'", 0, NULL, 0, 0};
    double v;
    Dim d;
    Mute mu = sema_mute(cc, 1);
    int ok = sema_const_eval(&x, e, &v, &d);
    sema_unmute(cc, mu);
    return ok;
}

/* The assignments of a set statement, in order, with duplicates reported. */
static SetItem *set_items(Sema *S, AstNode *it, int *n)
{
    Compiler *cc = S->cc;
    int cap = it->name2 ? 1 : it->list.n;
    SetItem *v = arena_alloc(&cc->arena, sizeof *v * (size_t)(cap ? cap : 1));
    *n = 0;
    if (it->name2) {
        v[(*n)++] = (SetItem){it->name2, it->loc, it->a};
        return v;
    }
    for (int k = 0; k < it->list.n; k++) {
        AstNode *st = it->list.v[k];
        if (!st)
            continue;
        int dup = 0;
        for (int j = 0; j < *n; j++)
            dup |= v[j].name == st->name;
        if (dup) {
            error_at(cc, st->loc, "'%s' is set twice in one 'set'", st->name);
            continue;
        }
        v[(*n)++] = (SetItem){st->name, st->loc, st->a};
    }
    return v;
}

/* The step of the phase boundary: the runs so far. */
static int64_t boundary_step(const IrModel *m)
{
    int64_t at = 0;
    for (int p = 0; p < m->nphases; p++)
        if (m->phases[p].kind == PH_RUN)
            at += m->phases[p].steps;
    return at;
}

static void bind_value(Compiler *cc, Env *env, const char *name, IrExpr *e, Dim d)
{
    Bind b = {0};
    b.name = intern_cstr(cc, name);
    b.kind = B_VAL;
    b.e = e;
    b.dim = d;
    sema_add_bind(cc, env, b);
}

/* What a set expression may read: constants, the element's index and position, draws, and
 * the variables `ok` accepts (of `owner`); the first other node, else NULL. */
static const IrExpr *bad_read(const IrExpr *e, const IrPop *owner, int syn)
{
    if (!e)
        return NULL;
    switch (e->op) {
    case IE_CONST: case IE_INDEX: case IE_PRE: case IE_POST:
        return NULL;
    case IE_VAR:
        if (e->var->pop != owner)
            return e;
        if (syn ? e->var->kind == IV_SYN || (e->var->kind == IV_PARAM && !e->var->per_neuron)
                : e->var->kind == IV_STATE || e->var->kind == IV_PARAM || e->var->kind == IV_RSTATE)
            return NULL;
        return e;
    case IE_BIN: case IE_NEG: case IE_NOT: case IE_COND: case IE_RAND: case IE_CALL: {
        const IrExpr *r = bad_read(e->a, owner, syn);
        if (!r)
            r = bad_read(e->b, owner, syn);
        if (!r)
            r = bad_read(e->c, owner, syn);
        for (int i = 0; !r && i < e->nargs; i++)
            r = bad_read(e->args[i], owner, syn);
        return r;
    }
    default:
        return e;
    }
}

/* Convert one value into a local of ph->body; -1 after an error. */
static int set_value_local(Ctx *x, const SetItem *si, IrVar *var, IrPhase *ph, int syn)
{
    Compiler *cc = x->cc;
    Val v = sema_conv(x, si->e);
    if (!v.ok)
        return -1;
    const char *what = arena_printf(&cc->arena, "%s '%s'", var->kind == IV_PARAM ? "parameter" : "state",
                                    si->name);
    if (!sema_expect_dim(x, v, var->dim, si->e->loc, what))
        return -1;
    if (bad_read(v.e, ph->owner, syn)) {
        error_at(cc, si->e->loc, "the value of 'set' reads %s: an input port or a value of the step "
                 "is not one", syn ? "the synapse's states and parameters, 'i', 'j', constants and draws"
                 : "states and parameters of the population, 'i', positions, 't', constants and draws");
        return -1;
    }
    if (var->type == IRT_BOOL && v.e->type != IRT_BOOL) {
        error_at(cc, si->e->loc, "'%s' is a bool: it is set to a condition", si->name);
        return -1;
    }
    return sema_emit_local(x, "set", v.e->type, v.e, &ph->body);
}

/* The assignments after the locals; the phase added when it has any. */
static void finish_phase(Sema *S, IrPhase *ph, IrVar **tv, int *loc, int n)
{
    Compiler *cc = S->cc;
    int any = 0;
    for (int k = 0; k < n; k++)
        if (tv[k] && loc[k] >= 0) {
            IrExpr *val = ir_local(cc, loc[k], ph->owner->locals[loc[k]].type);
            sema_emit_assign(cc, &ph->body, tv[k], val);
            ph->params |= tv[k]->kind == IV_PARAM;
            any = 1;
        }
    if (any)
        sema_add_phase(S, *ph);
}

static IrPhase new_phase(Sema *S, const char *what)
{
    IrPhase ph = {0};
    ph.kind = PH_ASSIGN;
    for (int p = 0; p < S->m->nphases; p++)
        ph.id += S->m->phases[p].kind == PH_ASSIGN;
    ph.at = boundary_step(S->m);
    ph.what = what;
    return ph;
}

/* A constant into a scalar parameter (PH_SET); 0 after an error. */
static int scalar_set(Sema *S, const SetItem *si, IrVar *var, IrView view, IrProj *pj, IrPhase *out)
{
    Compiler *cc = S->cc;
    Ctx x = {S, cc, &S->global, NULL, NULL, 0, NULL, "the value of 'set'", 0, NULL, 0, 0};
    double v;
    Dim d;
    if (!sema_const_eval(&x, si->e, &v, &d))
        return 0;
    Val tmp = sema_mkval(ir_const(cc, v, IRT_REAL), d);
    tmp.anydim = v == 0;
    if (!sema_expect_dim(&x, tmp, var->dim, si->e->loc, arena_printf(&cc->arena, "parameter '%s'", si->name)))
        return 0;
    *out = (IrPhase){0};
    out->kind = PH_SET;
    out->var = var;
    out->view = view;
    out->proj = pj;
    out->value = v;
    return 1;
}

/* Contract: sema_priv.h. */
void sema_set_neurons(Sema *S, AstNode *it, PopRef ref)
{
    Compiler *cc = S->cc;
    Inst *in = ref.inst;
    int n;
    SetItem *si = set_items(S, it, &n);
    IrPhase ph = new_phase(S, arena_printf(&cc->arena, "set %s", it->name));
    ph.view = (IrView){in->pop, ref.off, ref.size};
    ph.owner = in->pop;
    Env env = {0};
    env.parent = &in->env;
    bind_value(cc, &env, "t", ir_const(cc, (double)ph.at * S->m->dt, IRT_REAL), dim_time());
    uint32_t site = 0;
    Ctx x = {S, cc, &env, in->pop, &ph.body, (NRT_STREAM_SET << 24) | ((uint32_t)ph.id & 0xFFFFFF), &site,
             "the value of 'set'", A_INDEX | A_POS, in, 0, ref.off};
    IrVar **tv = arena_alloc(&cc->arena, sizeof *tv * (size_t)(n + 1));
    int *loc = arena_alloc(&cc->arena, sizeof *loc * (size_t)(n + 1));
    IrPhase *scal = arena_alloc(&cc->arena, sizeof *scal * (size_t)(n + 1));
    int nscal = 0;
    for (int k = 0; k < n; k++) {
        tv[k] = NULL;
        loc[k] = -1;
        if (strcmp(si[k].name, "active") == 0) {
            error_at(cc, si[k].loc, "'active' is set on its own: set %s.active = true", it->name);
            continue;
        }
        Bind *b = sema_env_find_here(&in->env, si[k].name);
        if (b && b->kind == B_STR) {
            error_at(cc, si[k].loc, "'%s' is a string parameter: it is fixed where the population is "
                     "made, 'set' cannot change it", si[k].name);
            continue;
        }
        IrVar *var = NULL;
        if (b && b->is_param && b->e && b->e->op == IE_VAR)
            var = b->e->var;
        else if (b && b->var && b->var->kind == IV_STATE)
            var = b->var;
        if (!var) {
            error_at(cc, si[k].loc, "'%s' is neither a state nor a parameter of '%s'", si[k].name,
                     in->model->name);
            continue;
        }
        if (var->kind == IV_PARAM && !var->per_neuron) {   /* one value: a constant (collect) */
            if (!sema_set_is_const(S, si[k].e))
                nc_ice("set target '%s' is a scalar but its value is not a constant", si[k].name);
            if (scalar_set(S, &si[k], var, ph.view, NULL, &scal[nscal]))
                nscal++;
            continue;
        }
        tv[k] = var;
        loc[k] = set_value_local(&x, &si[k], var, &ph, 0);
    }
    finish_phase(S, &ph, tv, loc, n);
    for (int k = 0; k < nscal; k++)   /* constants: after the reads of the per-neuron part */
        sema_add_phase(S, scal[k]);
}

/* Contract: sema_priv.h. */
void sema_set_synapses(Sema *S, AstNode *it, IrProj *pj)
{
    Compiler *cc = S->cc;
    if (!pj->plast) {
        error_at(cc, it->loc, "projection '%s' has no parameters to set: its synapses are static", pj->name);
        return;
    }
    IrPop *sc = pj->plast->scope;
    int n;
    SetItem *si = set_items(S, it, &n);
    IrPhase ph = new_phase(S, arena_printf(&cc->arena, "set %s", it->name));
    ph.proj = pj;
    ph.owner = sc;
    Env env = {0};
    env.parent = &S->global;
    bind_value(cc, &env, "t", ir_const(cc, (double)ph.at * S->m->dt, IRT_REAL), dim_time());
    /* the synapse's states and parameters (constants or settable scalars), nothing else */
    Env *senv = pj->id < S->plast.nenvs ? S->plast.envs[pj->id] : NULL;
    for (Env *e = senv; e && e != &S->global; e = e->parent)
        for (int k = 0; k < e->n; k++) {
            const Bind *b = &e->v[k];
            if (b->kind == B_VAL && b->e && (b->is_param || (b->var && b->var->kind == IV_SYN && b->var != pj->plast->last)))
                bind_value(cc, &env, b->name, b->e, b->dim);
        }
    uint32_t site = 0;
    Ctx x = {S, cc, &env, sc, &ph.body, (NRT_STREAM_SET << 24) | ((uint32_t)ph.id & 0xFFFFFF), &site,
             "the value of 'set'", A_PREPOST, NULL, 0, 0};
    IrVar **tv = arena_alloc(&cc->arena, sizeof *tv * (size_t)(n + 1));
    int *loc = arena_alloc(&cc->arena, sizeof *loc * (size_t)(n + 1));
    IrPhase *scal = arena_alloc(&cc->arena, sizeof *scal * (size_t)(n + 1));
    int nscal = 0;
    IrProj *saved = S->proj;
    S->proj = pj;   /* dist, dx .. du */
    for (int k = 0; k < n; k++) {
        tv[k] = NULL;
        loc[k] = -1;
        IrVar *var = NULL;
        for (int j = 0; j < sc->nvars; j++)
            if (strcmp(sc->vars[j]->label, si[k].name) == 0 && sc->vars[j] != pj->plast->last)
                var = sc->vars[j];
        if (var && var->kind == IV_PARAM) {
            if (!sema_set_is_const(S, si[k].e)) {
                error_at(cc, si[k].e->loc, "'%s' is a parameter of synapse '%s': one value for every "
                         "synapse, a constant", si[k].name, sc->model);
                continue;
            }
            if (scalar_set(S, &si[k], var, (IrView){0}, pj, &scal[nscal]))
                nscal++;
            continue;
        }
        if (!var || var->kind != IV_SYN) {
            error_at(cc, si[k].loc, "'%s' is not a per-synapse state or a parameter of synapse '%s' of "
                     "projection '%s'%s", si[k].name, sc->model, pj->name,
                     var ? " (a pre { } or post { } state)" : "");
            continue;
        }
        tv[k] = var;
        loc[k] = set_value_local(&x, &si[k], var, &ph, 1);
    }
    S->proj = saved;
    finish_phase(S, &ph, tv, loc, n);
    for (int k = 0; k < nscal; k++)
        sema_add_phase(S, scal[k]);
}

/* The names of r's states, "a, b", or NULL when it has none. */
static const char *receptor_states(Compiler *cc, const RInst *r)
{
    const char *list = NULL;
    for (int k = 0; k < r->env.n; k++) {
        const Bind *b = &r->env.v[k];
        if (b->var && b->var->kind == IV_RSTATE)
            list = list ? arena_printf(&cc->arena, "%s, %s", list, b->name) : b->name;
    }
    return list;
}

/* 1 when a name of the set statement is a variable of plastic projection pj's synapse (they
 * take precedence over its receptor's states, as in `record`). */
static int names_synapse(const SetItem *si, int n, const IrProj *pj)
{
    for (int k = 0; pj->plast && k < n; k++)
        for (int j = 0; j < pj->plast->scope->nvars; j++)
            if (strcmp(pj->plast->scope->vars[j]->label, si[k].name) == 0)
                return 1;
    return 0;
}

/* `set PROJ.g = e` / `set STIM.g = e`: states of receptor r per neuron of its post view, one
 * PH_ASSIGN phase on the post population, as a population's set. A merged receptor's states are
 * its lead's (docs/architecture.md, "Merged receptors"): they are what is set. */
static void set_receptor(Sema *S, AstNode *it, RInst *r, const SetItem *si, int n, const char *what)
{
    Compiler *cc = S->cc;
    Inst *in = r->post;
    const char *states = receptor_states(cc, r);
    if (!states && r->proj && !r->proj->plast) {
        error_at(cc, it->loc, "projection '%s' has no parameters to set: its synapses are static, and "
                 "its receptor '%s' has no state", r->proj->name, r->model->name);
        return;
    }
    if (!states) {
        error_at(cc, it->loc, "receptor '%s' of %s has no state to set", r->model->name, what);
        return;
    }
    IrPhase ph = new_phase(S, arena_printf(&cc->arena, "set %s", it->name));
    ph.view = (IrView){in->pop, r->off, r->size};
    ph.owner = in->pop;
    Env env = {0};
    env.parent = &in->env;
    bind_value(cc, &env, "t", ir_const(cc, (double)ph.at * S->m->dt, IRT_REAL), dim_time());
    for (int k = 0; k < r->env.n; k++)   /* the receptor's states, before the neuron's names */
        if (r->env.v[k].var && r->env.v[k].var->kind == IV_RSTATE)
            bind_value(cc, &env, r->env.v[k].name, r->env.v[k].e, r->env.v[k].dim);
    uint32_t site = 0;
    Ctx x = {S, cc, &env, in->pop, &ph.body, (NRT_STREAM_SET << 24) | ((uint32_t)ph.id & 0xFFFFFF), &site,
             "the value of 'set'", A_INDEX | A_POS, in, 0, r->off};
    IrVar **tv = arena_alloc(&cc->arena, sizeof *tv * (size_t)(n + 1));
    int *loc = arena_alloc(&cc->arena, sizeof *loc * (size_t)(n + 1));
    for (int k = 0; k < n; k++) {
        tv[k] = NULL;
        loc[k] = -1;
        Bind *b = sema_env_find_here(&r->env, si[k].name);
        if (!b || !b->var || b->var->kind != IV_RSTATE) {
            error_at(cc, si[k].loc, "'%s' is not a state of receptor '%s' (of %s): its states are %s",
                     si[k].name, r->model->name, what, states);
            continue;
        }
        tv[k] = b->var;
        loc[k] = set_value_local(&x, &si[k], b->var, &ph, 0);
    }
    finish_phase(S, &ph, tv, loc, n);
}

/* Contract: sema_priv.h. */
int sema_set_receptor(Sema *S, AstNode *it, IrProj *pj)
{
    Compiler *cc = S->cc;
    Stim *st = NULL;
    RInst *r = sema_receptor_of(S, pj, it->name, &st);
    if (!pj && !st)
        return 0;
    if (!pj && !r) {
        error_at(cc, it->loc, "stimulus '%s' has no receptor ('via'), which holds no state to set",
                 it->name);
        return 1;
    }
    if (pj && !r)
        return 0;   /* static synapses straight into a port: sema_set_synapses says so */
    Mute mu = sema_mute(cc, 1);   /* reported once, where the statement is lowered */
    int n;
    SetItem *si = set_items(S, it, &n);
    sema_unmute(cc, mu);
    if (pj && names_synapse(si, n, pj))
        return 0;
    Bind *b = n > 0 ? sema_env_find_here(&r->env, si[0].name) : NULL;
    if (pj && pj->plast && (!b || !b->var || b->var->kind != IV_RSTATE))
        return 0;   /* names of neither: sema_set_synapses reports them */
    si = set_items(S, it, &n);
    set_receptor(S, it, r, si, n, arena_printf(&cc->arena, pj ? "projection '%s'" : "stimulus '%s'",
                                               it->name));
    return 1;
}

/* Contract: sema_priv.h. */
void sema_set_prev(Sema *S)
{
    Compiler *cc = S->cc;
    for (int p = 0; p < S->m->nphases; p++) {
        IrPhase *ph = &S->m->phases[p];
        if (ph->kind != PH_ASSIGN || ph->proj)
            continue;
        int n = ph->body.n;
        for (int k = 0; k < n; k++) {
            IrStmt *st = ph->body.v[k];
            if (st->kind != IS_ASSIGN || st->var->kind != IV_STATE)
                continue;
            const char *prev = arena_printf(&cc->arena, "%s_prev", st->var->label);
            for (int j = 0; j < ph->owner->nvars; j++)
                if (ph->owner->vars[j]->kind == IV_PREV && strcmp(ph->owner->vars[j]->label, prev) == 0)
                    sema_emit_assign(cc, &ph->body, ph->owner->vars[j], st->e);
        }
    }
}
