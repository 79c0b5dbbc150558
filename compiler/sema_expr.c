/* sema_expr.c -- types and units of expressions: an AST expression converted to IR and its
 * physical dimension (Val), checked as it goes.
 *
 * conv() is the entry every pass uses; conv_node dispatches on the node kind, names resolve
 * through the environments (sema_env.c), calls go to sema_call.c, lattice names to
 * sema_lattice.c, and synapse scopes (pre.x, post.y) to sema_plast.c.
 */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <string.h>

#include "sema_priv.h"

const char *sema_fmt_dim(Compiler *cc, Dim d)
{
    char buf[96];
    dim_format(d, buf, sizeof buf);
    return arena_strdup(&cc->arena, buf);
}

Val sema_bad(Compiler *cc)
{
    Val v = {ir_const(cc, 0, IRT_REAL), DIM_NONE, 0, 1};
    return v;
}

Val sema_mkval(IrExpr *e, Dim d)
{
    Val v = {e, d, 1, 0};
    return v;
}

/* Report a dimension mismatch between two operands. */
int sema_same_dim(Ctx *x, Val a, Val b, SrcLoc loc, const char *what)
{
    if (!a.ok || !b.ok || a.anydim || b.anydim || dim_eq(a.d, b.d))
        return 1;
    error_at(x->cc, loc, "dimension mismatch in %s: %s vs %s", what, sema_fmt_dim(x->cc, a.d),
             sema_fmt_dim(x->cc, b.d));
    return 0;
}

int sema_expect_dim(Ctx *x, Val v, Dim want, SrcLoc loc, const char *what)
{
    if (!v.ok || v.anydim || dim_eq(v.d, want))
        return 1;
    error_at(x->cc, loc, "%s has dimension %s, expected %s", what, sema_fmt_dim(x->cc, v.d),
             sema_fmt_dim(x->cc, want));
    return 0;
}

/* The exponent of a unit name in a unit expression ("cm^-2"): a whole number of moderate
 * size, else an error (a fractional exponent would otherwise be truncated silently). */
static int unit_exp(Compiler *cc, AstNode *u, int *ex)
{
    *ex = 1;
    if (u->kind != AST_UNAME)
        return 1;
    if (u->num != floor(u->num) || fabs(u->num) > UNIT_MAX_EXP) {
        error_at(cc, u->loc, "a unit exponent must be a whole number from -%d to %d",
                 UNIT_MAX_EXP, UNIT_MAX_EXP);
        return 0;
    }
    *ex = (int)u->num;
    return 1;
}

/* A number in a unit expression may only be the 1 of "1/ms". */
static int unit_one(Compiler *cc, AstNode *u)
{
    if (u->num == 1)
        return 1;
    error_at(cc, u->loc, "only the number 1 can appear in a unit, as in '1/ms'");
    return 0;
}

/* Resolve a declared type (AST_TYPE) to a Dim and IR type. */
int sema_type_of(Compiler *cc, AstNode *t, Dim *d, IrType *ty)
{
    *d = DIM_NONE;
    *ty = IRT_REAL;
    if (!t)
        return 1;
    if (t->kind == AST_TYPE && t->op == TY_INT) {
        *ty = IRT_INT;
        return 1;
    }
    if (t->kind == AST_TYPE && t->op == TY_BOOL) {
        *ty = IRT_BOOL;
        return 1;
    }
    if (t->kind == AST_TYPE && t->op == TY_WEIGHT) {
        d->e[DIM_W] = 1;
        return 1;
    }
    if (t->kind == AST_TYPE && t->op == TY_STRING) {
        error_at(cc, t->loc,
                 "'string' is a type of model parameters only (a file name for from_file)");
        return 0;
    }
    if (t->kind == AST_TYPE && t->op == TY_SERIES) {
        error_at(cc, t->loc, "'series' is a type of model parameters only (a series the "
                             "population gives, docs/language.md §5.3)");
        return 0;
    }
    AstNode *u = t->kind == AST_TYPE ? t->a : t;
    if (!u)
        return 1;
    double sc;
    return sema_unit_scale(cc, u, d, &sc);
}

/* The dimension and scale (internal value of one unit) of a unit expression: declared
 * types and `x in U`. */
int sema_unit_scale(Compiler *cc, AstNode *u, Dim *d, double *sc)
{
    *d = DIM_NONE;
    *sc = 1;
    switch (u->kind) {
    case AST_UNUM:
        return unit_one(cc, u);
    case AST_NAME:
    case AST_UNAME: {
        Dim b;
        double s;
        if (!unit_lookup(u->name, &b, &s)) {
            error_at(cc, u->loc2.line ? u->loc2 : u->loc, "unknown unit '%s'", u->name);
            hint_unknown_unit(cc, u->name);
            return 0;
        }
        int ex, ok;
        if (!unit_exp(cc, u, &ex))
            return 0;
        *d = dim_pow(b, ex, 1, &ok);
        *sc = pow(s, ex);
        return 1;
    }
    case AST_UMUL:
    case AST_UDIV: {
        Dim a, b;
        double sa, sb;
        if (!sema_unit_scale(cc, u->a, &a, &sa) || !sema_unit_scale(cc, u->b, &b, &sb))
            return 0;
        if (!dim_fits(a, b, u->kind == AST_UMUL ? 1 : -1)) {
            error_at(cc, u->loc, "this unit's dimension is out of range (exponents run from %d "
                     "to %d)", INT8_MIN, INT8_MAX);
            return 0;
        }
        *d = u->kind == AST_UMUL ? dim_mul(a, b) : dim_div(a, b);
        *sc = u->kind == AST_UMUL ? sa * sb : sa / sb;
        return 1;
    }
    case AST_TYPE:
        return sema_unit_scale(cc, u->a, d, sc);
    default:
        error_at(cc, u->loc, "expected a unit");
        return 0;
    }
}

/* The text of a checked unit expression, as the runtime's unit parser (nrt_units.h) reads
 * it: "Hz", "1/ms", "mS/cm^2", "pA/(um^2)". */
const char *sema_decl_unit_text(Compiler *cc, AstNode *u)
{
    switch (u ? u->kind : AST_UNUM) {
    case AST_TYPE:
        return sema_decl_unit_text(cc, u->a);
    case AST_NAME:
    case AST_UNAME:
        if (u->kind == AST_UNAME && u->num != 1)
            return arena_printf(&cc->arena, "%s^%d", u->name, (int)u->num);
        return u->name;
    case AST_UMUL:
    case AST_UDIV: {
        const int paren = u->b->kind == AST_UMUL || u->b->kind == AST_UDIV;
        return arena_printf(&cc->arena, paren ? "%s%c(%s)" : "%s%c%s", sema_decl_unit_text(cc, u->a),
                            u->kind == AST_UMUL ? '*' : '/', sema_decl_unit_text(cc, u->b));
    }
    default:
        return "1";
    }
}

/* out of line: conv_node recurses, and its frame would hold this one's locals at every level */
static NC_NOINLINE Val conv_name(Ctx *x, AstNode *n)
{
    Compiler *cc = x->cc;
    if (strcmp(n->name, "refractory") == 0) {     /* a keyword: only the flag is spelled so */
        if ((x->allow & A_REFR) && x->inst && x->inst->refr)
            return sema_mkval(ir_local(cc, x->inst->refr_local, IRT_BOOL), DIM_NONE);
        error_at(cc, n->loc, "'refractory' can be read only in a neuron with a 'refractory' period");
        diag_extra(cc, "  note: it is true in the steps of the period (docs/language.md §9)");
        return sema_bad(cc);
    }
    Bind *b = sema_env_find(x->env, n->name);
    if (b) {
        switch (b->kind) {
        case B_VAL:
            if (!b->e) {
                error_at(cc, n->loc, "input port '%s' can only be read in dynamics, update and "
                                     "spike handlers", n->name);
                return sema_bad(cc);
            }
            return sema_mkval(b->e, b->dim);
        case B_SERIES:
            error_at(cc, n->loc, "'%s' is a series: read its value at the current time as %s(t)",
                     n->name, n->name);
            return sema_bad(cc);
        case B_STR:
            error_at(cc, n->loc, "'%s' is a string parameter: it can only name the file of "
                                 "from_file(%s) in 'spike when'", n->name, n->name);
            return sema_bad(cc);
        case B_DERIVED: {
            if (b->memo_bad)
                return sema_bad(cc);
            if (b->memo && b->memo_syn == x->S->plast.syn) {
                Val v = sema_mkval(b->memo, b->dim);
                v.anydim = b->memo_anydim;
                return v;
            }
            Ctx y = *x;
            y.env = b->denv;
            Val v = sema_conv(&y, b->ast);
            if (v.ok && !dim_eq(v.d, b->dim) && !v.anydim)
                return sema_bad(cc); /* reported where the derived value is declared */
            v.d = b->dim;
            return v;
        }
        default:
            error_at(cc, n->loc, "'%s' is not a value", n->name);
            return sema_bad(cc);
        }
    }
    Val sv;
    if (x->S->plast.syn && sema_syn_name(x, n, &sv))
        return sv;
    const char *s = n->name;
    if (strcmp(s, "t") == 0) {
        if (!(x->allow & A_T)) {
            error_at(cc, n->loc, "time 't' is not available in %s", x->where);
            return sema_bad(cc);
        }
        return sema_mkval(ir_leaf(cc, IE_T, IRT_REAL), dim_time());
    }
    if (strcmp(s, "dt") == 0)
        return sema_mkval(ir_const(cc, cc->ir->dt, IRT_REAL), dim_time());
    if (strcmp(s, "i") == 0 || strcmp(s, "j") == 0) {
        int pp = (x->allow & A_PREPOST) != 0;
        if (s[0] == 'j' && !pp) {
            error_at(cc, n->loc, "'j' (postsynaptic index) is only available in projections");
            return sema_bad(cc);
        }
        if (!pp && !(x->allow & A_INDEX)) {
            error_at(cc, n->loc, "neuron index 'i' is not available in %s", x->where);
            return sema_bad(cc);
        }
        IrExprOp op = pp ? (s[0] == 'i' ? IE_PRE : IE_POST) : IE_INDEX;
        IrExpr *ix = ir_leaf(cc, op, IRT_INT);
        if (!pp && x->ioff)
            ix = ir_bin(cc, IB_SUB, ix, ir_const(cc, (double)x->ioff, IRT_INT));
        return sema_mkval(ix, DIM_NONE);
    }
    if ((x->allow & A_PREPOST) && sema_space_axis(s) >= -1)
        return sema_conv_space(x, n);
    if (strcmp(s, "inf") == 0)
        return sema_mkval(ir_const(cc, INFINITY, IRT_REAL), DIM_NONE);
    if (strcmp(s, "pi") == 0)
        return sema_mkval(ir_const(cc, 3.14159265358979323846, IRT_REAL), DIM_NONE);
    if (strcmp(s, "e") == 0)
        return sema_mkval(ir_const(cc, 2.71828182845904523536, IRT_REAL), DIM_NONE);
    error_at(cc, n->loc, "unknown name '%s'", s);
    sema_suggest(x, s);
    hint_unknown_name(cc, n->loc, s);
    return sema_bad(cc);
}

static IrExpr *to_real(Compiler *cc, IrExpr *e)
{
    (void)cc;
    return e;
}

/* out of line: conv_node recurses, and its frame would hold this one's locals at every level */
static NC_NOINLINE Val conv_num(Ctx *x, AstNode *n)
{
    Compiler *cc = x->cc;
    if (!n->str) {
        Val v = sema_mkval(ir_const(cc, n->num, IRT_REAL), DIM_NONE);
        v.anydim = n->num == 0;
        return v;
    }
    if (strcmp(n->str, "step") == 0 || strcmp(n->str, "steps") == 0)
        return sema_mkval(ir_const(cc, n->num * cc->ir->dt, IRT_REAL), dim_time());
    Dim d;
    double sc;
    char err[128];
    if (!unit_parse(n->str, &d, &sc, err, sizeof err)) {
        error_at(cc, n->loc2.line ? n->loc2 : n->loc, "%s", err);
        return sema_bad(cc);
    }
    return sema_mkval(ir_const(cc, n->num * sc, IRT_REAL), d);
}

static Val conv_bin(Ctx *x, AstNode *n)
{
    Compiler *cc = x->cc;
    Val a = sema_conv(x, n->a), b = sema_conv(x, n->b);
    if (!a.ok || !b.ok)
        return sema_bad(cc);
    IrBinop op;
    switch (n->op) {
    case TK_PLUS: op = IB_ADD; break;
    case TK_MINUS: op = IB_SUB; break;
    case TK_STAR: op = IB_MUL; break;
    case TK_SLASH: op = IB_DIV; break;
    case TK_PERCENT: op = IB_MOD; break;
    case TK_CARET: op = IB_POW; break;
    case TK_LT: op = IB_LT; break;
    case TK_LE: op = IB_LE; break;
    case TK_GT: op = IB_GT; break;
    case TK_GE: op = IB_GE; break;
    case TK_EQ: op = IB_EQ; break;
    case TK_NE: op = IB_NE; break;
    case TK_ANDAND: op = IB_AND; break;
    case TK_OROR: op = IB_OR; break;
    default: nc_ice("binary operator %d", n->op);
    }
    static const char *const opname[] = {"'+'", "'-'", "'*'", "'/'", "'%'", "'^'", "'<'", "'<='",
                                         "'>'", "'>='", "'=='", "'!='", "'&&'", "'||'"};
    Dim d = DIM_NONE;
    int anyd = 0;
    switch (op) {
    case IB_ADD: case IB_SUB: case IB_MOD:
        if (!sema_same_dim(x, a, b, n->loc, arena_printf(&cc->arena, "operands of %s", opname[op])))
            return sema_bad(cc);
        d = a.anydim ? b.d : a.d;
        anyd = a.anydim && b.anydim;
        break;
    case IB_MUL:
    case IB_DIV:
        if (!(a.anydim || (op == IB_MUL && b.anydim) || dim_fits(a.d, b.d, op == IB_MUL ? 1 : -1))) {
            error_at(cc, n->loc, "the dimension of this %s is out of range (exponents run from "
                     "%d to %d)", op == IB_MUL ? "product" : "quotient", INT8_MIN, INT8_MAX);
            return sema_bad(cc);
        }
        if (op == IB_DIV) {
            d = dim_div(a.d, b.d);
            anyd = a.anydim;
            break;
        }
        d = dim_mul(a.d, b.d);
        anyd = a.anydim || b.anydim;
        if (a.anydim) d = b.d;
        if (b.anydim) d = a.d;
        break;
    case IB_POW: {
        if (!sema_expect_dim(x, b, DIM_NONE, n->b->loc, "the exponent"))
            return sema_bad(cc);
        if (!dim_is_none(a.d) && !a.anydim) {
            double k;
            int ok = 0;
            if (ir_is_const(b.e, &k) && k == floor(k) && fabs(k) < 64)
                d = dim_pow(a.d, (int)k, 1, &ok);
            if (!ok) {
                error_at(cc, n->loc, "a quantity with dimension %s needs a constant integer exponent",
                         sema_fmt_dim(cc, a.d));
                return sema_bad(cc);
            }
        }
        break;
    }
    case IB_LT: case IB_LE: case IB_GT: case IB_GE: case IB_EQ: case IB_NE:
        if (!sema_same_dim(x, a, b, n->loc, arena_printf(&cc->arena, "comparison %s", opname[op])))
            return sema_bad(cc);
        break;
    case IB_AND: case IB_OR:
        if (a.e->type != IRT_BOOL || b.e->type != IRT_BOOL) {
            error_at(cc, n->loc, "operands of %s must be conditions", opname[op]);
            return sema_bad(cc);
        }
        break;
    }
    /* x^2, x^3 as multiplications: exact, and faster than pow */
    double k;
    if (op == IB_POW && ir_is_const(b.e, &k) && (k == 2 || k == 3) && !ir_is_const(a.e, NULL)) {
        IrExpr *sq = ir_bin(cc, IB_MUL, a.e, a.e);
        Val v = sema_mkval(k == 2 ? sq : ir_bin(cc, IB_MUL, sq, a.e), d);
        return v;
    }
    Val v = sema_mkval(ir_bin(cc, op, to_real(cc, a.e), b.e), d);
    v.anydim = anyd && ir_is_const(v.e, &k) && k == 0;
    return v;
}

static Val conv_node(Ctx *x, AstNode *n)
{
    Compiler *cc = x->cc;
    switch (n->kind) {
    case AST_NUM:
        return conv_num(x, n);
    case AST_BOOL:
        return sema_mkval(ir_const(cc, n->flag, IRT_BOOL), DIM_NONE);
    case AST_STRING:
        error_at(cc, n->loc, "a string is not a value (strings name files: from_file(\"edges.csv\"))");
        return sema_bad(cc);
    case AST_NAME:
        return conv_name(x, n);
    case AST_FIELD:
        if (x->S->plast.syn)
            return sema_syn_field(x, n);
        if (strcmp(n->name, "pos") == 0)
            return sema_conv_pos(x, n);
        error_at(cc, n->loc, "'%s.%s' is not available here", n->name, n->name2);
        if (strcmp(n->name, "pre") == 0 || strcmp(n->name, "post") == 0)
            diag_extra(cc, "  note: pre/post scopes belong to plastic synapses, which this "
                           "version of neuroc does not support yet");
        return sema_bad(cc);
    case AST_CALL:
        return sema_conv_call(x, n);
    case AST_UNOP: {
        Val a = sema_conv(x, n->a);
        if (!a.ok)
            return a;
        if (n->op == TK_NOT) {
            if (a.e->type != IRT_BOOL) {
                error_at(cc, n->loc, "operand of '!' must be a condition");
                return sema_bad(cc);
            }
            return sema_mkval(ir_not(cc, a.e), DIM_NONE);
        }
        Val v = sema_mkval(ir_neg(cc, a.e), a.d);
        v.anydim = a.anydim;
        return v;
    }
    case AST_BINOP:
        return conv_bin(x, n);
    case AST_COND: {
        Val c = sema_conv(x, n->a), a = sema_conv(x, n->b), b = sema_conv(x, n->c);
        if (!c.ok || !a.ok || !b.ok)
            return sema_bad(cc);
        if (c.e->type != IRT_BOOL) {
            error_at(cc, n->a->loc, "the condition of '?:' must be a condition");
            return sema_bad(cc);
        }
        if (!sema_same_dim(x, a, b, n->loc, "the branches of '?:'"))
            return sema_bad(cc);
        Val v = sema_mkval(ir_cond(cc, c.e, a.e, b.e), a.anydim ? b.d : a.d);
        v.anydim = a.anydim && b.anydim;
        return v;
    }
    case AST_IN: {
        Val a = sema_conv(x, n->a);
        Dim d;
        double sc;
        if (!a.ok || !sema_unit_scale(cc, n->b, &d, &sc))
            return sema_bad(cc);
        if (!a.anydim && !dim_eq(a.d, d)) {
            error_at(cc, n->loc, "'in' converts between equal dimensions: %s is not %s",
                     sema_fmt_dim(cc, a.d), sema_fmt_dim(cc, d));
            return sema_bad(cc);
        }
        return sema_mkval(ir_bin(cc, IB_DIV, a.e, ir_const(cc, sc, IRT_REAL)), DIM_NONE);
    }
    default:
        error_at(cc, n->loc, "expected an expression");
        return sema_bad(cc);
    }
}

/* Convert expression n, refusing a result that every later pass could not walk: the
 * parser bounds the height of what is written, but lets, function bodies and derived
 * values are inlined, and a chain of them can build a tree of any height, or of a size
 * exponential in its length (`let b = a * a` shares a, printers write it twice). */
static Val conv_limited(Ctx *x, AstNode *n)
{
    Compiler *cc = x->cc;
    Val v = conv_node(x, n);
    const char *msg = NULL;
    if (v.ok && v.e->height - 1 > NC_MAX_EXPR_DEPTH)
        msg = arena_printf(&cc->arena, "expression too deeply nested (%u levels once lets, functions "
                           "and derived values are inlined; the limit is %d)",
                           (unsigned)v.e->height - 1, NC_MAX_EXPR_DEPTH);
    else if (v.ok && v.e->size > NC_MAX_EXPR_SIZE)
        msg = arena_printf(&cc->arena, "expression too large (%s%u nodes once lets, functions and "
                           "derived values are inlined; the limit is %d)",
                           v.e->size == UINT32_MAX ? "over " : "", (unsigned)v.e->size, NC_MAX_EXPR_SIZE);
    if (!msg)
        return v;
    /* the height depends on the instance (a parameter `set` makes a variable where the generic
     * check folded a constant), and instances are converted muted: sema_lower reports the
     * first such error again at the end if nothing else was reported */
    error_at(cc, n->loc, "%s", msg);
    if (!x->S->limit_msg) {
        x->S->limit_msg = msg;
        x->S->limit_loc = n->loc;
    }
    return sema_bad(cc);
}

/* A real constant in e past float's range (a visit budget bounds shared subtrees). */
static int float_overflow(const IrExpr *e, double *big, int *budget)
{
    if (!e || --*budget < 0)
        return 0;
    if (e->op == IE_CONST) {
        *big = e->val;
        return e->type == IRT_REAL && isfinite(e->val) && fabs(e->val) > FLT_MAX;
    }
    if (float_overflow(e->a, big, budget) || float_overflow(e->b, big, budget) ||
        float_overflow(e->c, big, budget))
        return 1;
    for (int i = 0; i < e->nargs; i++)
        if (float_overflow(e->args[i], big, budget))
            return 1;
    return 0;
}

/* Every constant a literal or folding produces is finite (the innermost expression that is
 * not is reported); where the model computes in float, every constant of a whole expression
 * fits a float (an overflow would be inf in the generated code; folded steps in between are
 * computed in double and may exceed it). */
Val sema_conv(Ctx *x, AstNode *n)
{
    Sema *S = x->S;
    int had_inf = S->inf_seen;
    S->inf_seen = 0;
    S->conv_depth++;
    Val v = conv_limited(x, n);
    S->conv_depth--;
    double c;
    if (v.ok && ir_is_const(v.e, &c) && isinf(c) && n->kind == AST_NAME)
        S->inf_seen = 1; /* `inf`, or a constant defined as it */
    else if (v.ok && ir_is_const(v.e, &c) && (isnan(c) || (isinf(c) && !S->inf_seen))) {
        error_at(x->cc, n->loc, "this %s is %s", n->kind == AST_NUM ? "number" : "constant",
                 isnan(c) ? "not a number (NaN); a value must be a number"
                 : c > 0 ? "infinite; a value must be finite (or 'inf' where infinity is meant)"
                         : "minus infinite; a value must be finite (or '-inf' where infinity is meant)");
        S->inf_seen |= had_inf;
        return sema_bad(x->cc);
    }
    S->inf_seen |= had_inf;
    int budget = 100000;
    if (v.ok && S->conv_depth == 0 && !S->no_float_check && !S->m->dbl &&
        float_overflow(v.e, &c, &budget)) {
        error_at(x->cc, n->loc, "%s (%.17g) is out of range for precision float (at most %.9g in "
                 "magnitude)", ir_is_const(v.e, NULL) ? "this value" : "a constant in this expression",
                 c, (double)FLT_MAX);
        diag_extra(x->cc, "  note: 'sim { precision = double }' computes in double");
        return sema_bad(x->cc);
    }
    return v;
}

/* Evaluate a compile-time constant expression. */
int sema_const_eval(Ctx *x, AstNode *n, double *out, Dim *d)
{
    Val v = sema_conv(x, n);
    if (!v.ok)
        return 0;
    if (!ir_is_const(v.e, out)) {
        error_at(x->cc, n->loc, "%s must be a constant", x->where);
        return 0;
    }
    if (d)
        *d = v.anydim ? DIM_NONE : v.d;
    return 1;
}

const char *sema_unit_text(Compiler *cc, Dim d)
{
    return sema_fmt_dim(cc, d);
}
