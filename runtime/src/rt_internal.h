/* rt_internal.h -- helpers shared by the runtime's source files; not installed.
 *
 * Error messages go to ctx->errmsg through nrt_seterr; nrt_signals_restore undoes the
 * signal handlers nrt_init installed (called from nrt_finish); nrt_conn_check validates a
 * connectivity spec for both the host and the device builds.
 */
#ifndef RT_INTERNAL_H
#define RT_INTERNAL_H

#include "neurort.h"

#include <stdio.h>

#if defined(__GNUC__)
#define NRT_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define NRT_PRINTF(a, b)
#endif

/* Format a message into ctx->errmsg (truncated to fit); does nothing when ctx is NULL. */
void nrt_seterr(nrt_ctx *ctx, const char *fmt, ...) NRT_PRINTF(2, 3);

/* The checks of a connectivity spec made before building it (rt_conn.c), shared by the host
 * and device builds: NRT_EINVAL / NRT_ENOMEM with errmsg, else NRT_OK. */
nrt_status nrt_conn_check(nrt_ctx *ctx, const nrt_conn_spec *s);

/* Restore the SIGINT/SIGTERM actions that were in place before nrt_init. */
void nrt_signals_restore(nrt_ctx *ctx);

/* JSON text of a string (quoted, escaped) and of a number (shortest exact; null if not
 * finite), as manifest.json writes them (rt_record.c). */
void nrt_json_str(FILE *f, const char *s);
void nrt_json_num(FILE *f, double x);

/* --instances B > 1 (rt_instances.c), called at the end of nrt_init: runs the batch and
 * returns NRT_EHELP in the parent (ctx->exit_status set; <out>/manifest.json lists the
 * instances) or an error with errmsg; returns NRT_OK in each instance's child process,
 * with ctx->seed, ctx->instance and ctx->out_dir set to that instance's. */
nrt_status nrt_instances_run(nrt_ctx *ctx);
/* In an instance's child, send its counts and timings to the parent (nrt_finish). */
void nrt_instance_report(const nrt_ctx *ctx, nrt_status finish_status);

#endif
