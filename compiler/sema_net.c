/* sema_net.c -- the network, item by item: constants, `sim` settings, populations and
 * views, stimuli, `set`, `runtime` and the run phases; counts and times that must be
 * compile-time integers. Records are in sema_record.c, projections in sema_proj.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sema_priv.h"

int64_t sema_const_int(Sema *S, AstNode *e, const char *what, int64_t lo, int64_t hi, int *ok)
{
    Ctx x = {S, S->cc, &S->global, NULL, NULL, 0, NULL, what, 0, NULL, 0, 0};
    double v;
    Dim d;
    S->no_float_check++;
    int evok = sema_const_eval(&x, e, &v, &d);
    S->no_float_check--;
    if (!evok) {
        *ok = 0;
        return 0;
    }
    if (!dim_is_none(d) || v != floor(v) || v < (double)lo || v > (double)hi) {
        error_at(S->cc, e->loc, "%s must be an integer from %lld to %lld", what, (long long)lo,
                 (long long)hi);
        *ok = 0;
        return 0;
    }
    return (int64_t)v;
}

/* v in the fewest digits that read back as v (%.17g at most): two values that differ
 * print differently. */
static const char *num_text(Compiler *cc, double v)
{
    char t[400];
    int prec = 1;
    while (snprintf(t, sizeof t, "%.*g", prec, v), prec < 17 && strtod(t, NULL) != v)
        prec++;
    if (strchr(t, 'e') && fabs(v) >= 1e-4 && fabs(v) < 1e15)
        for (int dec = 0; dec <= 17; dec++) /* 1000, not 1e+03 */
            if (snprintf(t, sizeof t, "%.*f", dec, v), strtod(t, NULL) == v)
                break;
    return arena_strdup(&cc->arena, t);
}

/* A number of steps from a time (or `N steps`), which must be whole. */
int64_t sema_steps_of(Sema *S, AstNode *e, const char *what, int *ok)
{
    Ctx x = {S, S->cc, &S->global, NULL, NULL, 0, NULL, what, 0, NULL, 0, 0};
    double v;
    Dim d;
    S->no_float_check++;
    int evok = sema_const_eval(&x, e, &v, &d);
    S->no_float_check--;
    if (!evok) {
        *ok = 0;
        return 0;
    }
    if (!dim_eq(d, dim_time())) {
        error_at(S->cc, e->loc, "%s must be a time (e.g. '1 s' or '200 steps'), got %s", what,
                 dim_is_none(d) ? "a plain number" : sema_fmt_dim(S->cc, d));
        *ok = 0;
        return 0;
    }
    double n = v / S->m->dt, r = floor(n + 0.5);
    if (!isfinite(v) || v < 0) {
        error_at(S->cc, e->loc, "%s is %s (%s ms)", what, isfinite(v) ? "negative" : "not finite",
                 num_text(S->cc, v));
        *ok = 0;
        return 0;
    }
    if (!(fabs(n) <= MAX_STEPS)) {
        /* also keeps the conversion to int64_t below defined */
        error_at(S->cc, e->loc, "%s is too long (%g steps of %s ms; at most %g)", what, n,
                 num_text(S->cc, S->m->dt), MAX_STEPS);
        *ok = 0;
        return 0;
    }
    if (fabs(n - r) > 1e-9 * (r > 1 ? r : 1)) {
        error_at(S->cc, e->loc, "%s is not a whole number of steps (%s ms / dt %s ms = %.10g)", what,
                 num_text(S->cc, v), num_text(S->cc, S->m->dt), n);
        *ok = 0;
        return 0;
    }
    return (int64_t)r;
}

/* Resolve `P`, `P[a:b]` or `P[i]` to a view; indices of `P[i, j, ...]` go to idx. */
int sema_resolve_target(Sema *S, AstNode *name_node, const char *name, AstNode *index,
                        PopRef *out, int64_t **idx, int *nidx)
{
    Compiler *cc = S->cc;
    Bind *b = sema_env_find_here(&S->global, name);
    if (!b || b->kind != B_POP) {
        error_at(cc, name_node->loc, "unknown population '%s'", name);
        Ctx x = {S, cc, &S->global, NULL, NULL, 0, NULL, "", 0, NULL, 0, 0};
        sema_suggest(&x, name);
        hint_unknown_model(cc, name);
        return 0;
    }
    *out = *b->pop;
    if (idx)
        *idx = NULL, *nidx = 0;
    if (!index)
        return 1;
    int ok = 1;
    if (index->kind == AST_IDXSLICE) {
        int64_t a = sema_const_int(S, index->a, "a slice bound", 0, out->size, &ok);
        int64_t e = sema_const_int(S, index->b, "a slice bound", 0, out->size, &ok);
        if (ok && e <= a) {
            error_at(cc, index->loc, "empty slice %lld:%lld", (long long)a, (long long)e);
            return 0;
        }
        out->off += a;
        out->size = e - a;
        return ok;
    }
    if (index->kind == AST_IDXLIST) {
        if (!idx) {
            if (index->list.n != 1) {
                error_at(cc, index->loc, "a projection needs a population or a slice 'P[a:b]'");
                return 0;
            }
            int64_t k = sema_const_int(S, index->list.v[0], "a neuron index", 0, out->size - 1, &ok);
            out->off += k;
            out->size = 1;
            return ok;
        }
        *idx = arena_alloc(&cc->arena, sizeof(int64_t) * (size_t)index->list.n);
        for (int i = 0; i < index->list.n; i++)
            (*idx)[i] = out->off + sema_const_int(S, index->list.v[i], "a neuron index", 0, out->size - 1, &ok);
        *nidx = index->list.n;
        return ok;
    }
    error_at(cc, index->loc, "'grid' lays out a new population; a view takes 'P[a:b]' or 'P[k]'");
    return 0;
}

static void add_pop(Sema *S, IrPop *p)
{
    IrModel *m = S->m;
    m->pops = sema_grow(S->cc, m->pops, m->npops, sizeof(IrPop *));
    p->id = m->npops;
    m->pops[m->npops++] = p;
}

/* A declared view, for the runtime's summary and manifest (IrModel.views). */
static void add_view(Sema *S, const PopRef *ref)
{
    IrModel *m = S->m;
    m->views = sema_grow(S->cc, m->views, m->nviews, sizeof *m->views);
    m->views[m->nviews++] = (IrNamedView){ref->name, {ref->inst->pop, ref->off, ref->size}};
}

void sema_do_population(Sema *S, AstNode *it)
{
    Compiler *cc = S->cc;
    AstNode *pe = it->a;
    if (pe->kind == AST_POPSUM && pe->list.n > 1) {
        error_at(cc, pe->loc, "population unions 'A + B' are not supported by this version yet");
        return;
    }
    AstNode *atom = pe->kind == AST_POPSUM ? pe->list.v[0] : pe;
    PopRef *ref = arena_alloc(&cc->arena, sizeof *ref);
    ref->name = it->name;
    ref->loc = it->loc;
    Bind *mb = sema_global_find(S, atom->name, B_MODEL);
    if (mb) {
        AstNode *model = mb->ast;
        if (model->op != TK_NEURON) {
            error_at(cc, atom->loc, "'%s' is a %s model; populations are made of neurons", model->name,
                     model->op == TK_SYNAPSE ? "synapse" : "receptor");
            return;
        }
        int ok = 1;
        int64_t n;
        memset(&S->grid_next, 0, sizeof S->grid_next);
        if (atom->a && atom->a->kind == AST_IDXGRID) {
            n = sema_grid_layout(S, atom->a, &S->grid_next, &ok);
        } else if (!atom->a || atom->a->kind != AST_IDXLIST || atom->a->list.n != 1) {
            error_at(cc, atom->loc, "a population needs a size: %s[N]", model->name);
            return;
        } else {
            n = sema_const_int(S, atom->a->list.v[0], "a population size", 1, 2000000000, &ok);
        }
        if (!ok)
            return;
        S->useloc = atom->loc;
        Inst *in = sema_instantiate_neuron(S, it->name, model, atom->flag ? &atom->list : NULL,
                                           &it->list, n, 0);
        memset(&S->grid_next, 0, sizeof S->grid_next);
        add_pop(S, in->pop);
        S->insts = sema_grow(cc, S->insts, S->ninsts, sizeof(Inst *));
        S->insts[S->ninsts++] = in;
        ref->inst = in;
        ref->off = 0;
        ref->size = n;
    } else {
        if (atom->flag) {
            error_at(cc, atom->loc, "unknown neuron model '%s'", atom->name);
            hint_unknown_model(cc, atom->name);
            return;
        }
        if (it->list.n) {
            error_at(cc, it->list.v[0]->loc, "initialisers belong to a new population, not a view");
            return;
        }
        if (!sema_resolve_target(S, atom, atom->name, atom->a, ref, NULL, NULL))
            return;
        ref->name = it->name;
        add_view(S, ref);
    }
    Bind b = {0};
    b.name = it->name;
    b.kind = B_POP;
    b.loc = it->loc;
    b.pop = ref;
    sema_declare(cc, &S->global, b);
}

/* `stimulus NAME -> T.PORT via Model(args) = expr`: a receptor instance of its own on T whose
 * input, every step, is expr (in the receptor's input dimension, `weight` bound by its emit
 * against PORT, as for a projection), in place of a projection's arrivals. */
static void stimulus_receptor(Sema *S, Inst *in, Stim *st)
{
    Compiler *cc = S->cc;
    AstNode *ref = st->node->b;
    Bind *rb = sema_global_find(S, ref->name, B_MODEL);
    if (!rb || rb->ast->op != TK_RECEPTOR) {
        error_at(cc, ref->loc, "unknown receptor model '%s'", ref->name);
        hint_unknown_model(cc, ref->name);
        return;
    }
    AstNode *clause = ast_new(cc, AST_PC_RECEPTOR, ref->loc);
    clause->a = ref;
    clause->name2 = st->port->name;
    int nv0 = in->pop->nvars;
    Stim *own = arena_alloc(&cc->arena, sizeof *own); /* in->stims may move as it grows */
    *own = *st;
    RInst *r = sema_instantiate_receptor(S, rb->ast, clause, in, st->port, st->off, st->size, NULL, own, 0,
                                         !sema_model_has_topk(cc, in->model));
    Dim ed, wr = DIM_NONE, rin = DIM_NONE;
    int has_w = 0;
    if (!sema_emit_dim(S, r, &ed))
        return;
    if (!sema_bind_weight(ed, st->port->dim, &wr, &has_w)) {
        error_at(cc, ref->loc, "receptor '%s' emits %s, but port '%s' of '%s' is %s", rb->ast->name,
                 sema_fmt_dim(cc, ed), st->port->name, in->model->name, sema_fmt_dim(cc, st->port->dim));
        return;
    }
    for (int v = nv0; v < in->pop->nvars; v++) {
        IrVar *var = in->pop->vars[v];
        var->dim = dim_subst_weight(var->dim, wr);
        var->unit = sema_fmt_dim(cc, var->dim);
    }
    AstNode *inb = sema_member(rb->ast, AST_BLOCK_DECL, TK_INPUT);
    if (inb && inb->list.n) {
        IrType ty;
        sema_type_of(cc, inb->list.v[0]->a, &rin, &ty);
        rin = dim_subst_weight(rin, wr);
    }
    r->input_dim = rin;
    st->rec = r;
    in->recs = sema_grow(cc, in->recs, in->nrecs, sizeof(RInst *));
    in->recs[in->nrecs++] = r;
}

void sema_do_stimulus(Sema *S, AstNode *it)
{
    Compiler *cc = S->cc;
    PopRef ref;
    if (!sema_resolve_target(S, it, it->name2, NULL, &ref, NULL, NULL))
        return;
    Inst *in = ref.inst;
    Port *port = NULL;
    for (int p = 0; p < in->nports; p++)
        if (strcmp(in->ports[p].name, it->str) == 0)
            port = &in->ports[p];
    if (!port) {
        error_at(cc, it->loc2.line ? it->loc2 : it->loc, "neuron '%s' has no input port '%s'",
                 in->model->name, it->str);
        return;
    }
    in->stims = sema_grow(cc, in->stims, in->nstims, sizeof(Stim));
    Stim *st = &in->stims[in->nstims++];
    st->node = it;
    st->id = (uint32_t)S->nstims++;
    st->off = ref.off;
    st->size = ref.size;
    st->port = port;
    if (it->b)
        stimulus_receptor(S, in, st);
}

void sema_add_phase(Sema *S, IrPhase ph)
{
    IrModel *m = S->m;
    m->phases = sema_grow(S->cc, m->phases, m->nphases, sizeof *m->phases);
    m->phases[m->nphases++] = ph;
}

/* The value of `set X.name = value`: a constant of name's dimension (0 fits any). */
static int set_value(Sema *S, AstNode *it, Dim want, double *out)
{
    Compiler *cc = S->cc;
    Ctx x = {S, cc, &S->global, NULL, NULL, 0, NULL, "the value of 'set'", 0, NULL, 0, 0};
    Dim d;
    if (!sema_const_eval(&x, it->a, out, &d))
        return 0;
    Val tmp = sema_mkval(ir_const(cc, *out, IRT_REAL), d);
    tmp.anydim = *out == 0;
    return sema_expect_dim(&x, tmp, want, it->a->loc, arena_printf(&cc->arena, "parameter '%s'", it->name2));
}

/* x is a scalar parameter of the projection's plastic synapse (settable: `set` names it). */
static int syn_param(const IrProj *pj, const char *x)
{
    for (int i = 0; pj->plast && i < pj->plast->scope->nvars; i++)
        if (pj->plast->scope->vars[i]->kind == IV_PARAM && strcmp(pj->plast->scope->vars[i]->label, x) == 0)
            return 1;
    return 0;
}

/* `set proj.x = v`: x is a scalar parameter of the projection's plastic synapse. */
static void set_proj(Sema *S, AstNode *it, IrProj *pj)
{
    Compiler *cc = S->cc;
    IrVar *var = NULL;
    if (pj->plast)
        for (int i = 0; i < pj->plast->scope->nvars; i++)
            if (pj->plast->scope->vars[i]->kind == IV_PARAM &&
                strcmp(pj->plast->scope->vars[i]->label, it->name2) == 0)
                var = pj->plast->scope->vars[i];
    if (!var) {
        if (pj->plast)
            error_at(cc, it->loc, "'%s' is not a parameter of synapse '%s' of projection '%s'", it->name2,
                     pj->plast->scope->model, pj->name);
        else
            error_at(cc, it->loc, "projection '%s' has no parameters to set: its synapses are static",
                     pj->name);
        return;
    }
    double v;
    if (!set_value(S, it, var->dim, &v))
        return;
    IrPhase ph = {0};
    ph.kind = PH_SET;
    ph.var = var;
    ph.proj = pj;
    ph.value = v;
    sema_add_phase(S, ph);
}

void sema_do_set(Sema *S, AstNode *it)
{
    Compiler *cc = S->cc;
    PopRef ref;
    Bind *pb = sema_env_find_here(&S->global, it->name);
    for (int k = 0; k < S->m->nprojs && (!pb || pb->kind != B_POP); k++)
        if (strcmp(S->m->projs[k]->name, it->name) == 0) {
            if (sema_set_receptor(S, it, S->m->projs[k]))
                return;
            if (it->name2 && syn_param(S->m->projs[k], it->name2) && sema_set_is_const(S, it->a))
                set_proj(S, it, S->m->projs[k]);   /* one constant: as before expressions */
            else
                sema_set_synapses(S, it, S->m->projs[k]);
            return;
        }
    if ((!pb || pb->kind != B_POP) && sema_set_receptor(S, it, NULL))
        return;
    if (!pb || pb->kind != B_POP) {
        error_at(cc, it->loc, "'set' applies to a population, view or projection: unknown "
                              "population '%s'", it->name);
        return;
    }
    ref = *pb->pop;
    if (!it->name2) {   /* set P { x = e; .. } */
        sema_set_neurons(S, it, ref);
        return;
    }
    if (strcmp(it->name2, "active") == 0) {
        if (ref.off != 0 || ref.size != ref.inst->pop->size) {
            error_at(cc, it->loc, "'active' switches a whole population: '%s' is a view of '%s'", it->name,
                     ref.inst->pop->name);
            return;
        }
        Ctx x = {S, cc, &S->global, NULL, NULL, 0, NULL, "the value of 'set'", 0, NULL, 0, 0};
        Val v = sema_conv(&x, it->a);
        double b;
        if (!v.ok)
            return;
        if (v.e->type != IRT_BOOL || !ir_is_const(v.e, &b)) {
            error_at(cc, it->a->loc, "'%s.active' is set to 'true' or 'false'", it->name);
            return;
        }
        if (!ref.inst->pop->active)
            nc_ice("set target '%s.active' was not made settable", it->name);
        IrPhase ph = {0};
        ph.kind = PH_SET;
        ph.var = ref.inst->pop->active;
        ph.view = (IrView){ref.inst->pop, 0, ref.inst->pop->size};
        ph.value = b != 0;
        sema_add_phase(S, ph);
        return;
    }
    Bind *b = sema_env_find_here(&ref.inst->env, it->name2);
    if (b && b->kind == B_STR) {
        error_at(cc, it->loc, "'%s' is a string parameter: it is fixed where the population is "
                 "made, 'set' cannot change it", it->name2);
        return;
    }
    if (!b || !b->is_param || !sema_set_is_const(S, it->a)) {   /* a state, or an expression */
        sema_set_neurons(S, it, ref);
        return;
    }
    double v;
    if (!set_value(S, it, b->dim, &v))
        return;
    if (!b->e || b->e->op != IE_VAR)
        nc_ice("set target '%s' was not made settable", it->name2);
    IrPhase ph = {0};
    ph.kind = PH_SET;
    ph.var = b->e->var;
    ph.view = (IrView){ref.inst->pop, ref.off, ref.size};
    ph.value = v;
    sema_add_phase(S, ph);
}

/* Whether block b reads v (an assignment to v itself is no read). */
static int block_reads(const IrBlock *b, IrVar *v)
{
    for (int i = 0; i < b->n; i++) {
        const IrStmt *st = b->v[i];
        if ((st->e && ir_uses_var(st->e, v)) || block_reads(&st->body, v) || block_reads(&st->els, v))
            return 1;
    }
    return 0;
}

/* Append a run-time parameter, unless it is refused (an error): a bool, a weight, not finite,
 * or the same variable and neurons as one before. */
static void add_rtparam(Sema *S, AstNode *f, IrRtParam rp)
{
    Compiler *cc = S->cc;
    if (rp.var->type == IRT_BOOL || rp.var->dim.e[DIM_W] != 0) {
        error_at(cc, f->loc, "'%s' is %s; a run-time parameter is a number or a quantity", rp.name,
                 rp.var->type == IRT_BOOL ? "a bool" : "a weight");
        return;
    }
    if (!isfinite(rp.var->init)) {
        error_at(cc, f->loc, "'%s' is %s; a run-time parameter's value must be finite", rp.name,
                 rp.var->init > 0 ? "inf" : "-inf");
        return;
    }
    for (int i = 0; i < S->m->nrtparams; i++) {
        const IrRtParam *q = &S->m->rtparams[i];
        if (q->var == rp.var && q->view.offset == rp.view.offset && q->view.size == rp.view.size) {
            error_at(cc, f->loc, "'%s' is already a run-time parameter%s%s", rp.name,
                     strcmp(q->name, rp.name) ? ", as " : "", strcmp(q->name, rp.name) ? q->name : "");
            return;
        }
    }
    S->m->rtparams = sema_grow(cc, S->m->rtparams, S->m->nrtparams, sizeof *S->m->rtparams);
    S->m->rtparams[S->m->nrtparams++] = rp;
}

/* `runtime PROJ.x`: x, a scalar parameter of the projection's plastic synapse. */
static void runtime_proj(Sema *S, AstNode *f, IrProj *pj)
{
    Compiler *cc = S->cc;
    IrRtParam rp = {arena_printf(&cc->arena, "%s.%s", f->name, f->name2), NULL, {0}, pj};
    for (int i = 0; pj->plast && i < pj->plast->scope->nvars; i++)
        if (pj->plast->scope->vars[i]->kind == IV_PARAM &&
            strcmp(pj->plast->scope->vars[i]->label, f->name2) == 0)
            rp.var = pj->plast->scope->vars[i];
    if (!rp.var) {
        if (pj->plast)
            error_at(cc, f->loc2, "'%s' is not a parameter of synapse '%s' of projection '%s'", f->name2,
                     pj->plast->scope->model, pj->name);
        else
            error_at(cc, f->loc, "projection '%s' has no run-time parameters: its synapses are static "
                                 "(a plastic synapse model's scalar parameters can be)", pj->name);
        return;
    }
    add_rtparam(S, f, rp);
}

/* `runtime P.x`: x, a parameter of population P, made settable by collect (is_set_target),
 * becomes a run-time parameter of the simulator (--set): a scalar, or, when the population's
 * initialisers assign it per neuron or P is a view (collect then made it per-neuron), the
 * values of P's neurons. */
void sema_do_runtime(Sema *S, AstNode *f)
{
    Compiler *cc = S->cc;
    Bind *pb = sema_env_find_here(&S->global, f->name);
    for (int k = 0; k < S->m->nprojs && (!pb || pb->kind != B_POP); k++)
        if (strcmp(S->m->projs[k]->name, f->name) == 0) {
            runtime_proj(S, f, S->m->projs[k]);
            return;
        }
    if (!pb || pb->kind != B_POP) {
        error_at(cc, f->loc, "'runtime' names a parameter of a population, view or projection "
                             "declared above it: unknown name '%s'", f->name);
        return;
    }
    PopRef ref = *pb->pop;
    Bind *b = sema_env_find_here(&ref.inst->env, f->name2);
    if (!b || !b->is_param) {
        error_at(cc, f->loc2, "'%s' is not a parameter of '%s'", f->name2, ref.inst->model->name);
        return;
    }
    if (!b->e || b->e->op != IE_VAR)
        nc_ice("runtime target '%s.%s' was not made settable", f->name, f->name2);
    IrRtParam rp = {arena_printf(&cc->arena, "%s.%s", f->name, f->name2), b->e->var, {0}, NULL};
    if (rp.var->per_neuron) {
        rp.view = (IrView){ref.inst->pop, ref.off, ref.size};
        /* its values arrive after the initialisers ran: none of them may read it */
        if (block_reads(&ref.inst->pop->init, rp.var)) {
            error_at(cc, f->loc, "'%s' is per neuron and the initial values of population '%s' read "
                     "it; a per-neuron run-time parameter is given after them, so none may read it",
                     rp.name, ref.inst->pop->name);
            return;
        }
    }
    add_rtparam(S, f, rp);
}

/* `seed = N`: an integer literal is read exactly, up to UINT64_MAX as `--seed` takes it; a
 * computed seed passes through a double, so it is held below 2^53, where doubles are exact. */
static void sim_seed(Sema *S, AstNode *e)
{
    Compiler *cc = S->cc;
    const char *t = e->kind == AST_NUM && !e->str ? e->name2 : NULL;
    if (t && strspn(t, "0123456789") == strlen(t)) {
        uint64_t v = 0;
        for (; *t; t++) {
            if (v > (UINT64_MAX - (uint64_t)(*t - '0')) / 10) {
                error_at(cc, e->loc, "the seed must be an integer from 0 to %llu",
                         (unsigned long long)UINT64_MAX);
                return;
            }
            v = v * 10 + (uint64_t)(*t - '0');
        }
        S->m->seed = v;
        return;
    }
    Ctx x = {S, cc, &S->global, NULL, NULL, 0, NULL, "the seed", 0, NULL, 0, 0};
    double v;
    Dim d;
    S->no_float_check++;
    int ok = sema_const_eval(&x, e, &v, &d);
    S->no_float_check--;
    if (ok && (!dim_is_none(d) || v != floor(v) || v < 0 || v > 9007199254740991.0)) {
        error_at(cc, e->loc, "the seed must be an integer from 0 to %llu; a seed computed by an "
                 "expression, from 0 to 9007199254740991 (2^53 - 1)", (unsigned long long)UINT64_MAX);
        return;
    }
    if (ok)
        S->m->seed = (uint64_t)v;
}

void sema_do_sim(Sema *S, AstNode *sim)
{
    Compiler *cc = S->cc;
    for (int i = 0; i < sim->list.n; i++) {
        AstNode *s = sim->list.v[i];
        const char *k = s->name;
        Ctx x = {S, cc, &S->global, NULL, NULL, 0, NULL, "a sim setting", 0, NULL, 0, 0};
        if (strcmp(k, "dt") == 0) {
            double v;
            Dim d;
            if (sema_const_eval(&x, s->a, &v, &d)) {
                if (!dim_eq(d, dim_time())) {
                    error_at(cc, s->a->loc, "dt has dimension %s, expected a time, e.g. 'dt = 0.1 ms'",
                             sema_fmt_dim(cc, d));
                    continue;
                }
                if (!(v > 0) || !isfinite(v)) {
                    error_at(cc, s->a->loc, "dt must be a positive finite time, e.g. 'dt = 0.1 ms'");
                    continue;
                }
                S->m->dt = v;
            }
        } else if (strcmp(k, "seed") == 0) {
            sim_seed(S, s->a);
        } else if (strcmp(k, "precision") == 0) {
            if (s->a->kind == AST_NAME && strcmp(s->a->name, "double") == 0)
                S->m->dbl = 1;
            else if (s->a->kind == AST_NAME && strcmp(s->a->name, "float") == 0)
                S->m->dbl = 0;
            else
                error_at(cc, s->a->loc, "precision is 'float' or 'double'");
        } else if (strcmp(k, "backend") == 0) {
            if (s->a->kind != AST_NAME || (strcmp(s->a->name, "c") && strcmp(s->a->name, "cpu") &&
                                           strcmp(s->a->name, "cuda") && strcmp(s->a->name, "opencl")))
                error_at(cc, s->a->loc, "backend is c, cuda or opencl");
        } else {
            error_at(cc, s->loc, "unknown sim setting '%s'", k);
            diag_extra(cc, "  note: settings are dt, seed, precision, backend");
        }
    }
}

void sema_do_const(Sema *S, AstNode *it)
{
    Compiler *cc = S->cc;
    Ctx x = {S, cc, &S->global, NULL, NULL, 0, NULL, "a constant", 0, NULL, 0, 0};
    double v;
    Dim d;
    if (!sema_const_eval(&x, it->b, &v, &d))
        return;
    if (it->a) {
        Dim td;
        IrType ty;
        sema_type_of(cc, it->a, &td, &ty);
        Val tmp = sema_mkval(ir_const(cc, v, IRT_REAL), d);
        tmp.anydim = v == 0;
        sema_expect_dim(&x, tmp, td, it->b->loc, arena_printf(&cc->arena, "constant '%s'", it->name));
        d = td;
    }
    Bind b = {0};
    b.name = it->name;
    b.kind = B_VAL;
    b.loc = it->loc;
    b.e = ir_const(cc, v, IRT_REAL);
    b.dim = d;
    sema_declare(cc, &S->global, b);
}
