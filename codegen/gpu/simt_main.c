/* simt_main.c -- the host program's driver (simt_emit_host) and its main(): arguments
 * and environment, the device, the build, the chunk loop of the run with its recordings
 * and checkpoints; and the build steps of a GPU simulator (the program header, the host
 * compile and link).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "simt_priv.h"

static const SrcLoc NOLOC = {0, 0, 0, 0};

/* The host's fail(prog) (and fail_batch for a batch side by side): the error reported, the
 * device released, exit status 1. */
static void emit_host_fail(Out *o, const Simt *S)
{
    const IrModel *m = S->m;
    if (simt_batched(S)) {
        out_line(o, "/* A batch stops as a whole: each instance finishes with what it recorded and its own");
        out_line(o, " * error if it failed (else the device layer's, which reports in nc_one, for all; else");
        out_line(o, " * that it stopped with the batch). */");
        out_open(o, "static int fail_batch(const char *prog)");
        out_line(o, "const int own = ctx.errmsg[0] != '\\0';");
        out_line(o, "const int64_t bad = ctx.instance;");
        out_line(o, "char msg[sizeof ctx.errmsg];");
        out_line(o, "memcpy(msg, own ? ctx.errmsg : nc_one.i_ctx.errmsg, sizeof msg);");
        out_line(o, "if (own) fprintf(stderr, \"%%s: error: instance %%lld: %%s\\n\", prog, (long long)bad, msg);");
        out_line(o, "else fprintf(stderr, \"%%s: error: %%s\\n\", prog, msg);");
        out_open(o, "for (int64_t b = 0; b < nc_nb; b++)");
        out_line(o, "nrt_ctx *c = nc_kids[b];");
        out_line(o, "if (!own) memcpy(c->errmsg, msg, sizeof msg);");
        out_line(o, "else if (!c->errmsg[0]) snprintf(c->errmsg, sizeof c->errmsg, \"stopped with the batch: instance %%lld failed\", (long long)bad);");
        out_line(o, "c->interrupted = 1;");
        out_line(o, "c->failed = 1;");
        out_line(o, "nrt_finish(c);");
        out_close(o);
        out_line(o, "nrt_instances_close(&nc_one.i_ctx, nc_kids, nc_nb);");
        out_line(o, "nrt_gpu_close(gpu);");
        out_line(o, "return 1;");
        out_close(o);
        out_blank(o);
    }
    out_open(o, "static int fail(const char *prog)");
    if (simt_batched(S))
        out_line(o, "if (nc_nb > 1) return fail_batch(prog);");
    out_line(o, "nrt_fail(&ctx, prog);");
    if (m->mpi)     /* the other ranks would wait for this one */
        out_line(o, "nrt_mpi_abort(mpi, 1);");
    out_line(o, "nrt_gpu_close(gpu);");
    out_line(o, "return 1;");
    out_close(o);
    out_blank(o);
}

/* main(): the device program loaded and its kernels looked up (those the schedules compiled
 * have); the arguments must fit the device. */
static void emit_main_kernels(Out *o, const Simt *S)
{
    const IrModel *m = S->m;
    /* OpenCL's table mode: every later buffer is a range of the arena, which is on before the
     * program is loaded (the runtime builds such a program for registers: rt_opencl.c) */
    if (S->table && simt_table_kargs(S) == 2)
        out_line(o, "if (dalloc(&nc_argt, sizeof nc_argw, \"the kernels' arguments\") || nrt_gpu_arena(gpu) != NRT_OK) return fail(argv[0]);");
    out_line(o, "if (nrt_gpu_load(gpu, nc_program, nc_program_len, \"%s\") != NRT_OK) return fail(argv[0]);",
             S->t->load_options);
    out_line(o, "if (!(k_init = nrt_gpu_kernel(gpu, \"nc_k_init\", NC_NARGS))) return fail(argv[0]);");
    out_line(o, "if (!(k_chunk = nrt_gpu_kernel(gpu, \"nc_k_chunk\", NC_NARGS + 4))) return fail(argv[0]);");
    out_line(o, "if (!(k_neurons = nrt_gpu_kernel(gpu, \"nc_k_neurons\", NC_NARGS))) return fail(argv[0]);");
    out_line(o, "if (!(k_synapses = nrt_gpu_kernel(gpu, \"nc_k_synapses\", NC_NARGS))) return fail(argv[0]);");
    if (S->has[SCHED_BLOCK])
        out_line(o, "if (!(k_block = nrt_gpu_kernel(gpu, \"nc_k_block\", NC_NARGS + 3))) return fail(argv[0]);");
    out_line(o, "if (mode == M_PERSISTENT && !(k_persistent = nrt_gpu_kernel(gpu, \"nc_k_persistent\", NC_NARGS + 1))) return fail(argv[0]);");
    if (S->has[SCHED_CLUSTER]) {
        out_line(o, "if (mode == M_CLUSTER && !(k_cluster = nrt_gpu_kernel(gpu, \"nc_k_cluster\", NC_NARGS + 1))) return fail(argv[0]);");
        out_line(o, "if (mode == M_CLUSTER && pick_cluster(argv[0])) { nrt_finish(&ctx); nrt_gpu_close(gpu); return 2; }");
    }
    if (S->push) {
        out_line(o, "if (mode == M_CLUSTER && (!(k_push = nrt_gpu_kernel(gpu, \"nc_k_push\", NC_NARGS + 1)) || !(k_push_tables = nrt_gpu_kernel(gpu, \"nc_k_push_tables\", NC_NARGS)) ||");
        out_line(o, "    !(k_fcount = nrt_gpu_kernel(gpu, \"nc_k_fcount\", NC_NARGS + 1)) || !(k_fscan = nrt_gpu_kernel(gpu, \"nc_k_fscan\", NC_NARGS + 1)) || !(k_fwrite = nrt_gpu_kernel(gpu, \"nc_k_fwrite\", NC_NARGS + 1)))) return fail(argv[0]);");
    }
    out_line(o, "ctx.schedule = mode_names[mode];");
    out_line(o, "if (!ctx.quiet) fprintf(stderr, \"%%s: %%s on %%s, %%s schedule\\n\", argv[0], \"%s\", nrt_gpu_get_info(gpu)->name, mode_names[mode]);",
             S->t->name);
    if (S->has[SCHED_FREE]) {
        out_line(o, "if (!(k_free = nrt_gpu_kernel(gpu, \"nc_k_free\", NC_NARGS + 1)) || !(k_fcount = nrt_gpu_kernel(gpu, \"nc_k_fcount\", NC_NARGS + 1)) ||");
        out_line(o, "    !(k_fscan = nrt_gpu_kernel(gpu, \"nc_k_fscan\", NC_NARGS + 1)) || !(k_fwrite = nrt_gpu_kernel(gpu, \"nc_k_fwrite\", NC_NARGS + 1))) return fail(argv[0]);");
    }
    for (int k = 0; k < m->nprojs; k++) {
        char kb[16];
        const char *kn = cg_kname(m->projs[k], kb);
        /* its case of the construction kernel of its group (simt_device.c); a family's
         * members have their family's (simt_fam_kernels) */
        const int x = simt_syn_index(S, m->projs[k]);
        if (x >= 0)
            out_line(o, "if (!(k_syn_%s = nrt_gpu_kernel(gpu, \"nc_k_syn_g%d\", NC_NARGS + 1)) || nrt_gpu_arg_i32(k_syn_%s, NC_NARGS, %d) != NRT_OK) return fail(argv[0]);",
                     m->projs[k]->cname, x / SIMT_SYN_GROUP, m->projs[k]->cname, x % SIMT_SYN_GROUP);
        if (m->projs[k]->procedural && m->projs[k]->delay && x >= 0)
            out_line(o, "if (!(k_pscan_%s = nrt_gpu_kernel(gpu, \"nc_k_pscan_%s\", NC_NARGS))) return fail(argv[0]);",
                     m->projs[k]->cname, kn);
        if (m->projs[k]->plast)
            out_line(o, "if (!(k_scope_%s = nrt_gpu_kernel(gpu, \"nc_k_scope_%s\", NC_NARGS))) return fail(argv[0]);",
                     m->projs[k]->cname, kn);
        if (m->projs[k]->plast && m->projs[k]->plast->event)
            out_line(o, "if (!(k_catchup_%s = nrt_gpu_kernel(gpu, \"nc_k_catchup_%s\", NC_NARGS))) return fail(argv[0]);",
                     m->projs[k]->cname, kn);
    }
    simt_fam_kernels(o, S);
    simt_set_handles(o, S, 1);
    for (int ph = 0; ph < PL__COUNT; ph++)
        if (simt_plast_has_phase(m, ph))
            out_line(o, "if (!(k_plast[%d] = nrt_gpu_kernel(gpu, \"nc_k_plast%d\", NC_NARGS))) return fail(argv[0]);",
                     ph, ph);
    if (simt_topk_any(m)) {
        out_open(o, "for (int p = 0; p <= %d; p++)", simt_topk_passes(m));
        out_line(o, "char name[32];");
        out_line(o, "snprintf(name, sizeof name, \"nc_k_tk%%d\", p);");
        out_line(o, "if (!(k_tk[p] = nrt_gpu_kernel(gpu, name, NC_NARGS))) return fail(argv[0]);");
        out_close(o);
        out_line(o, "if (!(k_after = nrt_gpu_kernel(gpu, \"nc_k_after\", NC_NARGS))) return fail(argv[0]);");
    }
    out_line(o, "/* the block schedule's work-group must fit the kernel's registers on this device */");
    if (S->has[SCHED_BLOCK])
        out_line(o, "while (block_size > 32 && nrt_gpu_max_resident(k_block, block_size, NC_BLOCK_SHMEM) == 0) block_size /= 2;");
    out_open(o, "if ((size_t)NC_NARGS * 8 > nrt_gpu_get_info(gpu)->max_param_bytes)");
    out_line(o, "snprintf(ctx.errmsg, sizeof ctx.errmsg, \"the model's kernels take %%d arguments (%%d bytes), more than this device accepts (%%zu bytes)\", NC_NARGS, NC_NARGS * 8, nrt_gpu_get_info(gpu)->max_param_bytes);");
    out_line(o, "return fail(argv[0]);");
    out_close(o);
}

/* main(): the argument table, every instance built (build_instance), the kernels' arguments
 * bound, the persistent grid's size. */
static void emit_main_bind(Out *o, const Simt *S)
{
    const IrModel *m = S->m;
    if (S->table && simt_table_kargs(S) == 1)   /* CUDA; OpenCL's: emit_main_kernels */
        out_line(o, "if (dalloc(&nc_argt, sizeof nc_argw, \"the kernels' arguments\")) return fail(argv[0]);");
    out_line(o, "if (dalloc(&nc_dummy, 16, \"placeholder\")) return fail(argv[0]);");
    if (simt_batched(S))
        out_line(o, "if (ctx.batch && ctx.instances > 1 && open_batch()) return fail(argv[0]);");
    out_open(o, "for (int64_t b = 0; b < nc_nb; b++)");
    out_line(o, "nc_I = &nc_insts[b];");
    if (m->nseries)   /* a bad series file: status 2 (simt_series_load) */
        out_line(o, "{ const int rc = build_instance(argv, b ? nrt_now() : t0); if (rc) return rc; }");
    else
        out_line(o, "if (build_instance(argv, b ? nrt_now() : t0)) return 1;");
    out_close(o);
    out_line(o, "nc_I = nc_insts;");
    out_line(o, "if (bind(k_chunk) || bind(k_neurons) || bind(k_synapses) || bind(k_block) || bind(k_persistent) || bind(k_cluster)) return fail(argv[0]);");
    if (simt_batched(S))
        out_line(o, "if (nc_nb > 1 && write_tab()) return fail(argv[0]);");
    out_line(o, "if (bind_batch(k_chunk, NC_NARGS + 2) || bind_batch(k_block, NC_NARGS + 1)) return fail(argv[0]);");
    if (S->has[SCHED_FREE])
        out_line(o, "if (bind(k_free) || bind(k_fcount) || bind(k_fscan) || bind(k_fwrite)) return fail(argv[0]);");
    if (S->push) {
        out_line(o, "if (bind(k_push) || bind(k_push_tables) || bind(k_fcount) || bind(k_fscan) || bind(k_fwrite)) return fail(argv[0]);");
        out_line(o, "if (mode == M_CLUSTER && push_tables()) return fail(argv[0]);");
    }
    out_line(o, "for (int ph = 0; ph < %d; ph++) if (bind(k_plast[ph])) return fail(argv[0]);", PL__COUNT);
    if (m->mpi)
        out_line(o, "if (bind(k_merge) || bind(k_rows)%s) return fail(argv[0]);", simt_mpi_merge_binds(S));
    if (simt_topk_any(m)) {
        out_line(o, "for (int p = 0; p <= %d; p++) if (bind(k_tk[p])) return fail(argv[0]);", simt_topk_passes(m));
        out_line(o, "if (bind(k_after)) return fail(argv[0]);");
    }
    out_open(o, "if (mode == M_PERSISTENT)");
    out_line(o, "g_persistent = nrt_gpu_max_resident(k_persistent, 256, 0);");
    out_line(o, "if (g_persistent > %lld) g_persistent = %lld;", (long long)((simt_max_pop(m) + 255) / 256),
             (long long)((simt_max_pop(m) + 255) / 256));
    out_line(o, "if (g_persistent < 1) g_persistent = 1;");
    out_close(o);
}

/* main(): the phases of the experiment: runs (split at a checkpoint) and settings, from the
 * checkpoint's phase on in a resumed run. */
static void emit_main_phases(Out *o, const Simt *S)
{
    const IrModel *m = S->m;
    out_line(o, "for (int64_t b = 0; b < nc_nb; b++) t0 = nrt_sim_begin(&nc_insts[b].i_ctx);");
    out_line(o, "int stop = 0; /* stopped after a checkpoint, or by a signal */");
    int64_t end = 0;
    int initial = cg_state_records(m);
    for (int p = 0; p < m->nphases; p++) {
        const IrPhase *ph = &m->phases[p];
        /* a resumed run skips the phases before the checkpoint's: their effects are in it */
        out_open(o, "if (!stop && ctx.start_phase <= %d)", p);
        if (ph->kind == PH_RUN) {
            if (initial) {   /* the row at t = 0: after the sets before the first run */
                initial = 0;
                out_open(o, "if (ctx.start_step == 0)");
                out_line(o, "for (int64_t b = 0; b < nc_nb; b++) { nc_I = &nc_insts[b]; if (record_initial()) return fail(argv[0]); }");
                out_line(o, "nc_I = nc_insts;");
                out_close(o);
            }
            end += ph->steps;
            out_line(o, "/* run %lld steps: a checkpoint inside them splits the run at a chunk boundary */",
                     (long long)ph->steps);
            out_open(o, "if (ctx.ckpt_step > step_now && ctx.ckpt_step <= %lld)", (long long)end);
            out_line(o, "if (run(ctx.ckpt_step - step_now)) return fail(argv[0]);");
            out_open(o, "if (!ctx.stop_requested)");
            out_line(o, "if (ckpt_save(%d)) return fail(argv[0]);", p);
            out_line(o, "stop = ctx.ckpt_stop;");
            out_close(o);
            out_close(o);
            out_line(o, "if (!stop && run(%lld - step_now)) return fail(argv[0]);", (long long)end);
            out_open(o, "if (ctx.stop_requested)");
            out_line(o, "stop = 1;");
            out_line(o, "if (ctx.ckpt_dir && ctx.ckpt_written != step_now && ckpt_save(%d)) return fail(argv[0]);", p);
            out_close(o);
            out_close(o);
            continue;
        }
        if (ph->kind == PH_ASSIGN) {
            simt_set_phase(o, S, p);
            out_close(o);
            continue;
        }
        const IrVar *v = ph->var;
        const IrPop *owner = ph->proj ? ph->proj->plast->scope : v->pop;
        CgDialect d = cg_dialect(m->dbl, owner);
        StrBuf val = {0};
        cg_real(&d, ph->value, &val);
        out_line(o, "/* set %s.%s, in every run side by side */", ph->proj ? ph->proj->name : ph->view.pop->name, v->label);
        out_open(o, "for (int64_t b = 0; b < nc_nb; b++)");
        out_line(o, "nc_I = &nc_insts[b];");
        if (ph->proj && ph->proj->plast->event) {
            /* event-driven synapse dynamics: advance every synapse with the old parameters first */
            double syn = simt_est_synapses(ph->proj);
            out_line(o, "if (bind(k_catchup_%s) || nrt_gpu_launch(k_catchup_%s, %lld, 128, 0) != NRT_OK) return fail(argv[0]);",
                     ph->proj->cname, ph->proj->cname, syn / 128 > 1024 ? 1024LL : (long long)(syn / 128) + 1);
        }
        if (v->per_neuron && !ph->proj) {
            long long lo = (long long)ph->view.offset, n = (long long)ph->view.size;
            out_line(o, "%s *tmp = nrt_alloc(&ctx, (size_t)%lld * sizeof *tmp, \"set %s\");", simt_vtype(v), n, v->label);
            out_line(o, "if (!tmp) return fail(argv[0]);");
            out_line(o, "for (int64_t n = 0; n < %lld; n++) tmp[n] = (%s)%s;", n, simt_vtype(v), val.s);
            out_line(o, "if (nrt_gpu_write(gpu, %s, (size_t)%lld * sizeof *tmp, tmp, (size_t)%lld * sizeof *tmp) != NRT_OK) return fail(argv[0]);",
                     v->cname, lo, n);
            if (simt_mirrored(v))
                out_line(o, "memcpy(h_%s + %lld, tmp, (size_t)%lld * sizeof *tmp);", v->cname, lo, n);
            out_line(o, "nrt_free(tmp);");
        } else {
            out_line(o, "h_scal[%d] = %s;", simt_scal_var(S, v), val.s);
        }
        out_line(o, "if (props_%s()) return fail(argv[0]);", owner->cname);
        out_close(o);
        out_line(o, "nc_I = nc_insts;");
        out_close(o);
        sb_free(&val);
    }
}

/* main(): the end of the run: each instance of a batch finished and reported, or the one run. */
static void emit_main_end(Out *o, const Simt *S)
{
    if (simt_batched(S)) {
        out_open(o, "if (nc_nb > 1)");
        out_open(o, "for (int64_t b = 0; b < nc_nb; b++)");
        out_line(o, "nc_I = &nc_insts[b];");
        out_line(o, "ctx.t_simulate = nrt_sim_end(&ctx, t0);");
        out_line(o, "ctx.dev_peak = nc_one.i_ctx.dev_peak; /* the device memory of the whole batch */");
        out_line(o, "if (nc_one.i_ctx.stop_requested) ctx.interrupted = 1;");
        out_line(o, "if (nrt_finish(&ctx) != NRT_OK) fprintf(stderr, \"%%s: error: instance %%lld: %%s\\n\", argv[0], (long long)b, ctx.errmsg);");
        out_line(o, "nrt_report(&ctx);");
        out_close(o);
        out_line(o, "st = nrt_instances_close(&nc_one.i_ctx, nc_kids, nc_nb);");
        out_line(o, "if (st != NRT_OK) fprintf(stderr, \"%%s: error: %%s\\n\", argv[0], nc_one.i_ctx.errmsg);");
        out_line(o, "nrt_gpu_close(gpu);");
        out_line(o, "return st != NRT_OK ? 1 : nc_one.i_ctx.exit_status;");
        out_close(o);
    }
    out_line(o, "ctx.t_simulate = nrt_sim_end(&ctx, t0);");
    out_line(o, "if (ctx.stop_requested) ctx.interrupted = 1;");
    out_open(o, "if (nrt_finish(&ctx) != NRT_OK)");
    out_line(o, "fprintf(stderr, \"%%s: error: %%s\\n\", argv[0], ctx.errmsg);");
    out_line(o, "nrt_gpu_close(gpu);");
    out_line(o, "return 1;");
    out_close(o);
    if (S->m->mpi)
        out_line(o, "nrt_mpi_gpu_report(&ctx, argv[0]);");
    out_line(o, "nrt_report(&ctx);");
    out_line(o, "nrt_gpu_close(gpu);");
    out_line(o, "return ctx.interrupted ? 130 : 0;");
}

static void emit_host_main(Out *o, const Simt *S)
{
    const IrModel *m = S->m;
    emit_host_fail(o, S);
    simt_emit_host_pick_mode(o, S);
    if (S->has[SCHED_CLUSTER])
        simt_emit_pick_cluster(o, S);
    if (S->push)
        simt_push_host(o, S);
    simt_emit_host_build_instance(o, S);
    if (simt_batched(S))
        simt_emit_host_batch(o, S);
    cg_ckpt_hash_decl(S->cc, o, m);
    cg_main_open(o, m, S->t->name, simt_batched(S) ? "ctx.batch = batch_ok();" : NULL);
    if (m->nviews)
        out_line(o, "ctx.view_spikes = 1; /* the device counts each view's spikes (nc_vcnt) */");
    if (m->mpi)
        simt_mpi_host_start(o, S);
    out_line(o, "double t0 = nrt_now();");
    out_line(o, "if (nrt_gpu_open(&ctx, %s, &gpu) != NRT_OK) return fail(argv[0]);", S->t->api);
    out_line(o, "mem_plan();");
    out_line(o, "st = nrt_mem_check(&ctx, (double)nrt_gpu_get_info(gpu)->global_mem);");
    out_line(o, "if (st == NRT_EHELP) { nrt_gpu_close(gpu); return 0; }");
    out_line(o, "if (st != NRT_OK) return fail(argv[0]);");
    out_line(o, "if (nrt_pool_start(&ctx) != NRT_OK) return fail(argv[0]); /* --threads: the host's side (drains, --save-connectivity) */");
    out_line(o, "if (pick_mode(argv[0])) { nrt_finish(&ctx); nrt_gpu_close(gpu); return 2; }");
    emit_main_kernels(o, S);
    emit_main_bind(o, S);
    emit_main_phases(o, S);
    emit_main_end(o, S);
    out_close(o);
}

int simt_emit_host(Compiler *cc, IrModel *m, const BuildOpts *bo, const SimtTarget *t,
                   const char *program_header, Out *o)
{
    Simt S;
    simt_setup(&S, cc, m, bo, t);
    simt_emit_host_prelude(o, &S, program_header);
    for (int i = 0; i < m->npops; i++)
        simt_emit_host_props(o, &S, m->pops[i]);
    for (int k = 0; k < m->nprojs; k++)
        if (m->projs[k]->plast)
            simt_emit_host_props(o, &S, m->projs[k]->plast->scope);
    for (int k = 0; k < m->nprojs; k++) {
        if (!simt_fam_member(&S, m->projs[k]))   /* else its family's build_fam (simt_fam_host) */
            simt_emit_host_build(o, &S, m->projs[k]);
        if (!simt_fam_grid(&S, m->projs[k]))     /* else its family's save_fam */
            simt_emit_host_save(o, &S, m->projs[k]);
    }
    simt_fam_host(o, &S);
    simt_fam_tables_host(o, &S);
    simt_fam_mem_plan(o, &S);
    simt_emit_host_records(o, &S);
    simt_emit_host_schedule(o, &S, simt_schedule(m, S.arch, bo->gpu_mode));
    simt_emit_host_ckpt(o, &S);
    emit_host_main(o, &S);
    free(S.args);
    return 0;
}

/* Write `data` (len bytes) as a C header defining nc_program[] and nc_program_len. */
int simt_write_program_header(Compiler *cc, const char *path, const unsigned char *data, size_t len)
{
    Out o = {0};
    out_line(&o, "/* the device program, embedded (generated by neuroc) */");
    out_line(&o, "static const unsigned char nc_program[] = {");
    StrBuf *b = &o.buf;
    for (size_t i = 0; i < len; i++)
        sb_printf(b, "%u,%s", data[i], i % 24 == 23 ? "\n" : "");
    sb_puts(b, "0};\n");
    out_line(&o, "static const size_t nc_program_len = %zu;", len);
    int rc = out_write_file(&o, path);
    if (rc != 0)
        error_at(cc, NOLOC, "cannot write '%s': %s", path, strerror(errno));
    out_free(&o);
    return rc;
}

/* Contract: codegen.h. */
int simt_spawn_host(Compiler *cc, const BuildOpts *bo, const char *src, const char *obj)
{
    const char *inc = arena_printf(&cc->arena, "-I%s", bo->include_dir);
    const char *inc2 = arena_printf(&cc->arena, "-I%s", bo->emit_dir);
    const char *args[] = {inc, inc2, "-c", src, "-o", obj, NULL};
    return cg_spawn(cc, cg_cc_argv(cc, bo, CG_OPT_HOST, args), bo->verbose);
}

/* Contract: codegen.h. */
int simt_link_host(Compiler *cc, const IrModel *m, const BuildOpts *bo, const char *a, const char *b)
{
    const char *inc = arena_printf(&cc->arena, "-I%s", bo->include_dir);
    const char *inc2 = arena_printf(&cc->arena, "-I%s", bo->emit_dir);
    const char *lib = arena_printf(&cc->arena, "%s/libneurort.a", bo->lib_dir);
    /* distributed (--mpi): the MPI layer first; bo->cc is then the MPI compiler */
    const char *mlib = m->mpi ? arena_printf(&cc->arena, "%s/libneurort_mpi.a", bo->lib_dir) : "-lm";
    const char *args[] = {inc, inc2, a, mlib, lib, bo->hdf5_lib, "-lm", "-ldl", "-pthread", "-o", bo->output,
                          NULL, NULL};
    if (b) {                      /* after a: the program's sources first, then the libraries */
        memmove(&args[4], &args[3], 9 * sizeof args[0]);
        args[3] = b;
    }
    int rc = cg_run(cc, cg_cc_argv(cc, bo, CG_OPT_HOST, args), bo->verbose);
    if (rc != 0) {
        error_at(cc, NOLOC, "the C compiler '%s' failed on the generated host program (%s)", bo->cc,
                 rc < 0 ? "could not run it" : "see its messages above");
        return -1;
    }
    return 0;
}
