/* explain.c -- `neuroc --explain`: what would be built, in words, from the IrModel alone.
 *
 * Runs after sema_lower in place of the back end (driver.c): the model's settings, each
 * population and projection with its estimated synapse count, the integrator chosen for
 * every dynamics block, the run-time parameters, the kernel plan of the chosen back end
 * and GPU schedule, the estimated memory, and the warnings a user should read.
 */
#include <stdio.h>
#include <string.h>

#include "codegen.h"
#include "neuroc.h"

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

/* The kernel plan: what runs in one time step, per back end and schedule (codegen/c,
 * codegen/simt.c; docs/architecture.md "Back ends"). */
static void kernel_plan(const IrModel *m, const char *backend, const char *sched)
{
    int nplast = 0, ntopk = 0;
    for (int k = 0; k < m->nprojs; k++)
        nplast += m->projs[k]->plast != NULL;
    for (int i = 0; i < m->npops; i++)
        ntopk += m->pops[i]->topk != NULL;
    if (strcmp(backend, "c") == 0) {
        printf("kernel plan (c): one thread; each step:");
        for (int k = 0; k < m->nprojs; k++)
            if (m->projs[k]->plast)
                printf(" arrive_%s,", m->projs[k]->name);
        for (int i = 0; i < m->npops; i++)
            printf(" step_%s (%lld neurons%s),", m->pops[i]->name, (long long)m->pops[i]->size,
                   m->pops[i]->topk ? ", then top-k selection" : "");
        for (int k = 0; k < m->nprojs; k++)
            printf(" %s_%s%s,", m->projs[k]->plast ? "learn" : "propagate", m->projs[k]->name,
                   m->projs[k]->procedural ? " (rows regenerated)" : "");
        printf(" records\n");
        return;
    }
    printf("kernel plan (%s, %s): ", backend, sched);
    if (strcmp(sched, "free") == 0) {
        printf("nc_k_free gives each work-item a neuron and runs it through a chunk of steps with no "
               "barrier (no projections couple the neurons), setting a spike bit per step; then per chunk "
               "nc_k_fcount, nc_k_fscan and nc_k_fwrite count the bits and write spike counts and "
               "recordings in index order; the host copies one chunk while the device runs the next\n");
        return;
    }
    if (strcmp(sched, "block") == 0) {
        printf("nc_k_block runs the whole network in one work-group for a chunk of steps; each step, "
               "separated by barriers:");
    } else if (strcmp(sched, "cluster") == 0) {
        printf("nc_k_cluster runs the network on one thread-block cluster (up to 16 work-groups on as "
               "many SMs; $NEUROC_CLUSTER) for a chunk of steps, each group for its own slice of "
               "every population and of the targets (its own synapses of one-weight projections in "
               "its shared memory where they fit), the step's spike words exchanged through "
               "distributed shared memory (words that do not come within 2 s, as when other "
               "processes share the GPU, stop the launch, and its steps run again in the block "
               "schedule); each step:");
        if (simt_push_model(m)) {   /* nc_k_push: a step of its own */
            printf(" (push step, nc_k_push) each work-item updates its neuron of every population "
                   "from registers, each warp adds one per synapse of its spikes into the targets' "
                   "groups (red.async into their shared memory) and arrives on every group's "
                   "mbarrier, and one wait ends the step: no barrier, no spike list; states recorded "
                   "by their owners, spikes from the warps' words after each chunk (nc_k_fcount, "
                   "nc_k_fscan, nc_k_fwrite); where a group's out-tables do not fit its shared "
                   "memory, or a group holds more neurons than work-items, the word step: ");
        }
    } else if (strcmp(sched, "persistent") == 0) {
        printf("nc_k_persistent, one cooperative kernel for a chunk of steps; each step, separated by "
               "grid barriers:");
    } else {
        printf("each step%s:", strcmp(sched, "graph") == 0 ? " (a chunk of steps captured once as a CUDA "
                                                               "graph and replayed)" : ", launched");
    }
    int grid = strcmp(sched, "block") != 0 && strcmp(sched, "cluster") != 0;
    if (nplast)
        printf(" plastic arrivals (%s),", grid ? "nc_k_plast0-1" : "phases 0-1");
    printf(" neurons of");
    for (int i = 0; i < m->npops; i++)
        printf(" %s", m->pops[i]->name);
    printf(" (%s)%s,", grid ? "nc_k_neurons: a work-item per neuron, atomic spike compaction"
                            : strcmp(sched, "cluster") == 0 ? "each group its own; every group's spike words "
                                                               "compacted in index order by one warp while "
                                                               "the others record the states"
                                                             : "ordered spike compaction by a block scan",
           ntopk ? (grid ? " top-k radix select (nc_k_tk*, nc_k_after)" : " top-k radix select") : "");
    if (m->nprojs) {
        printf(" delivery of");
        for (int k = 0; k < m->nprojs; k++)
            printf(" %s", m->projs[k]->name);
        printf(" (%s),", grid ? "nc_k_synapses: a work-group per spike, atomic adds"
                              : "one-weight projections with a ring of their own: the (spike, projection) "
                                "pairs at once, atomic adds of that one weight, the same sums in any order; "
                                "the others spike by spike, each target summed in the C back end's order");
    }
    if (nplast)
        printf(" learning (%s),", grid ? "nc_k_plast2-6" : "phases 2-6");
    printf(" recording tail; the host copies one chunk while the device runs the next\n");
}

/* Contract: prints the --explain report of m for `backend` ("c", "cuda", "opencl") to
 * stdout: settings, populations, projections, integrators, merged receptors, run-time
 * parameters, kernel
 * plan, estimated memory and warnings. */
void explain_model(Compiler *cc, IrModel *m, const char *backend, const char *arch)
{
    int gpu = strcmp(backend, "c") != 0;
    const char *sched = gpu ? simt_schedule(m, arch, cc->opt.gpu_mode) : NULL;
    printf("model %s: dt %g ms, seed %llu, %s precision, %lld steps (%g ms), back end %s\n", m->name,
           m->dt, (unsigned long long)m->seed, m->dbl ? "double" : "float", (long long)m->total_steps,
           (double)m->total_steps * m->dt, backend);
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
        const IrVar *v = m->rtparams[i].var;
        printf("run-time parameter: %s = %.15g %s (./sim --set %s=VALUE)\n", m->rtparams[i].name, v->init,
               v->unit ? v->unit : "1", m->rtparams[i].name);
    }
    if (gpu)
        printf("schedule: %s (%s)\n", sched,
               cc->opt.gpu_mode && strcmp(cc->opt.gpu_mode, "auto") != 0 ? "asked for with --gpu-mode"
               : "auto: free for up to 30,000 neurons without projections or top-k; for up to 20,000 neurons and 4e6 synapses without procedural projections one thread-block cluster (CUDA, sm_90 and later, no plasticity, top-k or shared variables), else one work-group; else per-step kernels");
    kernel_plan(m, backend, sched);
    printf("estimated memory: %.1f MiB (state and synapses, before delay rings)\n", bytes / 1048576.0);

    /* warnings a user should read before a long run */
    int nw = 0;
    if (m->nrecs == 0)
        printf("warning %d: nothing is recorded: the run writes only manifest.json (add 'record spikes of P to \"s.npy\"')\n", ++nw);
    if (nslow)
        printf("warning %d: %d dynamics block%s integrated by rk4 or euler, whose error depends on dt: "
               "compare a run with dt halved\n", ++nw, nslow, nslow > 1 ? "s are" : " is");
    for (int k = 0; k < m->nprojs; k++)
        if (est_syn(m->projs[k]) == 0)
            printf("warning %d: projection %s is expected to have no synapses\n", ++nw, m->projs[k]->name);
    if (!gpu && neurons * (double)m->total_steps > 1e10)
        printf("warning %d: %.3g neuron-steps on one CPU thread: expect a long run; --backend cuda or opencl "
               "runs it on a GPU\n", ++nw, neurons * (double)m->total_steps);
    for (int k = 0; k < m->nprojs; k++) {
        double syn = est_syn(m->projs[k]);
        if (!m->projs[k]->procedural && !m->projs[k]->plast && syn > 1e9)
            printf("warning %d: projection %s stores ~%.3g synapses (%.1f GiB): 'storage = procedural' "
                   "keeps none\n", ++nw, m->projs[k]->name, syn, syn * (m->dbl ? 12 : 8) / 1073741824.0);
    }
    if (gpu && strcmp(sched, "block") != 0 && strcmp(sched, "cluster") != 0 && m->nprojs)
        printf("warning %d: the %s schedule adds synaptic input with atomics, in no fixed order: results "
               "equal the C back end's up to rounding; --gpu-mode block is bit-identical\n", ++nw, sched);
    if (gpu && strcmp(sched, "block") == 0 && (neurons > 20000 || synapses > 4e6))
        printf("warning %d: the block schedule runs %.0f neurons and ~%.3g synapses in one work-group: "
               "per-step kernels (--gpu-mode %s) are faster at this size\n", ++nw, neurons, synapses,
               strcmp(backend, "cuda") == 0 ? "graph" : "launch");
    if (nw == 0)
        printf("warnings: none\n");
}
