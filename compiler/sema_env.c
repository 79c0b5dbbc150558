/* sema_env.c -- names and scopes: environments of bindings, the arrays sema grows, muted
 * diagnostics and "did you mean" suggestions.
 *
 * An Env is one scope (a model instance, a block, a function call); names are interned, so
 * a lookup compares addresses, in order for small scopes and through a hash past ENV_LINEAR.
 */
#include <string.h>

#include "sema_priv.h"

static uint32_t env_hash(const char *name)
{
    uint64_t h = (uint64_t)(uintptr_t)name * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(h >> 32);
}

/* The first binding of `name` in scope e itself (names are interned: compared by address). */
Bind *sema_env_find_here(Env *e, const char *name)
{
    if (!e->slot) {
        for (int i = 0; i < e->n; i++)
            if (e->v[i].name == name)
                return &e->v[i];
        return NULL;
    }
    uint32_t mask = 2 * (uint32_t)e->cap - 1;
    for (uint32_t h = env_hash(name) & mask; e->slot[h]; h = (h + 1) & mask)
        if (e->v[e->slot[h] - 1].name == name)
            return &e->v[e->slot[h] - 1];
    return NULL;
}

Bind *sema_env_find(Env *e, const char *name)
{
    for (; e; e = e->parent) {
        Bind *b = sema_env_find_here(e, name);
        if (b)
            return b;
    }
    return NULL;
}

/* Array `v` of n elements of `size` (NULL when n is 0), with room for one more. Every such
 * array comes from here, so its capacity follows from n: 4, then the powers of two. It is
 * copied into a new arena block only when n reaches that capacity (amortised O(1): a model
 * of 100,000 populations must not copy the list 100,000 times). */
void *sema_grow(Compiler *cc, void *v, int n, size_t size)
{
    if (n > 0 && (n < 4 || (n & (n - 1)) != 0))
        return v;                 /* room left */
    size_t cap = n < 4 ? 4 : 2 * (size_t)n;
    void *w = arena_alloc(&cc->arena, size * cap);
    if (n)
        memcpy(w, v, size * (size_t)n);
    return w;
}

/* Enter v[i] into e's hash (a name bound twice keeps its first binding there). */
static void env_index(Env *e, int i)
{
    uint32_t mask = 2 * (uint32_t)e->cap - 1;
    uint32_t h = env_hash(e->v[i].name) & mask;
    for (; e->slot[h]; h = (h + 1) & mask)
        if (e->v[e->slot[h] - 1].name == e->v[i].name)
            return;
    e->slot[h] = i + 1;
}

void sema_add_bind(Compiler *cc, Env *e, Bind b)
{
    if (e->n == e->cap) {
        int cap = e->cap ? 2 * e->cap : ENV_LINEAR;
        Bind *v = arena_alloc(&cc->arena, sizeof *v * (size_t)cap);
        if (e->n)
            memcpy(v, e->v, sizeof *v * (size_t)e->n);
        e->v = v;
        e->cap = cap;
        e->slot = NULL;
        if (cap > ENV_LINEAR) {
            e->slot = arena_alloc(&cc->arena, sizeof *e->slot * 2 * (size_t)cap);
            for (int i = 0; i < e->n; i++)
                env_index(e, i);
        }
    }
    e->v[e->n++] = b;
    if (e->slot)
        env_index(e, e->n - 1);
}

/* Declare `b` in `e`, reporting a redefinition in the same scope. */
int sema_declare(Compiler *cc, Env *e, Bind b)
{
    Bind *old = sema_env_find_here(e, b.name);
    if (old) {
        error_at(cc, b.loc, "redefinition of '%s'", b.name);
        note_at(cc, old->loc, "'%s' first defined here", b.name);
        return 0;
    }
    sema_add_bind(cc, e, b);
    return 1;
}

Mute sema_mute(Compiler *cc, int on)
{
    Mute m = {cc->diag.out, cc->diag.capture, cc->diag.nerrors, on};
    if (on) {
        cc->diag.out = NULL;
        cc->diag.capture = NULL;
    }
    return m;
}

void sema_unmute(Compiler *cc, Mute m)
{
    if (!m.on)
        return;
    cc->diag.out = m.out;
    cc->diag.capture = m.cap;
    cc->diag.nerrors = m.nerr;
}

void sema_suggest(Ctx *x, const char *name)
{
    const char *best = NULL;
    SrcLoc bloc = {0, 0, 0, 0};
    int bd = 3;
    for (Env *e = x->env; e; e = e->parent)
        for (int i = 0; i < e->n; i++) {
            int dd = hint_distance(name, e->v[i].name);
            /* close enough to be a typo: 'bar' is not a misspelt 'tau' */
            if (dd < bd && 2 * dd < (int)strlen(name) && e->v[i].kind != B_MODEL) {
                bd = dd;
                best = e->v[i].name;
                bloc = e->v[i].loc;
            }
        }
    if (best) {
        if (bloc.file)
            note_at(x->cc, bloc, "did you mean '%s'?", best);
        else
            diag_extra(x->cc, "  note: did you mean '%s'?", best);
    }
}

/* sema_declare() for model members: a real instance (quiet) repeats what the generic check of
 * the model already reported, such as a redefinition. */
void sema_declare_q(Compiler *cc, Env *e, Bind b, int quiet)
{
    Mute mu = sema_mute(cc, quiet);
    sema_declare(cc, e, b);
    sema_unmute(cc, mu);
}

Bind *sema_global_find(Sema *S, const char *name, BindKind k)
{
    Bind *b = sema_env_find_here(&S->global, name);
    return (b && b->kind == k) ? b : NULL;
}
