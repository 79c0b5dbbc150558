/* simt_series.c -- analog input series on the GPU back ends (docs/language.md §5.3): each
 * series' table (`<cname>_v`, real) and its rows and columns (`_ns`, `_nc`, int64 scalars)
 * are kernel arguments; the host reads the file at start-up (nrt_series_file, the same
 * values as the C program's), checks its columns against its readers and uploads it once,
 * and the neuron phase reads it through nc_series (cg_series_helper, the C program's text).
 */
#include "simt_priv.h"

/* Contract: simt_priv.h. */
void simt_series_args(Simt *S)
{
    Arena *a = &S->cc->arena;
    for (int i = 0; i < S->m->nseries; i++) {
        const char *c = S->m->series[i].cname;
        simt_add_arg(S, arena_printf(a, "%s_v", c), "real", ARG_MEM);
        simt_add_arg(S, arena_printf(a, "%s_ns", c), "int64_t", ARG_I64);
        simt_add_arg(S, arena_printf(a, "%s_nc", c), "int64_t", ARG_I64);
    }
}

/* Contract: simt_priv.h. */
void simt_series_host(Out *o, const Simt *S)
{
    const IrModel *m = S->m;
    if (!m->nseries)
        return;
    out_line(o, "/* series: read on the host at start-up, uploaded once, columns checked against their readers */");
    out_open(o, "static nrt_status load_series(void)");
    out_line(o, "nrt_status st;");
    out_line(o, "void *v;");
    for (int i = 0; i < m->nseries; i++) {
        const IrSeries *s = &m->series[i];
        cg_series_read(o, m, i);
        out_line(o, "const size_t bytes%d = (size_t)(%s_ns * %s_nc) * sizeof(real);", i, s->cname, s->cname);
        out_line(o, "const int bad%d = dalloc(&%s_v, bytes%d, \"series %s\") || nrt_gpu_write(gpu, %s_v, 0, v, bytes%d) != NRT_OK;",
                 i, s->cname, i, s->name, s->cname, i);
        out_line(o, "nrt_free(v);");
        out_line(o, "if (bad%d) return NRT_ENOMEM;", i);
        cg_series_check(o, m, i);
    }
    out_line(o, "return NRT_OK;");
    out_close(o);
    out_blank(o);
}

/* Contract: simt_priv.h. */
void simt_series_load(Out *o, const Simt *S)
{
    if (!S->m->nseries)
        return;
    out_begin(o);
    out_line(o, "const nrt_status sst = load_series();");
    out_line(o, "if (sst != NRT_OK) return fail(argv[0]); /* as a bad spike file */");
    out_close(o);
}
