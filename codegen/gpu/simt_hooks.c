/* simt_hooks.c -- the GPU back ends' answers to the driver and to --explain (Backend in
 * codegen.h; backend_cuda.c and backend_opencl.c put them in their records).
 *
 * simt_check refuses, before anything is emitted, a --gpu-mode free or --mpi that the model
 * does not take; simt_explain prints the schedule a model gets and its kernel plan, what
 * runs in one time step (simt.c; docs/architecture.md "Back ends"), and simt_explain_warn
 * the warnings that schedule calls for.
 */
#include <stdio.h>
#include <string.h>

#include "gpu.h"

static const SrcLoc NOLOC = {0, 0, 0, 0};

int simt_check(Compiler *cc, const IrModel *m, const Options *o)
{
    if (o->gpu_mode && strcmp(o->gpu_mode, "free") == 0 && (o->mpi || !simt_free_ok(m))) {
        int rates = 0;
        for (int r = 0; r < m->nrecs; r++)
            rates |= m->recs[r].bin > 0;
        error_at(cc, NOLOC, "the free schedule takes a model without projections or top-k, in one process%s",
                 o->mpi ? " (not --mpi)" : m->nprojs ? " (this one has projections)"
                 : rates ? " (and no rate recordings, which the other schedules count: this one has some)"
                 : " (and state recordings of at most 256 listed neurons in all, slices of any size: this one lists more)");
        return -1;
    }
    if (o->mpi && simt_mpi_check(cc, m, o->gpu_mode))   /* `set` by expression runs (simt_set.c) */
        return -1;
    return 0;
}

/* The kernel plan: what runs in one time step of schedule sched on target t (simt.c;
 * docs/architecture.md "Back ends"). */
static void kernel_plan(const IrModel *m, const SimtTarget *t, const char *sched)
{
    int nplast = 0, ntopk = 0;
    for (int k = 0; k < m->nprojs; k++)
        nplast += m->projs[k]->plast != NULL;
    for (int i = 0; i < m->npops; i++)
        ntopk += m->pops[i]->topk != NULL;
    printf("kernel plan (%s, %s): ", t->name, sched);
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

/* --explain's line of the host's threads (--threads N, rt_pool.c): what of the drains runs
 * on them (rt_record.c's row_part; the rule of the C back end's explain_c). */
static void host_plan(const IrModel *m)
{
    StrBuf rows = {0};
    for (int r = 0; r < m->nrecs; r++)
        if (cg_rec_row_par(&m->recs[r]))
            sb_printf(&rows, "%s%s", rows.len ? ", " : "", m->recs[r].file);
    if (rows.len)
        printf("host (--threads N; default the CPUs, at most one per 1,024 values of the largest row, "
               "an .npy value an eighth): the drains write the state rows of 2,048 values or more as .csv, "
               "16,384 as .npy (%s) into the files' buffers on all threads%s; spike lists sorted by step on all, "
               "their rows, rates and the files on one; --save-connectivity's records on all\n", rows.s,
               m->mpi ? " of rank 0" : "");
    else
        printf("host (--threads N; default 1: no state row of 2,048 values as .csv, 16,384 as .npy): the drains "
               "on one thread, but with N > 1 spike lists sorted by step and --save-connectivity's records on all\n");
    sb_free(&rows);
}

void simt_explain(Compiler *cc, const IrModel *m, const char *arch, const SimtTarget *t)
{
    const char *sched = simt_schedule(m, arch, cc->opt.gpu_mode);
    printf("schedule: %s (%s)\n", sched,
           cc->opt.gpu_mode && strcmp(cc->opt.gpu_mode, "auto") != 0 ? "asked for with --gpu-mode"
           : "auto: free for up to 30,000 neurons without projections or top-k; for up to 20,000 neurons and 4e6 synapses without procedural projections one thread-block cluster (CUDA, sm_90 and later, no plasticity, top-k or shared variables), else one work-group; else per-step kernels");
    kernel_plan(m, t, sched);
    host_plan(m);
    simt_fam_explain(cc, m, arch, t);
}

int simt_explain_warn(Compiler *cc, const IrModel *m, const char *arch, const SimtTarget *t,
                      double neurons, double synapses, int nw)
{
    const char *sched = simt_schedule(m, arch, cc->opt.gpu_mode);
    if (strcmp(sched, "block") != 0 && strcmp(sched, "cluster") != 0 && m->nprojs)
        printf("warning %d: the %s schedule adds synaptic input with atomics, in no fixed order: results "
               "equal the C back end's up to rounding; --gpu-mode block is bit-identical\n", ++nw, sched);
    if (strcmp(sched, "block") == 0 && (neurons > 20000 || synapses > 4e6))
        printf("warning %d: the block schedule runs %.0f neurons and ~%.3g synapses in one work-group: "
               "per-step kernels (--gpu-mode %s) are faster at this size\n", ++nw, neurons, synapses,
               t->graphs ? "graph" : "launch");
    return nw;
}
