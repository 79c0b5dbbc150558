/* ode.c -- integrator lowering: `dynamics` blocks become explicit per-step updates.
 *
 * Called by sema.c once a block's right-hand sides are IR (lets inlined). Methods:
 *   exact      x(t+dt) = Phi x + Psi b for linear constant-coefficient systems; Phi and Psi
 *              come from a matrix exponential the generated program computes at load time
 *   exp_euler  x += (c - k x)(1 - exp(-k dt))/k for equations linear in their own variable
 *   rk4        classic fourth order;  euler(substeps = n)  n explicit Euler sub-steps
 *   auto       the first of exact, exp_euler, rk4 whose conditions hold
 * Inputs (ports) are held constant over the step. Back ends never see an ODE.
 */
#include <math.h>
#include <string.h>

#include "sema.h"

typedef enum { LC_CONST, LC_LIN, LC_NONLIN } LinClass;

static const char *names_of(Compiler *cc, OdeEq *eqs, int n);

static int in_set(IrVar *v, IrVar **X, int n)
{
    for (int i = 0; i < n; i++)
        if (X[i] == v)
            return 1;
    return 0;
}

/* How e depends on the variables X: not at all, affinely, or otherwise. */
static LinClass lin(const IrExpr *e, IrVar **X, int n)
{
    LinClass a, b;
    switch (e->op) {
    case IE_VAR:
        return in_set(e->var, X, n) ? LC_LIN : LC_CONST;
    case IE_NEG:
        return lin(e->a, X, n);
    case IE_BIN:
        a = lin(e->a, X, n);
        b = lin(e->b, X, n);
        switch ((IrBinop)e->sub) {
        case IB_ADD: case IB_SUB:
            return a > b ? a : b;
        case IB_MUL:
            if (a == LC_CONST) return b;
            if (b == LC_CONST) return a;
            return LC_NONLIN;
        case IB_DIV:
            return b == LC_CONST ? a : LC_NONLIN;
        default:
            return (a == LC_CONST && b == LC_CONST) ? LC_CONST : LC_NONLIN;
        }
    case IE_CALL:
        for (int i = 0; i < e->nargs; i++)
            if (lin(e->args[i], X, n) != LC_CONST)
                return LC_NONLIN;
        return LC_CONST;
    case IE_COND: case IE_NOT:
        if (lin(e->a, X, n) != LC_CONST || (e->b && lin(e->b, X, n) != LC_CONST) ||
            (e->c && lin(e->c, X, n) != LC_CONST))
            return LC_NONLIN;
        return LC_CONST;
    default:
        return LC_CONST;
    }
}

/* d e / d x for e affine in x (checked by lin() first). */
static IrExpr *coef(Compiler *cc, IrExpr *e, IrVar *x, IrVar **X, int n)
{
    switch (e->op) {
    case IE_VAR:
        return ir_const(cc, e->var == x ? 1.0 : 0.0, IRT_REAL);
    case IE_NEG:
        return ir_neg(cc, coef(cc, e->a, x, X, n));
    case IE_BIN:
        switch ((IrBinop)e->sub) {
        case IB_ADD:
            return ir_bin(cc, IB_ADD, coef(cc, e->a, x, X, n), coef(cc, e->b, x, X, n));
        case IB_SUB:
            return ir_bin(cc, IB_SUB, coef(cc, e->a, x, X, n), coef(cc, e->b, x, X, n));
        case IB_MUL:
            if (lin(e->a, X, n) == LC_CONST)
                return ir_bin(cc, IB_MUL, e->a, coef(cc, e->b, x, X, n));
            return ir_bin(cc, IB_MUL, coef(cc, e->a, x, X, n), e->b);
        case IB_DIV:
            return ir_bin(cc, IB_DIV, coef(cc, e->a, x, X, n), e->b);
        default:
            break;
        }
        break;
    default:
        break;
    }
    return ir_const(cc, 0.0, IRT_REAL);
}

static IrExpr *shift_time(Compiler *cc, IrExpr *e, IrExpr *T)
{
    if (!e)
        return NULL;
    switch (e->op) {
    case IE_T:
        return T;
    case IE_BIN:
        return ir_bin(cc, (IrBinop)e->sub, shift_time(cc, e->a, T), shift_time(cc, e->b, T));
    case IE_NEG:
        return ir_neg(cc, shift_time(cc, e->a, T));
    case IE_NOT:
        return ir_not(cc, shift_time(cc, e->a, T));
    case IE_COND:
        return ir_cond(cc, shift_time(cc, e->a, T), shift_time(cc, e->b, T),
                       shift_time(cc, e->c, T));
    case IE_CALL: {
        IrExpr **args = arena_alloc(&cc->arena, sizeof(IrExpr *) * (size_t)(e->nargs + 1));
        for (int i = 0; i < e->nargs; i++)
            args[i] = shift_time(cc, e->args[i], T);
        return ir_call(cc, (IrFn)e->sub, args, e->nargs);
    }
    default:
        return e;
    }
}

/* Substitute variables (X -> to) and shift time by `toff` ms, for integrator stages. */
static IrExpr *stage(Compiler *cc, IrExpr *e, IrVar **X, IrExpr **to, int n, IrExpr *toff)
{
    IrExpr *r = n ? ir_subst(cc, e, X, to, n) : e;
    if (!toff)
        return r;
    return shift_time(cc, r, ir_bin(cc, IB_ADD, ir_leaf(cc, IE_T, IRT_REAL), toff));
}

static int new_local(Compiler *cc, IrPop *pop, IrBlock *out, const char *hint, IrExpr *e)
{
    int id = ir_new_local(cc, pop, hint, IRT_REAL);
    IrStmt *s = ir_stmt(cc, IS_LOCAL);
    s->local = id;
    s->type = IRT_REAL;
    s->e = e;
    ir_block_add(cc, out, s);
    return id;
}

static void assign(Compiler *cc, IrBlock *out, IrVar *v, IrExpr *e)
{
    IrStmt *s = ir_stmt(cc, IS_ASSIGN);
    s->var = v;
    s->e = e;
    ir_block_add(cc, out, s);
}

/* {===== exact ===== */

static int exact_ok(Compiler *cc, OdeEq *eqs, int n, IrVar **X, IrExpr ***Aout)
{
    IrExpr **A = arena_alloc(&cc->arena, sizeof(IrExpr *) * (size_t)(n * n));
    for (int i = 0; i < n; i++) {
        if (lin(eqs[i].rhs, X, n) == LC_NONLIN)
            return 0;
        for (int j = 0; j < n; j++) {
            IrExpr *c = coef(cc, eqs[i].rhs, X[j], X, n);
            if (ir_is_time_varying(c))
                return 0;
            A[i * n + j] = c;
        }
    }
    *Aout = A;
    return 1;
}

static void emit_exact_update(Compiler *cc, IrPop *pop, IrProp *P, int which, OdeEq *eqs, int n,
                              IrVar **X, int *blocal, IrBlock *out)
{
    int *xn = arena_alloc(&cc->arena, sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++) {
        IrExpr *sum = ir_const(cc, 0, IRT_REAL);
        for (int j = 0; j < n; j++) {
            IrExpr *phi = ir_leaf(cc, IE_PROP, IRT_REAL);
            phi->prop = P, phi->sub = which, phi->row = i, phi->col = j;
            sum = ir_bin(cc, IB_ADD, sum, ir_bin(cc, IB_MUL, phi, ir_var(cc, X[j])));
        }
        for (int j = 0; j < n; j++) {
            if (blocal[j] < 0)
                continue;
            IrExpr *psi = ir_leaf(cc, IE_PROP, IRT_REAL);
            psi->prop = P, psi->sub = which + 1, psi->row = i, psi->col = j;
            sum = ir_bin(cc, IB_ADD, sum, ir_bin(cc, IB_MUL, psi, ir_local(cc, blocal[j], IRT_REAL)));
        }
        xn[i] = n > 1 ? new_local(cc, pop, out, X[i]->label, sum) : -1;
        if (n == 1)
            assign(cc, out, X[0], sum);
    }
    if (n > 1)
        for (int i = 0; i < n; i++)
            assign(cc, out, X[i], ir_local(cc, xn[i], IRT_REAL));
    (void)eqs;
}

static void lower_exact(Compiler *cc, IrPop *pop, OdeEq *eqs, int n, IrVar **X, IrExpr **A,
                        IrExpr *rf, IrBlock *out)
{
    IrProp *P = arena_alloc(&cc->arena, sizeof *P);
    P->id = pop->nprops;
    P->cname = arena_printf(&cc->arena, "%s_prop%d", pop->cname, pop->nprops);
    P->n = n;
    P->A = A;
    P->pop = pop;
    int anyfrozen = 0;
    for (int i = 0; i < n; i++)
        anyfrozen |= eqs[i].frozen;
    for (int k = 0; k < n * n; k++)
        P->per_neuron |= ir_has_per_neuron(A[k]);
    if (anyfrozen && rf) {
        P->A_refr = arena_alloc(&cc->arena, sizeof(IrExpr *) * (size_t)(n * n));
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                P->A_refr[i * n + j] = eqs[i].frozen ? ir_const(cc, 0, IRT_REAL) : A[i * n + j];
    }
    IrProp **np = arena_alloc(&cc->arena, sizeof(IrProp *) * (size_t)(pop->nprops + 1));
    if (pop->nprops)
        memcpy(np, pop->props, sizeof(IrProp *) * (size_t)pop->nprops);
    np[pop->nprops++] = P;
    pop->props = np;

    /* b = f(x = 0): the inhomogeneous part, evaluated once per step (ports held) */
    IrExpr **zero = arena_alloc(&cc->arena, sizeof(IrExpr *) * (size_t)n);
    for (int i = 0; i < n; i++)
        zero[i] = ir_const(cc, 0, IRT_REAL);
    int *bl = arena_alloc(&cc->arena, sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++) {
        IrExpr *b = ir_subst(cc, eqs[i].rhs, X, zero, n);
        double v;
        bl[i] = (ir_is_const(b, &v) && v == 0) ? -1 : new_local(cc, pop, out, "b", b);
    }
    if (P->A_refr) {
        /* rows of frozen variables have b = 0 while refractory: zero them in a copy */
        IrStmt *s = ir_stmt(cc, IS_IF);
        s->e = rf;
        int *bl2 = arena_alloc(&cc->arena, sizeof(int) * (size_t)n);
        for (int i = 0; i < n; i++)
            bl2[i] = eqs[i].frozen ? -1 : bl[i];
        emit_exact_update(cc, pop, P, 2, eqs, n, X, bl2, &s->body);
        emit_exact_update(cc, pop, P, 0, eqs, n, X, bl, &s->els);
        ir_block_add(cc, out, s);
    } else {
        emit_exact_update(cc, pop, P, 0, eqs, n, X, bl, out);
    }
}

/* ===== exact =====} */

/* {===== event-driven (per-synapse dynamics) ===== */

/* 1 when eqs is x' = A x with A constant (parameters only) and no inhomogeneous part, the
 * condition for advancing a synapse's state over n steps at once; else 0 and *why. */
int ode_event_ok(Compiler *cc, OdeEq *eqs, int n, const char **why)
{
    IrVar **X = arena_alloc(&cc->arena, sizeof(IrVar *) * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++)
        X[i] = eqs[i].var;
    IrExpr **A;
    if (n == 0) {
        *why = "no equations";
        return 0;
    }
    for (int i = 0; i < n; i++)
        if (lin(eqs[i].rhs, X, n) == LC_NONLIN) {
            *why = arena_printf(&cc->arena, "the equation for '%s' is not linear in (%s)", eqs[i].var->label,
                                names_of(cc, eqs, n));
            return 0;
        }
    if (!exact_ok(cc, eqs, n, X, &A)) {
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                if (ir_is_time_varying(coef(cc, eqs[i].rhs, X[j], X, n))) {
                    *why = arena_printf(&cc->arena, "a coefficient in the equation for '%s' depends on a "
                                        "variable other than the synapse's own parameters, or on t",
                                        eqs[i].var->label);
                    return 0;
                }
        *why = "the coefficients are not constant";
        return 0;
    }
    IrExpr **zero = arena_alloc(&cc->arena, sizeof(IrExpr *) * (size_t)n);
    for (int i = 0; i < n; i++)
        zero[i] = ir_const(cc, 0, IRT_REAL);
    for (int i = 0; i < n; i++) {
        IrExpr *b = ir_subst(cc, eqs[i].rhs, X, zero, n);
        double v;
        if (!(ir_is_const(b, &v) && v == 0)) {
            *why = arena_printf(&cc->arena, "the equation for '%s' has a term without the synapse's own "
                                "variables (a neuron or pre/post variable, an input, t or a constant drive)",
                                eqs[i].var->label);
            return 0;
        }
    }
    return 1;
}

/* The catch-up block of event-driven synapse dynamics (ode_event_ok holds): with
 * r = step - last, for k = bits-1 down to 0, if r >= 2^k: r -= 2^k, x = Phi_k x, where
 * Phi_k = exp(A 2^k dt) is its own propagator (computed at load time in double by
 * nrt_propagator, like every propagator, so identical on every back end); then last = step. */
void ode_lower_event(Compiler *cc, IrPop *pop, OdeEq *eqs, int n, IrVar *last, int bits, IrBlock *out)
{
    IrVar **X = arena_alloc(&cc->arena, sizeof(IrVar *) * (size_t)n);
    for (int i = 0; i < n; i++)
        X[i] = eqs[i].var;
    IrExpr **A;
    if (!exact_ok(cc, eqs, n, X, &A))
        return;
    int r = ir_new_local(cc, pop, "elapsed", IRT_INT);
    IrStmt *d = ir_stmt(cc, IS_LOCAL);
    d->local = r;
    d->type = IRT_INT;
    d->e = ir_bin(cc, IB_SUB, ir_leaf(cc, IE_STEP, IRT_INT), ir_var(cc, last));
    ir_block_add(cc, out, d);
    int *none = arena_alloc(&cc->arena, sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++)
        none[i] = -1;
    for (int k = bits - 1; k >= 0; k--) {
        double pw = ldexp(1.0, k);
        IrProp *P = arena_alloc(&cc->arena, sizeof *P);
        P->id = pop->nprops;
        P->cname = arena_printf(&cc->arena, "%s_prop%d", pop->cname, pop->nprops);
        P->n = n;
        P->A = arena_alloc(&cc->arena, sizeof(IrExpr *) * (size_t)(n * n));
        for (int q = 0; q < n * n; q++)
            P->A[q] = k ? ir_bin(cc, IB_MUL, A[q], ir_const(cc, pw, IRT_REAL)) : A[q];
        P->pop = pop;
        IrProp **np = arena_alloc(&cc->arena, sizeof(IrProp *) * (size_t)(pop->nprops + 1));
        if (pop->nprops)
            memcpy(np, pop->props, sizeof(IrProp *) * (size_t)pop->nprops);
        np[pop->nprops++] = P;
        pop->props = np;
        IrStmt *s = ir_stmt(cc, IS_IF);
        s->e = ir_bin(cc, IB_GE, ir_local(cc, r, IRT_INT), ir_const(cc, pw, IRT_INT));
        s->e->type = IRT_BOOL;
        IrStmt *dec = ir_stmt(cc, IS_SETLOCAL);
        dec->local = r;
        dec->type = IRT_INT;
        dec->e = ir_bin(cc, IB_SUB, ir_local(cc, r, IRT_INT), ir_const(cc, pw, IRT_INT));
        ir_block_add(cc, &s->body, dec);
        emit_exact_update(cc, pop, P, 0, eqs, n, X, none, &s->body);
        ir_block_add(cc, out, s);
    }
    assign(cc, out, last, ir_leaf(cc, IE_STEP, IRT_INT));
}

/* ===== event-driven =====} */

static int exp_euler_ok(OdeEq *eqs, int n)
{
    for (int i = 0; i < n; i++)
        if (lin(eqs[i].rhs, &eqs[i].var, 1) == LC_NONLIN)
            return 0;
    return 1;
}

static void lower_exp_euler(Compiler *cc, IrPop *pop, OdeEq *eqs, int n, IrExpr *rf,
                            IrBlock *out)
{
    int *xn = arena_alloc(&cc->arena, sizeof(int) * (size_t)n);
    IrExpr *dt = ir_const(cc, cc->ir->dt, IRT_REAL);
    for (int i = 0; i < n; i++) {
        IrVar *x = eqs[i].var;
        IrExpr *zero = ir_const(cc, 0, IRT_REAL);
        IrExpr *c = ir_subst(cc, eqs[i].rhs, &x, &zero, 1);
        IrExpr *k = ir_neg(cc, coef(cc, eqs[i].rhs, x, &x, 1));
        double kv;
        IrExpr *upd;
        if (ir_is_const(k, &kv) && kv == 0) {
            upd = ir_bin(cc, IB_ADD, ir_var(cc, x), ir_bin(cc, IB_MUL, c, dt));
        } else {
            int kl = ir_is_const(k, NULL) ? -1 : new_local(cc, pop, out, "k", k);
            IrExpr *K = kl < 0 ? k : ir_local(cc, kl, IRT_REAL);
            /* h = (1 - exp(-k dt)) / k, with h = dt at k = 0 */
            IrExpr *mk = ir_neg(cc, ir_bin(cc, IB_MUL, K, dt));
            IrExpr *em1 = ir_call(cc, IF_EXPM1, &mk, 1);
            IrExpr *h = ir_bin(cc, IB_DIV, ir_neg(cc, em1), K);
            if (kl >= 0)
                h = ir_cond(cc, ir_bin(cc, IB_NE, K, ir_const(cc, 0, IRT_REAL)), h, dt);
            IrExpr *drift = ir_bin(cc, IB_SUB, c, ir_bin(cc, IB_MUL, K, ir_var(cc, x)));
            upd = ir_bin(cc, IB_ADD, ir_var(cc, x), ir_bin(cc, IB_MUL, drift, h));
        }
        if (eqs[i].frozen && rf)
            upd = ir_cond(cc, rf, ir_var(cc, x), upd);
        xn[i] = n > 1 ? new_local(cc, pop, out, x->label, upd) : -1;
        if (n == 1)
            assign(cc, out, x, upd);
    }
    if (n > 1)
        for (int i = 0; i < n; i++)
            assign(cc, out, eqs[i].var, ir_local(cc, xn[i], IRT_REAL));
}

/* Derivatives with frozen equations zeroed while refractory. */
static IrExpr **frozen_rhs(Compiler *cc, OdeEq *eqs, int n, IrExpr *rf)
{
    IrExpr **f = arena_alloc(&cc->arena, sizeof(IrExpr *) * (size_t)n);
    for (int i = 0; i < n; i++)
        f[i] = (eqs[i].frozen && rf) ? ir_cond(cc, rf, ir_const(cc, 0, IRT_REAL), eqs[i].rhs)
                                     : eqs[i].rhs;
    return f;
}

static void lower_rk4(Compiler *cc, IrPop *pop, OdeEq *eqs, int n, IrVar **X, IrExpr *rf,
                      IrBlock *out)
{
    IrExpr **f = frozen_rhs(cc, eqs, n, rf);
    IrExpr *dt = ir_const(cc, cc->ir->dt, IRT_REAL);
    IrExpr *half = ir_bin(cc, IB_MUL, ir_const(cc, 0.5, IRT_REAL), dt);
    int *k[4];
    IrExpr **st = arena_alloc(&cc->arena, sizeof(IrExpr *) * (size_t)n);
    for (int s = 0; s < 4; s++) {
        k[s] = arena_alloc(&cc->arena, sizeof(int) * (size_t)n);
        IrExpr *toff = s == 0 ? NULL : (s == 3 ? dt : half);
        for (int i = 0; i < n; i++) {
            if (s == 0)
                st[i] = ir_var(cc, X[i]);
            else {
                IrExpr *h = s == 3 ? dt : half;
                IrExpr *xs = ir_bin(cc, IB_ADD, ir_var(cc, X[i]),
                                    ir_bin(cc, IB_MUL, h, ir_local(cc, k[s - 1][i], IRT_REAL)));
                st[i] = ir_local(cc, new_local(cc, pop, out, "x", xs), IRT_REAL);
            }
        }
        for (int i = 0; i < n; i++)
            k[s][i] = new_local(cc, pop, out, "k", stage(cc, f[i], X, st, n, toff));
    }
    IrExpr *sixth = ir_bin(cc, IB_DIV, dt, ir_const(cc, 6, IRT_REAL));
    for (int i = 0; i < n; i++) {
        IrExpr *sum = ir_bin(cc, IB_ADD, ir_local(cc, k[0][i], IRT_REAL),
                             ir_bin(cc, IB_MUL, ir_const(cc, 2, IRT_REAL),
                                    ir_local(cc, k[1][i], IRT_REAL)));
        sum = ir_bin(cc, IB_ADD, sum,
                     ir_bin(cc, IB_MUL, ir_const(cc, 2, IRT_REAL), ir_local(cc, k[2][i], IRT_REAL)));
        sum = ir_bin(cc, IB_ADD, sum, ir_local(cc, k[3][i], IRT_REAL));
        assign(cc, out, X[i], ir_bin(cc, IB_ADD, ir_var(cc, X[i]), ir_bin(cc, IB_MUL, sixth, sum)));
    }
}

static void lower_euler(Compiler *cc, IrPop *pop, OdeEq *eqs, int n, IrVar **X, int substeps,
                        IrExpr *rf, IrBlock *out)
{
    IrExpr **f = frozen_rhs(cc, eqs, n, rf);
    IrExpr *h = ir_bin(cc, IB_DIV, ir_const(cc, cc->ir->dt, IRT_REAL),
                       ir_const(cc, substeps, IRT_REAL));
    for (int s = 0; s < substeps; s++) {
        IrExpr *toff = s ? ir_bin(cc, IB_MUL, ir_const(cc, s, IRT_REAL), h) : NULL;
        int *kl = arena_alloc(&cc->arena, sizeof(int) * (size_t)n);
        for (int i = 0; i < n; i++)
            kl[i] = new_local(cc, pop, out, "k", stage(cc, f[i], NULL, NULL, 0, toff));
        for (int i = 0; i < n; i++)
            assign(cc, out, X[i], ir_bin(cc, IB_ADD, ir_var(cc, X[i]),
                                         ir_bin(cc, IB_MUL, h, ir_local(cc, kl[i], IRT_REAL))));
    }
}

static const char *names_of(Compiler *cc, OdeEq *eqs, int n)
{
    StrBuf b = {0};
    for (int i = 0; i < n; i++)
        sb_printf(&b, "%s%s", i ? ", " : "", eqs[i].var->label);
    const char *r = arena_strdup(&cc->arena, b.s ? b.s : "");
    sb_free(&b);
    return r;
}

int ode_lower(Compiler *cc, IrPop *pop, OdeEq *eqs, int n, OdeMethod method, int substeps,
              IrExpr *rf, IrBlock *out, SrcLoc loc, const char **note)
{
    IrVar **X = arena_alloc(&cc->arena, sizeof(IrVar *) * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++)
        X[i] = eqs[i].var;
    const char *vars = names_of(cc, eqs, n);
    IrExpr **A = NULL;
    if (n == 0) {
        *note = "no equations";
        return 1;
    }
    switch (method) {
    case ODE_AUTO:
        if (exact_ok(cc, eqs, n, X, &A)) {
            lower_exact(cc, pop, eqs, n, X, A, rf, out);
            *note = arena_printf(&cc->arena,
                                 "auto -> exact: (%s) is linear with constant coefficients; "
                                 "%dx%d propagator exp(A dt) computed at load time",
                                 vars, n, n);
        } else if (exp_euler_ok(eqs, n)) {
            lower_exp_euler(cc, pop, eqs, n, rf, out);
            *note = arena_printf(&cc->arena,
                                 "auto -> exp_euler: each of (%s) is linear in itself with "
                                 "coefficients that vary (states or inputs)",
                                 vars);
        } else {
            lower_rk4(cc, pop, eqs, n, X, rf, out);
            *note = arena_printf(&cc->arena,
                                 "auto -> rk4: (%s) is nonlinear; consider 'using euler' or "
                                 "a smaller dt if rk4 is too costly",
                                 vars);
        }
        return 1;
    case ODE_EXACT:
        if (!exact_ok(cc, eqs, n, X, &A)) {
            /* point at the first equation that breaks linearity */
            int bad = 0, nonlin = 0;
            for (int i = n - 1; i >= 0; i--) {
                int nl = lin(eqs[i].rhs, X, n) == LC_NONLIN, tv = 0;
                for (int j = 0; j < n && !nl && !tv; j++)
                    tv = ir_is_time_varying(coef(cc, eqs[i].rhs, X[j], X, n));
                if (nl || tv) {
                    bad = i;
                    nonlin = nl;
                }
            }
            error_at(cc, eqs[bad].loc, "'exact' needs a linear system with constant coefficients");
            if (nonlin)
                diag_extra(cc, "  the equation for '%s' is not linear in (%s); use 'exp_euler' or 'rk4'",
                           eqs[bad].var->label, vars);
            else
                diag_extra(cc, "  a coefficient in the equation for '%s' depends on a state, an input or time; "
                               "use 'exp_euler' or 'rk4'", eqs[bad].var->label);
            return 0;
        }
        lower_exact(cc, pop, eqs, n, X, A, rf, out);
        *note = arena_printf(&cc->arena, "exact: %dx%d propagator for (%s) at load time", n, n,
                             vars);
        return 1;
    case ODE_EXP_EULER:
        if (!exp_euler_ok(eqs, n)) {
            int bad = 0;
            while (bad < n - 1 && lin(eqs[bad].rhs, &eqs[bad].var, 1) != LC_NONLIN)
                bad++;
            error_at(cc, eqs[bad].loc, "'exp_euler' needs each equation to be linear in its own "
                                       "variable");
            diag_extra(cc, "  the equation for '%s' is not linear in '%s'; use 'rk4' or 'euler'",
                       eqs[bad].var->label, eqs[bad].var->label);
            return 0;
        }
        lower_exp_euler(cc, pop, eqs, n, rf, out);
        *note = arena_printf(&cc->arena, "exp_euler for (%s)", vars);
        return 1;
    case ODE_RK4:
        lower_rk4(cc, pop, eqs, n, X, rf, out);
        *note = arena_printf(&cc->arena, "rk4 for (%s), as requested", vars);
        return 1;
    case ODE_EULER:
        lower_euler(cc, pop, eqs, n, X, substeps, rf, out);
        *note = arena_printf(&cc->arena, "euler with %d substep%s for (%s), as requested",
                             substeps, substeps == 1 ? "" : "s", vars);
        return 1;
    }
    NC_UNREACHABLE();
}
