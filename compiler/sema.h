/* sema.h -- semantic analysis and lowering: AST files in, IrModel out.
 *
 * sema.c and its passes (sema_*.c, sharing sema_priv.h) resolve names, check types and
 * physical dimensions of every expression, instantiate models into populations and
 * projections, and lower them to IR; ode.c turns each `dynamics` block into explicit
 * per-step updates.
 */
#ifndef NEUROC_SEMA_H
#define NEUROC_SEMA_H

#include "ir.h"
#include "neuroc.h"

/* --- sema.c (the pass list; the passes are sema_*.c) -------------------- */

/* Check and lower the files (imports first, the main file last). Returns the model, or
 * NULL if any error was reported. `name` names the model (the main file's base name). */
IrModel *sema_lower(Compiler *cc, AstNode **files, int nfiles, const char *name);

/* --- ode.c -------------------------------------------------------------- */

typedef enum OdeMethod { ODE_AUTO, ODE_EXACT, ODE_EXP_EULER, ODE_RK4, ODE_EULER } OdeMethod;

typedef struct OdeEq {
    IrVar *var;                   /* the state variable */
    IrExpr *rhs;                  /* its derivative, lets inlined */
    int frozen;                   /* `unless refractory` */
    SrcLoc loc;
} OdeEq;

/* Append to `out` the updates that advance eqs[0..n) over one step with `method`.
 * `rf` is a bool expression "refractory now" (NULL if the model has none). On success
 * returns 1 and sets *note to a one-line explanation of the method used and why;
 * returns 0 after diagnosing at `loc` (e.g. `exact` asked for a nonlinear system). */
int ode_lower(Compiler *cc, IrPop *pop, OdeEq *eqs, int n, OdeMethod method, int substeps,
              IrExpr *rf, IrBlock *out, SrcLoc loc, const char **note);
/* Event-driven per-synapse dynamics: ode_event_ok says whether eqs is x' = A x with A
 * constant (else *why); ode_lower_event appends the catch-up from `last` to `step` over up
 * to 2^bits - 1 steps (one propagator exp(A 2^k dt) per bit) and sets last = step. */
int ode_event_ok(Compiler *cc, OdeEq *eqs, int n, const char **why);
void ode_lower_event(Compiler *cc, IrPop *pop, OdeEq *eqs, int n, IrVar *last, int bits, IrBlock *out);

#endif
