/* sema_conn.c -- connectivity rules: the built-in rules (all_to_all, one_to_one, fixed_prob,
 * prob, fixed_indegree, fixed_outdegree, fixed_total, from_file), named `connect` rules with
 * their arguments, `within` and `where` pair filters, data files, and `storage`.
 *
 * A new built-in rule is a branch of rule_kind (and an IrRule in ir.h).
 */
#define _DEFAULT_SOURCE /* realpath */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sema_priv.h"

static int bool_arg(Sema *S, AstNode *a, int *out)
{
    if (a->a->kind == AST_BOOL) {
        *out = a->a->flag;
        return 1;
    }
    error_at(S->cc, a->a->loc, "'%s' takes true or false", a->name);
    return 0;
}

/* The path of an edge file (or, `what`, a spike file) named in from_file: relative names
 * are looked up beside the file that names them; the result is absolute, so the simulator
 * finds it from anywhere. NULL (diagnosed) when it cannot be read now. */
const char *sema_data_file_path(Sema *S, AstNode *n, const char *what)
{
    Compiler *cc = S->cc;
    const char *name = n->str, *path = name;
    size_t len = strlen(name);
    char buf[PATH_MAX];
    if (len < 5 || (strcmp(name + len - 4, ".csv") != 0 && strcmp(name + len - 4, ".npy") != 0)) {
        error_at(cc, n->loc, "a%s %s ends in '.csv' or '.npy'", what[0] == 'e' ? "n" : "", what);
        return NULL;
    }
    if (name[0] != '/' && n->loc.file) {
        const char *src = cc->files[n->loc.file].path, *slash = strrchr(src, '/');
        if (slash)
            path = arena_printf(&cc->arena, "%.*s/%s", (int)(slash - src), src, name);
    }
    if (!realpath(path, buf)) {
        error_at(cc, n->loc, "cannot read %s '%s': %s", what, path, strerror(errno));
        return NULL;
    }
    return arena_strdup(&cc->arena, buf);
}

/* Column `col` (0: w, 1: delay) of a synapse's line in its edge file: values in the
 * internal units of the weight (or ms), so any dimension is accepted. */
Val sema_edge_value(Compiler *cc, int col)
{
    IrExpr *e = ir_leaf(cc, IE_EDGE, IRT_REAL);
    e->sub = col;
    Val v = sema_mkval(e, DIM_NONE);
    v.anydim = 1;
    return v;
}

/* The parameters of named rule `def` bound to the arguments of its use `use` (constants,
 * positional or by name; options autapses and multapses are left to the caller). */
static int rule_env(Sema *S, AstNode *def, AstNode *use, Env *env)
{
    Compiler *cc = S->cc;
    int ok = 1, npos = 0;
    env->parent = &S->global;
    for (int p = 0; p < def->list.n; p++) {
        AstNode *decl = def->list.v[p], *val = NULL;
        for (int a = 0, k = 0; a < use->list.n; a++) {
            AstNode *arg = use->list.v[a];
            if (arg->kind == AST_ARG ? arg->name == decl->name : k++ == p)
                val = arg->kind == AST_ARG ? arg->a : arg;
        }
        if (!val)
            val = decl->b;
        if (!val) {
            error_at(cc, use->loc, "rule '%s' needs a value for '%s'", def->name, decl->name);
            note_at(cc, def->loc, "'%s' defined here", def->name);
            ok = 0;
            continue;
        }
        Dim want, have;
        IrType ty;
        double v;
        sema_type_of(cc, decl->a, &want, &ty);
        Ctx x = {S, cc, &S->global, NULL, NULL, 0, NULL, "a rule argument", 0, NULL, 0, 0};
        if (!sema_const_eval(&x, val, &v, &have)) {
            ok = 0;
            continue;
        }
        if (!dim_eq(have, want) && !(v == 0)) {
            error_at(cc, val->loc, "argument '%s' of rule '%s' has dimension %s, expected %s",
                     decl->name, def->name, sema_fmt_dim(cc, have), sema_fmt_dim(cc, want));
            ok = 0;
            continue;
        }
        Bind b = {0};
        b.name = decl->name;
        b.kind = B_VAL;
        b.loc = decl->loc;
        b.e = ir_const(cc, v, ty == IRT_INT ? IRT_INT : IRT_REAL);
        b.dim = want;
        sema_declare(cc, env, b);
    }
    for (int a = 0; a < use->list.n; a++) {
        AstNode *arg = use->list.v[a];
        int known = arg->kind != AST_ARG || strcmp(arg->name, "autapses") == 0 ||
                    strcmp(arg->name, "multapses") == 0;
        for (int p = 0; !known && p < def->list.n; p++)
            known = def->list.v[p]->name == arg->name;
        if (!known) {
            error_at(cc, arg->loc, "rule '%s' has no parameter '%s'", def->name, arg->name);
            ok = 0;
        }
        if (arg->kind != AST_ARG && npos++ >= def->list.n) {
            error_at(cc, arg->loc, "too many arguments for rule '%s'", def->name);
            ok = 0;
        }
    }
    return ok;
}

/* A pair expression of a rule (prob or where): i, j, dist, dx .. du, constants; no draws. */
static Val rule_expr(Sema *S, Env *env, IrProj *pj, AstNode *e, const char *where)
{
    Ctx x = {S, S->cc, env, NULL, NULL, 0, NULL, where, A_PREPOST, NULL, 0, 0};
    return sema_conv(&x, e);
}

/* A rule as used in a projection, resolved through a named `connect` rule if it is one. */
typedef struct RuleUse {
    AstNode *use;                 /* the rule as the projection gives it */
    AstNode *call;                /* the built-in rule: the use, or the named rule's body */
    AstNode *within, *wheres[2];  /* `within`; `where` of the use and of the named rule */
    Env *env;                     /* the named rule's parameters bound, else the globals */
    AstNode *pos[2];              /* positional values: p, K, N or the file */
    int npos;
    int pairs;                    /* visited pair by pair (within, where or prob(expr)) */
} RuleUse;

/* A named `connect` rule: its parameters bound in renv, its own within and where. */
static int rule_named(Sema *S, Bind *rb, RuleUse *u, Env *renv)
{
    Compiler *cc = S->cc;
    AstNode *rule = u->use, *within = u->within, *body = rb->ast->a;
    if (!rule_env(S, rb->ast, rule, renv))
        return 0;
    u->env = renv;
    if (within && body->a) {
        error_at(cc, within->loc, "rule '%s' has its own 'within'", rule->name);
        note_at(cc, body->a->loc, "given here");
        return 0;
    }
    if (!within)
        u->within = body->a;
    u->wheres[1] = body->b;
    u->call = body;
    if (sema_global_find(S, body->name, B_RULE)) {
        error_at(cc, body->loc, "a named rule is defined by a built-in rule, not by '%s'",
                 body->name);
        return 0;
    }
    return 1;
}

/* The options autapses and multapses (of the named rule, then of the use) and the
 * positional values of the built-in rule. */
static int rule_options(Sema *S, IrProj *pj, RuleUse *u, int named)
{
    Compiler *cc = S->cc;
    AstNode *call = u->call, *rule = u->use;
    const char *r = call->name;
    for (int pass = 0; pass < (named ? 2 : 1); pass++) {
        AstNode *src = pass == 0 ? call : rule;
        for (int i = 0; i < src->list.n; i++) {
            AstNode *a = src->list.v[i];
            if (a->kind == AST_ARG && strcmp(a->name, "autapses") == 0) {
                if (!bool_arg(S, a, &pj->autapses))
                    return 0;
            } else if (a->kind == AST_ARG && strcmp(a->name, "multapses") == 0) {
                if (!bool_arg(S, a, &pj->multapses))
                    return 0;
            } else if (pass == 1) {
                continue;                      /* a parameter of the named rule */
            } else if (a->kind == AST_ARG && strcmp(a->name, "p") != 0 &&
                       strcmp(a->name, "K") != 0 && strcmp(a->name, "k") != 0 &&
                       strcmp(a->name, "N") != 0 && strcmp(a->name, "file") != 0) {
                error_at(cc, a->loc, "unknown option '%s' of '%s'", a->name, r);
                return 0;
            } else if (u->npos < 2) {
                u->pos[u->npos++] = a->kind == AST_ARG ? a->a : a;
            } else {
                error_at(cc, a->loc, "too many arguments for '%s'", r);
                return 0;
            }
        }
    }
    return 1;
}

/* The built-in rule `call` names, with its values: sets pj->rule and what it takes. */
static int rule_kind(Sema *S, IrProj *pj, RuleUse *u, int same)
{
    Compiler *cc = S->cc;
    AstNode *call = u->call, *rule = u->use, **pos = u->pos;
    const char *r = call->name;
    int npos = u->npos, pairs = u->pairs;
    int ok = 1;
    Ctx cx = {S, cc, u->env, NULL, NULL, 0, NULL, "a connection probability", 0, NULL, 0, 0};
    if (strcmp(r, "all_to_all") == 0 || strcmp(r, "one_to_one") == 0) {
        pj->rule = r[0] == 'a' ? IR_ALL_TO_ALL : IR_ONE_TO_ONE;
        if (npos) {
            error_at(cc, pos[0]->loc, "'%s' takes no probability or degree", r);
            return 0;
        }
        if (pj->rule == IR_ONE_TO_ONE && pj->pre.size != pj->post.size) {
            error_at(cc, rule->loc, "one_to_one needs populations of equal size (%lld and %lld)",
                     (long long)pj->pre.size, (long long)pj->post.size);
            return 0;
        }
        if (pj->rule == IR_ONE_TO_ONE && pairs) {
            error_at(cc, rule->loc, "'within' and 'where' do not apply to one_to_one");
            return 0;
        }
    } else if (strcmp(r, "fixed_prob") == 0 || strcmp(r, "prob") == 0) {
        pj->rule = IR_FIXED_PROB;
        if (npos != 1) {
            error_at(cc, call->loc, "%s takes one probability: %s(p)", r, r);
            return 0;
        }
        Dim d;
        if (r[0] == 'f') {
            if (!sema_const_eval(&cx, pos[0], &pj->p, &d))
                return 0;
            if (!dim_is_none(d) || pj->p < 0 || pj->p > 1) {
                error_at(cc, pos[0]->loc, "a connection probability must be a number from 0 to 1");
                return 0;
            }
            if (pairs)
                pj->prob = ir_const(cc, pj->p, IRT_REAL);
        } else {
            Val v = rule_expr(S, u->env, pj, pos[0], "a connection probability");
            if (!v.ok)
                return 0;
            if (!dim_is_none(v.d) || v.e->type == IRT_BOOL) {
                error_at(cc, pos[0]->loc, "a connection probability must be a number, got %s",
                         v.e->type == IRT_BOOL ? "a condition" : sema_fmt_dim(cc, v.d));
                return 0;
            }
            double c;
            if (ir_is_const(v.e, &c) && (c < 0 || c > 1)) {
                error_at(cc, pos[0]->loc, "a connection probability must be a number from 0 to 1");
                return 0;
            }
            pj->prob = v.e;
            u->pairs = 1;
        }
    } else if (strcmp(r, "fixed_indegree") == 0 || strcmp(r, "fixed_outdegree") == 0) {
        int in = r[6] == 'i';
        pj->rule = in ? IR_FIXED_INDEGREE : IR_FIXED_OUTDEGREE;
        if (npos != 1) {
            error_at(cc, call->loc, "%s takes one degree: %s(K)", r, r);
            return 0;
        }
        int64_t other = in ? pj->pre.size : pj->post.size;
        pj->k = sema_const_int(S, pos[0], in ? "an in-degree" : "an out-degree", 0,
                               pj->multapses ? 2000000000 : other, &ok);
        if (ok && !pj->multapses) {
            int overlap = same && !pj->autapses && pj->pre.offset < pj->post.offset + pj->post.size &&
                          pj->post.offset < pj->pre.offset + pj->pre.size;
            int64_t most = other - (overlap ? 1 : 0);
            if (pj->k > most) {
                error_at(cc, pos[0]->loc, "%s %lld is impossible without multapses%s: at most %lld "
                         "distinct %ssynaptic neurons", in ? "in-degree" : "out-degree",
                         (long long)pj->k, overlap ? " and autapses" : "", (long long)most,
                         in ? "pre" : "post");
                return 0;
            }
        }
        if (!ok)
            return 0;
    } else if (strcmp(r, "fixed_total") == 0) {
        pj->rule = IR_FIXED_TOTAL;
        if (npos != 1) {
            error_at(cc, call->loc, "fixed_total takes one number of synapses: fixed_total(N)");
            return 0;
        }
        pj->k = sema_const_int(S, pos[0], "a number of synapses", 0, 4000000000, &ok);
        if (!ok)
            return 0;
        if (!pj->multapses) {
            error_at(cc, rule->loc, "fixed_total draws its pairs independently: it needs "
                                    "'multapses = true'");
            return 0;
        }
    } else if (strcmp(r, "from_file") == 0) {
        pj->rule = IR_FROM_FILE;
        if (npos != 1 || pos[0]->kind != AST_STRING) {
            error_at(cc, call->loc, "from_file takes a file name: from_file(\"edges.csv\")");
            return 0;
        }
        if (!pj->autapses || !pj->multapses) {
            error_at(cc, rule->loc, "from_file takes its edges as they are: no 'autapses' or "
                                    "'multapses' options");
            return 0;
        }
        pj->file = sema_data_file_path(S, pos[0], "edge file");
        if (!pj->file)
            return 0;
    } else {
        error_at(cc, call->loc, "unknown connectivity rule '%s'", r);
        diag_extra(cc, "  note: rules are all_to_all, one_to_one, fixed_prob(p), prob(expr), "
                       "fixed_indegree(K), fixed_outdegree(K), fixed_total(N), from_file(\"f\")");
        return 0;
    }
    return 1;
}

/* `within` and `where`: the rule is visited pair by pair, filtered by the where conditions
 * and dist <= within. */
static int rule_pairs(Sema *S, IrProj *pj, RuleUse *u)
{
    Compiler *cc = S->cc;
    AstNode *within = u->within, **wheres = u->wheres;
    Env *env = u->env;
    Ctx cx = {S, cc, env, NULL, NULL, 0, NULL, "a 'within' radius", 0, NULL, 0, 0};
    if (pj->rule != IR_ALL_TO_ALL && pj->rule != IR_FIXED_PROB) {
        error_at(cc, (within ? within : wheres[0] ? wheres[0] : wheres[1])->loc,
                 "'within' and 'where' apply to all_to_all, fixed_prob and prob only");
        return 0;
    }
    /* visited pair by pair: the filter is the where conditions and dist <= within */
    pj->rule = IR_PAIRS;
    for (int w = 0; w < 2; w++) {
        if (!wheres[w])
            continue;
        Val v = rule_expr(S, env, pj, wheres[w], "a 'where' condition");
        if (!v.ok)
            return 0;
        if (v.e->type != IRT_BOOL) {
            error_at(cc, wheres[w]->loc, "'where' needs a condition, such as 'abs(i - j) <= 5'");
            return 0;
        }
        pj->cond = pj->cond ? ir_bin(cc, IB_AND, pj->cond, v.e) : v.e;
    }
    if (within) {
        Dim d;
        if (!sema_const_eval(&cx, within, &pj->within, &d))
            return 0;
        if (!dim_eq(d, sema_dim_len()) || !(pj->within > 0) || !isfinite(pj->within)) {
            error_at(cc, within->loc, "'within' needs a positive length (e.g. '100 um'), got %s",
                     dim_eq(d, sema_dim_len()) ? "a length that is not positive" : sema_fmt_dim(cc, d));
            return 0;
        }
        if (!sema_space_ok(cc, pj, within->loc, "'within'"))
            return 0;
        AstNode dn = {0};
        dn.kind = AST_NAME;
        dn.name = intern_cstr(cc, "dist");
        dn.loc = within->loc;
        Val dv = rule_expr(S, env, pj, &dn, "a 'within' radius");
        IrExpr *in = ir_bin(cc, IB_LE, dv.e, ir_const(cc, pj->within, IRT_REAL));
        pj->cond = pj->cond ? ir_bin(cc, IB_AND, in, pj->cond) : in;
    }
    return 1;
}

/* Connectivity rule: `name(args) [within R] [where cond]`, name a built-in rule or a named
 * `connect` definition (whose own within/where apply too). */
int sema_do_rule(Sema *S, AstNode *rule, IrProj *pj, int same)
{
    RuleUse u = {rule, rule, rule->a, {rule->b, NULL}, &S->global, {NULL, NULL}, 0, 0};
    Env renv = {0};
    Bind *rb = sema_global_find(S, rule->name, B_RULE);
    pj->autapses = 1;
    pj->multapses = 1;
    if (rb && !rule_named(S, rb, &u, &renv))
        return 0;
    if (!rule_options(S, pj, &u, rb != NULL))
        return 0;
    u.pairs = u.within || u.wheres[0] || u.wheres[1];
    if (!rule_kind(S, pj, &u, same))
        return 0;
    if (!u.pairs)
        return 1;
    return rule_pairs(S, pj, &u);
}

/* `storage = stored | procedural` (docs/language.md §12.4). Procedural rows are
 * regenerated from the connectivity draws at every spike, so only rules whose draws are
 * keyed by the presynaptic row qualify, and only static synapses (no per-synapse state). */
int sema_storage_clause(Sema *S, IrProj *pj, AstNode *sc, int plastic)
{
    Compiler *cc = S->cc;
    AstNode *v = sc->a;
    if (v->kind != AST_NAME || (strcmp(v->name, "stored") != 0 && strcmp(v->name, "procedural") != 0)) {
        error_at(cc, v->loc, "storage is 'stored' or 'procedural'");
        return 0;
    }
    if (strcmp(v->name, "procedural") != 0)
        return 1;
    if (plastic) {
        error_at(cc, v->loc, "a plastic projection cannot be procedural: its synapses keep state");
        return 0;
    }
    if (pj->rule != IR_ALL_TO_ALL && pj->rule != IR_ONE_TO_ONE && pj->rule != IR_FIXED_PROB &&
        pj->rule != IR_PAIRS && pj->rule != IR_FIXED_TOTAL) {
        error_at(cc, v->loc, "%s connectivity cannot be procedural: %s",
                 pj->rule == IR_FIXED_INDEGREE ? "fixed_indegree" : pj->rule == IR_FIXED_OUTDEGREE
                 ? "fixed_outdegree" : "from_file",
                 pj->rule == IR_FIXED_INDEGREE ? "its draws are made per postsynaptic neuron"
                 : pj->rule == IR_FIXED_OUTDEGREE ? "its rows are sorted after drawing"
                 : "its edges come from a file");
        diag_extra(cc, "  note: procedural rules are all_to_all, one_to_one, fixed_prob, fixed_total "
                       "and prob (with within and where)");
        return 0;
    }
    pj->procedural = 1;
    return 1;
}
