/* simt_finite.c -- the state check in the GPU back ends (docs/robustness.md; on by
 * default, --check-finite=K|off).
 *
 * No host synchronisation per step: the device looks, in nc_tail of every K-th step, at
 * every checked state (cg_finite_var) with the C back end's test (cg_finite_ok: finite and
 * within its declared range) and notes a failure in its buffer nc_fin
 *   [0]                       K (0: off), written once by the host
 *   [1 + hf]                  the first chunk step k of half hf with a failed value
 *   [3 + (hf*NC_CH + k)*NS + s] the smallest neuron index whose value failed in slot s in k
 * with 32-bit atomic minima. A variable has one slot (non-finite), or three with a declared
 * range (non-finite, below, above: the host takes the smallest neuron of the three and the
 * slot says which message), NS slots in all, so the report is the C back end's: the first
 * step, then the first variable in model order, then the smallest neuron. nc_k_chunk
 * resets a half when a chunk starts; the host reads it with the chunk's recordings
 * (drain), writes the recordings up to and including that step, and stops the run.
 */
#include "simt_priv.h"

/* Slots of nc_fin per step a checked variable takes. */
static int slots_of(const IrVar *x)
{
    return cg_finite_ranged(x) ? 3 : 1;
}

/* Slots per step of every checked variable, in model order. */
static int n_checked(const IrModel *m)
{
    int nv = 0;
    for (int i = 0; i < m->npops; i++)
        for (int j = 0; j < m->pops[i]->nvars; j++)
            if (cg_finite_var(m->pops[i]->vars[j]))
                nv += slots_of(m->pops[i]->vars[j]);
    return nv;
}

/* The test of neuron n's variable x (first slot v of nv per step), a failure noted in
 * nc_fin. held: x is in the local nc_h_<x> (the push step), else in its array. Returns the
 * next variable's first slot. */
static int check_var(Out *o, const IrModel *m, const IrVar *x, int nv, int v, int held)
{
    StrBuf sval = {0}, ok = {0}, lo = {0};
    sb_printf(&sval, held ? "nc_h_%s" : "%s[n]", x->cname);
    const char *val = sval.s;
    cg_finite_ok(m, x, val, &ok);
    out_open(o, "if (!%s)", ok.s);
    if (!cg_finite_ranged(x)) {
        out_line(o, "nc_atomic_min_i32(&nc_fin[3 + ((int64_t)hf * NC_CH + k) * %d + %d], (int)n);", nv, v);
    } else {   /* which slot: non-finite (0), below (1), above (2) */
        cg_finite_lo(m, x, &lo);
        if (m->dbl)
            out_line(o, "const int nc_q = (nc_f64_bits(%s) & 0x7ff0000000000000UL) == 0x7ff0000000000000UL ? 0 : %s < %s ? 1 : 2;",
                     val, val, lo.s);
        else
            out_line(o, "const int nc_q = (nc_f32_bits(%s) & 0x7f800000u) == 0x7f800000u ? 0 : %s < %s ? 1 : 2;",
                     val, val, lo.s);
        out_line(o, "nc_atomic_min_i32(&nc_fin[3 + ((int64_t)hf * NC_CH + k) * %d + %d + nc_q], (int)n);", nv, v);
    }
    out_line(o, "nc_atomic_min_i32(&nc_fin[1 + hf], (int)k);");
    out_close(o);
    sb_free(&sval);
    sb_free(&ok);
    sb_free(&lo);
    return v + slots_of(x);
}

/* Contract: adds the kernel argument nc_fin (call once, in the layout). */
void simt_finite_args(Simt *S)
{
    simt_add_arg(S, "nc_fin", "int32_t", ARG_MEM);
}

/* Contract: device code of nc_k_chunk (step0, hf in scope; every work-item runs it):
 * resets half hf of nc_fin when the check is on. */
void simt_finite_reset(Out *o, const Simt *S)
{
    int nv = n_checked(S->m);
    out_open(o, "if (nc_fin[0] > 0)");
    out_line(o, "if (NC_GID == 0) nc_fin[1 + hf] = 0x7fffffff;");
    out_line(o, "for (int64_t q = NC_GID; q < (int64_t)NC_CH * %d; q += NC_GSIZE) nc_fin[3 + (int64_t)hf * NC_CH * %d + q] = 0x7fffffff;",
             nv, nv);
    out_close(o);
}

/* Contract: device code of nc_tail (step, hf, k, nc_local, nc_r, nc_nr, nc_every, nc_i0, nc_is in scope; every work-item runs
 * it): the check of every checked variable after a K-th step. */
void simt_finite_tail(Out *o, const Simt *S)
{
    const IrModel *m = S->m;
    int v = 0, nv = n_checked(m);
    if (nv == 0)
        return;
    out_open(o, "if (nc_every == 1 || (nc_every > 0 && nc_mod(step + 1, nc_every) == 0))"); /* K = 1: no division */
    for (int i = 0; i < m->npops; i++) {
        const IrPop *p = m->pops[i];
        for (int j = 0; j < p->nvars; j++) {
            const IrVar *x = p->vars[j];
            if (!cg_finite_var(x))
                continue;
            out_open(o, "for (int64_t n = (nc_local ? nc_part(%lld, nc_r, nc_nr) : 0) + nc_i0; "
                        "n < (nc_local ? nc_part(%lld, nc_r + 1, nc_nr) : %lld); n += nc_is)",
                     (long long)p->size, (long long)p->size, (long long)p->size);
            v = check_var(o, m, x, nv, v, 0);
            out_close(o);
        }
    }
    out_close(o);
}

/* Contract: host code: `static int64_t finite_scan(int hf, int64_t step0, int64_t len)`,
 * called first by drain: len when chunk half hf (steps step0 .. step0 + len - 1) passed the
 * check, else the number of its steps up to and including the first with a non-finite
 * value, with finite_failed set and ctx.errmsg naming it (nrt_nonfinite); -1 when the
 * device cannot be read. */
void simt_finite_host(Out *o, const Simt *S)
{
    const IrModel *m = S->m;
    int nv = n_checked(m);
    out_line(o, "static _Thread_local int finite_failed; /* finite_scan found a failed value (drain_all's threads) */");
    if (nv > 0) {
        out_line(o, "/* the slot (0 non-finite, 1 below, 2 above) of the smallest neuron of a ranged variable's three; -1: none */");
        out_open(o, "static inline int finite_slot(const int32_t *s)");
        out_line(o, "int q = -1;");
        out_line(o, "for (int i = 0; i < 3; i++) if (s[i] != 0x7fffffff && (q < 0 || s[i] < s[q])) q = i;");
        out_line(o, "return q;");
        out_close(o);
    }
    out_open(o, "static int64_t finite_scan(int hf, int64_t step0, int64_t len)");
    if (nv == 0) { /* nothing to check */
        out_line(o, "(void)hf;");
        out_line(o, "(void)step0;");
        out_line(o, "return len;");
        out_close(o);
        out_blank(o);
        return;
    }
    out_line(o, "int32_t first[%d];", nv);
    out_line(o, "int q = -1;");
    out_line(o, "(void)q;");
    out_line(o, "if (!ctx.check_finite) return len;");
    out_line(o, "if (nrt_gpu_read_after(gpu, hf, nc_fin, (size_t)(1 + hf) * sizeof(int32_t), first, sizeof(int32_t)) != NRT_OK) return -1;");
    out_line(o, "const int64_t k = first[0];");
    out_line(o, "if (k >= len) return len;");
    out_line(o, "if (nrt_gpu_read_after(gpu, hf, nc_fin, (size_t)(3 + ((int64_t)hf * NC_CH + k) * %d) * sizeof(int32_t), first, %d * sizeof(int32_t)) != NRT_OK) return -1;",
             nv, nv);
    int v = 0;
    for (int i = 0; i < m->npops; i++) {
        const IrPop *p = m->pops[i];
        for (int j = 0; j < p->nvars; j++) {
            const IrVar *x = p->vars[j];
            StrBuf pn = {0}, vn = {0};
            if (!cg_finite_var(x))
                continue;
            cg_cstring(p->name, &pn);
            cg_cstring(x->label, &vn);
            if (!cg_finite_ranged(x)) {
                out_line(o, "if (first[%d] != 0x7fffffff) nrt_nonfinite(&ctx, \"%s\", \"%s\", first[%d], step0 + k);",
                         v, pn.s, vn.s, v);
            } else {   /* the smallest neuron of its three slots, and the slot's message */
                out_line(o, "if ((q = finite_slot(first + %d)) == 0) nrt_nonfinite(&ctx, \"%s\", \"%s\", first[%d], step0 + k);",
                         v, pn.s, vn.s, v);
                out_line(o, "else if (q > 0) nrt_outofrange(&ctx, \"%s\", \"%s\", first[%d + q], step0 + k, q == 2, q == 2 ? %.17g : %.17g, \"%s\");",
                         pn.s, vn.s, v, x->hi, x->lo, x->unit);
            }
            out_line(o, "else");
            sb_free(&pn);
            sb_free(&vn);
            v += slots_of(x);
        }
    }
    out_line(o, "    return len; /* no variable was marked */");
    out_line(o, "finite_failed = 1;");
    out_line(o, "return k + 1;");
    out_close(o);
    out_blank(o);
}

/* Contract: host code of main: allocates nc_fin and writes K (clamped to 2^31 - 1 steps). */
void simt_finite_init(Out *o, const Simt *S)
{
    out_line(o, "if (dalloc(&nc_fin, (size_t)(3 + 2 * NC_CH * %d) * sizeof(int32_t), \"check-finite flags\")) return fail(argv[0]);",
             n_checked(S->m));
    out_begin(o);
    out_line(o, "const int32_t every = ctx.check_finite > 0x7fffffff ? 0x7fffffff : (int32_t)ctx.check_finite;");
    out_line(o, "if (nrt_gpu_write(gpu, nc_fin, 0, &every, sizeof every) != NRT_OK) return fail(argv[0]);");
    out_close(o);
}

/* Contract: device code of the free schedule (simt_free.c; step, hf, k and neuron n of
 * population p in scope) and of the push step (simt_push.c, held: the values in nc_h_<x>,
 * the interval in `every`):
 * the check of p's checked variables of neuron n after a K-th step, with the same notes as
 * simt_finite_tail. */
void simt_finite_one(Out *o, const Simt *S, const IrPop *p, int held)
{
    const IrModel *m = S->m;
    int v = 0, nv = n_checked(m);
    if (nv == 0)
        return;
    for (int i = 0; i < m->npops && m->pops[i] != p; i++)
        for (int j = 0; j < m->pops[i]->nvars; j++)
            if (cg_finite_var(m->pops[i]->vars[j]))
                v += slots_of(m->pops[i]->vars[j]);
    if (held)   /* the push step counts the steps to the next check down (nc_fc) */
        out_open(o, "if (nc_fc == 0)");
    else
        out_open(o, "if (nc_fin[0] == 1 || (nc_fin[0] > 0 && nc_mod(step + 1, nc_fin[0]) == 0))");
    for (int j = 0; j < p->nvars; j++) {
        const IrVar *x = p->vars[j];
        if (!cg_finite_var(x))
            continue;
        v = check_var(o, m, x, nv, v, held);
    }
    out_close(o);
}
