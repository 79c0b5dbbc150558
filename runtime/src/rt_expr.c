/* rt_expr.c -- `--set P.x=EXPR`: per-neuron values given by an expression of i.
 *
 * EXPR is numbers with units (as the language writes literals: `2mV`, `0.5 [1/ms]`,
 * `3 steps`), the neuron's index `i` within the parameter's target, + - * /, unary minus
 * and parentheses. Its value is computed as the generated code computes the same initialiser
 * (`x = EXPR` in the population's initialiser block), so that the bits are the same: the
 * tree is built with the compiler's folding (compiler/ir.c, ir_bin and ir_neg: constant
 * operands folded in double, the same exact identities), numbers are reals, i an integer
 * (int64; int op int stays integer, `/` truncating), and every real operation is rounded to
 * the model's precision (float: an operation on floats computed in double and rounded to
 * float is the float operation's correctly rounded result). Random draws are not taken:
 * their streams are the compiler's (a file gives random values).
 */
#include "nrt_units.h"
#include "rt_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { X_NUM, X_IDX, X_NEG, X_BIN };
enum { MAXNODES = 256, MAXDEPTH = 64 };

typedef struct xnode {
    int kind, op;                 /* op: '+', '-', '*', '/' */
    int is_int, is_const, anydim;
    double val;                   /* is_const: the value (double, as ir.c folds) */
    int a, b;                     /* operands (node indices) */
    int dim[NRT_UNIT_NDIM];
} xnode;

typedef struct xparse {
    const char *s, *p;
    double dt;
    xnode n[MAXNODES];
    int nn, depth;
    char *err;
    size_t errn;
} xparse;

static int fail(xparse *x, const char *what)
{
    if (!x->err[0])
        snprintf(x->err, x->errn, "%s at '%.20s'", what, *x->p ? x->p : "(the end)");
    return -1;
}

static void skip(xparse *x)
{
    while (*x->p == ' ' || *x->p == '\t')
        x->p++;
}

static int node(xparse *x, xnode n)
{
    if (x->nn == MAXNODES)
        return fail(x, "expression too large");
    x->n[x->nn] = n;
    return x->nn++;
}

static int konst(xparse *x, double v, int is_int, const int *dim)
{
    xnode n = {X_NUM, 0, is_int, 1, 0, v, -1, -1, {0}};
    memcpy(n.dim, dim, sizeof n.dim);
    return node(x, n);
}

/* ir_neg */
static int neg(xparse *x, int a)
{
    if (a < 0)
        return -1;
    if (x->n[a].is_const)
        return konst(x, -x->n[a].val, x->n[a].is_int, x->n[a].dim);
    if (x->n[a].kind == X_NEG)
        return x->n[a].a;
    xnode n = x->n[a];
    n.kind = X_NEG;
    n.a = a;
    return node(x, n);
}

/* Node r with dimension dim: the identities return an operand, whose dimension may differ
 * (`x * 1nS`: sema keeps the product's dimension, the IR only the operand). */
static int with_dim(xparse *x, int r, const int *dim)
{
    if (r < 0 || (memcmp(x->n[r].dim, dim, sizeof x->n[r].dim) == 0 && !x->n[r].anydim))
        return r;
    xnode n = x->n[r];
    memcpy(n.dim, dim, sizeof n.dim);
    n.anydim = 0;
    return node(x, n);
}

static int bin_ir(xparse *x, int op, int a, int b, const int *dim);

/* ir_bin for + - * /, after the language's dimension rules. */
static int bin(xparse *x, int op, int a, int b)
{
    int dim[NRT_UNIT_NDIM];
    if (a < 0 || b < 0)
        return -1;
    const xnode A = x->n[a], B = x->n[b];
    for (int k = 0; k < NRT_UNIT_NDIM; k++)
        dim[k] = op == '*' ? A.dim[k] + B.dim[k] : op == '/' ? A.dim[k] - B.dim[k]
                 : B.anydim ? A.dim[k] : B.dim[k];
    if ((op == '+' || op == '-') && !A.anydim && !B.anydim && memcmp(A.dim, B.dim, sizeof dim))
        return fail(x, op == '+' ? "adding quantities of different dimensions"
                                 : "subtracting quantities of different dimensions");
    return with_dim(x, bin_ir(x, op, a, b, dim), dim);
}

/* ir_bin's folding and identities (compiler/ir.c), on the nodes a and b. */
static int bin_ir(xparse *x, int op, int a, int b, const int *dim)
{
    const xnode A = x->n[a], B = x->n[b];
    int t_int = A.is_int && B.is_int;
    double u = A.val, w = B.val;
    if (A.is_const && B.is_const) {
        double r = op == '+' ? u + w : op == '-' ? u - w : op == '*' ? u * w
                   : t_int && w != 0 ? trunc(u / w) : u / w;
        return konst(x, r, t_int, dim);
    }
    /* the exact identities of ir_bin */
    if (op == '+' && A.is_const && u == 0 && t_int == B.is_int)
        return b;
    if ((op == '+' || op == '-') && B.is_const && w == 0 && t_int == A.is_int)
        return a;
    if (op == '-' && A.is_const && u == 0)
        return neg(x, b);
    if (op == '*' && ((A.is_const && u == 0) || (B.is_const && w == 0)))
        return konst(x, 0, t_int, dim);
    if (op == '*' && A.is_const && u == 1 && t_int == B.is_int)
        return b;
    if ((op == '*' || op == '/') && B.is_const && w == 1 && t_int == A.is_int)
        return a;
    if (op == '/' && A.is_const && u == 0)
        return konst(x, 0, t_int, dim);
    xnode n = {X_BIN, op, t_int, 0, 0, 0, a, b, {0}};
    memcpy(n.dim, dim, sizeof n.dim);
    return node(x, n);
}

static int expr(xparse *x);

/* A number and its unit, as the language writes one: `2mV`, `2 mV`, `0.5[1/ms]`, `3 steps`. */
static int number(xparse *x)
{
    const char *q = x->p;
    char buf[64], unit[96], err[96];
    int dim[NRT_UNIT_NDIM] = {0};
    double scale = 1;
    q += strspn(q, "0123456789");
    if (*q == '.')
        q += 1 + strspn(q + 1, "0123456789");
    if ((*q == 'e' || *q == 'E') && (q[1 + (q[1] == '+' || q[1] == '-')] >= '0' &&
                                     q[1 + (q[1] == '+' || q[1] == '-')] <= '9')) {
        q += 1 + (q[1] == '+' || q[1] == '-');
        q += strspn(q, "0123456789");
    }
    if ((size_t)(q - x->p) >= sizeof buf || q == x->p || (q - x->p == 1 && *x->p == '.'))
        return fail(x, "expected a number");
    snprintf(buf, sizeof buf, "%.*s", (int)(q - x->p), x->p);
    double v = strtod(buf, NULL);
    x->p = q;
    skip(x);
    if (*x->p == '[') {
        const char *close = strchr(x->p, ']');
        if (!close || (size_t)(close - x->p) >= sizeof unit)
            return fail(x, "expected '[unit]'");
        snprintf(unit, sizeof unit, "%.*s", (int)(close - x->p - 1), x->p + 1);
        x->p = close + 1;
    } else {
        size_t k = 0;
        while (x->p[k] && (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_", x->p[k]) ||
                           (unsigned char)x->p[k] >= 0x80))
            k++;
        if (k >= sizeof unit || (k == 1 && x->p[0] == 'i'))
            return fail(x, k == 1 ? "expected an operator" : "unit too long");
        snprintf(unit, sizeof unit, "%.*s", (int)k, x->p);
        x->p += k;
    }
    if (strcmp(unit, "step") == 0 || strcmp(unit, "steps") == 0) {
        dim[2] = 1;
        scale = x->dt;
    } else if (*unit && !nrt_unit_parse(unit, dim, &scale, err, (int)sizeof err)) {
        snprintf(x->err, x->errn, "%s", err);
        return -1;
    }
    int n = konst(x, v * scale, 0, dim);
    if (n >= 0)
        x->n[n].anydim = v == 0 && !*unit;
    return n;
}

static int primary(xparse *x)
{
    skip(x);
    if (*x->p == '(') {
        x->p++;
        int e = expr(x);
        skip(x);
        if (e >= 0 && *x->p != ')')
            return fail(x, "expected ')'");
        x->p++;
        return e;
    }
    if (*x->p == 'i' && !(x->p[1] && strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_"
                                            "0123456789", x->p[1]))) {
        xnode n = {X_IDX, 0, 1, 0, 0, 0, -1, -1, {0}};
        x->p++;
        return node(x, n);
    }
    if ((*x->p >= '0' && *x->p <= '9') || *x->p == '.')
        return number(x);
    return fail(x, "expected a number with a unit, 'i' or '('");
}

static int unary(xparse *x)
{
    skip(x);
    if (++x->depth > MAXDEPTH)
        return fail(x, "expression too deeply nested");
    int r;
    if (*x->p == '-' || *x->p == '+') {
        int minus = *x->p++ == '-';
        r = unary(x);
        if (minus)
            r = neg(x, r);
    } else
        r = primary(x);
    x->depth--;
    return r;
}

static int term(xparse *x)
{
    int a = unary(x);
    for (skip(x); a >= 0 && (*x->p == '*' || *x->p == '/'); skip(x)) {
        int op = *x->p++;
        a = bin(x, op, a, unary(x));
    }
    return a;
}

static int expr(xparse *x)
{
    int a = term(x);
    for (skip(x); a >= 0 && (*x->p == '+' || *x->p == '-'); skip(x)) {
        int op = *x->p++;
        a = bin(x, op, a, term(x));
    }
    return a;
}

/* Node k's value for neuron j, in the model's precision: a real in *r or an integer in *iv. */
static int eval(const xparse *x, int k, int64_t j, int dbl, double *r, int64_t *iv)
{
    const xnode *n = &x->n[k];
    double ra = 0, rb = 0;
    int64_t ia = 0, ib = 0;
    switch (n->kind) {
    case X_NUM:
        *r = dbl ? n->val : (double)(float)n->val;
        *iv = (int64_t)n->val;
        return 0;
    case X_IDX:
        *iv = j;
        return 0;
    case X_NEG:
        if (eval(x, n->a, j, dbl, &ra, &ia) != 0)
            return -1;
        *iv = (int64_t)(0 - (uint64_t)ia);
        *r = -ra;
        return 0;
    default:
        break;
    }
    if (eval(x, n->a, j, dbl, &ra, &ia) != 0 || eval(x, n->b, j, dbl, &rb, &ib) != 0)
        return -1;
    if (n->is_int) {
        const uint64_t ua = (uint64_t)ia, ub = (uint64_t)ib;   /* wrapping, never undefined */
        if (n->op == '/' && (ib == 0 || (ib == -1 && ia == INT64_MIN)))
            return -1;
        *iv = n->op == '+' ? (int64_t)(ua + ub) : n->op == '-' ? (int64_t)(ua - ub)
              : n->op == '*' ? (int64_t)(ua * ub) : ia / ib;
        return 0;
    }
    if (x->n[n->a].is_int)        /* an integer operand converted to real, as C converts it */
        ra = dbl ? (double)ia : (double)(float)ia;
    if (x->n[n->b].is_int)
        rb = dbl ? (double)ib : (double)(float)ib;
    double v = n->op == '+' ? ra + rb : n->op == '-' ? ra - rb : n->op == '*' ? ra * rb : ra / rb;
    *r = dbl ? v : (double)(float)v;
    return 0;
}

/* Contract: see rt_internal.h. */
int nrt_expr_eval(const char *text, double dt, int dbl, int64_t n, int *dim, int *is_const,
                  double *out, char *err, size_t errn)
{
    xparse *x = (xparse *)calloc(1, sizeof *x);
    int ok = 0;
    if (!x) {
        snprintf(err, errn, "out of memory");
        return 0;
    }
    x->s = x->p = text;
    x->dt = dt;
    x->err = err;
    x->errn = errn;
    err[0] = '\0';
    int root = expr(x);
    skip(x);
    if (root >= 0 && *x->p)
        root = fail(x, "expected an operator");
    if (root >= 0) {
        ok = 1;
        memcpy(dim, x->n[root].dim, sizeof x->n[root].dim);
        *is_const = x->n[root].is_const;
        if (*is_const)
            out[0] = x->n[root].val;
        for (int64_t j = 0; !*is_const && j < n && ok; j++) {
            double r = 0;
            int64_t iv = 0;
            if (eval(x, root, j, dbl, &r, &iv) != 0) {
                snprintf(err, errn, "a division by zero for i = %lld", (long long)j);
                ok = 0;
            }
            out[j] = x->n[root].is_int ? (dbl ? (double)iv : (double)(float)iv) : r;
        }
    }
    free(x);
    return ok;
}
