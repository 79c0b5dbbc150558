/* cg_finite.c -- `--check-finite` in the C back end: after a step, the first NaN or
 * infinity among the populations' real state variables (neuron and receptor states), in
 * model order (population, variable, neuron), stops the run (docs/robustness.md). The GPU
 * back ends look in the same order on the device (simt_finite.c).
 */
#include "codegen.h"

/* Contract: 1 when --check-finite looks at v: a real, per-neuron neuron or receptor state. */
int cg_finite_var(const IrVar *v)
{
    return (v->kind == IV_STATE || v->kind == IV_RSTATE) && v->type == IRT_REAL && v->per_neuron;
}

/* Contract: writes `static int check_finite(int64_t step)` for the C program: 0 when every
 * checked state is finite after `step`, else -1 with ctx.errmsg (nrt_nonfinite) naming the
 * first offender. */
void cg_finite_c(Out *o, const IrModel *m)
{
    out_open(o, "static int check_finite(int64_t step)");
    for (int i = 0; i < m->npops; i++) {
        const IrPop *p = m->pops[i];
        for (int j = 0; j < p->nvars; j++) {
            const IrVar *v = p->vars[j];
            StrBuf pn = {0}, vn = {0};
            if (!cg_finite_var(v))
                continue;
            cg_cstring(p->name, &pn);
            cg_cstring(v->label, &vn);
            out_line(o, "for (int64_t n = 0; n < %lld; n++)", (long long)p->size);
            out_line(o, "    if (!isfinite(%s[n])) return nrt_nonfinite(&ctx, \"%s\", \"%s\", n, step);",
                     v->cname, pn.s, vn.s);
            sb_free(&pn);
            sb_free(&vn);
        }
    }
    out_line(o, "(void)step;");
    out_line(o, "return 0;");
    out_close(o);
    out_blank(o);
}
