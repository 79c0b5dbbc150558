/* simt_sched.c -- the GPU schedules as objects: simt_scheds[], a SimtSched per schedule
 * (block, launch, graph, persistent, free, cluster) that says whether it fits a model and
 * why not, whether `auto` takes it (simt_schedule), whether a simulator has its kernels,
 * and writes its case of the host's enqueue(len). The host program's schedule code comes
 * from the table too: the M_* constants and mode_names, pick_mode ($NEUROC_GPU_MODE), the
 * launch schedule's steps and the chunk loop (simt_emit_host_schedule), and the cluster
 * schedule's shape on the device at hand (simt_emit_pick_cluster).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "simt_priv.h"

/* The cluster schedule splits the block schedule's network over one thread-block cluster
 * (CUDA, sm_90 and later): each work-group steps its own neurons (nc_part) and sums its own
 * targets, and the only exchange is the spike words. So the step must touch nothing shared
 * but spikes: no plastic projection, no top-k, no scalar variable, no spike flags, one
 * process; and a network the block schedule takes. NULL, or why not. */
const char *simt_cluster_why(const IrModel *m, const char *arch)
{
    int v = 0;
    if (m->mpi)
        return "a distributed simulator runs launch or graph";
    if (!arch || sscanf(arch, "sm_%d", &v) != 1 || v < 90)
        return "thread-block clusters need --gpu-arch sm_90 or later";
    if (simt_n_scal_vars(m) > 0)
        return "a population has a scalar (shared) variable";
    for (int i = 0; i < m->npops; i++) {
        if (m->pops[i]->topk)
            return "a population selects its top k";
        if (simt_spike_flags(m, m->pops[i]))
            return "a projection reads spike flags";
    }
    for (int k = 0; k < m->nprojs; k++) {
        if (m->projs[k]->plast)
            return "a projection is plastic";
        if (m->projs[k]->procedural)
            return "a projection is procedural";
        if (simt_gathers(m->projs[k]))
            return "a projection is gathered by its targets";
    }
    if (!simt_block_fits(m))
        return "the network is larger than the block schedule takes (20,000 neurons, 4e6 synapses)";
    return NULL;
}

static double n_neurons(const IrModel *m)
{
    double n = 0;
    for (int i = 0; i < m->npops; i++)
        n += (double)m->pops[i]->size;
    return n;
}

/* A network one work-group handles well: up to 20,000 neurons and 4e6 synapses, no
 * procedural projection, one process. Only then (or when asked for with --gpu-mode) does a
 * CUDA program have nc_k_block and nc_k_persistent: every phase of every population and
 * projection inlined into one kernel each, they were half of nvcc's time for the
 * microcircuit (17.5 s -> 8.9 s on the development machine), whose auto schedule is graph.
 * OpenCL programs keep nc_k_block (the driver compiles it at run time): without it PoCL 3.1
 * miscompiles nc_k_synapses of tests/mpi/models/gpu_exact.neuro (a procedural delivery
 * with work-group barriers in its loops), which then crashes on every run with PoCL's
 * kernel cache off. */
int simt_block_fits(const IrModel *m)
{
    double syn = 0;
    if (m->mpi)
        return 0;
    for (int k = 0; k < m->nprojs; k++) {
        if (m->projs[k]->procedural)
            return 0;
        syn += simt_est_synapses(m->projs[k]);
    }
    return n_neurons(m) <= 20000 && syn <= 4e6;
}

/* {===== the schedules as objects ===== */

/* Each schedule is an entry of simt_scheds[] (simt_priv.h): its name, the back ends that
 * run it, why it does not fit a model (NULL: it fits), whether `auto` takes it for a model
 * that it fits, and its case of the host program's enqueue(len). */

static const char *one_gpu_why(const IrModel *m, const SchedCtx *c)
{
    (void)c;
    return m->mpi ? "a distributed simulator runs launch or graph" : NULL;
}

static const char *any_why(const IrModel *m, const SchedCtx *c)
{
    (void)m;
    (void)c;
    return NULL;
}

static const char *free_why(const IrModel *m, const SchedCtx *c)
{
    (void)c;
    if (m->mpi)
        return "a distributed simulator runs launch or graph";
    return simt_free_ok(m) ? NULL : "it takes a model without projections, top-k or rate recordings, and at most 256 neurons in state recordings";
}

static const char *cluster_why(const IrModel *m, const SchedCtx *c)
{
    return simt_cluster_why(m, c->arch);
}

/* auto: free for up to 30,000 neurons (simt_free.c: each work-item runs its neuron through
 * a chunk; an HH batch of 10^4 neurons on an H200: 39 ms against 68 ms in graph; from
 * about 10^5 neurons, where the device is busy either way, graph is faster: 0.12 s against
 * 0.17 s); cluster, else block, for networks one work-group handles well; else graph
 * (CUDA) / launch. Not block with a procedural projection (there every work-item
 * regenerates every row), nor for neurons without projections: independent neurons fill
 * the whole GPU, where one work-group would step 10,000 of them ten at a time. */
static int free_suits(const IrModel *m)
{
    return n_neurons(m) <= 30000;
}

static int one_group_suits(const IrModel *m)
{
    return m->nprojs && simt_block_fits(m);
}

static int always(const IrModel *m)
{
    (void)m;
    return 1;
}

static int never(const IrModel *m)
{
    (void)m;
    return 0;
}

static void block_enqueue(Out *o, const Simt *S)
{
    (void)S;
    out_line(o, "case M_BLOCK:");
    out_line(o, "    if (nrt_gpu_arg_i64(k_block, NC_NARGS, len) != NRT_OK) return -1;");
    out_line(o, "    return nrt_gpu_launch_batch(k_block, (size_t)nc_nb, block_size, NC_BLOCK_SHMEM) == NRT_OK ? 0 : -1;");
}

static void free_enqueue(Out *o, const Simt *S)
{
    if (!S->has[SCHED_FREE])
        return;
    out_open(o, "case M_FREE:");
    simt_free_host_enqueue(o, S);
    out_close(o);
}

/* the push step (simt_push.c) where it runs, else the spike-word step */
static void cluster_enqueue(Out *o, const Simt *S)
{
    if (!S->has[SCHED_CLUSTER])
        return;
    out_line(o, "case M_CLUSTER:");
    if (S->push)
        simt_push_host_enqueue(o, S);
    out_line(o, "    if (nrt_gpu_arg_i64(k_cluster, NC_NARGS, len) != NRT_OK) return -1;");
    out_line(o, "    return nrt_gpu_launch_cluster(k_cluster, g_cluster, cluster_threads, NC_CLUSTER_SHMEM) == NRT_OK ? 0 : -1;");
}

static void persistent_enqueue(Out *o, const Simt *S)
{
    (void)S;
    out_line(o, "case M_PERSISTENT:");
    out_line(o, "    if (nrt_gpu_arg_i64(k_persistent, NC_NARGS, len) != NRT_OK) return -1;");
    out_line(o, "    return nrt_gpu_launch_coop(k_persistent, g_persistent, 256, 0) == NRT_OK ? 0 : -1;");
}

/* launch, captured once per chunk length into a CUDA graph and replayed */
static void graph_enqueue(Out *o, const Simt *S)
{
    (void)S;
    out_line(o, "case M_GRAPH: {");
    out_line(o, "    int g = len == NC_CH ? 0 : 1;");
    out_open(o, "    if (!graphs[g] || graph_len[g] != len)");
    out_line(o, "nrt_gpu_graph_free(graphs[g]);");
    out_line(o, "graphs[g] = NULL;");
    out_line(o, "if (nrt_gpu_capture_begin(gpu) != NRT_OK) return -1;");
    out_line(o, "int rc = enqueue_steps(len);");
    out_line(o, "if (nrt_gpu_capture_end(gpu, &graphs[g]) != NRT_OK || rc) return -1;");
    out_line(o, "graph_len[g] = len;");
    out_close(o);
    out_line(o, "    return nrt_gpu_graph_launch(gpu, graphs[g]) == NRT_OK ? 0 : -1;");
    out_line(o, "}");
}

/* the last case: the kernels of every step (emit_host_enqueue_steps) */
static void launch_enqueue(Out *o, const Simt *S)
{
    (void)S;
    out_line(o, "default:");
    out_line(o, "    return enqueue_steps(len);");
}

/* Which schedules' kernels a simulator has. nc_k_block: always on OpenCL (simt_block_fits
 * says why), on CUDA for a network one work-group handles well, when asked for, or for the
 * cluster schedule to fall back on; nc_k_persistent likewise (CUDA); nc_k_cluster where the
 * cluster schedule fits (CUDA); the free kernels where the model takes them. */
static int block_compiled(const Simt *S, const SimtSched *chosen)
{
    return !S->t->graphs || simt_block_fits(S->m) || chosen == &simt_scheds[SCHED_BLOCK] ||
           simt_scheds[SCHED_CLUSTER].compiled(S, chosen);
}

static int persistent_compiled(const Simt *S, const SimtSched *chosen)
{
    return S->t->graphs && (simt_block_fits(S->m) || chosen == &simt_scheds[SCHED_PERSISTENT]);
}

static int cluster_compiled(const Simt *S, const SimtSched *chosen)
{
    (void)chosen;
    return S->t->graphs && !simt_cluster_why(S->m, S->arch);
}

static int free_compiled(const Simt *S, const SimtSched *chosen)
{
    (void)chosen;
    return simt_free_ok(S->m);
}

/* the grid kernels (nc_k_neurons, nc_k_synapses): every simulator; graphs: CUDA */
static int launch_compiled(const Simt *S, const SimtSched *chosen)
{
    (void)S;
    (void)chosen;
    return 1;
}

static int graph_compiled(const Simt *S, const SimtSched *chosen)
{
    (void)chosen;
    return S->t->graphs;
}

/* In the order of the host program's M_* constants (and of $NEUROC_GPU_MODE's names). */
const SimtSched simt_scheds[SCHED__COUNT] = {
    [SCHED_BLOCK] = {.name = "block", .mode = "BLOCK", .backends = SIMT_CUDA | SIMT_OPENCL, .one_gpu = 1,
        .why_not = one_gpu_why, .suits = one_group_suits, .enqueue = block_enqueue, .compiled = block_compiled},
    [SCHED_LAUNCH] = {.name = "launch", .mode = "LAUNCH", .backends = SIMT_CUDA | SIMT_OPENCL, .one_gpu = 0,
        .why_not = any_why, .suits = always, .enqueue = launch_enqueue, .compiled = launch_compiled},
    [SCHED_GRAPH] = {.name = "graph", .mode = "GRAPH", .backends = SIMT_CUDA, .one_gpu = 0,
        .why_not = any_why, .suits = always, .enqueue = graph_enqueue, .compiled = graph_compiled},
    [SCHED_PERSISTENT] = {.name = "persistent", .mode = "PERSISTENT", .backends = SIMT_CUDA, .one_gpu = 1,
        .why_not = one_gpu_why, .suits = never, .enqueue = persistent_enqueue, .compiled = persistent_compiled},
    [SCHED_FREE] = {.name = "free", .mode = "FREE", .backends = SIMT_CUDA | SIMT_OPENCL, .one_gpu = 0,
        .why_not = free_why, .suits = free_suits, .enqueue = free_enqueue, .compiled = free_compiled},
    [SCHED_CLUSTER] = {.name = "cluster", .mode = "CLUSTER", .backends = SIMT_CUDA, .one_gpu = 1,
        .why_not = cluster_why, .suits = one_group_suits, .enqueue = cluster_enqueue, .compiled = cluster_compiled},
};

/* The order in which `auto` tries them (each must fit, and suit the model). */
static const int auto_order[] = {SCHED_FREE, SCHED_CLUSTER, SCHED_BLOCK, SCHED_GRAPH, SCHED_LAUNCH};
/* The order of their cases in the host's enqueue(len): launch is the default, last. */
static const int enqueue_order[] = {SCHED_BLOCK, SCHED_FREE, SCHED_CLUSTER, SCHED_PERSISTENT, SCHED_GRAPH, SCHED_LAUNCH};

const SimtSched *simt_sched_find(const char *name)
{
    for (int i = 0; i < SCHED__COUNT; i++)
        if (name && strcmp(name, simt_scheds[i].name) == 0)
            return &simt_scheds[i];
    return NULL;
}

const char *simt_sched_why_not(const SimtSched *s, const IrModel *m, const SchedCtx *c)
{
    if (!(s->backends & (c->arch ? SIMT_CUDA : SIMT_OPENCL)))
        return "it needs CUDA";
    return s->why_not(m, c);
}

/* The schedule for `requested` ("auto", or a name of simt_scheds): auto takes the first of
 * auto_order that fits the model and suits it. */
const char *simt_schedule(const IrModel *m, const char *arch, const char *requested)
{
    const SchedCtx c = {arch};
    if (requested && strcmp(requested, "auto") != 0)
        return requested;
    for (size_t i = 0; i < sizeof auto_order / sizeof *auto_order; i++) {
        const SimtSched *s = &simt_scheds[auto_order[i]];
        if (!simt_sched_why_not(s, m, &c) && s->suits(m))
            return s->name;
    }
    return "launch";
}

/* ===== the schedules as objects =====} */

/* Work-items per work-group of nc_k_synapses. A group walks one (spike, projection) row of
 * the fused deliveries (simt_emit_prop_fused) at a time, so the group is about a row: the largest
 * power of two at most their mean row length (synapses over presynaptic neurons), from 128
 * to 512 (256 where cooperative procedural rows share nc_t64). The microcircuit's rows (545
 * synapses on average) took 29.3 us per step with groups of 128 and 20.4 with 512 (H200,
 * graph); CUBA's (80) keep 128. */
static int synapse_group(const IrModel *m)
{
    double syn = 0, pre = 0;
    for (int k = 0; k < m->nprojs; k++)
        if (simt_fused(m->projs[k])) {
            syn += simt_est_synapses(m->projs[k]);
            pre += (double)m->projs[k]->pre.size;
        }
    const int most = simt_any_coop(m) ? 256 : 512;
    int g = 128;
    while (pre > 0 && 2 * g <= most && 2 * g <= syn / pre)
        g *= 2;
    return g;
}

/* The schedules of the host program (M_*, mode_names) and its schedule state. */
static void emit_host_modes(Out *o, const Simt *S, const char *mode)
{
    const SimtSched *chosen = simt_sched_find(mode);
    StrBuf ids = {0}, names = {0};
    for (int i = 0; i < SCHED__COUNT; i++) {
        sb_printf(&ids, "%sM_%s", i ? ", " : "", simt_scheds[i].mode);
        sb_printf(&names, "%s\"%s\"", i ? ", " : "", simt_scheds[i].name);
    }
    out_line(o, "enum { %s };", ids.s);
    out_line(o, "static const char *const mode_names[] = {%s};", names.s);
    out_line(o, "static int mode = M_%s;", chosen ? chosen->mode : "LAUNCH");
    sb_free(&ids);
    sb_free(&names);
    out_line(o, "static int mode_asked = %d; /* the schedule was named (--gpu-mode, $NEUROC_GPU_MODE), not auto */",
             S->mode_asked);
    out_line(o, "static size_t g_persistent, block_size = NC_BLOCK;");
    out_line(o, "static size_t g_cluster, cluster_threads; /* the cluster schedule: groups, and work-items per group */");
    out_line(o, "static nrt_graph *graphs[2];");
    out_line(o, "static int64_t graph_len[2];");
    out_line(o, "static int64_t step_now, pending_step0, pending_len;");
    out_line(o, "static int pending = -1, half_next;");
    out_blank(o);
}

/* enqueue_steps(len): the launch schedule's kernels of len steps, one grid per phase. */
static void emit_host_enqueue_steps(Out *o, const Simt *S)
{
    const IrModel *m = S->m;
    int64_t maxpre = 1;
    for (int k = 0; k < m->nprojs; k++)
        if (m->projs[k]->pre.size > maxpre)
            maxpre = m->projs[k]->pre.size;
    /* the same work-items in all as 1,024 groups of 128 */
    const int sg = synapse_group(m);
    const int64_t sgroups = 1024 * 128 / sg;
    int64_t gn = (simt_max_pop(m) + 255) / 256, gs = maxpre < sgroups ? maxpre : sgroups;
    out_open(o, "static int enqueue_steps(int64_t len)");
    /* plastic phases: a group per arriving row or post spike, a work-item per synapse, and
     * the scopes a work-item per neuron: as many groups as the larger asks, up to 1,024 (a
     * rule without a compile-time estimate, e.g. `prob ... within`, counts its neurons) */
    double work = 1;
    for (int k = 0; k < m->nprojs; k++) {
        const IrProj *j = m->projs[k];
        if (j->plast)
            work = fmax(work, fmax(simt_est_synapses(j), fmax((double)j->pre.size, (double)j->post.size)));
    }
    long long gp = work / 128 > 1024 ? 1024 : (long long)(work / 128) + 1;
    if (m->mpi) {   /* intervals of nc_D steps, an exchange each (simt_mpi.c) */
        simt_mpi_host_steps(o, S, gn, gp, gs, sg);
        out_line(o, "return 0;");
        out_close(o);
        out_blank(o);
        return;
    }
    out_open(o, "for (int64_t s = 0; s < len; s++)");
    for (int ph = 0; ph < PL_SCOPES; ph++)
        if (simt_plast_has_phase(m, ph))
            out_line(o, "if (nrt_gpu_launch(k_plast[%d], %lld, 128, 0) != NRT_OK) return -1;", ph, gp);
    out_line(o, "if (nrt_gpu_launch(k_neurons, %lld, 256, 0) != NRT_OK) return -1;", (long long)gn);
    if (simt_topk_any(m)) {
        out_line(o, "for (int p = 0; p <= %d; p++) if (nrt_gpu_launch(k_tk[p], %lld, 256, 0) != NRT_OK) return -1;",
                 simt_topk_passes(m), (long long)gn);
        out_line(o, "if (nrt_gpu_launch(k_after, %lld, 256, 0) != NRT_OK) return -1;", (long long)gn);
    }
    for (int ph = PL_SCOPES; ph < PL__COUNT; ph++)
        if (simt_plast_has_phase(m, ph))
            out_line(o, "if (nrt_gpu_launch(k_plast[%d], %lld, 128, 0) != NRT_OK) return -1;", ph, gp);
    out_line(o, "if (nrt_gpu_launch(k_synapses, %lld, %d, 0) != NRT_OK) return -1;", (long long)gs, sg);
    out_close(o);
    out_line(o, "return 0;");
    out_close(o);
    out_blank(o);
}

/* enqueue(len): the launches of len steps in the current schedule, a case per schedule. */
static void emit_host_enqueue(Out *o, const Simt *S)
{
    out_open(o, "static int enqueue(int64_t len)");
    out_open(o, "switch (mode)");
    for (size_t i = 0; i < sizeof enqueue_order / sizeof *enqueue_order; i++)
        simt_scheds[enqueue_order[i]].enqueue(o, S);
    out_close(o);
    out_close(o);
    out_blank(o);
}

/* drain_all, the draining of a chunk half of every run, and launch_chunk. */
static void emit_host_chunk(Out *o, const Simt *S)
{
    out_open(o, "static int drain_one(int64_t b, void *arg)");
    out_line(o, "const int64_t *a = arg; /* hf, step0, len */");
    out_line(o, "nc_I = &nc_insts[b];");
    out_line(o, "const double t = nrt_now() - nrt_gpu_read_s(); /* the drain's own time, its reads from the device left out */");
    out_line(o, "const int rc = drain((int)a[0], a[1], a[2]);");
    out_line(o, "ctx.t_drain += nrt_now() - nrt_gpu_read_s() - t;");
    out_line(o, "return rc;");
    out_close(o);
    out_blank(o);
    out_line(o, "/* Drain a finished chunk half of every run side by side, on the CPU's threads (each its");
    out_line(o, " * own files; each even after one fails: nothing recorded is lost); the first failing run");
    out_line(o, " * is left in nc_I for fail(). */");
    out_open(o, "static int drain_all(int hf, int64_t step0, int64_t len)");
    out_line(o, "int64_t a[3] = {hf, step0, len};");
    out_line(o, "const int64_t bad = nc_nb > 1 ? nrt_parallel(nc_nb, 0, drain_one, a) : drain_one(0, a) ? 0 : -1;");
    out_line(o, "nc_I = bad >= 0 ? &nc_insts[bad] : nc_insts;");
    out_line(o, "if (nc_nb > 1) nc_one.i_ctx.step = step0 + len; /* the batch's progress */");
    out_line(o, "return bad >= 0 ? -1 : 0;");
    out_close(o);
    out_blank(o);
    out_line(o, "/* Enqueue the chunk of half hf: steps step0 .. step0 + len - 1. */");
    out_open(o, "static int launch_chunk(int hf, int64_t step0, int64_t len)");
    out_line(o, "if (nrt_gpu_arg_i64(k_chunk, NC_NARGS, step0) != NRT_OK || nrt_gpu_arg_i32(k_chunk, NC_NARGS + 1, hf) != NRT_OK) return -1;");
    out_line(o, "if (nrt_gpu_launch_batch(k_chunk, (size_t)nc_nb, 32, 0) != NRT_OK) return -1;");
    out_line(o, "return enqueue(len) || nrt_gpu_mark(gpu, hf) != NRT_OK ? -1 : 0;");
    out_close(o);
    out_blank(o);
}

/* run(nsteps): the chunk loop, with the cluster schedule's rerun of a stalled chunk. */
static void emit_host_run(Out *o, const Simt *S)
{
    const IrModel *m = S->m;
    if (S->has[SCHED_CLUSTER]) {
        out_line(o, "/* Whether the cluster launch of the chunk of half hf stalled (nc_k_cluster: nc_ctl[4]); it");
        out_line(o, " * and any launch after it then left the state as they found it. The run goes on in the");
        out_line(o, " * block schedule, which gives the same bits: 1, or -1 (errmsg). */");
        out_open(o, "static int cluster_stalled(int hf)");
        out_line(o, "int64_t at = 0;");
        out_line(o, "if (mode != M_CLUSTER) return 0;");
        out_line(o, "if (nrt_gpu_read_after(gpu, hf, nc_ctl, 4 * sizeof(int64_t), &at, sizeof at) != NRT_OK) return -1;");
        out_line(o, "if (!at) return 0;");
        if (S->cluster_whole || S->push) {   /* the push step keeps everything in the group too */
            if (!S->cluster_whole)
                out_open(o, "if (use_push)");
            out_line(o, "fprintf(stderr, \"%%s: warning: the cluster schedule stalled at step %%lld: its exchange between the work-groups did not complete within 2 s, which happens when other processes use the GPU at the same time; the run goes on in the block schedule, with the same results\\n\", ctx.model, (long long)(at - 1));");
            out_line(o, "const int64_t zero = 0;");
            out_line(o, "if (nrt_gpu_sync(gpu) != NRT_OK || nrt_gpu_write(gpu, nc_ctl, 4 * sizeof(int64_t), &zero, sizeof zero) != NRT_OK) return -1;");
            out_line(o, "mode = M_BLOCK;");
            out_line(o, "ctx.schedule = mode_names[mode];");
            out_line(o, "return 1;");
            if (!S->cluster_whole)
                out_close(o);
        }
        if (!S->cluster_whole) {   /* a buffer outside shared memory holds some steps already: no retry */
            out_line(o, "snprintf(ctx.errmsg, sizeof ctx.errmsg, \"the cluster schedule stalled at step %%lld: its exchange between the work-groups did not complete within 2 s, which happens when other processes use the GPU at the same time; run it with --gpu-mode block\", (long long)(at - 1));");
            out_line(o, "return -1;");
        }
        out_close(o);
        out_blank(o);
    }
    out_line(o, "/* Run nsteps steps in chunks of at most NC_CH: the device runs chunk c while the host");
    out_line(o, " * writes chunk c - 1 (double-buffered); no host synchronisation per step. A stop (the");
    out_line(o, " * signal handlers flag nc_one, the one run or the batch's parent) reaches every run. */");
    out_open(o, "static int run(int64_t nsteps)");
    out_open(o, "while (nsteps > 0 && !nc_one.i_ctx.stop_requested)");
    if (m->mpi) {   /* a stop on any rank stops every rank at the same chunk */
        out_line(o, "if (nrt_mpi_min(mpi, ctx.stop_requested ? -1 : 0) < 0 && !ctx.stop_requested) ctx.stop_requested = SIGTERM;");
        out_line(o, "if (ctx.stop_requested) break;");
    }
    out_line(o, "const int64_t len = nsteps < NC_CH ? nsteps : NC_CH;");
    out_line(o, "const int hf = half_next;");
    out_line(o, "if (launch_chunk(hf, step_now, len)) return -1;");
    if (S->has[SCHED_CLUSTER]) {   /* a stalled chunk, and this one after it, again in the block schedule */
        out_line(o, "const int stalled = pending >= 0 ? cluster_stalled(pending) : 0;");
        out_line(o, "if (stalled < 0 || (stalled && (launch_chunk(pending, pending_step0, pending_len) || launch_chunk(hf, step_now, len)))) return -1;");
    }
    out_line(o, "if (pending >= 0 && drain_all(pending, pending_step0, pending_len)) return -1;");
    out_line(o, "pending = hf;");
    out_line(o, "pending_step0 = step_now;");
    out_line(o, "pending_len = len;");
    out_line(o, "step_now += len;");
    out_line(o, "half_next ^= 1;");
    out_line(o, "nsteps -= len;");
    out_line(o, "nrt_progress(&nc_one.i_ctx);");
    out_close(o);
    if (S->has[SCHED_CLUSTER]) {
        out_line(o, "const int stalled = pending >= 0 ? cluster_stalled(pending) : 0;");
        out_line(o, "if (stalled < 0 || (stalled && launch_chunk(pending, pending_step0, pending_len))) return -1;");
    }
    out_line(o, "if (pending >= 0 && drain_all(pending, pending_step0, pending_len)) return -1;");
    out_line(o, "pending = -1;");
    out_line(o, "for (int64_t b = 0; b < nc_nb; b++) nc_insts[b].i_ctx.stop_requested = nc_one.i_ctx.stop_requested;");
    out_line(o, "return nrt_gpu_sync(gpu) == NRT_OK ? 0 : -1;");
    out_close(o);
    out_blank(o);
}

void simt_emit_host_schedule(Out *o, const Simt *S, const char *mode)
{
    emit_host_modes(o, S, mode);
    emit_host_enqueue_steps(o, S);
    emit_host_enqueue(o, S);
    emit_host_chunk(o, S);
    emit_host_run(o, S);
}

/* pick_mode(prog): $NEUROC_GPU_MODE over the compiled schedule, refused where this simulator
 * has no kernel for it or the device cannot run it; then the work-group size of the block
 * schedule. */
void simt_emit_host_pick_mode(Out *o, const Simt *S)
{
    const IrModel *m = S->m;
    StrBuf names = {0}, one_gpu = {0}, cuda = {0};
    for (int i = 0; i < SCHED__COUNT; i++) {
        const SimtSched *s = &simt_scheds[i];
        sb_printf(&names, "%s%s", i ? ", " : "", s->name);
        if (s->one_gpu)
            sb_printf(&one_gpu, "%smode == M_%s", one_gpu.s ? " || " : "", s->mode);
        if (!(s->backends & SIMT_OPENCL))
            sb_printf(&cuda, "%smode == M_%s", cuda.s ? " || " : "", s->mode);
    }
    out_open(o, "static int pick_mode(const char *prog)");
    out_line(o, "const char *e = getenv(\"NEUROC_GPU_MODE\");");
    out_open(o, "if (e && *e && strcmp(e, \"auto\") != 0)");
    out_line(o, "int k = 0;");
    out_line(o, "while (k < %d && strcmp(e, mode_names[k]) != 0) k++;", SCHED__COUNT);
    out_open(o, "if (k == %d)", SCHED__COUNT);
    out_line(o, "fprintf(stderr, \"%%s: error: NEUROC_GPU_MODE='%%s' is not a schedule (%s)\\n\", prog, e);", names.s);
    out_line(o, "return -1;");
    out_close(o);
    out_line(o, "mode = k;");
    out_line(o, "mode_asked = 1;");
    out_close(o);
    if (!m->mpi && (!S->has[SCHED_BLOCK] || (S->t->graphs && !S->has[SCHED_PERSISTENT]))) {   /* --mpi: its own refusal below */
        const int nb = !S->has[SCHED_BLOCK], np = S->t->graphs && !S->has[SCHED_PERSISTENT];
        out_open(o, "if (%s%s%s)", nb ? "mode == M_BLOCK" : "", nb && np ? " || " : "", np ? "mode == M_PERSISTENT" : "");
        out_line(o, "fprintf(stderr, \"%%s: error: this simulator has no %%s schedule (a network of over 20,000 neurons or 4e6 synapses, or with procedural projections; build it with --gpu-mode %%s to have one)\\n\", prog, mode_names[mode], mode_names[mode]);");
        out_line(o, "return -1;");
        out_close(o);
    }
    if (!S->has[SCHED_CLUSTER]) {
        out_open(o, "if (mode == M_CLUSTER)");
        out_line(o, "fprintf(stderr, \"%%s: error: this simulator has no cluster schedule (it needs CUDA for sm_90 or later, and a network the block schedule takes with no plastic projection, top-k, scalar variable or spike flags; build it with --gpu-mode cluster to see why not)\\n\", prog);");
        out_line(o, "return -1;");
        out_close(o);
    }
    if (!S->has[SCHED_FREE]) {
        out_open(o, "if (mode == M_FREE)");
        out_line(o, "fprintf(stderr, \"%%s: error: the free schedule takes a model without projections or top-k, in one process\\n\", prog);");
        out_line(o, "return -1;");
        out_close(o);
    }
    if (m->mpi) {
        out_open(o, "if (%s)", one_gpu.s);
        out_line(o, "fprintf(stderr, \"%%s: error: the %%s schedule runs on one GPU; a distributed simulator takes launch or graph\\n\", prog, mode_names[mode]);");
        out_line(o, "return -1;");
        out_close(o);
    }
    out_open(o, "if ((%s) && nrt_gpu_api(gpu) != NRT_API_CUDA)", cuda.s);
    out_line(o, "fprintf(stderr, \"%%s: error: the %%s schedule needs CUDA\\n\", prog, mode_names[mode]);");
    out_line(o, "return -1;");
    out_close(o);
    out_line(o, "if (ctx.batch && ctx.instances > 1 && mode == M_CLUSTER && !mode_asked) mode = M_BLOCK; /* batch_ok */");
    out_line(o, "const nrt_gpu_info *info = nrt_gpu_get_info(gpu);");
    out_line(o, "/* no more work-items than the largest population needs, nor than the device takes */");
    out_line(o, "while (block_size > 32 && block_size / 2 >= %lld) block_size /= 2;", (long long)simt_max_pop(m));
    out_line(o, "while (block_size > (size_t)info->max_group_size && block_size > 32) block_size /= 2;");
    out_line(o, "return 0;");
    out_close(o);
    out_blank(o);
    sb_free(&names);
    sb_free(&one_gpu);
    sb_free(&cuda);
}

/* The cluster schedule's shape (host): the largest cluster this device runs with the
 * kernel's shared memory, at most $NEUROC_CLUSTER groups (1 to 16), and work-items per
 * group for its share of the largest population (at least 128: the spike-word scan and
 * the delivery spread over them). No cluster on this device: the block schedule, unless
 * the cluster schedule was asked for by name. */
void simt_emit_pick_cluster(Out *o, const Simt *S)
{
    out_open(o, "static int pick_cluster(const char *prog)");
    out_line(o, "const char *e = getenv(\"NEUROC_CLUSTER\");");
    out_line(o, "long cap = 16;");
    out_open(o, "if (e && *e)");
    out_line(o, "char *end;");
    out_line(o, "cap = strtol(e, &end, 10);");
    out_open(o, "if (*end || cap < 1 || cap > 16)");
    out_line(o, "fprintf(stderr, \"%%s: error: NEUROC_CLUSTER='%%s' is not a cluster size (1 to 16 work-groups)\\n\", prog, e);");
    out_line(o, "return -1;");
    out_close(o);
    out_close(o);
    out_line(o, "g_cluster = nrt_gpu_max_cluster(k_cluster, block_size, NC_CLUSTER_SHMEM);");
    out_open(o, "if (g_cluster == 0)");
    out_line(o, "const nrt_gpu_info *info = nrt_gpu_get_info(gpu);");
    out_open(o, "if (mode_asked)");
    out_line(o, "fprintf(stderr, \"%%s: error: the cluster schedule needs thread-block clusters, which '%%s' (compute capability %%d.%%d) with this driver does not run (9.0 or later and a CUDA 12 driver do)\\n\", prog, info->name, info->cc_major, info->cc_minor);");
    out_line(o, "return -1;");
    out_close(o);
    out_line(o, "mode = M_BLOCK;");
    out_line(o, "return 0;");
    out_close(o);
    out_line(o, "while (g_cluster > (size_t)cap) g_cluster /= 2;");
    out_line(o, "const size_t share = ((size_t)%lld + g_cluster - 1) / g_cluster;", (long long)simt_max_pop(S->m));
    out_line(o, "cluster_threads = block_size;");
    out_line(o, "while (cluster_threads > 128 && cluster_threads / 2 >= share) cluster_threads /= 2;");
    out_line(o, "return 0;");
    out_close(o);
    out_blank(o);
}
