/* sema_proj.c -- projections: `projection P: A -> B { ... }` with its clauses, the
 * connectivity rule (sema_conn.c), the receptor onto a port of B (sema_recept.c), and the
 * weight and delay of static synapses; plastic synapses are lowered by sema_plast.c.
 */
#include <string.h>

#include "nrt_philox.h"
#include "sema_priv.h"

static void add_proj(Sema *S, IrProj *p)
{
    IrModel *m = S->m;
    m->projs = sema_grow(S->cc, m->projs, m->nprojs, sizeof(IrProj *));
    p->id = m->nprojs;
    m->projs[m->nprojs++] = p;
}

/* The clauses of a projection, each given at most once. */
typedef struct ProjClauses {
    AstNode *syn, *rec, *con, *wc, *dc, *sc;  /* synapse, receptor, connect, w, delay, storage */
} ProjClauses;

static void proj_clauses(Compiler *cc, AstNode *it, ProjClauses *pc)
{
    for (int i = 0; i < it->list.n; i++) {
        AstNode *c = it->list.v[i];
        AstNode **slot = c->kind == AST_PC_SYNAPSE ? &pc->syn : c->kind == AST_PC_RECEPTOR ? &pc->rec
                       : c->kind == AST_PC_CONNECT ? &pc->con
                       : (c->kind == AST_PC_ASSIGN && strcmp(c->name, "w") == 0) ? &pc->wc
                       : (c->kind == AST_PC_ASSIGN && strcmp(c->name, "delay") == 0) ? &pc->dc
                       : (c->kind == AST_PC_ASSIGN && strcmp(c->name, "storage") == 0) ? &pc->sc : NULL;
        if (!slot) {
            error_at(cc, c->loc, "'%s' is not a clause of a static projection", c->name);
            diag_extra(cc, "  note: clauses are synapse, receptor, connect, w, delay and storage");
            continue;
        }
        if (*slot) {
            error_at(cc, c->loc, "clause given twice");
            note_at(cc, (*slot)->loc, "first given here");
        }
        *slot = c;
    }
}

/* The receptor clause, `receptor = Model(args) -> port`: an instance on the post view, its
 * `weight` solved from its emit against the port; *rin is its input's dimension. 0 after
 * an error. */
static int proj_receptor(Sema *S, IrProj *pj, AstNode *rec, PopRef *post, int plastic, Dim *rin,
                         Bind **rbp)
{
    Compiler *cc = S->cc;
    Bind *rb = sema_global_find(S, rec->a->name, B_MODEL);
    if (!rb || rb->ast->op != TK_RECEPTOR) {
        error_at(cc, rec->a->loc, "unknown receptor model '%s'", rec->a->name);
        hint_unknown_model(cc, rec->a->name);
        return 0;
    }
    Inst *pin = post->inst;
    Port *port = NULL;
    for (int p = 0; p < pin->nports; p++)
        if (pin->ports[p].name == rec->name2)
            port = &pin->ports[p];
    if (!port) {
        error_at(cc, rec->loc, "neuron '%s' has no input port '%s'", pin->model->name, rec->name2);
        return 0;
    }
    int nv0 = pin->pop->nvars;
    RInst *r = sema_instantiate_receptor(S, rb->ast, rec, pin, port, post->off, post->size, pj, NULL, 0,
                                         !plastic && !sema_model_has_topk(cc, pin->model));
    Dim ed, wr = DIM_NONE;
    int has_w = 0;
    if (sema_emit_dim(S, r, &ed)) {
        if (!sema_bind_weight(ed, port->dim, &wr, &has_w)) {
            error_at(cc, rec->loc, "receptor '%s' emits %s, but port '%s' of '%s' is %s",
                     rb->ast->name, sema_fmt_dim(cc, ed), port->name, pin->model->name,
                     sema_fmt_dim(cc, port->dim));
            return 0;
        }
    }
    for (int v = nv0; v < pin->pop->nvars; v++) {
        IrVar *var = pin->pop->vars[v];
        var->dim = dim_subst_weight(var->dim, wr);
        var->unit = sema_fmt_dim(cc, var->dim);
    }
    AstNode *indecl = NULL;
    AstNode *inb = sema_member(rb->ast, AST_BLOCK_DECL, TK_INPUT);
    if (inb && inb->list.n)
        indecl = inb->list.v[0];
    if (indecl) {
        IrType ty;
        sema_type_of(cc, indecl->a, rin, &ty);
        *rin = dim_subst_weight(*rin, wr);
    }
    pin->recs = sema_grow(cc, pin->recs, pin->nrecs, sizeof(RInst *));
    pin->recs[pin->nrecs++] = r;
    *rbp = rb;
    return 1;
}

/* A static synapse model, `on pre { deliver(value) }`: its parameters and states bound to
 * the projection's values; *delivered is the value, checked against the receptor's input
 * `rin` (the clause `w` against the unit `weight` binds). 0 after an error. */
static int static_synapse(Sema *S, IrProj *pj, AstNode *smodel, AstNode *syn, AstNode *wc, Dim rin,
                          Bind *rb, Ctx *wx, IrExpr **delivered)
{
    Compiler *cc = S->cc;
    Dim wdim = rin;
    AstNode *deliver = NULL;
    IrPlast order = {0};      /* a static synapse's `order` is checked, and has no effect */
    for (int m = 0; m < smodel->list.n; m++) {
        AstNode *mem = smodel->list.v[m];
        if (mem->kind == AST_BLOCK_DECL && (mem->op == TK_PARAM || mem->op == TK_STATE))
            continue;
        if (mem->kind == AST_SETTING) {
            sema_syn_order(cc, &order, mem);
            continue;
        }
        if (mem->kind == AST_ON && mem->op == EV_PRE && mem->a->list.n == 1 &&
            mem->a->list.v[0]->kind == AST_CALLSTMT &&
            strcmp(mem->a->list.v[0]->a->name, "deliver") == 0 &&
            mem->a->list.v[0]->a->list.n == 1) {
            deliver = mem->a->list.v[0]->a->list.v[0];
            continue;
        }
        NC_UNREACHABLE(); /* sema_syn_is_plastic() */
    }
    if (!deliver) {
        error_at(cc, smodel->loc2, "synapse '%s' needs 'on pre { deliver(value) }'", smodel->name);
        return 0;
    }
    AstList *args = syn->a->flag ? &syn->a->list : NULL;
    if (args && !sema_check_args(cc, args, smodel, "synapse"))
        args = NULL;
    sema_bind_params(S, wx->env, smodel, args, NULL, NULL, NULL, 1, syn->loc);
    /* states: the projection's clause values, else defaults */
    for (int m = 0; m < smodel->list.n; m++) {
        AstNode *mem = smodel->list.v[m];
        if (mem->kind != AST_BLOCK_DECL || mem->op != TK_STATE)
            continue;
        for (int d = 0; d < mem->list.n; d++) {
            AstNode *decl = mem->list.v[d];
            Dim dim;
            IrType ty;
            sema_type_of(cc, decl->a, &dim, &ty);
            AstNode *src = (wc && decl->name == intern_cstr(cc, "w")) ? wc->a : decl->b;
            Val v = src ? sema_conv(wx, src) : sema_mkval(ir_const(cc, 0, IRT_REAL), dim);
            if (!src)
                v.anydim = 1;
            if (!wc && pj->file && decl->name == intern_cstr(cc, "w"))
                v = sema_edge_value(cc, 0);
            Bind b = {0};
            b.name = decl->name;
            b.kind = B_VAL;
            b.loc = decl->loc;
            b.e = v.e;
            b.dim = dim;
            sema_declare(cc, wx->env, b);
        }
    }
    Ctx dx = *wx;
    dx.where = "'deliver'";
    Val dv = sema_conv(&dx, deliver);
    Dim ws;
    int hw;
    if (dv.ok && !sema_bind_weight(dv.d, rin, &ws, &hw)) {
        error_at(cc, syn->loc, "synapse '%s' delivers %s, but receptor '%s' takes %s",
                 smodel->name, sema_fmt_dim(cc, dv.d), rb->ast->name, sema_fmt_dim(cc, rin));
        return 0;
    }
    if (dv.ok && hw)
        wdim = ws;
    *delivered = dv.e;
    /* the clause values must match the bound weight unit */
    if (wc) {
        Mute mu = sema_mute(cc, 1);
        Val v = sema_conv(wx, wc->a);
        sema_unmute(cc, mu);
        Bind *wb = sema_env_find_here(wx->env, intern_cstr(cc, "w"));
        if (!wb) {
            error_at(cc, wc->loc, "synapse '%s' has no state 'w'", smodel->name);
            return 0;
        }
        Dim want = dim_subst_weight(wb->dim, wdim);
        sema_expect_dim(wx, v, want, wc->a->loc, "the weight");
    }
    return 1;
}

void sema_do_projection(Sema *S, AstNode *it)
{
    Compiler *cc = S->cc;
    IrProj *pj = arena_alloc(&cc->arena, sizeof *pj);
    pj->name = it->name;
    pj->cname = ir_cname(cc, "prj_", it->name);
    pj->ring = pj;
    PopRef pre, post;
    if (!sema_resolve_target(S, it->a, it->a->name, it->a->a, &pre, NULL, NULL) ||
        !sema_resolve_target(S, it->b, it->b->name, it->b->a, &post, NULL, NULL))
        return;
    pj->pre = (IrView){pre.inst->pop, pre.off, pre.size};
    pj->post = (IrView){post.inst->pop, post.off, post.size};
    S->proj = pj;
    ProjClauses pc = {0};
    proj_clauses(cc, it, &pc);
    AstNode *syn = pc.syn, *rec = pc.rec, *con = pc.con, *wc = pc.wc, *dc = pc.dc, *sc = pc.sc;
    if (!rec || !con) {
        error_at(cc, it->loc, "projection '%s' needs %s", it->name,
                 !rec ? "'receptor = Model -> port'" : "'connect = rule'");
        return;
    }
    int same = pre.inst == post.inst;
    if (!sema_do_rule(S, con->a, pj, same))
        return;
    add_proj(S, pj);

    Bind *sb = syn ? sema_global_find(S, syn->a->name, B_MODEL) : NULL;
    int plastic = sb && sb->ast->op == TK_SYNAPSE && sema_syn_is_plastic(sb->ast);
    Dim rin = DIM_NONE;
    Bind *rb;
    if (!proj_receptor(S, pj, rec, &post, plastic, &rin, &rb))
        return;

    /* synapse: static models only (`on pre { deliver(expr) }`) */
    AstNode *smodel = NULL;
    if (syn) {
        if (!sb || sb->ast->op != TK_SYNAPSE) {
            error_at(cc, syn->a->loc, "unknown synapse model '%s'", syn->a->name);
            hint_unknown_model(cc, syn->a->name);
            return;
        }
        smodel = sb->ast;
    }
    if (sc && !sema_storage_clause(S, pj, sc, smodel && sema_syn_is_plastic(smodel)))
        return;
    Env senv = {0};
    senv.parent = &S->global;
    uint32_t site = 0;
    Ctx wx = {S, cc, &senv, NULL, NULL, (NRT_STREAM_SYNAPSE_INIT << 24) | (uint32_t)pj->id, &site,
              "a synapse initialiser", A_PREPOST, NULL, 0, 0};
    IrExpr *delivered = NULL;
    if (smodel && sema_syn_is_plastic(smodel)) {
        if (!sema_plastic_projection(S, pj, smodel, syn, wc, rin, pre.inst, post.inst))
            return;
        delivered = pj->w;
    } else if (smodel) {
        if (!static_synapse(S, pj, smodel, syn, wc, rin, rb, &wx, &delivered))
            return;
    } else if (!wc && pj->file) {
        delivered = sema_edge_value(cc, 0).e;
    } else {
        if (!wc) {
            error_at(cc, it->loc, "projection '%s' needs 'w = value'", it->name);
            return;
        }
        Val v = sema_conv(&wx, wc->a);
        if (!sema_expect_dim(&wx, v, rin, wc->a->loc, "the weight"))
            return;
        delivered = v.e;
    }
    pj->w = delivered;
    pj->wtype = IRT_REAL;
    if (dc) {
        Ctx dx = wx;
        dx.where = "a delay";
        Val v = sema_conv(&dx, dc->a);
        if (sema_expect_dim(&dx, v, dim_time(), dc->a->loc, "the delay") && v.ok)
            pj->delay = v.e;
    } else if (pj->file) {
        pj->delay = sema_edge_value(cc, 1).e;
    }
}
