/* rt_gpu_arena.c -- the arena of nrt_gpu.h: every buffer a range of one driver buffer.
 *
 * A simulator whose kernels take more argument bytes than every device accepts passes them
 * in a table instead (codegen/simt.c, "table mode"). CUDA puts buffers' device addresses in
 * it; OpenCL 1.2 has no device addresses, so there every buffer allocated after
 * nrt_gpu_arena is a range of the arena and its table word is its offset there.
 *
 * Ranges are taken from the top (a buffer freed at the top gives its room back; others
 * stay until the device closes). When a range does not fit, the arena moves: a buffer of
 * twice the size (or what is needed), the old contents copied on the compute queue, the
 * old buffer released (the driver keeps it until the work that uses it has finished).
 * Offsets stay valid, so handles and table words do; kernel arguments that are the arena
 * or ranges of it (sub-buffers) are bound again at their next launch (nrt_arena_bind).
 */
#define _POSIX_C_SOURCE 200809L

#include "rt_gpu_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t round_up(size_t n, size_t a)
{
    return (n + a - 1) / a * a;
}

int nrt_arena_is(const nrt_gpu *g, uintptr_t h)
{
    return g->arena_on && (h & 1);
}

/* Contract: see nrt_gpu.h. */
nrt_status nrt_gpu_arena(nrt_gpu *g)
{
    if (!g->ops->sub) {
        nrt_seterr(g->ctx, "the arena is for OpenCL devices: %s buffers have device addresses",
                   g->ops->name);
        return NRT_EINVAL;
    }
    if (g->arena_align < 128)
        g->arena_align = 128;
    g->arena_on = 1;
    return NRT_OK;
}

int64_t nrt_gpu_mem_word(const nrt_gpu *g, nrt_dmem m)
{
    if (!m.h)
        return 0;
    if (nrt_arena_is(g, m.h))
        return (int64_t)(m.h - 1);
    return g->api == NRT_API_CUDA ? (int64_t)m.h : -1;
}

/* Release the sub-buffers of every kernel (the arena moves). */
static void drop_subs(nrt_gpu *g)
{
    for (nrt_kernel *k = g->kernels; k; k = k->next)
        for (int i = 0; k->ar && i < k->nargs; i++)
            if (k->ar[i].sub) {
                g->ops->free(g, k->ar[i].sub);
                k->ar[i].sub = 0;
            }
}

/* Make the arena hold at least `need` bytes. */
static nrt_status grow(nrt_gpu *g, size_t need, const char *what)
{
    size_t cap = g->arena_cap > need / 2 ? 2 * g->arena_cap : need;
    uintptr_t h = 0;
    nrt_status st;
    char doing[96];
    if (cap < ((size_t)1 << 20))
        cap = (size_t)1 << 20;
    snprintf(doing, sizeof doing, "the arena of every buffer (growing for %.48s)", what);
    st = g->ops->alloc(g, cap, doing, &h);
    if (st != NRT_OK && cap > need) { /* twice was too much: exactly what is needed */
        cap = need;
        st = g->ops->alloc(g, cap, doing, &h);
    }
    if (st != NRT_OK)
        return st;
    if (g->arena) {
        if (g->arena_top && (st = nrt_gpu_waited(g, g->ops->copy(g, g->arena, h, g->arena_top),
                                                  "moving the arena for", what)) != NRT_OK) {
            g->ops->free(g, h);
            return st;
        }
        drop_subs(g);
        g->ops->free(g, g->arena);
    }
    g->arena = h;
    g->arena_cap = cap;
    g->arena_gen++;
    return NRT_OK;
}

nrt_status nrt_arena_alloc(nrt_gpu *g, size_t bytes, const char *what, uintptr_t *h)
{
    size_t off = round_up(g->arena_top, g->arena_align);
    size_t len = round_up(bytes, 4), end = off + len;
    nrt_gpu_buf t;
    nrt_status st;
    if (end < off || len < bytes) {
        nrt_seterr(g->ctx, "allocating %s (%zu bytes) in the arena: too large", what, bytes);
        return NRT_EDEVICE;
    }
    if (end > g->arena_cap && (st = grow(g, end, what)) != NRT_OK)
        return st;
    t.h = g->arena;
    t.bytes = g->arena_cap;
    snprintf(t.what, sizeof t.what, "%s", what);
    if ((st = nrt_gpu_waited(g, g->ops->fill32(g, &t, off, 0, len), "zeroing", what)) != NRT_OK)
        return st;
    g->arena_top = end;
    *h = (uintptr_t)off + 1;
    return NRT_OK;
}

void nrt_arena_free(nrt_gpu *g, const nrt_gpu_buf *b)
{
    size_t off = b->h - 1;
    if (off + round_up(b->bytes, 4) == g->arena_top)
        g->arena_top = off;
}

const nrt_gpu_buf *nrt_arena_resolve(nrt_gpu *g, const nrt_gpu_buf *b, size_t *off,
                                     nrt_gpu_buf *tmp)
{
    if (!nrt_arena_is(g, b->h))
        return b;
    *tmp = *b;
    tmp->h = g->arena;
    tmp->bytes = g->arena_cap;
    *off += b->h - 1;
    return tmp;
}

static nrt_status need_ar(nrt_kernel *k)
{
    if (k->ar)
        return NRT_OK;
    k->ar = calloc((size_t)k->nargs, sizeof *k->ar);
    if (k->ar)
        return NRT_OK;
    nrt_seterr(k->g->ctx, "out of host memory setting an argument of kernel '%s'", k->name);
    return NRT_ENOMEM;
}

nrt_status nrt_arena_arg(nrt_kernel *k, int i, const nrt_gpu_buf *b)
{
    nrt_status st;
    if (!b) {
        if (k->ar && k->ar[i].sub)
            k->g->ops->free(k->g, k->ar[i].sub);
        if (k->ar)
            memset(&k->ar[i], 0, sizeof k->ar[i]);
        return NRT_OK;
    }
    if ((st = need_ar(k)) != NRT_OK)
        return st;
    nrt_arena_arg(k, i, NULL);
    k->ar[i].kind = 1;
    k->ar[i].off = b->h - 1;
    k->ar[i].bytes = b->bytes;
    k->ar[i].gen = k->g->arena_gen - 1; /* bound at the next launch */
    k->set[i] = 1;
    return NRT_OK;
}

/* Contract: see nrt_gpu.h. */
nrt_status nrt_gpu_arg_arena(nrt_kernel *k, int i)
{
    nrt_status st;
    if (!k)
        return NRT_EINVAL;
    if (!k->g->arena_on) {
        nrt_seterr(k->g->ctx, "setting argument %d of kernel '%s' to the arena: the device has "
                   "none (nrt_gpu_arena)", i, k->name);
        return NRT_EINVAL;
    }
    if (i < 0 || i >= k->nargs) {
        nrt_seterr(k->g->ctx, "setting argument %d of kernel '%s', which has %d argument%s",
                   i, k->name, k->nargs, k->nargs == 1 ? "" : "s");
        return NRT_EINVAL;
    }
    if ((st = need_ar(k)) != NRT_OK)
        return st;
    if (k->ar[i].kind == 2 && k->ar[i].gen == k->g->arena_gen)
        return NRT_OK;
    nrt_arena_arg(k, i, NULL);
    k->ar[i].kind = 2;
    k->ar[i].gen = k->g->arena_gen - 1;
    k->set[i] = 1;
    return NRT_OK;
}

nrt_status nrt_arena_bind(nrt_kernel *k)
{
    nrt_gpu *g = k->g;
    nrt_status st;
    for (int i = 0; k->ar && i < k->nargs; i++) {
        nrt_karg_arena *a = &k->ar[i];
        uintptr_t h;
        if (!a->kind || (a->gen == g->arena_gen && (a->kind == 2 || a->sub)))
            continue;
        if (!g->arena) {
            nrt_seterr(g->ctx, "launching kernel '%s': the arena (argument %d) holds no buffer",
                       k->name, i);
            return NRT_EINVAL;
        }
        if (a->sub) {
            g->ops->free(g, a->sub);
            a->sub = 0;
        }
        h = g->arena;
        if (a->kind == 1) {
            if ((st = g->ops->sub(g, g->arena, a->off, a->bytes, &a->sub)) != NRT_OK)
                return st;
            h = a->sub;
        }
        if ((st = g->ops->arg(k, i, &h, sizeof h, 1)) != NRT_OK)
            return st;
        a->gen = g->arena_gen;
    }
    return NRT_OK;
}

void nrt_arena_kernel_free(nrt_kernel *k)
{
    for (int i = 0; k->ar && i < k->nargs; i++)
        if (k->ar[i].sub)
            k->g->ops->free(k->g, k->ar[i].sub);
    free(k->ar);
    k->ar = NULL;
}

void nrt_arena_close(nrt_gpu *g)
{
    if (g->arena)
        g->ops->free(g, g->arena);
    g->arena = 0;
    g->arena_cap = g->arena_top = 0;
    g->arena_on = 0;
}
