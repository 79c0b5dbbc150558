/* explain.c -- `neuroc --explain`: what would be built, in words, from the IrModel alone.
 *
 * Runs after sema_lower in place of the back end (driver.c): the model's settings, each
 * population and projection with its estimated synapse count, the integrator chosen for
 * every dynamics block, the run-time parameters, the chosen back end's own lines (its
 * schedule and kernel plan: Backend.explain), the estimated memory, and the warnings a user
 * should read (the back end's last: Backend.explain_warn).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "driver.h"
#include "nrt_recsize.h"

/* Expected synapses of a projection, or -1 when only the build knows (from_file, pairs). */
static double est_syn(const IrProj *j)
{
    const double np = (double)j->pre.size, nq = (double)j->post.size;
    switch (j->rule) {
    case IR_ALL_TO_ALL: return np * nq;
    case IR_ONE_TO_ONE: return np;
    case IR_FIXED_PROB: return (j->p < 1 ? j->p : 1) * np * nq;
    case IR_FIXED_INDEGREE: return (double)j->k * nq;
    case IR_FIXED_OUTDEGREE: return (double)j->k * np;
    case IR_FIXED_TOTAL: return (double)j->k;
    default: return -1;
    }
}

/* The recordings: each one's rows and bytes after the whole run (nrt_recsize.h, as the
 * simulator's --dry-run), how they are known, and the total; returns the total. */
static double explain_records(const IrModel *m)
{
    static const char *const how[] = {"exact", "at most", "estimate at 10 Hz"};
    double total = 0;
    for (int r = 0; r < m->nrecs; r++) {
        const IrRecord *rec = &m->recs[r];
        size_t n = strlen(rec->file), names = 0;
        int csv = n > 4 && strcmp(rec->file + n - 4, ".csv") == 0;
        for (int v = 0; v < rec->nvars; v++)
            names += strlen(cg_rec_var(rec, v));
        char kind = rec->spikes ? 's' : rec->bin ? 'r' : 'v';
        int64_t cols = rec->spikes ? rec->view.size : rec->bin ? 1 : rec->nidx;
        if (rec->proj) {
            const IrProj *j = rec->proj;
            double syn = est_syn(j);
            if (syn > 0 && rec->syn_sel == 2)
                syn = fmin(syn, (double)rec->nsample);
            else if (syn > 0 && rec->syn_sel == 1)
                syn = syn * (double)(rec->pre_hi - rec->pre_lo) / (double)j->pre.size *
                      (double)(rec->post_hi - rec->post_lo) / (double)j->post.size;
            cols = syn > 0 ? (int64_t)syn : 0;
        }
        nrt_rec_size s = nrt_rec_size_of(kind, csv, rec->nvars, (double)names, cols,
                                         rec->bin ? rec->bin : rec->every, 0, m->total_steps, m->dt,
                                         rec->proj != NULL, rec->win_lo, rec->win_hi,
                                         !rec->spikes && !rec->bin && m->t0_rows);
        printf("recording %s: %s, %.0f rows, %.0f bytes (%.1f MiB, %s)\n", rec->file,
               rec->spikes ? "spikes" : rec->bin ? "rate" : "state", s.rows, s.bytes, s.bytes / 1048576.0,
               rec->proj ? "estimate from the expected synapses" : how[s.how]);
        total += s.bytes;
    }
    if (m->nrecs)
        printf("recordings: %.0f bytes in all (%.1f MiB; the simulator's --dry-run adds the free space)\n", total,
               total / 1048576.0);
    return total;
}

/* Contract: driver.h. */
void explain_model(Compiler *cc, IrModel *m, const Backend *be, const char *arch)
{
    printf("model %s: dt %g ms, seed %llu, %s precision, %lld steps (%g ms), back end %s\n", m->name,
           m->dt, (unsigned long long)m->seed, m->dbl ? "double" : "float", (long long)m->total_steps,
           (double)m->total_steps * m->dt, be->name);
    for (int i = 0; i < m->nseries; i++) {   /* docs/language.md §5.3 */
        const IrSeries *s = &m->series[i];
        const char *slash = strrchr(s->path, '/');
        printf("series %s: %s (loaded at start-up), a sample every %lld steps (%g ms), %s between "
               "samples; read by", s->name, slash ? slash + 1 : s->path, (long long)s->every,
               (double)s->every * m->dt, s->linear ? "linear" : "held");
        int any = 0;
        for (int k = 0; k < m->npops; k++)
            for (int j = 0; j < m->pops[k]->nseries; j++)
                if (m->pops[k]->series[j] == i)
                    printf("%s %s", any++ ? "," : "", m->pops[k]->name);
        printf("%s\n", any ? "" : " no population");
    }
    double bytes = 0, neurons = 0, synapses = 0;
    for (int i = 0; i < m->npops; i++) {
        IrPop *p = m->pops[i];
        int per = 0;
        for (int k = 0; k < p->nvars; k++)
            per += p->vars[k]->per_neuron;
        printf("population %s: %s, %lld neurons, %d per-neuron variables\n", p->name, p->model,
               (long long)p->size, per);
        bytes += (double)p->size * per * (m->dbl ? 8 : 4);
        neurons += (double)p->size;
    }
    for (int k = 0; k < m->nprojs; k++) {
        IrProj *j = m->projs[k];
        /* ORDER: IrRule */
        static const char *const rules[] = {"", "all_to_all", "one_to_one", "fixed_prob", "fixed_indegree",
                                            "fixed_outdegree", "fixed_total", "from_file",
                                            "prob/within/where"};
        double syn = est_syn(j);
        char count[64] = "synapses counted when built";
        if (syn >= 0)
            snprintf(count, sizeof count, "~%.0f synapses", syn);
        printf("projection %s: %s[%lld:%lld] -> %s[%lld:%lld], %s, %s%s%s%s\n", j->name,
               j->pre.pop->name, (long long)j->pre.offset, (long long)(j->pre.offset + j->pre.size),
               j->post.pop->name, (long long)j->post.offset,
               (long long)(j->post.offset + j->post.size), rules[j->rule], count,
               j->delay ? ", per-synapse delays" : ", delay 1 step", j->plast ? ", plastic" : "",
               j->procedural ? ", procedural: rows regenerated at each spike, no synapse memory" : "");
        if (syn > 0 && !j->procedural)
            bytes += syn * (4 + (m->dbl ? 8 : 4) + (j->delay ? 4 : 0));
        if (syn > 0)
            synapses += syn;
    }
    int nslow = 0;
    for (int i = 0; i < m->nnotes; i++) {
        printf("integrator: %s\n", m->notes[i]);
        const char *n = m->notes[i];
        nslow += strstr(n, "rk4") != NULL || (strstr(n, "euler") != NULL && strstr(n, "exp_euler") == NULL);
    }
    for (int i = 0; i < m->nmerges; i++)
        printf("merged: %s\n", m->merges[i]);
    for (int i = 0; i < m->nrtparams; i++) {
        const IrRtParam *rp = &m->rtparams[i];
        const IrVar *v = rp->var;
        if (rp->view.pop)
            printf("run-time parameter: %s, per neuron of %s[%lld:%lld] (./sim --set %s=VALUE or =@FILE)\n",
                   rp->name, rp->view.pop->name, (long long)rp->view.offset,
                   (long long)(rp->view.offset + rp->view.size), rp->name);
        else
            printf("run-time parameter: %s = %.15g %s%s%s (./sim --set %s=VALUE)\n", rp->name, v->init,
                   v->unit ? v->unit : "1", rp->proj ? ", of projection " : "",
                   rp->proj ? rp->proj->name : "", rp->name);
    }
    if (be->explain)   /* the back end's schedule and kernel plan */
        be->explain(cc, m, arch);
    printf("estimated memory: %.1f MiB (state and synapses, before delay rings)\n", bytes / 1048576.0);
    double recbytes = explain_records(m);

    /* warnings a user should read before a long run */
    int nw = 0;
    if (m->nrecs == 0)
        printf("warning %d: nothing is recorded: the run writes only manifest.json (add 'record spikes of P to \"s.npy\"')\n", ++nw);
    if (recbytes > 1073741824.0)
        printf("warning %d: the recordings will take about %.2f GiB (see above): record fewer neurons, "
               "sample less often ('every') or record rates ('record rate of P bin T')\n", ++nw,
               recbytes / 1073741824.0);
    if (nslow)
        printf("warning %d: %d dynamics block%s integrated by rk4 or euler, whose error depends on dt: "
               "compare a run with dt halved\n", ++nw, nslow, nslow > 1 ? "s are" : " is");
    for (int k = 0; k < m->nprojs; k++)
        if (est_syn(m->projs[k]) == 0)
            printf("warning %d: projection %s is expected to have no synapses\n", ++nw, m->projs[k]->name);
    if (!be->gpu && neurons * (double)m->total_steps > 1e10)
        printf("warning %d: %.3g neuron-steps on the CPU: expect a long run; ./sim --threads N runs it on N "
               "cores, --backend cuda or opencl on a GPU\n", ++nw, neurons * (double)m->total_steps);
    for (int k = 0; k < m->nprojs; k++) {
        double syn = est_syn(m->projs[k]);
        if (!m->projs[k]->procedural && !m->projs[k]->plast && syn > 1e9)
            printf("warning %d: projection %s stores ~%.3g synapses (%.1f GiB): 'storage = procedural' "
                   "keeps none\n", ++nw, m->projs[k]->name, syn, syn * (m->dbl ? 12 : 8) / 1073741824.0);
    }
    if (be->explain_warn)
        nw = be->explain_warn(cc, m, arch, neurons, synapses, nw);
    if (nw == 0)
        printf("warnings: none\n");
}
