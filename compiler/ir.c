/* ir.c -- constructors for the lowered model, with constant folding.
 *
 * Used by sema.c (which builds IR while it checks) and ode.c (integrator lowering).
 * Folding happens in the constructors, so every producer gets simplified trees and the
 * generated code stays readable (no `0 * x`, no `1.0 * 20.0`).
 */
#include <math.h>
#include <string.h>

#include "ir.h"
#include "neuroc.h"

/* ORDER: IrFn */
const char *const ir_builtin_name[IF__COUNT] = {
    "exp", "log", "sqrt", "abs", "min", "max", "exprel", "sin", "cos", "tan", "tanh",
    "floor", "ceil", "round", "expm1", "log1p", "log10", "atan", "sinh", "cosh", "clip",
};
const int ir_builtin_arity[IF__COUNT] = {
    1, 1, 1, 1, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 3,
};
/* ORDER: IrBinop */
const char *const ir_binop_c[] = {
    "+", "-", "*", "/", "%", "pow", "<", "<=", ">", ">=", "==", "!=", "&&", "||",
};

static IrExpr *node(Compiler *cc, IrExprOp op, IrType t)
{
    IrExpr *e = arena_alloc(&cc->arena, sizeof *e);
    e->op = op;
    e->type = t;
    e->height = 1;
    e->size = 1;
    return e;
}

static void measure_child(IrExpr *e, const IrExpr *c)
{
    if (!c)
        return;
    if (c->height + 1 > e->height)
        e->height = c->height + 1;
    e->size = c->size > UINT32_MAX - e->size ? UINT32_MAX : e->size + c->size;
}

/* Contract: ir.h. Not recursive: the children are measured already. */
void ir_measure(IrExpr *e)
{
    e->height = 1;
    e->size = 1;
    measure_child(e, e->a);
    measure_child(e, e->b);
    measure_child(e, e->c);
    for (int i = 0; i < e->nargs; i++)
        measure_child(e, e->args[i]);
}

IrExpr *ir_const(Compiler *cc, double v, IrType t)
{
    IrExpr *e = node(cc, IE_CONST, t);
    e->val = v;
    return e;
}

IrExpr *ir_var(Compiler *cc, IrVar *v)
{
    IrExpr *e = node(cc, IE_VAR, v->type);
    e->var = v;
    return e;
}

IrExpr *ir_local(Compiler *cc, int id, IrType t)
{
    IrExpr *e = node(cc, IE_LOCAL, t);
    e->local = id;
    return e;
}

IrExpr *ir_leaf(Compiler *cc, IrExprOp op, IrType t)
{
    return node(cc, op, t);
}

int ir_is_const(const IrExpr *e, double *v)
{
    if (e->op != IE_CONST)
        return 0;
    if (v)
        *v = e->val;
    return 1;
}

static double exprel(double x)
{
    return fabs(x) < 1e-9 ? 1.0 + x / 2 : expm1(x) / x;
}

static double eval_fn(IrFn fn, const double *a)
{
    switch (fn) {
    case IF_EXP: return exp(a[0]);
    case IF_LOG: return log(a[0]);
    case IF_SQRT: return sqrt(a[0]);
    case IF_ABS: return fabs(a[0]);
    case IF_MIN: return fmin(a[0], a[1]);
    case IF_MAX: return fmax(a[0], a[1]);
    case IF_EXPREL: return exprel(a[0]);
    case IF_SIN: return sin(a[0]);
    case IF_COS: return cos(a[0]);
    case IF_TAN: return tan(a[0]);
    case IF_TANH: return tanh(a[0]);
    case IF_FLOOR: return floor(a[0]);
    case IF_CEIL: return ceil(a[0]);
    case IF_ROUND: return round(a[0]);
    case IF_EXPM1: return expm1(a[0]);
    case IF_LOG1P: return log1p(a[0]);
    case IF_LOG10: return log10(a[0]);
    case IF_ATAN: return atan(a[0]);
    case IF_SINH: return sinh(a[0]);
    case IF_COSH: return cosh(a[0]);
    case IF_CLIP: return fmin(fmax(a[0], a[1]), a[2]);
    case IF__COUNT: break;
    }
    NC_UNREACHABLE();
}

static IrType bin_type(IrBinop op, IrExpr *a, IrExpr *b)
{
    if (op >= IB_LT)
        return IRT_BOOL;
    if (op == IB_POW || op == IB_DIV)
        return (a->type == IRT_INT && b->type == IRT_INT && op == IB_DIV) ? IRT_INT : IRT_REAL;
    return (a->type == IRT_INT && b->type == IRT_INT) ? IRT_INT : IRT_REAL;
}

IrExpr *ir_bin(Compiler *cc, IrBinop op, IrExpr *a, IrExpr *b)
{
    double x = 0, y = 0;
    IrType t = bin_type(op, a, b);
    int ca = ir_is_const(a, &x), cb = ir_is_const(b, &y);
    if (ca && cb) {
        double r = 0;
        switch (op) {
        case IB_ADD: r = x + y; break;
        case IB_SUB: r = x - y; break;
        case IB_MUL: r = x * y; break;
        case IB_DIV: r = (t == IRT_INT && y != 0) ? trunc(x / y) : x / y; break;
        case IB_MOD: r = fmod(x, y); break;
        case IB_POW: r = pow(x, y); break;
        case IB_LT: r = x < y; break;
        case IB_LE: r = x <= y; break;
        case IB_GT: r = x > y; break;
        case IB_GE: r = x >= y; break;
        case IB_EQ: r = x == y; break;
        case IB_NE: r = x != y; break;
        case IB_AND: r = (x != 0) && (y != 0); break;
        case IB_OR: r = (x != 0) || (y != 0); break;
        }
        return ir_const(cc, r, t);
    }
    /* algebraic identities that are exact in IEEE arithmetic for finite values */
    if (op == IB_ADD && ca && x == 0 && t == b->type) return b;
    if ((op == IB_ADD || op == IB_SUB) && cb && y == 0 && t == a->type) return a;
    if (op == IB_SUB && ca && x == 0) return ir_neg(cc, b);
    if (op == IB_MUL && ((ca && x == 0) || (cb && y == 0)) && t != IRT_BOOL)
        return ir_const(cc, 0, t);
    if (op == IB_MUL && ca && x == 1 && t == b->type) return b;
    if ((op == IB_MUL || op == IB_DIV) && cb && y == 1 && t == a->type) return a;
    if (op == IB_DIV && ca && x == 0 && t != IRT_BOOL) return ir_const(cc, 0, t);
    if (op == IB_POW && cb && y == 1) return a;
    if (op == IB_AND && ca) return x != 0 ? b : ir_const(cc, 0, IRT_BOOL);
    if (op == IB_AND && cb) return y != 0 ? a : ir_const(cc, 0, IRT_BOOL);
    if (op == IB_OR && ca) return x != 0 ? ir_const(cc, 1, IRT_BOOL) : b;
    if (op == IB_OR && cb) return y != 0 ? ir_const(cc, 1, IRT_BOOL) : a;
    IrExpr *e = node(cc, IE_BIN, t);
    e->sub = (int)op;
    e->a = a;
    e->b = b;
    ir_measure(e);
    return e;
}

IrExpr *ir_neg(Compiler *cc, IrExpr *a)
{
    double x;
    if (ir_is_const(a, &x))
        return ir_const(cc, -x, a->type);
    if (a->op == IE_NEG)
        return a->a;
    IrExpr *e = node(cc, IE_NEG, a->type == IRT_BOOL ? IRT_INT : a->type);
    e->a = a;
    ir_measure(e);
    return e;
}

IrExpr *ir_not(Compiler *cc, IrExpr *a)
{
    double x;
    if (ir_is_const(a, &x))
        return ir_const(cc, x == 0, IRT_BOOL);
    IrExpr *e = node(cc, IE_NOT, IRT_BOOL);
    e->a = a;
    ir_measure(e);
    return e;
}

IrExpr *ir_call(Compiler *cc, IrFn fn, IrExpr **args, int nargs)
{
    int allc = 1;
    double v[3] = {0, 0, 0};
    for (int i = 0; i < nargs && i < 3; i++)
        allc &= ir_is_const(args[i], &v[i]);
    if (allc && nargs == ir_builtin_arity[fn])
        return ir_const(cc, eval_fn(fn, v), IRT_REAL);
    IrExpr *e = node(cc, IE_CALL, IRT_REAL);
    if ((fn == IF_ABS || fn == IF_MIN || fn == IF_MAX) && args[0]->type == IRT_INT &&
        (nargs < 2 || args[1]->type == IRT_INT))
        e->type = IRT_INT;
    e->sub = (int)fn;
    e->args = arena_alloc(&cc->arena, sizeof(IrExpr *) * (size_t)(nargs ? nargs : 1));
    memcpy(e->args, args, sizeof(IrExpr *) * (size_t)nargs);
    e->nargs = nargs;
    ir_measure(e);
    return e;
}

IrExpr *ir_cond(Compiler *cc, IrExpr *c, IrExpr *a, IrExpr *b)
{
    double x;
    if (ir_is_const(c, &x))
        return x != 0 ? a : b;
    IrExpr *e = node(cc, IE_COND, a->type == b->type ? a->type : IRT_REAL);
    e->a = c;
    e->b = a;
    e->c = b;
    ir_measure(e);
    return e;
}

IrExpr *ir_rand(Compiler *cc, IrRand kind, uint32_t stream, uint32_t site)
{
    IrExpr *e = node(cc, IE_RAND, IRT_REAL);
    e->sub = (int)kind;
    e->stream = stream;
    e->site = site;
    return e;
}

static IrExpr *rebuild(Compiler *cc, IrExpr *e, IrExpr *a, IrExpr *b, IrExpr *c, IrExpr **args)
{
    switch (e->op) {
    case IE_BIN: return ir_bin(cc, (IrBinop)e->sub, a, b);
    case IE_NEG: return ir_neg(cc, a);
    case IE_NOT: return ir_not(cc, a);
    case IE_COND: return ir_cond(cc, a, b, c);
    case IE_CALL: return ir_call(cc, (IrFn)e->sub, args, e->nargs);
    case IE_RAND: {
        int same = a == e->a;
        for (int i = 0; i < e->nargs; i++)
            same &= args[i] == e->args[i];
        if (!same) {
            IrExpr *r = ir_rand(cc, (IrRand)e->sub, e->stream, e->site);
            r->a = a;
            r->args = args;
            r->nargs = e->nargs;
            r->bounds = e->bounds;
            ir_measure(r);
            return r;
        }
        return e;
    }
    default: return e;
    }
}

IrExpr *ir_subst(Compiler *cc, IrExpr *e, IrVar **from, IrExpr **to, int n)
{
    if (!e)
        return NULL;
    if (e->op == IE_VAR) {
        for (int i = 0; i < n; i++)
            if (from[i] == e->var)
                return to[i];
        return e;
    }
    IrExpr *a = ir_subst(cc, e->a, from, to, n);
    IrExpr *b = ir_subst(cc, e->b, from, to, n);
    IrExpr *c = ir_subst(cc, e->c, from, to, n);
    IrExpr **args = NULL;
    if (e->op == IE_CALL || e->op == IE_RAND) {
        args = arena_alloc(&cc->arena, sizeof(IrExpr *) * (size_t)(e->nargs + 1));
        for (int i = 0; i < e->nargs; i++)
            args[i] = ir_subst(cc, e->args[i], from, to, n);
    }
    return rebuild(cc, e, a, b, c, args);
}

int ir_uses_var(const IrExpr *e, IrVar *v)
{
    if (!e)
        return 0;
    if (e->op == IE_VAR && e->var == v)
        return 1;
    for (int i = 0; i < e->nargs; i++)
        if (ir_uses_var(e->args[i], v))
            return 1;
    return ir_uses_var(e->a, v) || ir_uses_var(e->b, v) || ir_uses_var(e->c, v);
}

int ir_is_time_varying(const IrExpr *e)
{
    if (!e)
        return 0;
    switch (e->op) {
    case IE_VAR:
        return e->var->kind != IV_PARAM;
    case IE_LOCAL: case IE_T: case IE_RAND: case IE_SFILE: case IE_STEP: case IE_SERIES:
        return 1;
    default:
        break;
    }
    for (int i = 0; i < e->nargs; i++)
        if (ir_is_time_varying(e->args[i]))
            return 1;
    return ir_is_time_varying(e->a) || ir_is_time_varying(e->b) || ir_is_time_varying(e->c);
}

int ir_has_per_neuron(const IrExpr *e)
{
    if (!e)
        return 0;
    if (e->op == IE_VAR && e->var->per_neuron)
        return 1;
    if (e->op == IE_INDEX || e->op == IE_SFILE || e->op == IE_SERIES ||
        (e->op == IE_PROP && e->prop->per_neuron))
        return 1;
    for (int i = 0; i < e->nargs; i++)
        if (ir_has_per_neuron(e->args[i]))
            return 1;
    return ir_has_per_neuron(e->a) || ir_has_per_neuron(e->b) || ir_has_per_neuron(e->c);
}

static void expr_locals(const IrExpr *e, unsigned char *used)
{
    if (!e)
        return;
    if (e->op == IE_LOCAL)
        used[e->local] = 1;
    for (int i = 0; i < e->nargs; i++)
        expr_locals(e->args[i], used);
    expr_locals(e->a, used);
    expr_locals(e->b, used);
    expr_locals(e->c, used);
}

void ir_block_locals(const IrBlock *b, unsigned char *used, unsigned char *decl)
{
    for (int i = 0; i < b->n; i++) {
        const IrStmt *s = b->v[i];
        expr_locals(s->e, used);
        if (s->kind == IS_SETLOCAL)
            used[s->local] = 1;
        if (s->kind == IS_LOCAL || s->kind == IS_RECV)
            decl[s->local] = 1;
        ir_block_locals(&s->body, used, decl);
        ir_block_locals(&s->els, used, decl);
    }
}

IrStmt *ir_stmt(Compiler *cc, IrStmtKind k)
{
    IrStmt *s = arena_alloc(&cc->arena, sizeof *s);
    s->kind = k;
    return s;
}

void ir_block_add(Compiler *cc, IrBlock *b, IrStmt *s)
{
    if (b->n == b->cap) {
        int cap = b->cap ? 2 * b->cap : 8;
        IrStmt **v = arena_alloc(&cc->arena, sizeof(IrStmt *) * (size_t)cap);
        if (b->n)
            memcpy(v, b->v, sizeof(IrStmt *) * (size_t)b->n);
        b->v = v;
        b->cap = cap;
    }
    b->v[b->n++] = s;
}

/* A new local temporary of population p; the C name is "<hint>_<id>". */
int ir_new_local(Compiler *cc, IrPop *p, const char *hint, IrType t)
{
    if (p->nlocals == p->caplocals) {
        int cap = p->caplocals ? 2 * p->caplocals : 16;
        IrLocalInfo *v = arena_alloc(&cc->arena, sizeof *v * (size_t)cap);
        if (p->nlocals)
            memcpy(v, p->locals, sizeof *v * (size_t)p->nlocals);
        p->locals = v;
        p->caplocals = cap;
    }
    int id = p->nlocals++;
    p->locals[id].name = arena_printf(&cc->arena, "l_%s_%d", hint, id);
    p->locals[id].type = t;
    return id;
}

/* Contract: ir.h. */
const char *ir_cname(Compiler *cc, const char *prefix, const char *name)
{
    StrBuf b = {0};
    sb_puts(&b, prefix);
    for (const char *s = name; *s; s++)
        sb_puts(&b, *s == '_' ? "_0" : (char[2]){*s, 0});
    const char *r = arena_strdup(&cc->arena, b.s);
    sb_free(&b);
    return r;
}

/* What back ends append to a population's C name besides its variables' labels, and to a
 * projection's (the C name of a plastic projection's scope): a variable with such a label
 * gets "_v" after it, so that it cannot take one of their names ("w" of a scope is the
 * projection's weights array, by design). A scope's presynaptic variable x also has a
 * history x_h: labels ending in "_h" are reserved there too. */
static int reserved_label(const IrPop *p, const char *label)
{
    static const char *const pop_sfx[] = {
        "N", "fl", "grid", "nspk", "ring", "sfi", "sfile", "sfn", "sfp", "slot", "spk", "tk",
        "tkh", "tks",
    };
    static const char *const proj_sfx[] = {
        "D", "arr", "arr_pre", "col", "cpre", "cptr", "csr", "csyn", "d", "fd", "fh", "file",
        "fired", "fw", "grid", "h", "hist", "narr", "ring", "rp", "slot",
    };
    const int scope = p->size == 0;
    const char *const *sfx = scope ? proj_sfx : pop_sfx;
    const size_t n = scope ? sizeof proj_sfx / sizeof *proj_sfx : sizeof pop_sfx / sizeof *pop_sfx;
    const size_t len = strlen(label);
    for (size_t i = 0; i < n; i++)
        if (strcmp(label, sfx[i]) == 0)
            return 1;
    if (scope && len > 2 && strcmp(label + len - 2, "_h") == 0)
        return 1;
    return !scope && strncmp(label, "prop", 4) == 0 && label[4] &&
           strspn(label + 4, "0123456789") == len - 4;
}

/* A new variable of population p; its C name is "<pop>_<label>" made unique. */
IrVar *ir_new_var(Compiler *cc, IrPop *p, IrVarKind k, const char *label, IrType t, Dim d,
                  int per_neuron)
{
    IrVar *v = arena_alloc(&cc->arena, sizeof *v);
    v->kind = k;
    v->label = label;
    v->type = t;
    v->dim = d;
    v->per_neuron = per_neuron;
    v->pop = p;
    const char *base = arena_printf(&cc->arena, "%s_%s%s", p->cname, label, reserved_label(p, label) ? "_v" : "");
    const char *name = intern_cstr(cc, base);
    /* C names are interned: a clash is an equal pointer (a population of 20,000 states
     * compared strings 2e8 times) */
    for (int tries = 2;; tries++) {
        int clash = 0;
        for (int i = 0; i < p->nvars && !clash; i++)
            clash = p->vars[i]->cname == name;
        if (!clash)
            break;
        name = intern_cstr(cc, arena_printf(&cc->arena, "%s%d", base, tries));
    }
    v->cname = name;
    /* p->vars grows only here: its capacity is 4, then the power of two above nvars, and
     * it is copied when full (a copy per variable was quadratic in time and memory) */
    int n = p->nvars;
    if (n == 0 || (n >= 4 && (n & (n - 1)) == 0)) {
        IrVar **nv = arena_alloc(&cc->arena, sizeof(IrVar *) * (size_t)(n < 4 ? 4 : 2 * n));
        if (n)
            memcpy(nv, p->vars, sizeof(IrVar *) * (size_t)n);
        p->vars = nv;
    }
    p->vars[p->nvars++] = v;
    return v;
}
