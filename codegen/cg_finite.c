/* cg_finite.c -- the state check (docs/robustness.md; on by default, --check-finite=K|off):
 * after a step, the first NaN or infinity, or value outside its declared range
 * (`range(lo, hi)`, IrVar.has_lo/has_hi), among the populations' real state variables
 * (neuron and receptor states), in model order (population, variable, neuron), stops the
 * run. Every back end makes the same decision with the same test, ((x >= LO) & (x <= HI)),
 * LO and HI the bounds in the model's precision, the finite extremes where a side is open;
 * the GPU back ends look in the same order on the device (simt_finite.c).
 *
 * The C back end looks in check_finite(step), a pass over the states after the step that
 * only decides (vectorised: one loop per population, no exit); its default interval is
 * NRT_CHECK_EVERY steps, as on the GPU (docs/robustness.md says why).
 */
#include <float.h>

#include "codegen.h"

/* Contract: 1 when the check looks at v: a real, per-neuron neuron or receptor state (not
 * left out by neuroc --no-check-finite). */
int cg_finite_var(const IrVar *v)
{
    return (v->kind == IV_STATE || v->kind == IV_RSTATE) && v->type == IRT_REAL && v->per_neuron &&
           !v->nocheck;
}

/* Contract: 1 when v has a declared range (either side). */
int cg_finite_ranged(const IrVar *v)
{
    return v->has_lo || v->has_hi;
}

/* One bound as a literal of the model's precision: rounded to it, then limited to its
 * finite values (so that the test is false for an infinity whatever the bound). */
static void bound_lit(const IrModel *m, double b, StrBuf *out)
{
    CgDialect d = {0};
    d.dbl = m->dbl;
    double max = m->dbl ? DBL_MAX : (double)FLT_MAX;
    double v = m->dbl ? b : (double)(float)b;
    if (v > max)
        v = max;
    if (v < -max)
        v = -max;
    cg_real(&d, v, out);
}

/* Contract: the C expression (an int, 1 when the value is good) of the test of v's value x:
 * ((x >= LO) & (x <= HI)), written into out. NaN fails both comparisons. */
void cg_finite_ok(const IrModel *m, const IrVar *v, const char *x, StrBuf *out)
{
    double max = m->dbl ? DBL_MAX : (double)FLT_MAX;
    sb_printf(out, "((%s >= ", x);
    bound_lit(m, v->has_lo ? v->lo : -max, out);
    sb_printf(out, ") & (%s <= ", x);
    bound_lit(m, v->has_hi ? v->hi : max, out);
    sb_puts(out, "))");
}

/* Contract: the C literal of v's lower bound as the tests compare it (a ranged v). */
void cg_finite_lo(const IrModel *m, const IrVar *v, StrBuf *out)
{
    bound_lit(m, v->has_lo ? v->lo : -(m->dbl ? DBL_MAX : (double)FLT_MAX), out);
}

/* Contract: the C statement that reports a failed value x of v (neuron n, after `step`):
 * nrt_nonfinite for a NaN or infinity, else nrt_outofrange against the bound it passed,
 * as an expression `return ...;` (C) or a call (how: "return " or ""). */
void cg_finite_report(const IrModel *m, const IrVar *v, const char *x, const char *n,
                      const char *step, const char *how, StrBuf *out)
{
    StrBuf pn = {0}, vn = {0}, lo = {0};
    cg_cstring(v->pop->name, &pn);
    cg_cstring(v->label, &vn);
    if (!cg_finite_ranged(v)) {
        sb_printf(out, "%snrt_nonfinite(&ctx, \"%s\", \"%s\", %s, %s);", how, pn.s, vn.s, n, step);
    } else {
        cg_finite_lo(m, v, &lo);
        sb_printf(out, "%s(!isfinite(%s) ? nrt_nonfinite(&ctx, \"%s\", \"%s\", %s, %s) : %s < %s ? "
                  "nrt_outofrange(&ctx, \"%s\", \"%s\", %s, %s, 0, %.17g, \"%s\") : "
                  "nrt_outofrange(&ctx, \"%s\", \"%s\", %s, %s, 1, %.17g, \"%s\"));",
                  how, x, pn.s, vn.s, n, step, x, lo.s, pn.s, vn.s, n, step, v->lo, v->unit,
                  pn.s, vn.s, n, step, v->hi, v->unit);
    }
    sb_free(&pn);
    sb_free(&vn);
    sb_free(&lo);
}

/* Contract: writes `static int check_finite(int64_t step)` for the C program: 0 when every
 * checked state is good after `step`, else -1 with ctx.errmsg naming the first offender.
 * A pass of one AND over each array (vectorised, no exit) decides; only a failed pass looks
 * for the offender. */
void cg_finite_c(Out *o, const IrModel *m)
{
    out_open(o, "static int check_finite(int64_t step)");
    out_line(o, "int nc_ok = 1;");
    /* the pass: per population one loop; x - x is 0 for a finite x and NaN otherwise, so
     * the sum over the variables without a range is 0 exactly when they are all finite */
    for (int i = 0; i < m->npops; i++) {
        const IrPop *p = m->pops[i];
        StrBuf sum = {0}, all = {0};
        for (int j = 0; j < p->nvars; j++) {
            const IrVar *v = p->vars[j];
            if (!cg_finite_var(v))
                continue;
            if (cg_finite_ranged(v)) {
                StrBuf x = {0};
                sb_printf(&x, "%s[n]", v->cname);
                if (all.len)
                    sb_puts(&all, " & ");
                cg_finite_ok(m, v, x.s, &all);
                sb_free(&x);
            } else {
                sb_printf(&sum, "%s(%s[n] - %s[n])", sum.len ? " + " : "", v->cname, v->cname);
            }
        }
        if (sum.len)
            sb_printf(&all, "%s(%s == 0)", all.len ? " & " : "", sum.s);
        if (all.len) {
            if (m->mpi)   /* this rank's neurons */
                out_line(o, "for (int64_t n = %s_lo; n < %s_hi; n++)", p->cname, p->cname);
            else
                out_line(o, "for (int64_t n = 0; n < %lld; n++)", (long long)p->size);
            out_line(o, "    nc_ok &= %s;", all.s);
        }
        sb_free(&sum);
        sb_free(&all);
    }
    /* only a failed pass looks for the first offender, with the test of every back end */
    out_line(o, "if (nc_ok) return 0;");
    for (int i = 0; i < m->npops; i++) {
        const IrPop *p = m->pops[i];
        for (int j = 0; j < p->nvars; j++) {
            const IrVar *v = p->vars[j];
            if (!cg_finite_var(v))
                continue;
            StrBuf x = {0}, ok = {0}, rep = {0};
            sb_printf(&x, "%s[n]", v->cname);
            cg_finite_ok(m, v, x.s, &ok);
            cg_finite_report(m, v, x.s, "n", "step", "return ", &rep);
            if (m->mpi)
                out_line(o, "for (int64_t n = %s_lo; n < %s_hi; n++)", p->cname, p->cname);
            else
                out_line(o, "for (int64_t n = 0; n < %lld; n++)", (long long)p->size);
            out_line(o, "    if (!%s) %s", ok.s, rep.s);
            sb_free(&x);
            sb_free(&ok);
            sb_free(&rep);
        }
    }
    out_line(o, "(void)step;");
    out_line(o, "return 0;");
    out_close(o);
    out_blank(o);
}

/* Contract: 1 when p has a variable the check looks at. */
int cg_finite_any(const IrPop *p)
{
    for (int j = 0; j < p->nvars; j++)
        if (cg_finite_var(p->vars[j]))
            return 1;
    return 0;
}
