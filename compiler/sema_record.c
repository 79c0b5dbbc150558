/* sema_record.c -- `record` statements: spikes, states, population rates, receptor states
 * and input ports, synapse states and their subsets, windows; each becomes an IrRecord.
 */
#include <math.h>
#include <string.h>

#include "sema_priv.h"

/* The plastic projection a `record x of NAME` names, or NULL (then NAME is a population). */
static IrProj *recorded_projection(Sema *S, AstNode *it)
{
    if (it->flag || it->a->a)
        return NULL;
    for (int k = 0; k < S->m->nprojs; k++)
        if (S->m->projs[k]->name == it->a->name)
            return S->m->projs[k];
    return NULL;
}

/* `every T` of a recording, in steps (at least one); 0 after a diagnostic. */
static int record_every(Sema *S, AstNode *b, int64_t *every)
{
    int ok = 1;
    *every = sema_steps_of(S, b, "the recording interval", &ok);
    if (!ok)
        return 0;
    if (*every < 1) {
        error_at(S->cc, b->loc, "the recording interval must be at least one step");
        return 0;
    }
    return 1;
}

/* `from A to B` of a recording: the steps [A, B) in rec (A < B, whole steps); 0 after a
 * diagnostic. That B is within the run is checked once the run is known
 * (sema_check_windows). */
static int record_window(Sema *S, AstNode *w, IrRecord *rec)
{
    int ok = 1;
    rec->win_lo = sema_steps_of(S, w->a, "the recording window's start", &ok);
    if (ok)
        rec->win_hi = sema_steps_of(S, w->b, "the recording window's end", &ok);
    if (!ok)
        return 0;
    if (rec->win_hi <= rec->win_lo) {
        error_at(S->cc, w->loc, "the recording window ends (step %lld) before it starts (step %lld): "
                                "write 'from A to B' with A < B",
                 (long long)rec->win_hi, (long long)rec->win_lo);
        return 0;
    }
    return 1;
}

/* Contract: sema_priv.h. */
void sema_check_windows(Sema *S, AstNode **items, int nitems, int64_t total)
{
    for (int i = 0; i < nitems; i++) {
        AstNode *it = items[i];
        if (it->kind != AST_RECORD || !it->c)
            continue;
        Mute mu = sema_mute(S->cc, 1);   /* reported by record_window */
        int ok = 1;
        int64_t hi = sema_steps_of(S, it->c->b, "", &ok);
        sema_unmute(S->cc, mu);
        if (ok && hi > total)
            error_at(S->cc, it->c->b->loc, "the recording window ends after the run: step %lld, but the "
                                          "run has %lld steps", (long long)hi, (long long)total);
    }
}

static void push_record(Sema *S, IrRecord rec)
{
    IrModel *m = S->m;
    m->recs = sema_grow(S->cc, m->recs, m->nrecs, sizeof *m->recs);
    m->recs[m->nrecs++] = rec;
}

/* 1 when every name of `record a, b of PROJ` is a per-synapse state of PROJ's synapse. */
static int names_synapse_states(const AstNode *it, const IrProj *pj)
{
    for (int k = 0; k < it->list.n; k++) {
        int found = 0;
        for (int s = 0; pj->plast && s < pj->plast->nsyn; s++)
            found |= strcmp(pj->plast->syn[s]->label, it->list.v[k]->name) == 0;
        if (!found)
            return 0;
    }
    return 1;
}

/* `record g, ... of PROJ|STIM [every T] to "file"`: states of the receptor that a projection
 * or a stimulus feeds, one column per neuron of its post view. A merged receptor's states are
 * its lead's (docs/architecture.md, "Merged receptors"): they are what is recorded. */
static void record_receptor(Sema *S, AstNode *it, RInst *r, const char *what, IrRecord rec)
{
    Compiler *cc = S->cc;
    rec.view = (IrView){r->post->pop, r->off, r->size};
    rec.nidx = (int)r->size;
    rec.idx = arena_alloc(&cc->arena, sizeof(int64_t) * (size_t)rec.nidx);
    for (int i = 0; i < rec.nidx; i++)
        rec.idx[i] = r->off + i;
    rec.vars = arena_alloc(&cc->arena, sizeof(IrVar *) * (size_t)it->list.n);
    rec.names = arena_alloc(&cc->arena, sizeof(char *) * (size_t)it->list.n);
    for (int k = 0; k < it->list.n; k++) {
        AstNode *vn = it->list.v[k];
        Bind *b = sema_env_find_here(&r->env, vn->name);
        if (!b || !b->var || b->var->kind != IV_RSTATE) {
            error_at(cc, vn->loc, "'%s' is not a state of receptor '%s' (of %s)", vn->name, r->model->name,
                     what);
            return;
        }
        rec.names[rec.nvars] = vn->name;
        rec.vars[rec.nvars++] = b->var;
    }
    if (it->b && !record_every(S, it->b, &rec.every))
        return;
    push_record(S, rec);
}

/* `record I_syn of P`: the variable that holds input port `name`'s value of the step (made
 * once per port; docs/language.md §12.6). Not checked by the state check: a port's value is
 * the model's input, not a state it keeps. */
static IrVar *recorded_port(Sema *S, Inst *in, const char *name)
{
    Compiler *cc = S->cc;
    for (int p = 0; p < in->nports; p++) {
        Port *pt = &in->ports[p];
        if (strcmp(pt->name, name) != 0)
            continue;
        if (!pt->rec) {
            pt->rec = ir_new_var(cc, in->pop, IV_STATE, pt->name, IRT_REAL, pt->dim, 1);
            pt->rec->unit = sema_unit_text(cc, pt->dim);
            pt->rec->nocheck = 1;
            sema_emit_assign(cc, &in->pop->init, pt->rec, ir_const(cc, 0, IRT_REAL));
        }
        return pt->rec;
    }
    nc_ice("port '%s' bound but not listed", name);
}

/* `[pre a:b, post c:d]` or `[sample k]` after `record w of PROJ`: the subset in rec; 0 after
 * a diagnostic. */
static int synapse_subset(Sema *S, AstNode *q, const IrProj *pj, IrRecord *rec)
{
    Compiler *cc = S->cc;
    int ok = 1;
    if (cc->opt.mpi) {
        error_at(cc, q->loc, "a subset of synapses cannot be recorded with --mpi yet; record them all "
                             "('record w of %s')", pj->name);
        return 0;
    }
    if (q->c) {
        double k = q->c->num;
        if (strcmp(q->name, "sample") != 0) {
            error_at(cc, q->loc2, "'%s': a subset of synapses is '[pre a:b, post c:d]' or '[sample k]'",
                     q->name);
            return 0;
        }
        if (!(k >= 1 && k <= INT32_MAX && k == floor(k))) {
            error_at(cc, q->c->loc, "the sample must be a whole number of synapses from 1 to %d",
                     INT32_MAX);
            return 0;
        }
        rec->syn_sel = 2;
        rec->nsample = (int64_t)k;
        return 1;
    }
    if ((q->a && q->a->flag) || (q->b && !q->b->flag)) {
        error_at(cc, q->loc, "write the ranges as '[pre a:b, post c:d]' (each once, pre first)");
        return 0;
    }
    rec->syn_sel = 1;
    rec->pre_lo = 0;
    rec->pre_hi = pj->pre.size;
    rec->post_lo = 0;
    rec->post_hi = pj->post.size;
    if (q->a) {
        rec->pre_lo = sema_const_int(S, q->a->a, "a presynaptic index", 0, pj->pre.size, &ok);
        rec->pre_hi = sema_const_int(S, q->a->b, "a presynaptic index", 0, pj->pre.size, &ok);
    }
    if (q->b) {
        rec->post_lo = sema_const_int(S, q->b->a, "a postsynaptic index", 0, pj->post.size, &ok);
        rec->post_hi = sema_const_int(S, q->b->b, "a postsynaptic index", 0, pj->post.size, &ok);
    }
    if (ok && (rec->pre_hi <= rec->pre_lo || rec->post_hi <= rec->post_lo)) {
        error_at(cc, q->loc, "empty range %lld:%lld", (long long)(rec->pre_hi <= rec->pre_lo ? rec->pre_lo : rec->post_lo),
                 (long long)(rec->pre_hi <= rec->pre_lo ? rec->pre_hi : rec->post_hi));
        return 0;
    }
    return ok;
}

/* `record w, ... of PROJ [every T] to "file"`: per-synapse states, one column per synapse;
 * for a static projection, or names that are no synapse state, its receptor's states. */
static void record_synapses(Sema *S, AstNode *it, IrProj *pj, IrRecord rec)
{
    Compiler *cc = S->cc;
    if (it->d && !pj->plast) {
        error_at(cc, it->d->loc, "projection '%s' has static synapses, which hold no state to record: a "
                                 "subset of synapses takes a plastic projection", pj->name);
        return;
    }
    if (it->d && !synapse_subset(S, it->d, pj, &rec))
        return;
    if (!it->d && !names_synapse_states(it, pj)) {
        RInst *r = sema_receptor_of(S, pj, NULL, NULL);
        if (!pj->plast && !r) {
            error_at(cc, it->a->loc, "projection '%s' has static synapses and no receptor, which hold no "
                                     "state to record", pj->name);
            return;
        }
        if (!pj->plast || (r && sema_env_find_here(&r->env, it->list.v[0]->name))) {
            record_receptor(S, it, r, arena_printf(&cc->arena, "projection '%s'", pj->name), rec);
            return;
        }
    }
    rec.proj = pj;
    rec.view = pj->post;
    rec.vars = arena_alloc(&cc->arena, sizeof(IrVar *) * (size_t)it->list.n);
    for (int k = 0; k < it->list.n; k++) {
        AstNode *vn = it->list.v[k];
        IrVar *v = NULL;
        for (int s = 0; s < pj->plast->nsyn; s++)
            if (strcmp(pj->plast->syn[s]->label, vn->name) == 0)
                v = pj->plast->syn[s];
        if (!v) {
            error_at(cc, vn->loc, "'%s' is not a per-synapse state of synapse '%s'", vn->name,
                     pj->plast->scope->model);
            return;
        }
        rec.vars[rec.nvars++] = v;
    }
    if (it->b && !record_every(S, it->b, &rec.every))
        return;
    push_record(S, rec);
}

/* `record rate of T bin B to "file"`: the spikes of target T per bin of B (a whole number of
 * steps) over size x bin, in Hz. rec has its file; ref the target. */
static void record_rate(Sema *S, AstNode *it, PopRef *ref, IrRecord rec)
{
    Compiler *cc = S->cc;
    AstNode *t = it->a;
    if (strcmp(it->d->name, "bin") != 0) {
        error_at(cc, it->d->loc, "unexpected '%s' in 'record': expected 'every', 'bin' or 'to'", it->d->name);
        return;
    }
    if (it->flag || it->list.n != 1 || strcmp(it->list.v[0]->name, "rate") != 0) {
        error_at(cc, it->d->loc, "'bin' belongs to a population rate: record rate of %s bin T to \"file\"",
                 t->name);
        return;
    }
    if (!ref->inst->pop->has_spikes && sema_member(ref->inst->model, AST_SPIKE_WHEN, 0) == NULL) {
        error_at(cc, it->loc, "'%s' never spikes: model '%s' has no 'spike when'", t->name,
                 ref->inst->model->name);
        return;
    }
    int ok = 1;
    rec.bin = sema_steps_of(S, it->d->a, "the rate bin", &ok);
    if (!ok)
        return;
    if (rec.bin < 1) {
        error_at(cc, it->d->a->loc, "the rate bin must be at least one step");
        return;
    }
    rec.view = (IrView){ref->inst->pop, ref->off, ref->size};
    rec.target = t->name;
    if (strcmp(ref->name, ref->inst->pop->name) != 0 && !t->a)
        rec.view_name = ref->name;   /* a declared view, whole */
    push_record(S, rec);
}

void sema_do_record(Sema *S, AstNode *it)
{
    Compiler *cc = S->cc;
    PopRef ref;
    int64_t *idx;
    int nidx;
    AstNode *t = it->a;
    IrProj *rp = recorded_projection(S, it);
    int rate = it->d && it->d->kind == AST_NAME;   /* record rate of T bin B */
    int whole = it->flag || rate;   /* spikes and rates: a population, view or range */
    if (rate && t->a && t->a->kind == AST_IDXLIST && t->a->list.n != 1) {
        error_at(cc, t->a->loc, "a rate recording needs a population, a view or a range P[a:b], not a list of neurons");
        return;
    }
    Stim *rst = NULL;
    RInst *sr = rp || whole || t->a ? NULL : sema_receptor_of(S, NULL, t->name, &rst);
    if (rst && !sr) {
        error_at(cc, t->loc, "stimulus '%s' has no receptor ('via'), which holds no state to record",
                 t->name);
        return;
    }
    if (!rp && !rst && !sema_resolve_target(S, t, t->name, whole ? NULL : t->a, &ref, whole ? NULL : &idx,
                                            whole ? NULL : &nidx))
        return;
    if (!rp && !rst && whole && t->a) {
        if (!sema_resolve_target(S, t, t->name, t->a, &ref, NULL, NULL))
            return;
    }
    const char *f = it->str;
    size_t fl = strlen(f);
    int h5 = fl > 3 && strcmp(f + fl - 3, ".h5") == 0;
    if (!h5 && !(fl > 4 && (strcmp(f + fl - 4, ".npy") == 0 || strcmp(f + fl - 4, ".csv") == 0))) {
        error_at(cc, it->loc, "recording file '%s' must end in .npy, .csv or .h5", f);
        return;
    }
    if (h5 && (rp || rst || !it->flag)) {
        error_at(cc, it->loc, "only spikes can be recorded to '.h5' (a SONATA spike file); record "
                              "states to .npy or .csv");
        return;
    }
#ifndef NEUROC_HDF5_LIB
    if (h5) {
        error_at(cc, it->loc, "recording file '%s': this neuroc was built without HDF5 (install "
                              "libhdf5-dev and rebuild it), use .npy or .csv", f);
        return;
    }
#endif
    if (strchr(f, '/') || strchr(f, '\\') || f[0] == '.') {
        error_at(cc, it->loc, "recording file '%s' must be a plain file name (it goes into the output folder)", f);
        return;
    }
    for (int i = 0; i < S->m->nrecs; i++)
        if (strcmp(S->m->recs[i].file, f) == 0) {
            error_at(cc, it->loc, "two recordings write '%s'", f);
            return;
        }
    IrRecord rec = {0};
    rec.file = f;
    rec.every = 1;
    if (rate) {
        if (rp)
            error_at(cc, t->loc, "a rate recording needs a population or a view, not projection '%s'", rp->name);
        else
            record_rate(S, it, &ref, rec);
        return;
    }
    if (it->c && !record_window(S, it->c, &rec))
        return;
    if (rp) {
        record_synapses(S, it, rp, rec);
        return;
    }
    if (it->d) {
        error_at(cc, it->d->loc, "'%s' is not a projection: '[pre a:b, post c:d]' and '[sample k]' select "
                                 "synapses of a plastic projection", t->name);
        return;
    }
    if (rst) {
        record_receptor(S, it, sr, arena_printf(&cc->arena, "stimulus '%s'", t->name), rec);
        return;
    }
    rec.spikes = it->flag;
    rec.view = (IrView){ref.inst->pop, ref.off, ref.size};
    if (strcmp(ref.name, ref.inst->pop->name) != 0 && !(it->flag && t->a))
        rec.view_name = ref.name;   /* a declared view, whole (not a slice of it) */
    if (it->flag) {
        if (!ref.inst->pop->has_spikes && sema_member(ref.inst->model, AST_SPIKE_WHEN, 0) == NULL) {
            error_at(cc, it->loc, "'%s' never spikes: model '%s' has no 'spike when'", t->name,
                     ref.inst->model->name);
            return;
        }
        if (it->b)
            error_at(cc, it->b->loc, "spike recordings take no 'every'");
    } else {
        if (!idx) {
            nidx = (int)ref.size;
            idx = arena_alloc(&cc->arena, sizeof(int64_t) * (size_t)nidx);
            for (int i = 0; i < nidx; i++)
                idx[i] = ref.off + i;
        }
        rec.idx = idx;
        rec.nidx = nidx;
        rec.vars = arena_alloc(&cc->arena, sizeof(IrVar *) * (size_t)it->list.n);
        for (int k = 0; k < it->list.n; k++) {
            AstNode *vn = it->list.v[k];
            Bind *b = sema_env_find_here(&ref.inst->env, vn->name);
            if (b && b->port) {
                rec.vars[rec.nvars++] = recorded_port(S, ref.inst, vn->name);
                continue;
            }
            if (!b || !b->var || (b->var->kind != IV_STATE && !(b->var->kind == IV_PARAM))) {
                error_at(cc, vn->loc, "'%s' is not a state variable of '%s'", vn->name,
                         ref.inst->model->name);
                return;
            }
            rec.vars[rec.nvars++] = b->var;
        }
        if (it->b && !record_every(S, it->b, &rec.every))
            return;
    }
    push_record(S, rec);
}
