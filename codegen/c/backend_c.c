/* backend_c.c -- the C reference back end: one readable C program, on --threads N threads.
 *
 * The oracle for the GPU back ends. Per step, in the order of docs/language.md §5.5:
 * every population runs its fused per-neuron body (arrivals from the delay rings,
 * receptors, stimuli, integration, threshold, reset), then each projection pushes this
 * step's spikes into its ring at step + delay, then recordings are written.
 * Summation into a ring slot follows (projection, spike index, synapse rank) order, on any
 * number of threads (c_par.c).
 *
 * This file is the Backend object: emit_c writes the program's parts in order, each from
 * the file of its concern (c_priv.h), and build_c compiles it.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "c_priv.h"

static const SrcLoc NOLOC = {0, 0, 0, 0};

static const char *src_path(Compiler *cc, const IrModel *m, const BuildOpts *bo)
{
    return arena_printf(&cc->arena, "%s/%s.c", bo->emit_dir, m->name);
}

/* Write <emit_dir>/<model>.c. */
static int emit_c(Compiler *cc, IrModel *m, const BuildOpts *bo)
{
    Out o = {0};
    cgc_own_reset();
    cgc_fam_plan(cc, m);
    cgc_prelude(&o, m);
    for (int i = 0; i < m->npops; i++)
        cgc_pop_storage(&o, m->pops[i], m);
    for (int k = 0; k < m->nprojs; k++) {
        if (cgc_fam_member(m->projs[k]))   /* its family's table holds it (cgc_families) */
            cgc_ring_decl(&o, m->projs[k]);
        else if (m->projs[k]->plast)
            cgc_plast(&o, m->projs[k], m);
        else if (m->projs[k]->procedural)
            cgc_proc(&o, m->projs[k], m);
        else
            cgc_proj(cc, &o, m->projs[k], m);
    }
    cgc_families(&o, m);
    cg_mem_plan(&o, m, 0, cgc_fam_mem_seg);
    cgc_par_mem(&o, m);
    for (int i = 0; i < m->npops; i++) {
        cgc_pop_init(&o, m->pops[i], m);
        cgc_pop_step(&o, m->pops[i], m);
    }
    cgc_records(&o, m);
    if (m->mpi)
        cgc_step_mpi(&o, m);
    else
        cgc_step(&o, m);
    cg_ckpt_c(cc, &o, m);
    cgc_main(&o, m);
    const char *path = src_path(cc, m, bo);
    int rc = out_write_file(&o, path);
    if (rc != 0)
        error_at(cc, NOLOC, "cannot write '%s': %s", path, strerror(errno));
    out_free(&o);
    cgc_own_reset();
    cgc_fam_reset();
    cgc_par_reset();
    return rc;
}

/* Compile the emitted source with the system C compiler and link the runtime. */
static int build_c(Compiler *cc, IrModel *m, const BuildOpts *bo)
{
    const char *src = src_path(cc, m, bo);
    const char *inc = arena_printf(&cc->arena, "-I%s", bo->include_dir);
    const char *lib = arena_printf(&cc->arena, "%s/libneurort.a", bo->lib_dir);
    const char *mlib = arena_printf(&cc->arena, "%s/libneurort_mpi.a", bo->lib_dir);
    const char *args[] = {inc, src, lib, bo->hdf5_lib, "-lm", "-pthread", "-o", bo->output, NULL};
    const char *args_mpi[] = {inc, src, mlib, lib, bo->hdf5_lib, "-lm", "-pthread", "-o", bo->output, NULL};
    int rc = cg_run(cc, cg_cc_argv(cc, bo, CG_OPT_SIM, m->mpi ? args_mpi : args), bo->verbose);
    if (rc != 0) {
        error_at(cc, NOLOC, "the C compiler '%s' failed on the generated code (%s)",
                 bo->cc, rc < 0 ? "could not run it" : "see its messages above");
        return -1;
    }
    return 0;
}

/* --explain: the kernel plan of the C program, what runs in one time step: on the threads
 * of --threads (c_par.c) or on one. */
static void explain_c(Compiler *cc, const IrModel *m, const char *arch)
{
    cgc_fam_plan(cc, m);
    printf("kernel plan (c): --threads N; each step:");
    for (int k = 0; k < m->nprojs; k++)
        if (m->projs[k]->plast)
            printf(" arrive_%s (all threads, by post),", m->projs[k]->name);
    for (int i = 0; i < m->npops; i++)
        printf(" step_%s (%lld neurons, %s),", m->pops[i]->name, (long long)m->pops[i]->size,
               m->pops[i]->topk ? (cgc_par_pop(m->pops[i]) ? "all threads, then top-k selection on one, then all threads"
                                                             : "one thread, then top-k selection")
               : cgc_par_pop(m->pops[i]) ? "all threads" : "one thread");
    for (int k = 0; k < m->nprojs; k++)
        printf(" %s_%s (%s%s),", m->projs[k]->plast ? "learn" : "propagate", m->projs[k]->name,
               m->projs[k]->procedural ? "rows regenerated, " : "",
               m->projs[k]->plast ? "all threads: scopes by neuron, synapses by post; spike lists one thread"
               : cgc_par_proj(m, m->projs[k]) ? (m->mpi ? "all threads, by post" : "all threads, by post; equal posts, or the warm-up's events with $NEUROC_THREADS_WARMUP")
               : cgc_par_proc(m->projs[k]) ? "all threads, by spike then by post"
               : cgc_par_pfam(m, m->projs[k]) ? "all threads, by (member, spike) then by post" : "one thread");
    int gather = 0, write = 0;   /* a state row of 2,048 values or more: gathered, and written into its buffer, on the threads */
    for (int r = 0; r < m->nrecs; r++) {
        const IrRecord *rec = &m->recs[r];
        gather |= !m->mpi && cgc_par_rec(rec);
        write |= cg_rec_row_par(rec);
    }
    printf(" records (%s)\n", gather ? "state rows of 2,048 values or more gathered on all threads and written into the buffers there (.npy: from 16,384), files on one"
                              : write ? "state rows of 2,048 values or more as .csv, 16,384 as .npy, written into the buffers on all threads, the rest on one"
                              : "one thread");
    cgc_fam_explain(m);
    cgc_fam_reset();
    cgc_par_reset();
}

/* Backend.check: --mpi runs no `set` with expressions (cg_assign_mpi_check). */
static int check_c(Compiler *cc, const IrModel *m, const Options *o)
{
    return o->mpi ? cg_assign_mpi_check(cc, m) : 0;
}

const Backend backend_c = {
    .name = "c",
    .check = check_c,
    .emit = emit_c,
    .build = build_c,
    .explain = explain_c,
};
