/* rt_fault.c -- faults of a run: the messages of the state check (--check-finite), and injected faults, so that
 * the simulator's handling of a full disk and of exhausted device memory can be tested
 * without filling a disk or a GPU.
 *
 *   NEUROC_FAULT_WRITE_AFTER=N   the recordings may add N bytes to their files in all; the
 *                                write that would pass N writes up to it and then fails with
 *                                ENOSPC, as a full file system does (docs/robustness.md)
 *   NEUROC_FAULT_DEVICE_MEM=N    the device has N bytes: an allocation that would take the
 *                                live buffers past N fails as out of device memory
 *   NEUROC_FAULT_BUILD_SIGNAL=S  the process sends itself SIGS (INT or TERM) when the first
 *                                projection's synapses start to be built: a signal during
 *                                construction at a known point, however fast the device
 *   NEUROC_FAULT_CLUSTER_STALL=T the CUDA cluster schedule's group 0 stops at step T as if that
 *                                step's spike words had not come (nc_mbar_wait), and the
 *                                other groups then wait in vain for its next ones: a stalled
 *                                cluster, which otherwise needs other processes on the GPU
 *
 * nrt_init reads them (nrt_fault_init); a malformed value is a start-up error, so a test
 * cannot silently run without its fault.
 */
#define _POSIX_C_SOURCE 200809L

#include "rt_internal.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

/* Strict decimal count (bytes, a step): digits only, no overflow. 0 on success. */
static int parse_bytes(const char *s, uint64_t *out)
{
    uint64_t v = 0;
    if (!*s)
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
            return -1;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    *out = v;
    return 0;
}

/* Contract: reads $NEUROC_FAULT_WRITE_AFTER, $NEUROC_FAULT_DEVICE_MEM,
 * $NEUROC_FAULT_BUILD_SIGNAL and $NEUROC_FAULT_CLUSTER_STALL (unset or empty: no fault) into ctx->fault;
 * NRT_EINVAL with errmsg naming the variable when one is malformed. */
nrt_status nrt_fault_init(nrt_ctx *ctx)
{
    static const char *const names[2] = {"NEUROC_FAULT_WRITE_AFTER", "NEUROC_FAULT_DEVICE_MEM"};
    uint64_t *val[2] = {&ctx->fault.write_left, &ctx->fault.device_mem};
    const char *e;
    memset(&ctx->fault, 0, sizeof ctx->fault);
    for (int i = 0; i < 2; i++) {
        e = getenv(names[i]);
        if (e && *e && parse_bytes(e, val[i]) != 0) {
            nrt_seterr(ctx, "$%s='%s' is not a number of bytes", names[i], e);
            return NRT_EINVAL;
        }
        if (i == 0)
            ctx->fault.write = e && *e;
    }
    e = getenv("NEUROC_FAULT_BUILD_SIGNAL");
    ctx->fault.build_signal = !e || !*e ? 0 : strcmp(e, "INT") == 0 ? SIGINT
                            : strcmp(e, "TERM") == 0 ? SIGTERM : -1;
    if (ctx->fault.build_signal < 0) {
        nrt_seterr(ctx, "$NEUROC_FAULT_BUILD_SIGNAL='%s' is not INT or TERM", e);
        return NRT_EINVAL;
    }
    uint64_t t = 0;
    e = getenv("NEUROC_FAULT_CLUSTER_STALL");
    if (e && *e && (parse_bytes(e, &t) != 0 || t > (uint64_t)INT64_MAX)) {
        nrt_seterr(ctx, "$NEUROC_FAULT_CLUSTER_STALL='%s' is not a step number", e);
        return NRT_EINVAL;
    }
    ctx->fault.cluster_stall = e && *e ? (int64_t)t : -1;
    return NRT_OK;
}

/* Contract: called when a projection's synapses start to be built (host or device): sends
 * the signal of $NEUROC_FAULT_BUILD_SIGNAL to this process, the first time only. */
void nrt_fault_build(nrt_ctx *ctx)
{
    int sig = ctx ? ctx->fault.build_signal : 0;
    if (sig) {
        ctx->fault.build_signal = 0;
        raise(sig);
    }
}

/* Contract: how many of the next n bytes a recording may add to its file: n without an
 * injected fault, else what is left of the budget (taken from it). */
size_t nrt_fault_write(nrt_ctx *ctx, size_t n)
{
    if (!ctx->fault.write)
        return n;
    if ((uint64_t)n > ctx->fault.write_left)
        n = (size_t)ctx->fault.write_left;
    ctx->fault.write_left -= n;
    return n;
}

/* Contract: see neurort.h. */
int nrt_nonfinite(nrt_ctx *ctx, const char *pop, const char *var, int64_t n, int64_t step)
{
    nrt_seterr(ctx, "non-finite value: population %s, variable %s, neuron %lld, step %lld "
               "(t = %.12g ms)", pop, var, (long long)n, (long long)step,
               (double)(step + 1) * ctx->dt);
    return -1;
}

/* Contract: see neurort.h. */
int nrt_outofrange(nrt_ctx *ctx, const char *pop, const char *var, int64_t n, int64_t step,
                   int above, double bound, const char *unit)
{
    int dimless = !unit || strcmp(unit, "1") == 0;
    nrt_seterr(ctx, "value out of range: population %s, variable %s, neuron %lld, step %lld "
               "(t = %.12g ms): %s %.12g%s%s", pop, var, (long long)n, (long long)step,
               (double)(step + 1) * ctx->dt, above ? "above the upper bound" : "below the lower bound",
               bound, dimless ? "" : " ", dimless ? "" : unit);
    return -1;
}
