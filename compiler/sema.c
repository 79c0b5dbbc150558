/* sema.c -- names, types and dimensions; models instantiated and lowered to IR.
 *
 * Pass list inside sema_lower():
 *   1. collect   global names (models, funcs, connect rules), `sim`, `set` targets
 *   2. check     every neuron and receptor model once, as a generic instance, so that
 *                errors inside a model are reported once even if it is never used
 *   3. network   top to bottom: const, population, projection, stimulus, record, run, set
 *   4. bodies    one fused per-neuron step body per population (receptors, stimuli,
 *                integration via ode.c, update, threshold, reset, refractoriness)
 * Checking and lowering are one walk: converting an AST expression yields IR and its Dim.
 * The passes live in sema_*.c behind sema_priv.h; this file holds the pass list.
 */
#define _DEFAULT_SOURCE /* realpath */
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nrt_philox.h"
#include "sema_priv.h"

/* Base population named by `name` (following views), from the population items. */
static const char *base_name(AstNode **items, int n, const char *name, int *isview)
{
    for (int guard = 0; guard < 64; guard++) {
        int found = 0;
        for (int i = 0; i < n; i++) {
            AstNode *it = items[i];
            if (it->kind != AST_POPULATION || it->name != name)
                continue;
            AstNode *atom = it->a->kind == AST_POPSUM ? it->a->list.v[0] : it->a;
            int view = 0;
            for (int j = 0; j < n; j++)
                if (items[j]->kind == AST_POPULATION && items[j]->name == atom->name)
                    view = 1;
            if (!view || atom->flag)
                return name;
            if (atom->a)
                *isview = 1;
            name = atom->name;
            found = 1;
            break;
        }
        if (!found)
            return name;
    }
    return name;
}

/* A `set` target, by base population: the parameter becomes settable, and an array when it
 * is set through a view or to anything but a constant (sema_set_is_const). */
static void collect_set(Sema *S, AstNode **items, int nitems, const char *name, const char *par,
                        AstNode *value)
{
    S->set_pop = realloc(S->set_pop, sizeof(char *) * (size_t)(S->nsets + 1));
    S->set_par = realloc(S->set_par, sizeof(char *) * (size_t)(S->nsets + 1));
    S->set_view = realloc(S->set_view, sizeof(int) * (size_t)(S->nsets + 1));
    if (!S->set_pop || !S->set_par || !S->set_view)
        nc_fatal("out of memory");
    S->set_view[S->nsets] = 0;
    S->set_pop[S->nsets] = base_name(items, nitems, name, &S->set_view[S->nsets]);
    int proj = 0;   /* a synapse parameter stays one value (sema_set_synapses refuses more) */
    for (int i = 0; i < nitems; i++)
        proj |= items[i]->kind == AST_PROJECTION && items[i]->name == name;
    if (value && !proj && !sema_set_is_const(S, value))
        S->set_view[S->nsets] = 1;
    S->set_par[S->nsets++] = par;
}

/* 1. collect: global names (models, funcs, connect rules), constants in order, the `sim`
 * block, `set` and `runtime` targets. */
static void collect(Sema *S, AstNode **items, int nitems)
{
    Compiler *cc = S->cc;
    /* the precision first: constants before the `sim` block are checked against it (conv) */
    for (int i = 0; i < nitems; i++)
        if (items[i]->kind == AST_SIM)
            for (int k = 0; k < items[i]->list.n; k++) {
                AstNode *st = items[i]->list.v[k];
                if (strcmp(st->name, "precision") == 0 && st->a->kind == AST_NAME &&
                    strcmp(st->a->name, "double") == 0)
                    S->m->dbl = 1;
            }
    int nsim = 0;
    for (int i = 0; i < nitems; i++) {
        AstNode *it = items[i];
        Bind b = {0};
        b.name = it->name;
        b.loc = it->loc;
        b.ast = it;
        switch (it->kind) {
        case AST_MODEL: b.kind = B_MODEL; sema_declare(cc, &S->global, b); break;
        case AST_FUNC: b.kind = B_FUNC; b.denv = &S->global; sema_declare(cc, &S->global, b); break;
        case AST_CONNECTDEF: b.kind = B_RULE; sema_declare(cc, &S->global, b); break;
        case AST_SERIES: sema_declare_series(S, it); break;
        case AST_CONST:
            sema_do_const(S, it); /* in order, so models and later constants see it */
            break;
        case AST_SIM:
            if (nsim++) {
                error_at(cc, it->loc, "a second 'sim' block");
                break;
            }
            sema_do_sim(S, it);
            break;
        case AST_SET:
            if (!it->name2) {   /* set P { x = e; .. } */
                for (int k = 0; k < it->list.n; k++)
                    if (it->list.v[k])
                        collect_set(S, items, nitems, it->name, it->list.v[k]->name, it->list.v[k]->a);
                break;
            }
            collect_set(S, items, nitems, it->name, it->name2, it->a);
            break;
        case AST_RUNTIME:
            for (int k = 0; k < it->list.n; k++) {
                AstNode *f = it->list.v[k];
                int view = 0;
                S->rt = sema_grow(cc, S->rt, S->nrt, sizeof *S->rt);
                S->rt[S->nrt++] = f;
                const char *base = base_name(items, nitems, f->name, &view);
                if (!view)
                    continue;
                /* `runtime V.x` of a view V: x becomes per-neuron, as a `set` through V makes it */
                S->set_pop = realloc(S->set_pop, sizeof(char *) * (size_t)(S->nsets + 1));
                S->set_par = realloc(S->set_par, sizeof(char *) * (size_t)(S->nsets + 1));
                S->set_view = realloc(S->set_view, sizeof(int) * (size_t)(S->nsets + 1));
                if (!S->set_pop || !S->set_par || !S->set_view)
                    nc_fatal("out of memory");
                S->set_view[S->nsets] = 1;
                S->set_pop[S->nsets] = base;
                S->set_par[S->nsets++] = f->name2;
            }
            break;
        default:
            break;
        }
    }
    /* series after the `sim` block and the constants, wherever they stand: their sampling
     * step is a number of steps of dt */
    for (int i = 0; i < nitems; i++)
        if (items[i]->kind == AST_SERIES)
            sema_do_series(S, items[i]);
}

/* 2. check every neuron and receptor model once */
static void check_models(Sema *S, AstNode **items, int nitems)
{
    Compiler *cc = S->cc;
    for (int i = 0; i < nitems; i++) {
        AstNode *it = items[i];
        if (it->kind != AST_MODEL)
            continue;
        sema_check_range_places(cc, it);
        for (int m = 0; it->op != TK_SYNAPSE && m < it->list.n; m++)
            if (it->list.v[m]->kind == AST_SETTING)
                error_at(cc, it->list.v[m]->loc, "'%s = ...' belongs in a synapse", it->list.v[m]->name);
        if (it->op == TK_NEURON) {
            Inst *in = sema_instantiate_neuron(S, "", it, NULL, NULL, 1, 1);
            sema_build_body(S, in);
        } else if (it->op == TK_RECEPTOR) {
            Inst *host = arena_alloc(&cc->arena, sizeof *host);
            host->pop = arena_alloc(&cc->arena, sizeof(IrPop));
            host->pop->cname = "check";
            host->pop->name = "";
            host->pop->size = 1;
            host->model = it;
            host->dummy = 1;
            RInst *r = sema_instantiate_receptor(S, it, NULL, host, NULL, 0, 1, NULL, NULL, 1, 0);
            sema_receptor_part(S, host, r, 2, &host->pop->body);
            sema_receptor_part(S, host, r, 4, &host->pop->body);
        } else if (it->op == TK_SYNAPSE) {   /* its parameters' types and defaults, used or not
                                               (those in `weight` where a projection binds it) */
            Env env = {0};
            env.parent = &S->global;
            sema_bind_params(S, &env, it, NULL, NULL, NULL, NULL, 0, it->loc);
        }
    }
}

/* 3. network, top to bottom; returns the total number of steps of the runs */
static int64_t network(Sema *S, AstNode **items, int nitems)
{
    Compiler *cc = S->cc;
    int64_t total = 0;
    for (int i = 0; i < nitems; i++) {
        AstNode *it = items[i];
        switch (it->kind) {
        case AST_POPULATION: sema_do_population(S, it); break;
        case AST_PROJECTION: sema_do_projection(S, it); break;
        case AST_STIMULUS: sema_do_stimulus(S, it); break;
        case AST_RECORD: sema_do_record(S, it); break;
        case AST_SET: sema_do_set(S, it); break;
        case AST_RUNTIME:
            for (int k = 0; k < it->list.n; k++)
                sema_do_runtime(S, it->list.v[k]);
            break;
        case AST_RUN: {
            int ok = 1;
            int64_t n = sema_steps_of(S, it->a, "the run length", &ok);
            if (ok && (double)(total + n) > MAX_STEPS) {
                error_at(cc, it->a->loc, "the runs add up to more than %g steps", MAX_STEPS);
                ok = 0;
            }
            if (ok) {
                IrPhase ph = {0};
                ph.kind = PH_RUN;
                ph.steps = n;
                sema_add_phase(S, ph);
                total += n;
            }
            break;
        }
        case AST_IMPORT:
        default:
            break;
        }
    }
    return total;
}

/* event-driven synapse dynamics: one propagator per bit of the longest catch-up */
static void event_dynamics(Sema *S, int64_t total, SrcLoc loc)
{
    Compiler *cc = S->cc;
    for (int k = 0; k < S->plast.nev; k++) {
        int bits = 1;
        while (bits < 62 && (int64_t)1 << bits <= total)
            bits++;
        EvPending *e = &S->plast.ev[k];
        if (total > INT32_MAX)
            error_at(cc, loc, "projection %s: event-driven synapse dynamics support up to "
                     "2^31 - 1 steps; use 'dynamics using clock'", e->pl->scope->name);
        ode_lower_event(cc, e->pl->scope, e->eqs, e->n, e->pl->last, bits, &e->pl->syn_catch);
    }
}

IrModel *sema_lower(Compiler *cc, AstNode **files, int nfiles, const char *name)
{
    Sema S0 = {0}, *S = &S0;
    S->cc = cc;
    S->m = arena_alloc(&cc->arena, sizeof *S->m);
    S->m->name = name;
    S->m->dt = 0.1;
    S->m->seed = 1;
    S->m->t0_rows = 1;            /* docs/language.md §12.6: state recordings start at t = 0 */
    cc->ir = S->m;

    int nitems = 0;
    for (int f = 0; f < nfiles; f++)
        nitems += files[f]->list.n;
    AstNode **items = arena_alloc(&cc->arena, sizeof(AstNode *) * (size_t)(nitems + 1));
    nitems = 0;
    for (int f = 0; f < nfiles; f++)
        for (int i = 0; i < files[f]->list.n; i++)
            items[nitems++] = files[f]->list.v[i];
    collect(S, items, nitems);
    check_models(S, items, nitems);
    int64_t total = network(S, items, nitems);
    S->m->total_steps = total;
    sema_check_windows(S, items, nitems, total);
    event_dynamics(S, total, files[nfiles - 1]->loc);

    /* 4. bodies */
    sema_finish_rings(S);
    for (int i = 0; i < S->ninsts; i++)
        sema_build_body(S, S->insts[i]);
    sema_set_prev(S);
    if (S->limit_msg && cc->diag.nerrors == 0)
        error_at(cc, S->limit_loc, "%s", S->limit_msg);
    if (cc->diag.nerrors == 0 && S->m->nphases == 0)
        warning_at(cc, files[nfiles - 1]->loc, "the model has no 'run': nothing will be simulated");
    free(S->set_pop);
    free(S->set_par);
    free(S->set_view);
    return cc->diag.nerrors ? NULL : S->m;
}
