/* sema_body.c -- the fused per-neuron step of each population (phases 2-4 of the step
 * order): ports cleared, receptors fed by their rings and stimuli, the neuron's dynamics
 * (ode.c), update, spike condition, reset and refractoriness, receptor dynamics, then top-k
 * selection and `set P.active` wrapped around the result.
 */
#include <stdlib.h>
#include <string.h>

#include "nrt_philox.h"
#include "sema_priv.h"

IrExpr *sema_in_view(Compiler *cc, int64_t off, int64_t size, int64_t total)
{
    if (off == 0 && size == total)
        return NULL;
    IrExpr *n = ir_leaf(cc, IE_INDEX, IRT_INT);
    return ir_bin(cc, IB_AND, ir_bin(cc, IB_GE, n, ir_const(cc, (double)off, IRT_INT)),
                  ir_bin(cc, IB_LT, n, ir_const(cc, (double)(off + size), IRT_INT)));
}

/* Wrap statements produced into `tmp` in `if (cond)` (cond NULL: append as is). */
void sema_guarded(Compiler *cc, IrBlock *out, IrExpr *cond, IrBlock *tmp)
{
    if (!cond) {
        for (int i = 0; i < tmp->n; i++)
            ir_block_add(cc, out, tmp->v[i]);
        return;
    }
    IrStmt *s = ir_stmt(cc, IS_IF);
    s->e = cond;
    s->body = *tmp;
    ir_block_add(cc, out, s);
}

static void check_unique_members(Compiler *cc, AstNode *model);

/* Receptor phase 2 (input -> update -> emit into the port) or phase 4 (dynamics). */
void sema_receptor_part(Sema *S, Inst *in, RInst *r, int phase, IrBlock *out)
{
    Compiler *cc = S->cc;
    IrPop *pop = in->pop;
    int quiet = !in->dummy;
    Mute mu = sema_mute(cc, quiet);
    Ctx x = {S, cc, &r->env, pop, out, 0, &r->site, "a receptor", A_T, in, 0, 0};
    if (phase == 2) {
        AstNode *upd = sema_member(r->model, AST_UPDATE, 0);
        if (upd)
            sema_conv_block(&x, upd->a, out);
        AstNode *em = sema_member(r->model, AST_EMIT, 0);
        if (em && r->port) {
            Val v = sema_conv(&x, em->a);
            if (v.ok && r->port->local >= 0) {
                IrStmt *s = ir_stmt(cc, IS_SETLOCAL);
                s->local = r->port->local;
                s->type = IRT_REAL;
                s->e = ir_bin(cc, IB_ADD, ir_local(cc, r->port->local, IRT_REAL), v.e);
                ir_block_add(cc, out, s);
            }
        } else if (!em) {
            error_at(cc, r->model->loc2, "receptor '%s' has no 'emit'", r->model->name);
        }
    } else {
        AstNode *dyn = sema_member(r->model, AST_DYNAMICS, 0);
        if (dyn) {
            OdeEq *eqs;
            int n, sub;
            OdeMethod meth = sema_method_of(cc, dyn, &sub);
            if (sema_collect_eqs(&x, dyn, &eqs, &n)) {
                const char *note;
                if (ode_lower(cc, pop, eqs, n, meth, sub, NULL, out, dyn->loc, &note) && !in->dummy)
                    sema_add_note(S, arena_printf(&cc->arena, "projection %s: receptor %s: %s",
                                                  r->proj ? r->proj->name : r->stim ? r->stim->node->name : "?",
                                                  r->model->name, note));
            }
        }
        sema_apply_clamps(&x, r->model, out);
        if (in->dummy)
            check_unique_members(cc, r->model);
    }
    sema_unmute(cc, mu);
}

/* Members that may appear once: report a second one. */
static void check_unique_members(Compiler *cc, AstNode *model)
{
    static const AstKind once[] = {AST_DYNAMICS, AST_SPIKE_WHEN, AST_REFRACTORY, AST_UPDATE, AST_EMIT};
    static const char *const what[] = {"'dynamics' block", "'spike when'", "'refractory'",
                                       "'update' block", "'emit'"};
    for (size_t k = 0; k < sizeof once / sizeof once[0]; k++) {
        AstNode *first = NULL;
        for (int m = 0; m < model->list.n; m++) {
            AstNode *mem = model->list.v[m];
            if (mem->kind != once[k])
                continue;
            if (!first) {
                first = mem;
                continue;
            }
            error_at(cc, mem->loc, "a second %s in '%s'", what[k], model->name);
            note_at(cc, first->loc, "the first is here");
        }
    }
    int ninputs = 0;
    if (model->op == TK_RECEPTOR)
        for (int m = 0; m < model->list.n; m++) {
            AstNode *mem = model->list.v[m];
            if (mem->kind == AST_BLOCK_DECL && mem->op == TK_INPUT)
                for (int d = 0; d < mem->list.n; d++)
                    if (++ninputs == 2)
                        error_at(cc, mem->list.v[d]->loc,
                                 "a receptor has exactly one 'input' (the sum of what synapses deliver)");
        }
}

/* Move the statements of pop's body from `at` on (the spike condition onwards) into
 * topk->after. Locals declared before and used after travel through per-neuron arrays. */
static void split_topk(Compiler *cc, IrPop *pop, int at)
{
    IrTopk *tk = pop->topk;
    IrBlock *body = &pop->body;
    for (int i = at; i < body->n; i++)
        ir_block_add(cc, &tk->after, body->v[i]);
    body->n = at;
    int nl = pop->nlocals;
    unsigned char *used = arena_alloc(&cc->arena, (size_t)nl + 1);
    unsigned char *decl_before = arena_alloc(&cc->arena, (size_t)nl + 1);
    unsigned char *decl_after = arena_alloc(&cc->arena, (size_t)nl + 1);
    unsigned char *scratch = arena_alloc(&cc->arena, (size_t)nl + 1);
    ir_block_locals(&tk->after, used, decl_after);
    ir_block_locals(body, scratch, decl_before);
    IrBlock head = {0};
    for (int l = 0; l < nl; l++) {
        if (!used[l] || decl_after[l] || !decl_before[l])
            continue;
        IrType t = pop->locals[l].type;
        IrVar *v = ir_new_var(cc, pop, IV_STATE, arena_printf(&cc->arena, "topk_%s", pop->locals[l].name),
                              t == IRT_REAL ? IRT_REAL : IRT_INT, DIM_NONE, 1);
        v->unit = "1";
        sema_emit_assign(cc, body, v, ir_local(cc, l, t));
        IrStmt *s = ir_stmt(cc, IS_LOCAL);
        s->local = l;
        s->type = t;
        s->e = t == IRT_BOOL ? ir_bin(cc, IB_NE, ir_var(cc, v), ir_const(cc, 0, IRT_INT)) : ir_var(cc, v);
        ir_block_add(cc, &head, s);
    }
    for (int i = 0; i < tk->after.n; i++)
        ir_block_add(cc, &head, tk->after.v[i]);
    tk->after = head;
}

/* `set P.active` is used: an inactive population drops its arrivals (the receptor inputs
 * are read and cleared) and does nothing else; a top-k population has no candidates. */
static void wrap_active(Compiler *cc, Inst *in)
{
    IrPop *pop = in->pop;
    IrExpr *on = ir_bin(cc, IB_NE, ir_var(cc, pop->active), ir_const(cc, 0, IRT_INT));
    IrStmt *s = ir_stmt(cc, IS_IF);
    s->e = on;
    s->body = pop->body;
    for (int k = 0; k < in->nrecs; k++) {
        RInst *r = in->recs[k];
        if (r->lead || !r->ring)
            continue;             /* nothing arrives to be dropped, or r's lead drops it */
        IrBlock tmp = {0};
        IrStmt *rv = ir_stmt(cc, IS_RECV);
        rv->proj = r->ring;
        rv->local = r->input_local;
        rv->type = IRT_REAL;
        ir_block_add(cc, &tmp, rv);
        sema_guarded(cc, &s->els, sema_in_view(cc, r->span_off, r->span_size, pop->size), &tmp);
    }
    if (pop->topk)
        sema_emit_assign(cc, &s->els, pop->topk->win, ir_const(cc, 0, IRT_INT));
    pop->body = (IrBlock){0};
    ir_block_add(cc, &pop->body, s);
    if (pop->topk) {
        IrStmt *a = ir_stmt(cc, IS_IF);
        a->e = on;
        a->body = pop->topk->after;
        pop->topk->after = (IrBlock){0};
        ir_block_add(cc, &pop->topk->after, a);
    }
}

/* A stimulus's expression, checked to have dimension `want`; NULL after an error. */
static IrExpr *stim_value(Sema *S, Inst *in, Stim *st, Dim want, IrBlock *out, const char *what)
{
    uint32_t site = 0;
    Env senv = {0};
    senv.parent = &S->global;
    Ctx x = {S, S->cc, &senv, in->pop, out, (NRT_STREAM_STIMULUS << 24) | st->id, &site,
             "a stimulus", A_T | A_INDEX | A_POS, in, 0, st->off};
    Val v = sema_conv(&x, st->node->a);
    if (!v.ok || !sema_expect_dim(&x, v, want, st->node->a->loc, what))
        return NULL;
    return v.e;
}

/* Ports start at zero every step: a local each, bound in the instance. */
static void clear_ports(Sema *S, Inst *in)
{
    Compiler *cc = S->cc;
    IrPop *pop = in->pop;
    IrBlock *body = &pop->body;
    for (int p = 0; p < in->nports; p++) {
        Port *pt = &in->ports[p];
        pt->local = ir_new_local(cc, pop, pt->name, IRT_REAL);
        IrStmt *s = ir_stmt(cc, IS_LOCAL);
        s->local = pt->local;
        s->type = IRT_REAL;
        s->e = ir_const(cc, 0, IRT_REAL);
        ir_block_add(cc, body, s);
        Bind *b = sema_env_find_here(&in->env, pt->name);
        b->e = ir_local(cc, pt->local, IRT_REAL);
    }
}

/* Statements for part of a population: those of the neurons [off, off + size). */
typedef struct Part {
    int64_t off, size;
    IrBlock b;
} Part;

static int part_cmp(const void *a, const void *b)
{
    const Part *p = a, *q = b;
    return p->off < q->off ? -1 : p->off > q->off;
}

/* Parts [lo, hi) sorted by offset and disjoint: a binary search over their offsets, then the
 * test of the one found, so that a neuron pays about log2(parts) + 2 tests, not one a part. */
static void part_tree(Compiler *cc, IrBlock *out, Part *p, int lo, int hi, int64_t total)
{
    if (hi - lo == 1) {
        sema_guarded(cc, out, sema_in_view(cc, p[lo].off, p[lo].size, total), &p[lo].b);
        return;
    }
    int mid = lo + (hi - lo) / 2;
    IrStmt *s = ir_stmt(cc, IS_IF);
    s->e = ir_bin(cc, IB_LT, ir_leaf(cc, IE_INDEX, IRT_INT), ir_const(cc, (double)p[mid].off, IRT_INT));
    part_tree(cc, &s->body, p, lo, mid, total);
    part_tree(cc, &s->els, p, mid, hi, total);
    ir_block_add(cc, out, s);
}

/* The parts' statements, each on its own neurons: in order, one test each, where views
 * overlap (a neuron in two takes both, in the order written); else by part_tree. */
static void view_parts(Compiler *cc, IrBlock *out, Part *p, int n, int64_t total)
{
    if (n <= 0)
        return;
    Part *q = xmalloc(sizeof *q * (size_t)n);
    memcpy(q, p, sizeof *q * (size_t)n);
    qsort(q, (size_t)n, sizeof *q, part_cmp);
    int disjoint = 1;
    for (int k = 1; k < n; k++)
        disjoint &= q[k - 1].off + q[k - 1].size <= q[k].off;
    if (disjoint && n > 2)
        part_tree(cc, out, q, 0, n, total);
    else
        for (int k = 0; k < n; k++)
            sema_guarded(cc, out, sema_in_view(cc, p[k].off, p[k].size, total), &p[k].b);
    free(q);
}

/* Phase 2: each receptor (not merged into another) takes its input -- its ring's arrivals
 * and the stimuli merged into it -- then runs its update and emits into its port. */
static void receptor_inputs(Sema *S, Inst *in)
{
    Compiler *cc = S->cc;
    IrPop *pop = in->pop;
    IrBlock *body = &pop->body;
    for (int k = 0; k < in->nrecs; k++) {
        RInst *r = in->recs[k];
        if (r->lead)
            continue;
        /* the input: the ring's arrivals (of every projection merged into r), then each
         * stimulus merged into r, in the order they were declared */
        IrBlock tmp = {0};
        IrExpr *x = NULL;
        if (r->ring) {
            IrStmt *rv = ir_stmt(cc, IS_RECV);
            rv->proj = r->ring;
            rv->local = r->input_local;
            rv->type = IRT_REAL;
            ir_block_add(cc, &tmp, rv);
            x = ir_local(cc, r->input_local, IRT_REAL);
        }
        int bad = 0;
        Part *late = NULL;        /* stimuli on part of the span: added when in their view */
        int nlate = 0;
        for (int q = k; q < in->nrecs; q++) {
            RInst *u = in->recs[q];
            if ((u != r && u->lead != r) || !u->stim)
                continue;
            const char *what = arena_printf(&cc->arena, "stimulus '%s' into receptor '%s'", u->stim->node->name,
                                            u->model->name);
            if (u->off != r->span_off || u->size != r->span_size) {
                IrBlock g = {0};
                IrExpr *e = stim_value(S, in, u->stim, u->input_dim, &g, what);
                bad |= !e;
                if (!e)
                    continue;
                IrStmt *s = ir_stmt(cc, IS_SETLOCAL);
                s->local = r->input_local;
                s->type = IRT_REAL;
                s->e = ir_bin(cc, IB_ADD, ir_local(cc, r->input_local, IRT_REAL), e);
                ir_block_add(cc, &g, s);
                late = sema_grow(cc, late, nlate, sizeof *late);
                late[nlate++] = (Part){u->off, u->size, g};
                continue;
            }
            IrExpr *e = stim_value(S, in, u->stim, u->input_dim, &tmp, what);
            bad |= !e;
            x = !e ? x : x ? ir_bin(cc, IB_ADD, x, e) : e;
        }
        if (bad)
            continue;
        if (!x && nlate)
            x = ir_const(cc, 0, IRT_REAL);
        if (!r->ring) {
            IrStmt *rv = ir_stmt(cc, IS_LOCAL);
            rv->e = x;
            rv->local = r->input_local;
            rv->type = IRT_REAL;
            ir_block_add(cc, &tmp, rv);
        } else if (x->op != IE_LOCAL) {
            IrStmt *rv = ir_stmt(cc, IS_SETLOCAL);
            rv->e = x;
            rv->local = r->input_local;
            rv->type = IRT_REAL;
            ir_block_add(cc, &tmp, rv);
        }
        view_parts(cc, &tmp, late, nlate, pop->size);
        sema_receptor_part(S, in, r, 2, &tmp);
        sema_guarded(cc, body, sema_in_view(cc, r->span_off, r->span_size, pop->size), &tmp);
    }
}

/* Phase 2, then: stimuli into ports (those `via` a receptor feed it instead). */
static void port_stimuli(Sema *S, Inst *in)
{
    Compiler *cc = S->cc;
    IrPop *pop = in->pop;
    IrBlock *body = &pop->body;
    for (int k = 0; k < in->nstims; k++) {
        Stim *st = &in->stims[k];
        if (st->rec)
            continue;
        IrBlock tmp = {0};
        IrExpr *e = stim_value(S, in, st, st->port->dim, &tmp,
                               arena_printf(&cc->arena, "stimulus '%s' into port '%s'", st->node->name,
                                            st->port->name));
        if (!e)
            continue;
        IrStmt *s = ir_stmt(cc, IS_SETLOCAL);
        s->local = st->port->local;
        s->type = IRT_REAL;
        s->e = ir_bin(cc, IB_ADD, ir_local(cc, st->port->local, IRT_REAL), e);
        ir_block_add(cc, &tmp, s);
        sema_guarded(cc, body, sema_in_view(cc, st->off, st->size, pop->size), &tmp);
    }
}

/* The neuron's `dynamics`, integrated by ode.c (frozen equations while refractory). */
static void neuron_dynamics(Sema *S, Inst *in, Ctx *x, AstNode *dyn, AstNode *refr, IrExpr *rf)
{
    Compiler *cc = S->cc;
    IrPop *pop = in->pop;
    AstNode *model = in->model;
    IrBlock *body = &pop->body;
    OdeEq *eqs;
    int n, sub;
    OdeMethod meth = sema_method_of(cc, dyn, &sub);
    if (sema_collect_eqs(x, dyn, &eqs, &n)) {
        int frozen = -1;
        for (int i = n - 1; i >= 0; i--)
            if (eqs[i].frozen)
                frozen = i;
        if (frozen >= 0 && !refr)
            error_at(cc, eqs[frozen].loc,
                     "'unless refractory' needs a 'refractory' period in the model");
        const char *note;
        if (ode_lower(cc, pop, eqs, n, meth, sub, rf, body, dyn->loc, &note) && !in->dummy)
            sema_add_note(S, arena_printf(&cc->arena, "population %s (%s): %s", pop->name,
                                          model->name, note));
    }
}

/* `spike when`: the condition (with its `topk` term, if any), `on spike`, the refractory
 * period set at a spike and counted down after; returns where the top-k selection splits
 * the body (-1: no top-k). */
static int spike_when(Sema *S, Inst *in, Ctx *x, AstNode *sw, AstNode *refr, IrExpr *rf)
{
    Compiler *cc = S->cc;
    IrPop *pop = in->pop;
    AstNode *model = in->model;
    IrBlock *body = &pop->body;
    int tk_split = -1;
    pop->has_spikes = 1;
    Ctx sx = *x;
    sx.allow |= A_CROSSED;
    int dup = 0;
    S->topk.call = sema_topk_term(cc, sw->a, NULL, &dup);
    S->topk.key = S->topk.k = NULL;
    Val c = dup ? sema_bad(cc) : sema_conv(&sx, sw->a);
    S->topk.call = NULL;
    if (c.ok && c.e->type != IRT_BOOL)
        error_at(cc, sw->a->loc, "'spike when' needs a condition");
    IrStmt *s = ir_stmt(cc, IS_IF);
    s->e = rf ? ir_bin(cc, IB_AND, ir_not(cc, rf), c.e) : c.e;
    if (c.ok && S->topk.key) {
        IrTopk *tk = arena_alloc(&cc->arena, sizeof *tk);
        tk->k = S->topk.k;
        tk->stream = (NRT_STREAM_TIEBREAK << 24) | (uint32_t)(pop->id & 0xFFFFFF);
        tk->key = ir_new_var(cc, pop, IV_STATE, "topk_key", IRT_REAL, DIM_NONE, 1);
        tk->win = ir_new_var(cc, pop, IV_STATE, "topk_win", IRT_INT, DIM_NONE, 1);
        tk->key->unit = tk->win->unit = "1";
        sema_emit_assign(cc, body, tk->key, S->topk.key);
        sema_emit_assign(cc, body, tk->win, ir_cond(cc, s->e, ir_const(cc, 1, IRT_INT), ir_const(cc, 0, IRT_INT)));
        s->e = ir_bin(cc, IB_NE, ir_var(cc, tk->win), ir_const(cc, 0, IRT_INT));
        tk_split = body->n;
        pop->topk = tk;
    }
    ir_block_add(cc, &s->body, ir_stmt(cc, IS_SPIKE));
    AstNode *on = NULL;
    for (int m = 0; m < model->list.n; m++)
        if (model->list.v[m]->kind == AST_ON && model->list.v[m]->op == EV_SPIKE)
            on = model->list.v[m];
    if (on)
        sema_conv_block(x, on->a, &s->body);
    if (refr) {
        Ctx rx = *x;
        rx.stream = 0;
        rx.where = "a refractory period";
        Val t = sema_conv(&rx, refr->a);
        if (sema_expect_dim(&rx, t, dim_time(), refr->a->loc, "the refractory period") && t.ok) {
            IrExpr *steps = ir_call(cc, IF_ROUND, (IrExpr *[]){ir_bin(cc, IB_DIV, t.e,
                                    ir_const(cc, cc->ir->dt, IRT_REAL))}, 1);
            sema_emit_assign(cc, &s->body, in->refr, steps);
        }
    }
    ir_block_add(cc, body, s);
    if (rf) {
        IrStmt *dec = ir_stmt(cc, IS_IF);
        dec->e = rf;
        sema_emit_assign(cc, &dec->body, in->refr,
                         ir_bin(cc, IB_SUB, ir_var(cc, in->refr), ir_const(cc, 1, IRT_INT)));
        ir_block_add(cc, body, dec);
    }
    return tk_split;
}

/* Members that do not belong in a neuron, or need a `spike when` it lacks. */
static void neuron_misplaced(Compiler *cc, AstNode *model, int spikes, AstNode *refr)
{
    if (!spikes) {
        for (int m = 0; m < model->list.n; m++) {
            AstNode *mem = model->list.v[m];
            if (mem->kind == AST_ON)
                error_at(cc, mem->loc, "'on %s' needs a 'spike when' condition",
                         mem->op == EV_SPIKE ? "spike" : "...");
        }
        if (refr)
            error_at(cc, refr->loc, "'refractory' needs a 'spike when' condition");
    }
    for (int m = 0; m < model->list.n; m++) {
        AstNode *mem = model->list.v[m];
        if (mem->kind == AST_ON && mem->op != EV_SPIKE)
            error_at(cc, mem->loc, "only 'on spike' handlers belong in a neuron");
        if (mem->kind == AST_EMIT)
            error_at(cc, mem->loc, "'emit' belongs in a receptor");
        if (mem->kind == AST_SCOPE)
            error_at(cc, mem->loc, "pre/post scopes belong in a synapse");
        if (mem->kind == AST_BLOCK_DECL && mem->op == TK_REQUIRE)
            error_at(cc, mem->loc, "'require' belongs in a receptor");
    }
}

/* The end of phase 2: a recorded port's value of the step into its variable (only ports
 * that are recorded: other models' code is unchanged). */
static void store_recorded_ports(Sema *S, Inst *in)
{
    for (int p = 0; p < in->nports; p++)
        if (in->ports[p].rec)
            sema_emit_assign(S->cc, &in->pop->body, in->ports[p].rec,
                             ir_local(S->cc, in->ports[p].local, IRT_REAL));
}

/* The fused per-neuron step of a population (phases 2-4 of the step order). */
void sema_build_body(Sema *S, Inst *in)
{
    Compiler *cc = S->cc;
    IrPop *pop = in->pop;
    AstNode *model = in->model;
    IrBlock *body = &pop->body;
    int quiet = !in->dummy;

    clear_ports(S, in);
    /* phase 2: receptors (input -> update -> emit), then stimuli */
    receptor_inputs(S, in);
    port_stimuli(S, in);
    store_recorded_ports(S, in);

    /* phase 3: the neuron */
    Mute mu = sema_mute(cc, quiet);
    Ctx x = {S, cc, &in->env, pop, body,
             (NRT_STREAM_NEURON_STEP << 24) | (uint32_t)(pop->id & 0xFFFFFF), &in->step_site,
             "a neuron model", A_T | A_INDEX, in, 0, 0};
    AstNode *refr = sema_member(model, AST_REFRACTORY, 0);
    IrExpr *rf = NULL;
    int rf_local = -1;
    if (refr) {
        in->refr = ir_new_var(cc, pop, IV_REFR, "refr", IRT_INT, DIM_NONE, 1);
        in->refr->unit = "steps";
        sema_emit_assign(cc, &pop->init, in->refr, ir_const(cc, 0, IRT_INT));
        pop->has_refractory = 1;
        rf_local = sema_emit_local(&x, "refractory", IRT_BOOL,
                                   ir_bin(cc, IB_GT, ir_var(cc, in->refr), ir_const(cc, 0, IRT_INT)), body);
        rf = ir_local(cc, rf_local, IRT_BOOL);
        in->refr_local = rf_local;
        x.allow |= A_REFR;
    }
    AstNode *dyn = sema_member(model, AST_DYNAMICS, 0);
    if (dyn)
        neuron_dynamics(S, in, &x, dyn, refr, rf);
    AstNode *upd = sema_member(model, AST_UPDATE, 0);
    if (upd)
        sema_conv_block(&x, upd->a, body);
    AstNode *sw = sema_member(model, AST_SPIKE_WHEN, 0);
    int tk_split = sw ? spike_when(S, in, &x, sw, refr, rf) : -1;
    neuron_misplaced(cc, model, sw != NULL, refr);
    sema_apply_clamps(&x, model, body);
    if (in->dummy)
        check_unique_members(cc, model);
    sema_unmute(cc, mu);

    /* phase 4: receptor dynamics */
    for (int k = 0; k < in->nrecs; k++) {
        RInst *r = in->recs[k];
        if (r->lead)
            continue;
        IrBlock tmp = {0};
        sema_receptor_part(S, in, r, 4, &tmp);
        sema_guarded(cc, body, sema_in_view(cc, r->span_off, r->span_size, pop->size), &tmp);
    }
    /* previous values for crossed() */
    for (int i = 0; i < pop->nvars; i++) {
        IrVar *v = pop->vars[i];
        if (v->kind != IV_PREV)
            continue;
        for (int j = 0; j < pop->nvars; j++)
            if (pop->vars[j]->kind == IV_STATE &&
                strncmp(pop->vars[j]->label, v->label, strlen(pop->vars[j]->label)) == 0 &&
                strcmp(v->label + strlen(pop->vars[j]->label), "_prev") == 0)
                sema_emit_assign(cc, body, v, ir_var(cc, pop->vars[j]));
    }
    if (pop->topk)
        split_topk(cc, pop, tk_split);
    if (pop->active)
        wrap_active(cc, in);
}
