/* cg_proc.c -- a projection's row as generated code: the loops that visit row i's synapses
 * in ascending order of post (fixed_total: in draw order, its rows' order in the CSR),
 * following the draws of runtime/src/rt_conn.c to the letter.
 *
 * Stored connectivity uses them through the PAIRS row function (cg_conn_row, cg_conn.c);
 * procedural connectivity (IrProj.procedural, docs/language.md §12.4) puts them where a
 * spike is delivered, so a row is regenerated instead of read from a CSR. Both paths visit
 * the same synapses in the same order, and `rank` (the synapse's position in its row) keys
 * the SYNAPSE_INIT draws of `w` and `delay` in both, so procedural and stored projections
 * deliver the same values.
 *
 * The text is C-family and prints expressions through a CgDialect, so the C program and the
 * SIMT device program (CUDA and OpenCL) run the same loops.
 */
#include <math.h>
#include <stdio.h>

#include "codegen.h"

/* The numbers of j that cg_row_loops prints, as d->row spells them or as literals. */
typedef struct RowText {
    char np[24], npd[64], aut[24], stream[16], lp[32];
    const char *NP, *NPD, *AUT, *STREAM, *LP;
    const char *RP, *RPS;         /* the row pointers: RP followed by RPS */
} RowText;

static void row_text(const CgDialect *d, const IrProj *j, RowText *t)
{
    const CgRowSpell *r = d ? d->row : NULL;
    snprintf(t->np, sizeof t->np, "%lld", (long long)j->post.size);
    snprintf(t->npd, sizeof t->npd, r ? "(double)%s" : "%s.0", r ? r->np : t->np);
    snprintf(t->aut, sizeof t->aut, "%lld", (long long)(j->pre.offset - j->post.offset));
    snprintf(t->stream, sizeof t->stream, "0x%08xu", (3u << 24) | ((uint32_t)j->id & 0xFFFFFFu)); /* NRT_STREAM_CONNECT */
    snprintf(t->lp, sizeof t->lp, "%.17g", j->rule == IR_FIXED_PROB && j->p > 0 && j->p < 1 ? log1p(-j->p) : 0.0);
    t->NP = r ? r->np : t->np;
    t->NPD = t->npd;
    t->AUT = r ? r->aut : t->aut;
    t->STREAM = r ? r->stream : t->stream;
    t->LP = r ? r->lp : t->lp;
    t->RP = r ? r->rp : j->cname;
    t->RPS = r ? "" : "_rp";
}

static void total_head(Out *o, const IrProj *j, const RowText *t)
{
    out_line(o, "const int64_t nc_n = %s%s[i + 1] - %s%s[i];", t->RP, t->RPS, t->RP, t->RPS);
    if (j->pre.pop == j->post.pop && !j->autapses)
        out_line(o, "const int64_t nc_js = i + %s >= 0 && i + %s < %s ? i + %s : -1; /* the autapse's post */",
                 t->AUT, t->AUT, t->NP, t->AUT);
    else
        out_line(o, "const int64_t nc_js = -1;");
    out_line(o, "const uint32_t nc_a = (uint32_t)(%s - (nc_js >= 0 ? 1 : 0)); /* admissible posts */", t->NP);
}

void cg_total_head(Out *o, const IrProj *j, const CgDialect *d)
{
    RowText t;
    row_text(d, j, &t);
    total_head(o, j, &t);
}

void cg_total_post(Out *o, const char *word)
{
    out_line(o, "const int64_t nc_p = (int64_t)nrt_below(%s, nc_a);", word);
    out_line(o, "const int64_t j = nc_p + (nc_js >= 0 && nc_p >= nc_js ? 1 : 0);");
}

/* Context: `i` (int64_t row within PRE), `key0` (uint32_t, nrt_seed_key of the seed),
 * `rank` (int64_t, 0 before the row) and, for fixed_total, `<proj>_rp` (the row pointers,
 * nrt_conn_total_rows) are in scope. The loops bind `j` (int64_t, post within
 * POST) and, after body(o, arg) (if body is not NULL) has been written for a synapse, advance
 * rank. The body must not `continue` or `break` (it may `return`). */
void cg_row_loops(Out *o, const CgDialect *d, const IrProj *j, CgRowBody body, const void *arg)
{
    static const char axes[] = "0123";
    const uint32_t stream = (3u << 24) | ((uint32_t)j->id & 0xFFFFFFu);   /* NRT_STREAM_CONNECT */
    const long long np = (long long)j->post.size;
    RowText t;   /* the numbers that a projection family spells (d->row): not PAIRS */
    row_text(d, j, &t);
    const int self = j->pre.pop == j->post.pop && !j->autapses;
    const long long aut = (long long)(j->pre.offset - j->post.offset); /* j == i + aut: autapse */
    StrBuf e = {0};
    double pc = 0;
    int close = 0;
    switch (j->rule) {
    case IR_ONE_TO_ONE:
        out_open(o, "if (i < %s)", t.NP);
        out_line(o, "const int64_t j = i;");
        close = 1;
        break;
    case IR_FIXED_PROB:
        if (!(j->p > 0)) {
            if (d->row)
                out_line(o, "/* p = 0: no synapses */");
            else
                out_line(o, "/* p = %g: no synapses */", j->p);
            return;
        }
        if (j->p < 1) {
            /* geometric skips, two per draw (rt_conn.c, FIXED_PROB) */
            out_line(o, "int64_t j = -1;");
            out_line(o, "uint32_t nc_c = 0;");
            out_line(o, "int nc_done = 0;");
            out_open(o, "while (!nc_done)");
            out_line(o, "const nrt_u32x4 nc_x = nrt_rng(key0, %s, (uint32_t)i, nc_c, 0u, 0u);", t.STREAM);
            out_line(o, "nc_c++;");
            out_open(o, "for (int nc_h = 0; nc_h < 2 && !nc_done; nc_h++)");
            out_line(o, "const double nc_u = nrt_u01_53(nc_x.v[2 * nc_h], nc_x.v[2 * nc_h + 1]);");
            out_line(o, "const double nc_s = floor(nrt_log(nc_u) / %s); /* log1p(-p) */", t.LP);
            out_open(o, "if (nc_s >= %s)", t.NPD);
            out_line(o, "nc_done = 1;");
            out_line(o, "break;");
            out_close(o);
            out_line(o, "j += 1 + (int64_t)nc_s;");
            out_open(o, "if (j >= %s)", t.NP);
            out_line(o, "nc_done = 1;");
            out_line(o, "break;");
            out_close(o);
            if (self)
                out_line(o, "if (j == i + %s) continue; /* autapse */", t.AUT);
            close = 2;
            break;
        }
        /* p >= 1: every pair, as all_to_all */
        /* fall through */
    case IR_ALL_TO_ALL:
        out_open(o, "for (int64_t j = 0; j < %s; j++)", t.NP);
        if (self)
            out_line(o, "if (j == i + %s) continue; /* autapse */", t.AUT);
        close = 1;
        break;
    case IR_PAIRS:
        if (j->within > 0) {
            const IrGrid *a = &j->pre.pop->grid, *b = &j->post.pop->grid;
            int64_t stride = 1;
            out_line(o, "const int64_t ib = i + %lld;", (long long)j->pre.offset);
            for (int k = 0; k < a->ndim; k++) {
                out_line(o, "const double x%c = ((double)((ib / %lld) %% %lld) + 0.5) * %.17g;", axes[k],
                         (long long)stride, (long long)a->n[k], a->spacing);
                out_line(o, "const nrt_span s%c = nrt_space_span(x%c, %.17g, %lld, %.17g, %d);", axes[k],
                         axes[k], j->within, (long long)b->n[k], b->spacing, b->periodic);
                stride *= a->n[k];
            }
            for (int k = b->ndim - 1; k >= 0; k--) {
                out_open(o, "for (int h%c = 0; h%c < 2; h%c++)", axes[k], axes[k], axes[k]);
                out_open(o, "for (int64_t c%c = h%c ? s%c.a1 : s%c.a0; c%c < (h%c ? s%c.b1 : s%c.b0); c%c++)",
                         axes[k], axes[k], axes[k], axes[k], axes[k], axes[k], axes[k], axes[k], axes[k]);
            }
            sb_printf(&e, "c0");
            stride = 1;
            for (int k = 1; k < b->ndim; k++) {
                stride *= b->n[k - 1];
                sb_printf(&e, " + %lld * c%c", (long long)stride, axes[k]);
            }
            out_line(o, "const int64_t j = %s - %lld;", e.s, (long long)j->post.offset);
            out_line(o, "if (j < 0 || j >= %lld) continue;", np);
            close = 2 * b->ndim;
        } else {
            out_open(o, "for (int64_t j = 0; j < %lld; j++)", np);
            close = 1;
        }
        if (self)
            out_line(o, "if (j == i + %lld) continue; /* autapse */", aut);
        if (j->cond) {
            e.len = 0;
            if (e.s)
                e.s[0] = 0;
            cg_expr(d, j->cond, &e);
            out_line(o, "if (!(%s)) continue;", e.s);
        }
        if (j->prob && !(ir_is_const(j->prob, &pc) && pc >= 1)) {
            e.len = 0;
            if (e.s)
                e.s[0] = 0;
            cg_expr(d, j->prob, &e);
            out_begin(o);
            out_line(o, "const nrt_u32x4 x = nrt_rng(key0, 0x%08xu, (uint32_t)i, (uint32_t)j, 0u, 0u);", stream);
            out_line(o, "if (!(nrt_u01_53(x.v[0], x.v[1]) <= (double)(%s))) continue;", e.s);
            out_close(o);
        }
        break;
    case IR_FIXED_TOTAL:
        /* row i's length from the host's row pointers <proj>_rp (nrt_conn_total_rows), its
         * posts in draw order: rank r from word r % 4 of draw r / 4 (rt_conn.c, FIXED_TOTAL) */
        total_head(o, j, &t);
        out_line(o, "nrt_u32x4 nc_x = nrt_rng(key0, %s, (uint32_t)i, 0u, 0u, 0u);", t.STREAM);
        out_open(o, "for (int64_t nc_r = 0; nc_r < nc_n; nc_r++)");
        out_line(o, "if (nc_r > 0 && (nc_r & 3) == 0) nc_x = nrt_rng(key0, %s, (uint32_t)i, (uint32_t)(nc_r >> 2), 0u, 0u);",
                 t.STREAM);
        cg_total_post(o, "nc_x.v[nc_r & 3]");
        close = 1;
        break;
    case IR_FIXED_INDEGREE:
    case IR_FIXED_OUTDEGREE:
    case IR_FROM_FILE:
        NC_UNREACHABLE(); /* sema: not procedural, and not PAIRS */
    }
    if (body)
        body(o, arg);
    out_line(o, "rank++;");
    for (int k = 0; k < close; k++)
        out_close(o);
    sb_free(&e);
}
