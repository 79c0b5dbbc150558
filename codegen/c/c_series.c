/* c_series.c -- analog input series in the C program (docs/language.md §5.3): their tables
 * and load_series(), which reads them at start-up (nrt_series_file) and checks their columns
 * against the populations that read them. The neuron steps read them through nc_series
 * (cg_series_helper, the same text as the SIMT device program's).
 */
#include "c_priv.h"

/* Contract: c_priv.h. */
void cgc_series(Out *o, const IrModel *m)
{
    if (!m->nseries)
        return;
    cg_series_helper(o, m, "static inline", "");
    for (int i = 0; i < m->nseries; i++) {
        out_line(o, "static real *%s_v; /* series %s: rows x columns */", m->series[i].cname, m->series[i].name);
        out_line(o, "static int64_t %s_ns, %s_nc;", m->series[i].cname, m->series[i].cname);
    }
    out_open(o, "static nrt_status load_series(void)");
    out_line(o, "nrt_status st;");
    out_line(o, "void *v;");
    for (int i = 0; i < m->nseries; i++) {
        cg_series_read(o, m, i);
        out_line(o, "%s_v = v;", m->series[i].cname);
        cgc_own("%s_v", m->series[i].cname);
        cg_series_check(o, m, i);
    }
    out_line(o, "return NRT_OK;");
    out_close(o);
    out_blank(o);
}

/* Contract: c_priv.h. */
void cgc_series_load(Out *o, const IrModel *m)
{
    if (!m->nseries)
        return;
    out_line(o, "if ((st = load_series()) != NRT_OK) return fail(argv[0]); /* as a bad spike file */");
}
