/* cache.c -- the compile cache: a built simulator kept under a key of everything that made it.
 *
 * Sits between backend->emit and backend->build (driver.c). The key is a 128-bit hash of the
 * emitted sources (every file of the emit folder, by name), the back end, the toolchain
 * (C compiler and nvcc: resolved path, size, mtime; --cflags; the host flags; the CUDA arch), the runtime (libneurort.a,
 * libneurort_mpi.a where built, and the headers) and neuroc itself (its executable), so any
 * change to the model, the compiler or the runtime misses. An entry is one file
 * <dir>/<32 hex digits>: a header line "neuroc-cache 1 SIZE CHECKSUM" and the executable's
 * bytes; entries are written to a temporary file and renamed, so parallel builds never see
 * half an entry, and a damaged entry (checksum or size) is rebuilt and replaced.
 */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "codegen.h"

/* {===== Hash: two 64-bit lanes over 8-byte words (not cryptographic) ===== */

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

static void hash_bytes(CacheKey *k, const void *data, size_t n)
{
    const unsigned char *p = data;
    while (n > 0) {
        uint64_t w = 0;
        size_t m = n < 8 ? n : 8;
        memcpy(&w, p, m);
        w ^= (uint64_t)m << 59;          /* a short tail differs from zero padding */
        k->h[0] = (k->h[0] ^ w) * 0x9e3779b97f4a7c15ULL;
        k->h[0] ^= k->h[0] >> 31;
        k->h[1] = (k->h[1] + mix64(w ^ 0x632be59bd9b4e019ULL)) * 0xbf58476d1ce4e5b9ULL;
        k->h[1] ^= k->h[1] >> 29;
        p += m;
        n -= m;
    }
}

/* A string with its length, so that ("ab","c") and ("a","bc") differ. */
static void hash_str(CacheKey *k, const char *s)
{
    uint64_t n = s ? strlen(s) : UINT64_MAX;
    hash_bytes(k, &n, sizeof n);
    if (s)
        hash_bytes(k, s, strlen(s));
}

/* The file's contents; -1 when it cannot be read. */
static int hash_file(CacheKey *k, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    char buf[1 << 16];
    size_t n;
    uint64_t total = 0;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        hash_bytes(k, buf, n);
        total += n;
    }
    int bad = ferror(f);
    fclose(f);
    hash_bytes(k, &total, sizeof total);
    return bad ? -1 : 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Every regular file of `dir` (not recursive), in name order: name and contents. */
static int hash_dir(Compiler *cc, CacheKey *k, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    const char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            names = xrealloc(names, cap * sizeof *names);
        }
        names[n++] = arena_strdup(&cc->arena, e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, by_name);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        hash_str(k, names[i]);
        rc |= hash_file(k, arena_printf(&cc->arena, "%s/%s", dir, names[i]));
    }
    free(names);
    return rc;
}

/* A tool's identity: the path it resolves to through PATH (or as given), its size and
 * modification time; the bare name when it is not found (the build then fails anyway). */
static void hash_tool(Compiler *cc, CacheKey *k, const char *tool)
{
    hash_str(k, tool);
    if (!tool)
        return;
    const char *found = NULL;
    if (strchr(tool, '/')) {
        found = tool;
    } else {
        const char *path = getenv("PATH");
        for (const char *s = path; s && *s && !found;) {
            const char *c = strchr(s, ':');
            size_t n = c ? (size_t)(c - s) : strlen(s);
            const char *f = arena_printf(&cc->arena, "%.*s/%s", (int)n, s, tool);
            if (n && access(f, X_OK) == 0)
                found = f;
            s = c ? c + 1 : NULL;
        }
    }
    char real[PATH_MAX];
    struct stat st;
    if (found && realpath(found, real) && stat(real, &st) == 0) {
        int64_t id[2] = {(int64_t)st.st_size, (int64_t)st.st_mtime};
        hash_str(k, real);
        hash_bytes(k, id, sizeof id);
    }
}

/* ===== Hash =====} */

/* Contract: the cache folder: $NEUROC_CACHE, else $XDG_CACHE_HOME/neuroc, else
 * $HOME/.cache/neuroc; NULL (no caching) when $NEUROC_CACHE is "off" or "0", or none of
 * the three variables is set. Arena-owned. */
const char *cache_dir(Compiler *cc)
{
    const char *e = getenv("NEUROC_CACHE");
    if (e && *e)
        return strcmp(e, "off") == 0 || strcmp(e, "0") == 0 ? NULL : e;
    e = getenv("XDG_CACHE_HOME");
    if (e && *e)
        return arena_printf(&cc->arena, "%s/neuroc", e);
    e = getenv("HOME");
    if (e && *e)
        return arena_printf(&cc->arena, "%s/.cache/neuroc", e);
    return NULL;
}

/* Contract: the key of the build bo describes, after backend `backend` emitted into
 * bo->emit_dir (bo->gpu_arch already resolved for CUDA). -1 when an input cannot be read
 * (the caller then builds without the cache). */
int cache_key(Compiler *cc, const char *backend, const BuildOpts *bo, CacheKey *k)
{
    k->h[0] = 0x243f6a8885a308d3ULL;
    k->h[1] = 0x13198a2e03707344ULL;
    hash_str(k, "neuroc-cache 1");
    hash_str(k, NEUROC_VERSION);
    hash_str(k, backend);
    hash_str(k, bo->gpu_mode);
    hash_str(k, bo->gpu_arch);
    hash_tool(cc, k, bo->cc);
    if (strcmp(backend, "cuda") == 0)
        hash_tool(cc, k, bo->nvcc ? bo->nvcc : getenv("NVCC") && *getenv("NVCC") ? getenv("NVCC") : "nvcc");
    hash_str(k, bo->hdf5_lib);
    hash_str(k, bo->cflags ? bo->cflags : "");
    hash_str(k, cg_host_cflags());
    int rc = hash_file(k, "/proc/self/exe");
    rc |= hash_file(k, arena_printf(&cc->arena, "%s/libneurort.a", bo->lib_dir));
    /* the MPI runtime, where this neuroc has one (--mpi links it) */
    const char *mpi_lib = arena_printf(&cc->arena, "%s/libneurort_mpi.a", bo->lib_dir);
    if (access(mpi_lib, R_OK) == 0)
        rc |= hash_file(k, mpi_lib);
    rc |= hash_dir(cc, k, bo->include_dir);
    rc |= hash_dir(cc, k, bo->emit_dir);
    return rc ? -1 : 0;
}

/* Contract: the path of k's entry under dir (arena-owned). */
const char *cache_entry(Compiler *cc, const char *dir, const CacheKey *k)
{
    return arena_printf(&cc->arena, "%s/%016llx%016llx", dir, (unsigned long long)k->h[0],
                        (unsigned long long)k->h[1]);
}

static uint64_t checksum(const char *data, size_t n)
{
    CacheKey k = {{0x452821e638d01377ULL, 0xbe5466cf34e90c6cULL}};
    hash_bytes(&k, data, n);
    return k.h[0] ^ mix64(k.h[1]);
}

/* The whole file into b; -1 when it cannot be read. */
static int slurp(const char *path, StrBuf *b)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    char buf[1 << 16];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        sb_putn(b, buf, n);
    int bad = ferror(f);
    fclose(f);
    return bad ? -1 : 0;
}

/* Write head (may be NULL) then data to a new temporary file beside `path` and rename it
 * over `path` with mode `mode`. 0, or -1 with errno. */
static int write_atomic(Compiler *cc, const char *path, const char *head, const char *data, size_t n,
                        mode_t mode)
{
    char *tmp = arena_printf(&cc->arena, "%s.tmp-XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0)
        return -1;
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        close(fd);
        unlink(tmp);
        return -1;
    }
    int bad = (head && fputs(head, f) < 0) || (n && fwrite(data, 1, n, f) != n);
    bad |= fclose(f) != 0;
    if (bad || chmod(tmp, mode) != 0 || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        errno = e;
        return -1;
    }
    return 0;
}

/* Contract: copy the entry's executable to `output` (atomically, mode 0755). CACHE_HIT;
 * CACHE_MISS when there is no entry; CACHE_DAMAGED when the entry fails its size or checksum
 * (the caller rebuilds, and cache_store replaces it); CACHE_MISS too when `output` cannot be
 * written (the build then reports why). */
CacheResult cache_fetch(Compiler *cc, const char *entry, const char *output)
{
    StrBuf b = {0};
    if (slurp(entry, &b) != 0) {
        sb_free(&b);
        return CACHE_MISS;
    }
    unsigned long long size = 0, sum = 0;
    int hl = 0;
    const char *nl = b.len ? memchr(b.s, '\n', b.len < 80 ? b.len : 80) : NULL;
    CacheResult r = CACHE_DAMAGED;
    if (nl && sscanf(b.s, "neuroc-cache 1 %llu %llx\n%n", &size, &sum, &hl) == 2 && hl == nl - b.s + 1 &&
        (size_t)hl + size == b.len && checksum(b.s + hl, (size_t)size) == sum)
        r = write_atomic(cc, output, NULL, b.s + hl, (size_t)size, 0755) == 0 ? CACHE_HIT : CACHE_MISS;
    sb_free(&b);
    return r;
}

static int make_dirs(const char *dir)
{
    char buf[PATH_MAX];
    size_t n = strlen(dir);
    if (n == 0 || n >= sizeof buf)
        return -1;
    memcpy(buf, dir, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        buf[i] = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return -1;
        if (i < n)
            buf[i] = '/';
    }
    return 0;
}

/* Contract: store the executable `output` as `entry` (creating the cache folder); 0, or -1
 * with errno when it cannot (the build itself has succeeded: callers only mention it). */
int cache_store(Compiler *cc, const char *entry, const char *output)
{
    StrBuf b = {0};
    const char *slash = strrchr(entry, '/');
    if (slurp(output, &b) != 0 ||
        (slash && make_dirs(arena_strndup(&cc->arena, entry, (size_t)(slash - entry))) != 0)) {
        sb_free(&b);
        return -1;
    }
    char *head = arena_printf(&cc->arena, "neuroc-cache 1 %llu %016llx\n", (unsigned long long)b.len,
                              (unsigned long long)checksum(b.s, b.len));
    int rc = write_atomic(cc, entry, head, b.s, b.len, 0644);
    sb_free(&b);
    return rc;
}

/* The memo file of `key` (arena-owned), or NULL without a cache folder. */
static const char *memo_path(Compiler *cc, const char *key)
{
    const char *dir = cc->opt.no_cache ? NULL : cache_dir(cc);
    if (!dir)
        return NULL;
    CacheKey k = {{0x3c6ef372fe94f82bULL, 0xa54ff53a5f1d36f1ULL}};
    hash_str(&k, "neuroc-memo 1");
    hash_str(&k, key);
    return arena_printf(&cc->arena, "%s/memo-%016llx%016llx", dir, (unsigned long long)k.h[0],
                        (unsigned long long)k.h[1]);
}

/* Contract: codegen.h. The file, named by the key's hash, holds the value and a newline. */
const char *cache_memo_get(Compiler *cc, const char *key)
{
    const char *path = memo_path(cc, key);
    FILE *f = path ? fopen(path, "rb") : NULL;
    if (!f)
        return NULL;
    char line[128];
    int ok = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    size_t n = ok ? strcspn(line, "\n") : 0;
    if (!ok || n == 0 || line[n] != '\n')
        return NULL;
    return arena_strndup(&cc->arena, line, n);
}

/* Contract: codegen.h. Quietly nothing when it cannot be written. */
void cache_memo_put(Compiler *cc, const char *key, const char *val)
{
    const char *path = memo_path(cc, key);
    const char *slash = path ? strrchr(path, '/') : NULL;
    if (!path || strchr(val, '\n') || strlen(val) >= 100 ||
        (slash && make_dirs(arena_strndup(&cc->arena, path, (size_t)(slash - path))) != 0))
        return;
    (void)write_atomic(cc, path, arena_printf(&cc->arena, "%s\n", val), NULL, 0, 0644);
}
