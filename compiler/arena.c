/* arena.c -- memory for one compilation: the chunked arena, xmalloc, fatal/ICE exits,
 * StrBuf and string interning.  Every pass allocates from cc->arena and nothing is freed
 * individually (style rule 8).  With -DNEUROC_ARENA_TRACK=1 each allocation is its own
 * malloc block, so ASan/valgrind see overflows.  compiler_init_front() sets up the parts
 * of a Compiler the front end owns.
 */
#include "neuroc.h"

#include <stdlib.h>
#include <string.h>

/* {===================== Fatal exits and malloc ===================== */

/* Print "neuroc: fatal error: ..." and exit(1).  Used for out-of-memory and I/O failures. */
void nc_fatal(const char *fmt, ...)
{
    va_list ap;
    fputs("neuroc: fatal error: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

/* An internal compiler error: never a user error.  Prints where and aborts. */
void nc_ice_at(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "neuroc: internal compiler error at %s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}

/* malloc that never returns NULL (n == 0 is treated as 1). */
void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        nc_fatal("out of memory");
    return p;
}

/* realloc that never returns NULL. */
void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        nc_fatal("out of memory");
    return q;
}

/* {===================== Arena ===================== */

#define ARENA_ALIGN 16
#ifndef NEUROC_ARENA_TRACK
#define NEUROC_ARENA_TRACK 0
#endif
#ifdef NEUROC_STRESS
#define ARENA_CHUNK 256
#else
#define ARENA_CHUNK (64 * 1024)
#endif

struct ArenaChunk {
    ArenaChunk *prev;             /* older chunk */
    size_t size, used;            /* bytes in data[], bytes handed out */
    _Alignas(ARENA_ALIGN) unsigned char data[];
};

static ArenaChunk *new_chunk(Arena *a, size_t size)
{
    ArenaChunk *c = xmalloc(sizeof(ArenaChunk) + size);
    c->prev = a->head;
    c->size = size;
    c->used = 0;
    a->head = c;
    return c;
}

/* Zeroed, 16-byte aligned memory owned by the arena; never NULL. */
void *arena_alloc(Arena *a, size_t n)
{
    ArenaChunk *c = a->head;
    size_t need = (n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    void *p;
    if (need == 0)
        need = ARENA_ALIGN;
    if (NEUROC_ARENA_TRACK) {
        c = new_chunk(a, n ? n : 1);  /* exact size: ASan catches overruns */
        c->used = c->size;
        memset(c->data, 0, c->size);
        return c->data;
    }
    if (!c || c->size - c->used < need)
        c = new_chunk(a, need > ARENA_CHUNK ? need : ARENA_CHUNK);
    p = c->data + c->used;
    c->used += need;
    memset(p, 0, need);
    return p;
}

/* A NUL-terminated copy of s[0..n) in the arena. */
char *arena_strndup(Arena *a, const char *s, size_t n)
{
    char *p = arena_alloc(a, n + 1);
    if (n)
        memcpy(p, s, n);
    p[n] = 0;
    return p;
}

char *arena_strdup(Arena *a, const char *s)
{
    return arena_strndup(a, s, strlen(s));
}

/* printf into a fresh arena string. */
char *arena_printf(Arena *a, const char *fmt, ...)
{
    va_list ap, ap2;
    int n;
    char *p;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    p = arena_alloc(a, (size_t)n + 1);
    vsnprintf(p, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    return p;
}

/* Remember the current top; arena_release(a, m) frees everything allocated after it. */
ArenaMark arena_mark(Arena *a)
{
    ArenaMark m;
    m.chunk = a->head;
    m.used = a->head ? a->head->used : 0;
    return m;
}

void arena_release(Arena *a, ArenaMark m)
{
    while (a->head && a->head != m.chunk) {
        ArenaChunk *c = a->head;
        a->head = c->prev;
        free(c);
    }
    if (a->head)
        a->head->used = m.used;
}

/* Free every chunk; the arena is empty (and reusable) afterwards. */
void arena_free(Arena *a)
{
    ArenaMark none = {NULL, 0};
    arena_release(a, none);
}

/* {===================== StrBuf ===================== */

static void sb_grow(StrBuf *b, size_t extra)
{
    size_t need = b->len + extra + 1;
    if (need <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need)
        cap *= 2;
    b->s = xrealloc(b->s, cap);
    b->cap = cap;
}

/* Append n bytes (may contain anything); b->s stays NUL-terminated. */
void sb_putn(StrBuf *b, const char *s, size_t n)
{
    sb_grow(b, n);
    if (n)
        memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = 0;
}

void sb_putc(StrBuf *b, char c)
{
    sb_putn(b, &c, 1);
}

void sb_puts(StrBuf *b, const char *s)
{
    sb_putn(b, s, strlen(s));
}

void sb_vprintf(StrBuf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n > 0) {
        sb_grow(b, (size_t)n);
        vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
        b->len += (size_t)n;
    } else {
        sb_grow(b, 0);
        b->s[b->len] = 0;
    }
}

const char *sb_setf(StrBuf *b, const char *fmt, ...)
{
    va_list ap;
    b->len = 0;
    va_start(ap, fmt);
    sb_vprintf(b, fmt, ap);
    va_end(ap);
    return b->s;
}

void sb_printf(StrBuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(b, fmt, ap);
    va_end(ap);
}

void sb_free(StrBuf *b)
{
    free(b->s);
    b->s = NULL;
    b->len = b->cap = 0;
}

/* {===================== Interning ===================== */

/* The table and its strings live in their own arena, so an arena_release() on
 * cc->arena (per-pass scratch) can never free an interned string. */
typedef struct InternEnt {
    const char *s;
    uint32_t len, hash;
} InternEnt;

struct InternTab {
    Arena mem;
    InternEnt *v;                 /* open addressing, linear probing */
    uint32_t cap, n;              /* cap is a power of two */
};

static uint32_t str_hash(const char *s, size_t n)
{
    uint32_t h = 2166136261u;     /* FNV-1a */
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 16777619u;
    }
    return h;
}

static void intern_grow(struct InternTab *t)
{
    uint32_t ncap = t->cap ? t->cap * 2 : 256;
    InternEnt *nv = xmalloc(sizeof(InternEnt) * ncap);
    memset(nv, 0, sizeof(InternEnt) * ncap);
    for (uint32_t i = 0; i < t->cap; i++) {
        InternEnt e = t->v[i];
        if (!e.s)
            continue;
        uint32_t j = e.hash & (ncap - 1);
        while (nv[j].s)
            j = (j + 1) & (ncap - 1);
        nv[j] = e;
    }
    free(t->v);
    t->v = nv;
    t->cap = ncap;
}

/* The unique copy of s[0..n): equal strings give the same pointer.  Lives until
 * compiler_free_front(). */
const char *intern(Compiler *cc, const char *s, size_t n)
{
    struct InternTab *t = cc->strtab;
    if (!t)
        nc_ice("intern() before compiler_init_front()");
    if ((t->n + 1) * 2 > t->cap)
        intern_grow(t);
    uint32_t h = str_hash(s, n);
    uint32_t i = h & (t->cap - 1);
    while (t->v[i].s) {
        if (t->v[i].hash == h && t->v[i].len == n && memcmp(t->v[i].s, s, n) == 0)
            return t->v[i].s;
        i = (i + 1) & (t->cap - 1);
    }
    t->v[i].s = arena_strndup(&t->mem, s, n);
    t->v[i].len = (uint32_t)n;
    t->v[i].hash = h;
    t->n++;
    return t->v[i].s;
}

const char *intern_cstr(Compiler *cc, const char *s)
{
    return intern(cc, s, strlen(s));
}

/* {===================== Front-end setup ===================== */

/* Initialise what the front end owns: arena, intern table, file table (index 0 reserved)
 * and the diagnostics defaults (stderr, error limit 20).  Options are left untouched. */
void compiler_init_front(Compiler *cc)
{
    cc->arena.head = NULL;
    cc->strtab = xmalloc(sizeof(struct InternTab));
    memset(cc->strtab, 0, sizeof(struct InternTab));
    cc->capfiles = 8;
    cc->files = arena_alloc(&cc->arena, sizeof(SrcFile) * cc->capfiles);
    cc->nfiles = 1;
    cc->diag.out = stderr;
    cc->diag.capture = NULL;
    cc->diag.nerrors = 0;
    cc->diag.nwarnings = 0;
    cc->diag.error_limit = 20;
    cc->diag.color = 0;
    cc->diag.shown = NULL;
    cc->diag.nshown = cc->diag.capshown = 0;
    cc->diag.skip_notes = 0;
}

/* Free everything compiler_init_front() and later allocations set up. */
void compiler_free_front(Compiler *cc)
{
    if (cc->strtab) {
        arena_free(&cc->strtab->mem);
        free(cc->strtab->v);
        free(cc->strtab);
        cc->strtab = NULL;
    }
    arena_free(&cc->arena);
    free(cc->diag.shown);
    cc->diag.shown = NULL;
    cc->diag.nshown = cc->diag.capshown = 0;
    cc->files = NULL;
    cc->nfiles = cc->capfiles = 0;
}
