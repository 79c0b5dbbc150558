/* simt_set.c -- `set` with expressions between runs (PH_ASSIGN, ir.h) on the GPU: a kernel
 * per such phase, nc_k_set<p>, a work-item per neuron of the view or per presynaptic row of the
 * projection, launched from main between two runs in every schedule (the runs have ended:
 * every variable is in device memory). It prints the same IR as the C back end's loop, with
 * the same keyed draws (NRT_STREAM_SET), so it writes the same bits.
 */
#include <stdio.h>

#include "simt_priv.h"

/* Contract: simt_priv.h. */
void simt_set_kernels(Out *o, const Simt *S)
{
    const IrModel *m = S->m;
    for (int p = 0; p < m->nphases; p++) {
        const IrPhase *ph = &m->phases[p];
        if (ph->kind != PH_ASSIGN)
            continue;
        char at[32];
        snprintf(at, sizeof at, "%lld", (long long)ph->at);
        out_line(o, "/* %s: per %s (draws: NRT_STREAM_SET, set %d, step %lld) */", ph->what,
                 ph->proj ? "synapse" : "neuron", ph->id, (long long)ph->at);
        simt_kernel_open(o, S, "NC_KERNEL nc_k_set%d(NC_ARGS)", p);
        if (ph->proj) {
            const IrProj *j = ph->proj;
            CgDialect d = simt_plast_dialect(S, j, NULL, 0);
            d.rng_elem = "i";
            d.rng_sub = "rank";
            d.rng_step = at;
            out_open(o, "for (int64_t i = NC_GID; i < %lld; i += NC_GSIZE)", (long long)j->pre.size);
            out_open(o, "for (int64_t s = %s_rp[i]; s < %s_rp[i + 1]; s++)", j->cname, j->cname);
            if (simt_mpi_rk(m, j))   /* distributed: the rank in the whole row (simt_mpi.c) */
                out_line(o, "const int64_t j = %s_col[s], rank = %s_rk[s];", j->cname, j->cname);
            else
                out_line(o, "const int64_t j = %s_col[s], rank = s - %s_rp[i];", j->cname, j->cname);
            out_line(o, "(void)j; (void)rank;");
            cg_block(&d, &ph->body, o);
            out_close(o);
            out_close(o);
        } else {
            CgDialect d = simt_dev_dialect(S, ph->owner);
            d.rng_step = at;
            out_open(o, "for (int64_t n = %lld + NC_GID; n < %lld; n += NC_GSIZE)", (long long)ph->view.offset,
                     (long long)(ph->view.offset + ph->view.size));
            cg_block(&d, &ph->body, o);
            out_close(o);
        }
        out_close(o);
        out_blank(o);
    }
}

/* Contract: simt_priv.h. */
void simt_set_handles(Out *o, const Simt *S, int load)
{
    const IrModel *m = S->m;
    for (int p = 0; p < m->nphases; p++) {
        if (m->phases[p].kind != PH_ASSIGN)
            continue;
        if (load)
            out_line(o, "if (!(k_set%d = nrt_gpu_kernel(gpu, \"nc_k_set%d\", NC_NARGS))) return fail(argv[0]);", p, p);
        else
            out_line(o, "static nrt_kernel *k_set%d; /* %s */", p, m->phases[p].what);
    }
}

/* Per-neuron variables the phase assigns, mirrored on the host for its propagators: read
 * back after the kernel. */
static void read_mirrors(Out *o, const IrPhase *ph)
{
    for (int k = 0; k < ph->body.n; k++) {
        const IrStmt *s = ph->body.v[k];
        if (s->kind != IS_ASSIGN || !simt_mirrored(s->var))
            continue;
        long long lo = (long long)ph->view.offset, n = (long long)ph->view.size;
        out_line(o, "if (nrt_gpu_read(gpu, %s, (size_t)%lld * sizeof *h_%s, h_%s + %lld, (size_t)%lld * sizeof *h_%s) != NRT_OK) return fail(argv[0]);",
                 s->var->cname, lo, s->var->cname, s->var->cname, lo, n, s->var->cname);
    }
}

/* Contract: simt_priv.h. */
void simt_set_phase(Out *o, const Simt *S, int p)
{
    const IrPhase *ph = &S->m->phases[p];
    out_line(o, "/* %s, in every run side by side */", ph->what);
    out_open(o, "for (int64_t b = 0; b < nc_nb; b++)");
    out_line(o, "nc_I = &nc_insts[b];");
    long long groups;
    if (ph->proj) {
        const IrProj *j = ph->proj;
        if (j->plast->event) {   /* event-driven synapse dynamics: every synapse current first */
            double syn = simt_est_synapses(j);
            out_line(o, "if (bind(k_catchup_%s) || nrt_gpu_launch(k_catchup_%s, %lld, 128, 0) != NRT_OK) return fail(argv[0]);",
                     j->cname, j->cname, syn / 128 > 1024 ? 1024LL : (long long)(syn / 128) + 1);
        }
        groups = ((long long)j->pre.size + 127) / 128;
    } else {
        groups = ((long long)ph->view.size + 127) / 128;
    }
    if (groups > 1024)
        groups = 1024;
    out_line(o, "if (bind(k_set%d) || nrt_gpu_launch(k_set%d, %lld, 128, 0) != NRT_OK) return fail(argv[0]);", p, p,
             groups < 1 ? 1LL : groups);
    if (!ph->proj)
        read_mirrors(o, ph);
    if (ph->params)
        out_line(o, "if (props_%s()) return fail(argv[0]);", ph->owner->cname);
    out_close(o);
    out_line(o, "nc_I = nc_insts;");
}
