/* rt_internal.h -- helpers shared by the runtime's source files; not installed.
 *
 * Error messages go to ctx->errmsg through nrt_seterr; nrt_signals_restore undoes the
 * signal handlers nrt_init installed (called from nrt_finish); nrt_conn_check validates a
 * connectivity spec for both the host and the device builds.
 */
#ifndef RT_INTERNAL_H
#define RT_INTERNAL_H

#include "neurort.h"

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

/* Injected faults (rt_fault.c, state in ctx->fault): read the environment at nrt_init; the
 * bytes a recording may still add to its file of the next n; the signal raised when
 * construction starts. */
nrt_status nrt_fault_init(nrt_ctx *ctx);
size_t nrt_fault_write(nrt_ctx *ctx, size_t n);
void nrt_fault_build(nrt_ctx *ctx);

#endif
