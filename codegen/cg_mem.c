/* cg_mem.c -- the memory plan of a host program (`--dry-run`, and the GPU back ends' check
 * against 90 % of the device before anything is built): what every population and projection
 * will take, delay rings included. Shared by the C and GPU back ends.
 */
#include <math.h>
#include <string.h>

#include "codegen.h"

/* An interval [lo, hi] that holds every value of e over the synapses of j (uniform draws in
 * [0, 1], a normal truncated on both sides in its bounds, i and j the pre and post indices);
 * 0 when none is known (states, other normal draws, edge-file columns, functions without one). */
static int bound(const IrModel *m, const IrProj *j, const IrExpr *e, double *lo, double *hi)
{
    double a0 = 0, a1 = 0, b0 = 0, b1 = 0, c0, c1;
    int ok = 1;
    switch (e->op) {
    case IE_CONST: *lo = *hi = e->val; break;
    case IE_DT: *lo = *hi = m->dt; break;
    case IE_PRE: *lo = 0, *hi = (double)j->pre.size - 1; break;
    case IE_POST: *lo = 0, *hi = (double)j->post.size - 1; break;
    case IE_RAND:
        if (e->sub == IR_NORMAL_TR) { /* truncated on both sides: within its bounds */
            ok = e->bounds == 3 && bound(m, j, e->args[2], &a0, &a1) && bound(m, j, e->args[3], &b0, &b1);
            *lo = a0, *hi = b1;
            break;
        }
        *lo = 0, *hi = 1, ok = e->sub == IR_UNIFORM;
        break;
    case IE_NEG:
        ok = bound(m, j, e->a, &a0, &a1);
        *lo = -a1, *hi = -a0;
        break;
    case IE_COND:
        ok = bound(m, j, e->b, &a0, &a1) && bound(m, j, e->c, &b0, &b1);
        *lo = fmin(a0, b0), *hi = fmax(a1, b1);
        break;
    case IE_BIN:
        if (e->sub >= IB_LT) { /* a condition */
            *lo = 0, *hi = 1;
            break;
        }
        ok = bound(m, j, e->a, &a0, &a1) && bound(m, j, e->b, &b0, &b1);
        if (!ok)
            break;
        switch ((IrBinop)e->sub) {
        case IB_ADD: *lo = a0 + b0, *hi = a1 + b1; break;
        case IB_SUB: *lo = a0 - b1, *hi = a1 - b0; break;
        case IB_DIV:
        case IB_MUL:
            if (e->sub == IB_DIV) { /* a * [1/b1, 1/b0], 0 not in the divisor's interval */
                if (!(b0 > 0 || b1 < 0)) {
                    ok = 0;
                    break;
                }
                b0 = 1 / b0, b1 = 1 / b1;
            }
            c0 = fmin(fmin(a0 * b0, a0 * b1), fmin(a1 * b0, a1 * b1));
            c1 = fmax(fmax(a0 * b0, a0 * b1), fmax(a1 * b0, a1 * b1));
            *lo = c0, *hi = c1;
            break;
        default: ok = 0; break;
        }
        break;
    case IE_CALL:
        if (e->nargs < 1 || !bound(m, j, e->args[0], &a0, &a1))
            return 0;
        if (e->nargs > 1 && !bound(m, j, e->args[1], &b0, &b1))
            return 0;
        switch ((IrFn)e->sub) {
        case IF_MIN: *lo = fmin(a0, b0), *hi = fmin(a1, b1); break;
        case IF_MAX: *lo = fmax(a0, b0), *hi = fmax(a1, b1); break;
        case IF_CLIP:
            ok = e->nargs == 3 && bound(m, j, e->args[2], &c0, &c1);
            *lo = fmin(fmax(a0, b0), c0), *hi = fmin(fmax(a1, b1), c1);
            break;
        case IF_ABS:
            *lo = a0 > 0 ? a0 : a1 < 0 ? -a1 : 0, *hi = fmax(fabs(a0), fabs(a1));
            break;
        case IF_SQRT: *lo = sqrt(fmax(a0, 0)), *hi = sqrt(fmax(a1, 0)); break;
        case IF_EXP: *lo = exp(a0), *hi = exp(a1); break;
        case IF_FLOOR: *lo = floor(a0), *hi = floor(a1); break;
        case IF_CEIL: *lo = ceil(a0), *hi = ceil(a1); break;
        case IF_ROUND: *lo = round(a0), *hi = round(a1); break;
        default: ok = 0; break;
        }
        break;
    default:
        ok = 0;
        break;
    }
    return ok && isfinite(*lo) && isfinite(*hi);
}

/* Slots of one projection's delay ring as the host program will make it (D, the longest
 * delay in steps + 1, at least 2): a ring that merged receptors share (IrProj.ring) has the
 * most of its projections', on its owner. Where a delay has no known bound (a normal draw,
 * an edge file's column, a state) the plan counts the 2 slots the ring has at least. */
static double proj_slots(const IrModel *m, const IrProj *j)
{
    double lo, hi;
    if (!j->delay || !bound(m, j, j->delay, &lo, &hi))
        return 2;
    const double steps = round(hi / m->dt);
    return (steps < 1 ? 1 : steps) + 1;
}

double cg_mem_slots(const IrModel *m, const IrProj *j)
{
    double D = 2;
    if (j->ring != j)
        return 0;   /* it adds into another projection's ring, counted there */
    for (int k = 0; j->ring == j && k < m->nprojs; k++)
        if (m->projs[k]->ring == j)
            D = fmax(D, proj_slots(m, m->projs[k]));
    return D;
}

/* The recording plan (nrt_rec_plan): each recording's kind, columns and interval; a synapse
 * recording's columns are the synapse count the plan expects (nrt_proj_stat). */
static void emit_rec_plan(Out *o, const IrModel *m)
{
    for (int r = 0; r < m->nrecs; r++) {
        const IrRecord *rec = &m->recs[r];
        StrBuf f = {0};
        size_t names = 0;
        char tail[96];
        cg_cstring(rec->file, &f);
        for (int v = 0; v < rec->nvars; v++)
            names += strlen(cg_rec_var(rec, v));
        snprintf(tail, sizeof tail, "%lld, %lld, %d", (long long)rec->win_lo, (long long)rec->win_hi,
                 !rec->spikes && !rec->bin && m->t0_rows);
        if (rec->spikes)
            out_line(o, "nrt_rec_plan(&ctx, \"%s\", 's', 0, 0, %lld, 1, 0, %s);", f.s, (long long)rec->view.size, tail);
        else if (rec->bin)
            out_line(o, "nrt_rec_plan(&ctx, \"%s\", 'r', 0, 0, 1, %lld, 0, %s);", f.s, (long long)rec->bin, tail);
        else if (rec->proj) {
            const IrProj *j = rec->proj;
            char syn[160];
            snprintf(syn, sizeof syn, "(%d < ctx.nprojs ? (double)ctx.projs[%d].synapses : 0)", j->id, j->id);
            if (rec->syn_sel == 2)       /* k of them, or all when fewer */
                out_line(o, "nrt_rec_plan(&ctx, \"%s\", 'v', %d, %zu, (int64_t)fmin(%lld, %s), %lld, 1, %s);", f.s,
                         rec->nvars, names, (long long)rec->nsample, syn, (long long)rec->every, tail);
            else if (rec->syn_sel == 1)  /* the box's share of the synapses */
                out_line(o, "nrt_rec_plan(&ctx, \"%s\", 'v', %d, %zu, (int64_t)(%s * %lld.0 / %lld * %lld.0 / %lld), %lld, 1, %s);",
                         f.s, rec->nvars, names, syn, (long long)(rec->pre_hi - rec->pre_lo), (long long)j->pre.size,
                         (long long)(rec->post_hi - rec->post_lo), (long long)j->post.size, (long long)rec->every, tail);
            else
                out_line(o, "nrt_rec_plan(&ctx, \"%s\", 'v', %d, %zu, (int64_t)%s, %lld, 1, %s);", f.s, rec->nvars,
                         names, syn, (long long)rec->every, tail);
        } else
            out_line(o, "nrt_rec_plan(&ctx, \"%s\", 'v', %d, %zu, %d, %lld, 0, %s);", f.s, rec->nvars, names, rec->nidx,
                     (long long)rec->every, tail);
        sb_free(&f);
    }
}

/* The memory plan of a host program (C or GPU): `static void mem_plan(void)` adding, for
 * every population, its per-neuron storage and, for every projection, its synapses
 * (nrt_conn_bytes: row pointers, columns, weights and delays; none for a procedural
 * projection, whose count is then only reported, but fixed_total's row pointers) and its delay ring (cg_mem_slots). From_file
 * projections are read only under --dry-run. */
void cg_mem_plan(Out *o, const IrModel *m, int gpu, CgMemUnit unit)
{
    out_line(o, "/* memory plan, before anything is built (nrt_mem_add / nrt_mem_check) */");
    out_open(o, "static void mem_plan(void)");
    for (int i = 0; i < m->npops; i++) {
        const IrPop *p = m->pops[i];
        int arrays = 0;
        for (int v = 0; v < p->nvars; v++)
            arrays += p->vars[v]->per_neuron;
        out_line(o, "nrt_mem_add(&ctx, \"population %s\", -1, %lld.0 * %d * sizeof(real));", p->name,
                 (long long)p->size, arrays);
        if (p->topk && !gpu)
            out_line(o, "nrt_mem_add(&ctx, \"population %s: top-k candidates\", -1, %lld.0 * sizeof(nrt_topk_item));",
                     p->name, (long long)p->size);
        if (p->sfile)   /* the step pointers; the indices (4 bytes a spike) depend on the file */
            out_line(o, "nrt_mem_add(&ctx, \"population %s: spike file steps\", -1, %lld.0 * sizeof(int64_t));",
                     p->name, (long long)m->total_steps + 1);
    }
    for (int k = 0; k < m->nprojs; k++) {
        const IrProj *j = m->projs[k];
        const int n = unit ? unit(o, m, k) : 0;
        if (n) {   /* the back end planned projections k .. k + n - 1 */
            k += n - 1;
            continue;
        }
        out_begin(o);
        /* per synapse: weight (or the plastic states), delay; a plastic projection on the C
         * back end adds its arrival list (16 bytes) and, with `on post`, its column index
         * (16), a gathered delivery on the GPU back ends (into a top-k population) its
         * column index (12 bytes) */
        int extra = (j->delay ? 4 : 0) + (j->plast && !gpu ? 16 + (j->plast->on_post.n ? 16 : 0) : 0) +
                    (gpu && j->post.pop->topk ? 12 : 0);
        out_line(o, "const double syn = sizeof(real) * %d + %d, ring = %.1f * %lld * sizeof(real);",
                 j->plast && j->plast->nsyn > 1 ? j->plast->nsyn : 1, extra, cg_mem_slots(m, j),
                 (long long)j->ring->ring_size);
        if (j->rule == IR_FROM_FILE) {
            out_line(o, "nrt_csr c;");
            out_line(o, "double *fw = NULL, *fd = NULL;");
            out_line(o, "if (!ctx.dry_run || nrt_conn_file(&ctx, %s_file, %lld, %lld, 0, &c, &fw, &fd) != NRT_OK) c.nnz = 0, c.n_pre = %lld;",
                     j->cname, (long long)j->pre.size, (long long)j->post.size, (long long)j->pre.size);
            out_line(o, "nrt_mem_add(&ctx, \"projection %s\", (double)c.nnz, ring + 8.0 * (double)(c.n_pre + 1) + (double)c.nnz * (4 + syn));",
                     j->name);
            out_line(o, "nrt_proj_stat(&ctx, %d, %d, (double)c.nnz);", j->id, j->pre.pop->id);
            out_line(o, "if (ctx.dry_run) { nrt_csr_free(&c); nrt_free(fw); nrt_free(fd); }");
        } else if (j->procedural) {
            cg_conn_spec(o, j);
            out_line(o, "double nnz = 0;");
            out_line(o, "(void)nrt_conn_bytes(&spec, syn, &nnz);");
            if (j->rule == IR_FIXED_TOTAL)   /* its row pointers: the rows' lengths */
                out_line(o, "nrt_mem_add(&ctx, \"projection %s (procedural)\", nnz, ring + 8.0 * %lld);", j->name,
                         (long long)j->pre.size + 1);
            else
                out_line(o, "nrt_mem_add(&ctx, \"projection %s (procedural)\", nnz, ring);", j->name);
            out_line(o, "nrt_proj_stat(&ctx, %d, %d, nnz);", j->id, j->pre.pop->id);
        } else {
            cg_conn_spec(o, j);
            out_line(o, "double nnz = 0, bytes = nrt_conn_bytes(&spec, syn, &nnz);");
            out_line(o, "nrt_mem_add(&ctx, \"projection %s\", nnz, bytes + ring);", j->name);
            out_line(o, "nrt_proj_stat(&ctx, %d, %d, nnz);", j->id, j->pre.pop->id);
        }
        out_close(o);
    }
    emit_rec_plan(o, m);
    out_close(o);
    out_blank(o);
}

