/* sema_inst.c -- model instances: a model's parameters, functions, derived values and states
 * bound in the environment of one use (a population, a receptor or synapse of a projection),
 * checked against the arguments the network gives; neuron instances made into IrPops.
 *
 * Receptor instances are made in sema_recept.c, synapse instances in sema_plast.c and
 * sema_proj.c; each step body is built in sema_body.c.
 */
#include <math.h>
#include <string.h>

#include "nrt_philox.h"
#include "sema_priv.h"

static AstNode *find_arg(AstList *args, const char *name)
{
    for (int i = 0; i < args->n; i++)
        if (args->v[i]->kind == AST_ARG && args->v[i]->name == name)
            return args->v[i];
    return NULL;
}

/* Report arguments that name no parameter, and positional ones. */
int sema_check_args(Compiler *cc, AstList *args, AstNode *model, const char *what)
{
    int ok = 1;
    for (int i = 0; i < args->n; i++) {
        AstNode *a = args->v[i];
        if (a->kind != AST_ARG) {
            error_at(cc, a->loc, "arguments of %s '%s' must be named (name = value)", what,
                     model->name);
            ok = 0;
            continue;
        }
        int found = 0;
        for (int m = 0; m < model->list.n; m++) {
            AstNode *mem = model->list.v[m];
            if (mem->kind == AST_BLOCK_DECL && mem->op == TK_PARAM)
                for (int d = 0; d < mem->list.n; d++)
                    if (mem->list.v[d]->name == a->name)
                        found = 1;
        }
        if (!found) {
            error_at(cc, a->loc, "%s '%s' has no parameter '%s'", what, model->name, a->name);
            note_at(cc, model->loc2, "'%s' defined here", model->name);
            ok = 0;
        }
    }
    return ok;
}

static int is_set_target(Sema *S, const char *pop, const char *par, int *viaview)
{
    int r = 0;
    for (int i = 0; i < S->nrt; i++)
        if (S->rt[i]->name == pop && S->rt[i]->name2 == par)
            r = 1;
    for (int i = 0; i < S->nsets; i++)
        if (S->set_pop[i] == pop && S->set_par[i] == par) {
            r = 1;
            *viaview |= S->set_view[i];
        }
    return r;
}

static int pop_init_assigns(AstList *inits, const char *name)
{
    for (int i = 0; i < inits->n; i++)
        if (inits->v[i]->kind == AST_INIT && inits->v[i]->name == name)
            return 1;
    return 0;
}

/* A string parameter (docs/language.md §4): bound to the absolute path of the file it names,
 * looked up beside the .neuro file that holds the string, the argument's where the model is
 * used, else the default's. Its only use is from_file (conv_call). */
static void bind_string(Sema *S, Env *env, AstNode *model, AstNode *decl, AstNode *arg, int quiet,
                        SrcLoc useloc)
{
    Compiler *cc = S->cc;
    Bind b = {0};
    b.name = decl->name;
    b.kind = B_STR;
    b.loc = decl->loc;
    AstNode *val = arg ? arg->a : decl->b;
    Mute mu = sema_mute(cc, quiet && !arg && val); /* a default: reported by the generic check */
    if (val && val->kind != AST_STRING) {
        error_at(cc, val->loc, "parameter '%s' of '%s' is a string: a file name in quotes, "
                 "%s = \"spikes.csv\"", decl->name, model->name, decl->name);
        b.ast = val;
    } else if (val) {
        b.ast = val;
        b.path = sema_data_file_path(S, val, "spike file");
    } else if (quiet) {
        error_at(cc, useloc, "parameter '%s' of '%s' has no default and is not given", decl->name,
                 model->name);
        note_at(cc, decl->loc, "'%s' declared here", decl->name);
    }
    sema_unmute(cc, mu);
    sema_declare_q(cc, env, b, quiet);
}

/* Parameters of a model instance: constants, settable scalars or per-neuron arrays.
 * `args` come from Model(args) in the network (checked unmuted by the caller),
 * `inits` are the population's initialisers. */
void sema_bind_params(Sema *S, Env *env, AstNode *model, AstList *args, AstList *inits,
                      IrPop *pop, const char *setname, int quiet, SrcLoc useloc)
{
    Compiler *cc = S->cc;
    for (int m = 0; m < model->list.n; m++) {
        AstNode *mem = model->list.v[m];
        if (mem->kind != AST_BLOCK_DECL || mem->op != TK_PARAM)
            continue;
        for (int d = 0; d < mem->list.n; d++) {
            AstNode *decl = mem->list.v[d];
            if (decl->a && decl->a->kind == AST_TYPE && decl->a->op == TY_STRING) {
                AstNode *arg = args ? find_arg(args, decl->name) : NULL;
                bind_string(S, env, model, decl, arg, quiet, useloc);
                continue;
            }
            if (decl->a && decl->a->kind == AST_TYPE && decl->a->op == TY_SERIES) {
                AstNode *arg = args ? find_arg(args, decl->name) : NULL;
                sema_bind_series_param(S, env, model, decl, arg, quiet, useloc);
                continue;
            }
            Dim dim;
            IrType ty;
            /* a synapse has no generic check: its instances report its declarations (each
             * message once, diag.c), defaults where `weight` is bound (a plastic synapse) */
            int loud = model->op == TK_SYNAPSE;
            Mute mu = sema_mute(cc, quiet && !loud);
            int tok = sema_type_of(cc, decl->a, &dim, &ty);
            sema_unmute(cc, mu);
            if (S->plast.has_wsub)
                dim = dim_subst_weight(dim, S->plast.wsub);
            loud = loud && dim.e[DIM_W] == 0;
            Dim edim = dim;
            AstNode *arg = args ? find_arg(args, decl->name) : NULL;
            double val = 0;
            if (!tok) {
                /* the type was reported; checking values against it would only add noise */
            } else if (arg) {
                Ctx y = {S, cc, &S->global, NULL, NULL, 0, NULL, "a model argument", 0, NULL, 0, 0};
                Dim ad;
                if (sema_const_eval(&y, arg->a, &val, &ad)) {
                    Val tmp = sema_mkval(ir_const(cc, val, ty), ad);
                    tmp.anydim = val == 0;
                    sema_expect_dim(&y, tmp, edim, arg->a->loc,
                                    arena_printf(&cc->arena, "parameter '%s'", decl->name));
                }
            } else if (decl->b) {
                Ctx y = {S, cc, env, NULL, NULL, 0, NULL, "a parameter default", 0, NULL, 0, 0};
                /* a default in `weight` is checked where a projection binds weight */
                Mute mu2 = sema_mute(cc, (quiet && !loud) || dim.e[DIM_W] != 0);
                Dim vd;
                if (sema_const_eval(&y, decl->b, &val, &vd)) {
                    Val tmp = sema_mkval(ir_const(cc, val, ty), vd);
                    tmp.anydim = val == 0;
                    sema_expect_dim(&y, tmp, dim, decl->b->loc,
                                    arena_printf(&cc->arena, "the default of '%s'", decl->name));
                }
                sema_unmute(cc, mu2);
            } else if (quiet && !(inits && pop_init_assigns(inits, decl->name))) {
                /* (generic check instances leave it open) */
                error_at(cc, useloc, "parameter '%s' of '%s' has no default and is not given",
                         decl->name, model->name);
                note_at(cc, decl->loc, "'%s' declared here", decl->name);
            }
            Bind b = {0};
            b.name = decl->name;
            b.kind = B_VAL;
            b.loc = decl->loc;
            b.dim = dim;
            b.is_param = 1;
            int viaview = 0;
            int settable = setname && is_set_target(S, setname, decl->name, &viaview);
            int per = (inits && pop_init_assigns(inits, decl->name)) || viaview;
            if (pop && (per || settable)) {
                IrVar *v = ir_new_var(cc, pop, IV_PARAM, decl->name, ty, dim, per);
                v->init = val;
                char ub[64];
                dim_format(edim, ub, sizeof ub);
                v->unit = arena_strdup(&cc->arena, ub);
                v->decl_unit = "1";
                v->decl_scale = 1;
                AstNode *ut = !tok || !decl->a ? NULL
                              : decl->a->kind != AST_TYPE ? decl->a
                              : decl->a->op == TY_UNIT ? decl->a->a : NULL;
                Dim ud;
                if (ut && sema_unit_scale(cc, ut, &ud, &v->decl_scale))
                    v->decl_unit = sema_decl_unit_text(cc, ut);   /* --set's hints and --help */
                if (per) {
                    sema_emit_assign(cc, &pop->init, v, ir_const(cc, val, ty));
                    b.var = v; /* assignable from the population's initialisers only */
                }
                b.e = ir_var(cc, v);
            } else {
                b.e = ir_const(cc, val, ty);
            }
            sema_declare_q(cc, env, b, quiet);
        }
    }
}

/* Declare a model's functions (derived = 0) or its derived values (derived = 1, after the
 * parameters, which derived values may use). */
void sema_bind_funcs_derived(Sema *S, Env *env, AstNode *model, int quiet, int derived)
{
    Compiler *cc = S->cc;
    for (int m = 0; m < model->list.n; m++) {
        AstNode *mem = model->list.v[m];
        if (mem->kind == AST_FUNC && !derived) {
            Bind b = {0};
            b.name = mem->name;
            b.kind = B_FUNC;
            b.loc = mem->loc;
            b.ast = mem;
            b.denv = env;
            sema_declare_q(cc, env, b, quiet);
        } else if (mem->kind == AST_BLOCK_DECL && mem->op == TK_DERIVED && derived) {
            for (int d = 0; d < mem->list.n; d++) {
                AstNode *decl = mem->list.v[d];
                Dim dim;
                IrType ty;
                Mute mu = sema_mute(cc, quiet);
                int nerr = cc->diag.nerrors;
                int tok = sema_type_of(cc, decl->a, &dim, &ty);
                Val v = {0};
                if (!decl->b)
                    error_at(cc, decl->loc, "derived value '%s' needs '= expression'", decl->name);
                else if (tok) {
                    Ctx y = {S, cc, env, NULL, NULL, 0, NULL, "a derived value", 0, NULL, 0, 0};
                    v = sema_conv(&y, decl->b);
                    sema_expect_dim(&y, v, dim, decl->b->loc, arena_printf(&cc->arena, "derived value '%s'", decl->name));
                }
                int clean = v.ok && cc->diag.nerrors == nerr;
                sema_unmute(cc, mu);
                Bind b = {0};
                if (clean) {
                    b.memo = v.e;
                    b.memo_anydim = v.anydim;
                    b.memo_syn = S->plast.syn;
                }
                b.memo_bad = decl->b && !clean;
                b.name = decl->name;
                b.kind = B_DERIVED;
                b.loc = decl->loc;
                b.dim = dim;
                b.ast = decl->b ? decl->b : decl;
                b.denv = env;
                if (decl->b)
                    sema_declare_q(cc, env, b, quiet);
            }
        }
    }
}

/* A name in a range bound that is not a global constant, or NULL. */
static AstNode *range_name(Sema *S, AstNode *n)
{
    if (!n)
        return NULL;
    if (n->kind == AST_NAME && !sema_env_find(&S->global, n->name))
        return n;
    if (n->kind == AST_IN)
        return range_name(S, n->a);
    AstNode *k[4] = {n->a, n->b, n->c, n->d};
    for (int i = 0; i < 4; i++) {
        AstNode *r = k[i] && ast_is_expr(k[i]) ? range_name(S, k[i]) : NULL;
        if (r)
            return r;
    }
    for (int i = 0; i < n->list.n; i++) {
        AstNode *a = n->list.v[i]->kind == AST_ARG ? n->list.v[i]->a : n->list.v[i];
        AstNode *r = range_name(S, a);
        if (r)
            return r;
    }
    return NULL;
}

/* `range(lo, hi)`, `range(>= lo)` or `range(<= hi)` of the state declaration `decl`: v's
 * valid range, checked after each step like finiteness (docs/language.md §4). The bounds
 * are constants (numbers with units, global consts) of the state's dimension, so every
 * instance has the same; lo < hi. Reports through the caller's muting. */
void sema_state_range(Sema *S, AstNode *decl, IrVar *v)
{
    Compiler *cc = S->cc;
    if (!decl->list2.n)
        return;
    AstNode *g = decl->list2.v[0], *e[2] = {g->a, g->b};
    double b[2] = {0, 0};
    if (v->type != IRT_REAL) {
        error_at(cc, g->loc, "a range needs a state with a unit or '1', not %s",
                 v->type == IRT_INT ? "'int'" : "'bool'");
        return;
    }
    for (int k = 0; k < 2; k++) {
        if (!e[k])
            continue;
        AstNode *nm = range_name(S, e[k]);
        if (nm) {
            error_at(cc, nm->loc, "a range bound is a constant: numbers with units and 'const' "
                     "names, and '%s' is not one", nm->name);
            return;
        }
        Ctx y = {S, cc, &S->global, NULL, NULL, 0, NULL, "a range bound", 0, NULL, 0, 0};
        Dim d;
        if (!sema_const_eval(&y, e[k], &b[k], &d))
            return;
        Val tmp = sema_mkval(ir_const(cc, b[k], IRT_REAL), d);
        tmp.anydim = b[k] == 0;
        if (!sema_expect_dim(&y, tmp, v->dim, e[k]->loc, k ? "the upper range bound" : "the lower range bound"))
            return;
        if (!isfinite(b[k])) {
            error_at(cc, e[k]->loc, "a range bound must be finite");
            return;
        }
    }
    if (e[0] && e[1] && !(b[0] < b[1])) {
        const char *u = strcmp(v->unit, "1") == 0 ? "" : v->unit, *sp = *u ? " " : "";
        error_at(cc, g->loc, "the range of '%s' is empty: the lower bound %g%s%s is not below "
                 "the upper bound %g%s%s", decl->name, b[0], sp, u, b[1], sp, u);
        return;
    }
    v->has_lo = e[0] != NULL;
    v->has_hi = e[1] != NULL;
    v->lo = b[0];
    v->hi = b[1];
}

/* A `range` only on the states of neurons and receptors: the run checks those. */
void sema_check_range_places(Compiler *cc, AstNode *model)
{
    for (int m = 0; m < model->list.n; m++) {
        AstNode *mem = model->list.v[m];
        int scope = mem->kind == AST_SCOPE;
        if (mem->kind != AST_BLOCK_DECL && !scope)
            continue;
        for (int d = 0; d < mem->list.n; d++) {
            AstNode *decl = mem->list.v[d];
            if (scope && decl->kind == AST_BLOCK_DECL) { /* pre { state { ... } } */
                for (int q = 0; q < decl->list.n; q++)
                    if (decl->list.v[q]->kind == AST_DECL && decl->list.v[q]->list2.n)
                        error_at(cc, decl->list.v[q]->list2.v[0]->loc, "a range is checked on "
                                 "the states of neurons and receptors only, not of a synapse");
                continue;
            }
            if (decl->kind != AST_DECL || !decl->list2.n)
                continue;
            if (mem->op != TK_STATE)
                error_at(cc, decl->list2.v[0]->loc, "a range belongs on a state declaration, "
                         "not in '%s'", mem->op == TK_PARAM ? "param" : mem->op == TK_DERIVED ?
                         "derived" : mem->op == TK_INPUT ? "input" : "require");
            else if (model->op == TK_SYNAPSE)
                error_at(cc, decl->list2.v[0]->loc, "a range is checked on the states of "
                         "neurons and receptors only, not of a synapse");
        }
    }
}

/* Create a neuron instance: parameters, states (with initialisers), ports. */
Inst *sema_instantiate_neuron(Sema *S, const char *popname, AstNode *model, AstList *args,
                              AstList *inits, int64_t size, int dummy)
{
    Compiler *cc = S->cc;
    Inst *in = arena_alloc(&cc->arena, sizeof *in);
    IrPop *pop = arena_alloc(&cc->arena, sizeof *pop);
    in->model = model;
    in->pop = pop;
    in->dummy = dummy;
    in->env.parent = &S->global;
    pop->grid = S->grid_next;
    pop->name = popname;
    pop->cname = ir_cname(cc, "pop_", popname[0] ? popname : model->name);
    pop->model = model->name;
    pop->size = size;
    int quiet = !dummy;
    if (args && !sema_check_args(cc, args, model, "neuron"))
        args = NULL;
    sema_bind_funcs_derived(S, &in->env, model, quiet, 0);
    sema_bind_params(S, &in->env, model, args, inits, pop, dummy ? NULL : popname, quiet, S->useloc);
    sema_bind_funcs_derived(S, &in->env, model, quiet, 1);
    int viaview = 0;
    if (!dummy && is_set_target(S, popname, intern_cstr(cc, "active"), &viaview)) {
        pop->active = ir_new_var(cc, pop, IV_PARAM, "active", IRT_INT, DIM_NONE, 0);
        pop->active->init = 1;
        pop->active->unit = "1";
    }

    /* population initialisers: lets and parameter values, in order */
    Env ienv = {0};
    ienv.parent = &in->env;
    uint32_t isite = 0;
    Ctx ix = {S, cc, &ienv, pop, &pop->init,
              (NRT_STREAM_NEURON_INIT << 24) | (uint32_t)(S->ninsts & 0xFFFFFF), &isite,
              "a population initialiser", A_INDEX | A_POS, in, 0, 0};
    if (inits) {
        for (int k = 0; k < inits->n; k++) {
            AstNode *it = inits->v[k];
            if (it->kind == AST_LET) {
                sema_conv_stmt(&ix, it, &pop->init);
                continue;
            }
            Bind *b = sema_env_find_here(&in->env, it->name);
            if (b && b->kind == B_STR)
                error_at(cc, it->loc,
                         "string parameter '%s' is the same for the whole population: give it "
                         "as an argument, %s(%s = \"...\")", it->name, model->name, it->name);
            if (b && b->kind == B_SERIES && b->ast && b->ast->kind == AST_DECL)
                error_at(cc, it->loc,
                         "series parameter '%s' is the same for the whole population: give it "
                         "as an argument, %s(%s = NAME)", it->name, model->name, it->name);
            if (b && b->is_param) {
                Val v = sema_conv(&ix, it->a);
                if (sema_expect_dim(&ix, v, b->dim, it->a->loc, arena_printf(&cc->arena, "parameter '%s'", it->name)) && v.ok)
                    sema_emit_assign(cc, &pop->init, b->var, v.e);
            }
        }
    }
    /* states, in declaration order; then ports */
    for (int m = 0; m < model->list.n; m++) {
        AstNode *mem = model->list.v[m];
        if (mem->kind != AST_BLOCK_DECL || (mem->op != TK_STATE && mem->op != TK_INPUT))
            continue;
        for (int d = 0; d < mem->list.n; d++) {
            AstNode *decl = mem->list.v[d];
            Dim dim;
            IrType ty;
            Mute mu = sema_mute(cc, quiet);
            int tok = sema_type_of(cc, decl->a, &dim, &ty);
            sema_unmute(cc, mu);
            Bind b = {0};
            b.name = decl->name;
            b.kind = B_VAL;
            b.loc = decl->loc;
            b.dim = dim;
            if (mem->op == TK_INPUT) {
                in->ports = sema_grow(cc, in->ports, in->nports, sizeof(Port));
                Port *pt = &in->ports[in->nports++];
                pt->name = decl->name;
                pt->dim = dim;
                pt->local = -1;
                b.port = 1;
                b.e = NULL; /* bound when the body is built */
                sema_declare_q(cc, &in->env, b, quiet);
                continue;
            }
            IrVar *v = ir_new_var(cc, pop, IV_STATE, decl->name, ty, dim, 1);
            v->unit = sema_unit_text(cc, dim);
            if (tok) {
                Mute mr = sema_mute(cc, quiet);
                sema_state_range(S, decl, v);
                sema_unmute(cc, mr);
            }
            b.var = v;
            b.e = ir_var(cc, v);
            AstNode *ov = NULL;
            if (inits)
                for (int k = 0; k < inits->n; k++)
                    if (inits->v[k]->kind == AST_INIT && inits->v[k]->name == decl->name)
                        ov = inits->v[k];
            IrExpr *init = ir_const(cc, 0, ty);
            if (ov) {
                Val v2 = sema_conv(&ix, ov->a);
                if (sema_expect_dim(&ix, v2, dim, ov->a->loc, arena_printf(&cc->arena, "initial value of '%s'", decl->name)))
                    init = v2.e;
            } else if (decl->b && tok) {
                Mute mu2 = sema_mute(cc, quiet);
                Ctx dx = ix;
                dx.where = "a state's initial value";
                Val v2 = sema_conv(&dx, decl->b);
                if (sema_expect_dim(&dx, v2, dim, decl->b->loc, arena_printf(&cc->arena, "initial value of '%s'", decl->name)))
                    init = v2.e;
                sema_unmute(cc, mu2);
            }
            sema_emit_assign(cc, &pop->init, v, init);
            sema_declare_q(cc, &in->env, b, quiet);
        }
    }
    /* initialisers that name nothing */
    if (inits)
        for (int k = 0; k < inits->n; k++) {
            AstNode *it = inits->v[k];
            if (it->kind != AST_INIT)
                continue;
            Bind *b = sema_env_find_here(&in->env, it->name);
            if (!b || (!b->is_param && !b->var && b->kind != B_STR &&
                       !(b->kind == B_SERIES && b->ast && b->ast->kind == AST_DECL))) {
                error_at(cc, it->loc, "'%s' is not a parameter or state of '%s'", it->name,
                         model->name);
                note_at(cc, model->loc2, "'%s' defined here", model->name);
            }
        }
    return in;
}

AstNode *sema_member(AstNode *model, AstKind k, int op)
{
    for (int m = 0; m < model->list.n; m++) {
        AstNode *mem = model->list.v[m];
        if (mem->kind == k && (op == 0 || mem->op == op))
            return mem;
    }
    return NULL;
}
