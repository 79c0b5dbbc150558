/* cg_conn.c -- a stored projection's connectivity as generated code: the nrt_conn_spec
 * that the runtime builds it from (rt_conn.c, rt_gpu_conn.c), the row function of a PAIRS
 * projection (through the row loops of cg_proc.c), and the names its device kernels take.
 * Shared by every back end's host program.
 */
#include <stdio.h>
#include <string.h>

#include "codegen.h"

/* Contract: codegen.h. */
const char *cg_rule_name(IrRule r)
{
    switch (r) {
    case IR_ALL_TO_ALL: return "NRT_ALL_TO_ALL";
    case IR_ONE_TO_ONE: return "NRT_ONE_TO_ONE";
    case IR_FIXED_PROB: return "NRT_FIXED_PROB";
    case IR_FIXED_INDEGREE: return "NRT_FIXED_INDEGREE";
    case IR_FIXED_OUTDEGREE: return "NRT_FIXED_OUTDEGREE";
    case IR_FIXED_TOTAL: return "NRT_FIXED_TOTAL";
    case IR_PAIRS: return "NRT_PAIRS";
    case IR_FROM_FILE: break;                 /* nrt_conn_file, not a spec */
    }
    NC_UNREACHABLE();
}

/* The nrt_conn_spec of projection j as C statements declaring `spec` (host programs of
 * every back end: rt_conn.c and rt_gpu_conn.c take the same spec). */
void cg_conn_spec(Out *o, const IrProj *j)
{
    out_line(o, "nrt_conn_spec spec = {0};");
    out_line(o, "spec.rule = %s;", cg_rule_name(j->rule));
    out_line(o, "spec.n_pre = %lld;", (long long)j->pre.size);
    out_line(o, "spec.n_post = %lld;", (long long)j->post.size);
    out_line(o, "spec.p = %.17g;", j->p);
    out_line(o, "spec.k = %lld;", (long long)j->k);
    out_line(o, "spec.autapses = %d;", j->autapses);
    out_line(o, "spec.multapses = %d;", j->multapses);
    out_line(o, "spec.same_base = %d;", j->pre.pop == j->post.pop);
    out_line(o, "spec.pre_offset = %lld;", (long long)j->pre.offset);
    out_line(o, "spec.post_offset = %lld;", (long long)j->post.offset);
    out_line(o, "spec.seed = ctx.seed;");
    out_line(o, "spec.proj_id = %du;", j->id);
    if (j->rule == IR_PAIRS) {
        char kb[16];
        out_line(o, "spec.row = nc_row_%s;", j->cname);
        out_line(o, "spec.row_kernels = \"%s\";", cg_kname(j, kb));
    }
}

#define CG_KNAME_MAX 128 /* nc_k_catchup_ + 128 bytes: far below a file name's 255 */

const char *cg_kname(const IrProj *j, char buf[16])
{
    if (strlen(j->cname) <= CG_KNAME_MAX)
        return j->cname;
    snprintf(buf, 16, "%d", j->id); /* C names start with prj_: no clash */
    return buf;
}

/* 1 when e reads column `col` of an edge file (IE_EDGE). */
int cg_uses_edge(const IrExpr *e, int col)
{
    if (!e)
        return 0;
    if (e->op == IE_EDGE && e->sub == col)
        return 1;
    for (int i = 0; i < e->nargs; i++)
        if (cg_uses_edge(e->args[i], col))
            return 1;
    return cg_uses_edge(e->a, col) || cg_uses_edge(e->b, col) || cg_uses_edge(e->c, col);
}

/* The row function of an IR_PAIRS projection (rt_conn.c specifies it):
 *   <qual> int64_t nc_row_<proj>(int64_t i, uint32_t key0, <outq> int32_t *out)
 * writes row i's posts (ascending) to out unless out is null, and returns their number.
 * Expressions are printed through d (pre "i", post "j"), so the C and SIMT programs compute
 * the same conditions and probabilities. */
static void row_out(Out *o, const void *arg)
{
    (void)arg;
    out_line(o, "if (out) out[rank] = (int32_t)j;");
}

void cg_conn_row(Out *o, const CgDialect *d, const IrProj *j, const char *qual, const char *outq)
{
    out_line(o, "/* projection %s: the posts of row i, ascending (rt_conn.c, PAIRS) */", j->name);
    out_open(o, "%s int64_t nc_row_%s(int64_t i, uint32_t key0, %s int32_t *out)", qual, j->cname, outq);
    out_line(o, "int64_t rank = 0;");
    out_line(o, "(void)key0;");
    out_begin(o);
    cg_row_loops(o, d, j, row_out, NULL);
    out_close(o);
    out_line(o, "return rank;");
    out_close(o);
    out_blank(o);
}
