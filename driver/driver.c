/* driver.c -- the pass list (style rule 1).
 *
 *   load -> parse (+ imports) -> [--dump=tokens|ast] -> sema_lower (IR) -> [--dump=ir]
 *        -> backend->check -> [--explain] -> backend->check_target -> backend->emit
 *        -> [compile cache] -> backend->build
 *
 * Passes talk only through their data: files, AST, IrModel. The back end is a row of the
 * table of back ends (codegen/backends.c), reached only through its Backend record
 * (codegen.h). The driver also finds the runtime and the stdlib relative to the neuroc
 * executable (build tree or install).
 */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "driver.h"
#include "sema.h"

#ifndef NEUROC_LIBDIR
#define NEUROC_LIBDIR "lib"
#endif

static const SrcLoc NOLOC = {0, 0, 0, 0};

void compiler_init(Compiler *cc)
{
    memset(cc, 0, sizeof *cc);
    compiler_init_front(cc);
    cc->diag.out = stderr;
    cc->opt.backend = "auto";
}

void compiler_free(Compiler *cc)
{
    free(cc->opt.incdirs);
    compiler_free_front(cc);
}

static int is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* 1 if p is a file an import may name; else 0, and when p exists all the same (a folder,
 * a FIFO, a device, a file over the size limit) and *other is NULL, p goes there. */
static int importable(const char *p, const char **other)
{
    struct stat st;
    if (stat(p, &st) != 0)
        return 0;
    if (!src_unreadable(p))
        return 1;
    if (!*other)
        *other = p;
    return 0;
}

static const char *dir_of(Compiler *cc, const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return ".";
    if (slash == path)
        return "/";
    return arena_strndup(&cc->arena, path, (size_t)(slash - path));
}

/* Where an import resolves: beside the importing file, then -I folders, then the stdlib.
 * NULL if none is a file; *other (NULL first) is then the first that exists all the same. */
static const char *resolve_import(Compiler *cc, const char *from, const char *name,
                                  const char **other)
{
    if (name[0] == '/')
        return importable(name, other) ? name : NULL;
    const char *c = arena_printf(&cc->arena, "%s/%s", dir_of(cc, from), name);
    if (importable(c, other))
        return c;
    for (int i = 0; i < cc->opt.nincdirs; i++) {
        c = arena_printf(&cc->arena, "%s/%s", cc->opt.incdirs[i], name);
        if (importable(c, other))
            return c;
    }
    if (cc->opt.stdlib_dir) {
        /* "stdlib/neurons.neuro" and "neurons.neuro" both name the stdlib's file */
        const char *base = strncmp(name, "stdlib/", 7) == 0 ? name + 7 : name;
        c = arena_printf(&cc->arena, "%s/%s", cc->opt.stdlib_dir, base);
        if (importable(c, other))
            return c;
    }
    return NULL;
}

typedef struct FileSet {
    AstNode **ast;
    const char **real;            /* canonical paths, to load each file once */
    int n, cap;
} FileSet;

static int seen(FileSet *fs, const char *real)
{
    for (int i = 0; i < fs->n; i++)
        if (strcmp(fs->real[i], real) == 0)
            return 1;
    return 0;
}

static void push(FileSet *fs, AstNode *ast, const char *real)
{
    if (fs->n == fs->cap) {
        fs->cap = fs->cap ? 2 * fs->cap : 8;
        fs->ast = xrealloc(fs->ast, sizeof *fs->ast * (size_t)fs->cap);
        fs->real = xrealloc(fs->real, sizeof *fs->real * (size_t)fs->cap);
    }
    fs->ast[fs->n] = ast;
    fs->real[fs->n++] = real;
}

/* Parse `path` (already loaded as file `f` when f != 0) and, first, everything it imports
 * (post-order: definitions come first). */
static int load_tree(Compiler *cc, const char *path, uint32_t f, SrcLoc at, FileSet *fs, int depth,
                     FileSet *open)
{
    char rbuf[PATH_MAX];
    const char *real = realpath(path, rbuf) ? arena_strdup(&cc->arena, rbuf) : path;
    if (seen(fs, real))
        return 0;
    if (seen(open, real)) {
        error_at(cc, at, "import cycle: '%s' imports itself", path);
        return 1;
    }
    if (depth > 32) {
        error_at(cc, at, "imports nest too deeply");
        return 1;
    }
    const char *why = NULL;
    if (!f)
        f = src_load(cc, path, &why);
    if (!f) {
        error_at(cc, at, "cannot read '%s': %s", path, why);
        return 1;
    }
    AstNode *ast = parse_file(cc, f);
    if (!ast)
        return 1;
    push(open, NULL, real);
    int rc = 0;
    for (int i = 0; i < ast->list.n; i++) {
        AstNode *it = ast->list.v[i];
        if (it->kind != AST_IMPORT)
            continue;
        const char *other = NULL;
        const char *p = resolve_import(cc, path, it->str, &other);
        if (!p && other) {
            error_at(cc, it->loc, "cannot import '%s': '%s' %s", it->str, other, src_unreadable(other));
            rc = 1;
            continue;
        }
        if (!p) {
            error_at(cc, it->loc, "cannot find import '%s'", it->str);
            diag_extra(cc, "  note: searched beside '%s', the -I folders and the stdlib (%s)", path,
                       cc->opt.stdlib_dir ? cc->opt.stdlib_dir : "not found");
            rc = 1;
            continue;
        }
        rc |= load_tree(cc, p, 0, it->loc, fs, depth + 1, open);
    }
    open->n--;
    push(fs, ast, real);
    return rc;
}

/* The model's name: the input's base name without .neuro, as a safe identifier. */
static const char *model_name(Compiler *cc, const char *path)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t n = strlen(b);
    if (n > 6 && strcmp(b + n - 6, ".neuro") == 0)
        n -= 6;
    char *s = arena_strndup(&cc->arena, b, n);
    for (char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '_' || *p == '-'))
            *p = '_';
    return s[0] ? s : "model";
}

/* The names of the back ends (only those on a GPU where gpu_only), each after `pre`: "x",
 * "x or y", "x<sep>y or z". */
static void backend_list(StrBuf *out, int gpu_only, const char *pre, const char *sep)
{
    int n = 0, k = 0;
    for (int i = 0; backends[i]; i++)
        n += !gpu_only || backends[i]->gpu;
    for (int i = 0; backends[i]; i++)
        if (!gpu_only || backends[i]->gpu) {
            k++;
            sb_printf(out, "%s%s%s", k == 1 ? "" : k == n ? " or " : sep, pre, backends[i]->name);
        }
}

/* --backend: a row of the table of back ends (backends.c), or auto's choice, which is said. */
static const Backend *pick_backend(Compiler *cc)
{
    const char *b = cc->opt.backend;
    const Backend *be = backend_find(b);
    if (be)
        return be;
    StrBuf list = {0};
    if (strcmp(b, "auto") == 0) {
        be = backend_auto();
        backend_list(&list, 1, "--backend ", " or ");
        fprintf(stderr, "neuroc: back end 'auto' picked '%s' (ask for a GPU with %s)\n", be->name, list.s);
    } else {
        backend_list(&list, 0, "", ", ");
        error_at(cc, NOLOC, "unknown back end '%s' (expected auto, %s)", b, list.s);
    }
    sb_free(&list);
    return be;
}

static int make_dir(const char *p)
{
    return mkdir(p, 0777) == 0 || errno == EEXIST ? 0 : -1;
}

/* Remove the temporary build folder and the files in it (it has no subfolders). */
static void remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        char path[4096];
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
        closedir(d);
    }
    rmdir(dir);
}

/* Contract: neuroc.h. */
IrModel *compile_front(Compiler *cc, uint32_t file)
{
    FileSet fs = {0}, open = {0};
    const char *path = cc->files[file].path;
    IrModel *m = NULL;
    int rc = load_tree(cc, path, file, NOLOC, &fs, 0, &open);
    if (rc == 0 && cc->diag.nerrors == 0)
        m = sema_lower(cc, fs.ast, fs.n, model_name(cc, path));
    free(open.ast);
    free(open.real);
    free(fs.ast);
    free(fs.real);
    return m;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* <output>.build.json: what the simulator's --bench reports about its own making
 * (rt_bench.c reads it). A file that cannot be written is only mentioned. */
static void write_build_info(const BuildOpts *bo, const char *backend, double codegen_s,
                             double compile_s, const char *cache)
{
    char path[4096];
    snprintf(path, sizeof path, "%s.build.json", bo->output);
    FILE *f = fopen(path, "w");
    if (f) {
        fprintf(f, "{\"neuroc\": \"%s\", \"backend\": \"%s\", \"codegen_s\": %.6f, "
                   "\"compile_s\": %.6f, \"cache\": \"%s\"}\n",
                NEUROC_VERSION, backend, codegen_s, compile_s, cache);
        if (fclose(f) == 0)
            return;
    }
    fprintf(stderr, "neuroc: warning: cannot write '%s': %s\n", path, strerror(errno));
}

/* backend->build through the compile cache (cache.c): a hit copies the kept executable,
 * a miss builds and keeps it. t_start: when compile_file began (code generation time). */
static int build_cached(Compiler *cc, const Backend *be, IrModel *m, BuildOpts *bo, double t_start)
{
    const double t0 = now_s();
    const char *dir = cc->opt.no_cache ? NULL : cache_dir(cc), *entry = NULL, *state = "off";
    CacheKey key;
    if (dir && cache_key(cc, be->name, bo, &key) == 0) {
        entry = cache_entry(cc, dir, &key);
        CacheResult r = cache_fetch(cc, entry, bo->output);
        if (r == CACHE_HIT) {
            if (bo->verbose)
                fprintf(stderr, "neuroc: cache hit: %s\n", entry);
            write_build_info(bo, be->name, t0 - t_start, now_s() - t0, "hit");
            return 0;
        }
        if (r == CACHE_DAMAGED)
            fprintf(stderr, "neuroc: warning: cache entry '%s' is damaged; rebuilding it\n", entry);
        else if (bo->verbose)
            fprintf(stderr, "neuroc: cache miss: %s\n", entry);
        state = "miss";
    }
    if (be->build(cc, m, bo) != 0)
        return -1;
    const double t_compile = now_s() - t0;
    if (entry && cache_store(cc, entry, bo->output) != 0 && bo->verbose)
        fprintf(stderr, "neuroc: cannot store '%s' in the cache: %s\n", entry, strerror(errno));
    write_build_info(bo, be->name, t0 - t_start, t_compile, state);
    return 0;
}

int compile_file(Compiler *cc)
{
    const double t_start = now_s();
    Options *o = &cc->opt;
    if (o->dump == DUMP_TOKENS) {
        const char *why = NULL;
        uint32_t f = src_load(cc, o->input, &why);
        if (!f) {
            error_at(cc, NOLOC, "cannot read '%s': %s", o->input, why);
            return 1;
        }
        return lex_dump(cc, f, stdout);
    }
    FileSet fs = {0}, open = {0};
    int rc = load_tree(cc, o->input, 0, NOLOC, &fs, 0, &open);
    free(open.ast);
    free(open.real);
    if (rc || cc->diag.nerrors) {
        free(fs.ast);
        free(fs.real);
        return 1;
    }
    if (o->dump == DUMP_AST) {
        StrBuf b = {0};
        ast_print(cc, fs.ast[fs.n - 1], &b);
        fputs(b.s ? b.s : "", stdout);
        sb_free(&b);
        free(fs.ast);
        free(fs.real);
        return 0;
    }
    const char *name = model_name(cc, o->input);
    IrModel *m = sema_lower(cc, fs.ast, fs.n, name);
    free(fs.ast);
    free(fs.real);
    if (!m)
        return 1;
    if (o->dump == DUMP_IR) {
        StrBuf b = {0};
        cg_dump_ir(m, &b);
        fputs(b.s ? b.s : "", stdout);
        sb_free(&b);
        return 0;
    }
    const Backend *be = pick_backend(cc);
    if (!be)
        return 1;
    if (be->check && be->check(cc, m, o))   /* the schedule, --mpi */
        return 1;
    m->mpi = o->mpi;
    for (int i = 0; o->no_check && i < m->npops; i++)   /* no state check code at all */
        for (int j = 0; j < m->pops[i]->nvars; j++)
            m->pops[i]->vars[j]->nocheck = 1;
    if (o->explain) {
        explain_model(cc, m, be, be->arch_default ? (o->gpu_arch ? o->gpu_arch : be->arch_default(cc)) : NULL);
        return 0;
    }
    BuildOpts bo = {0};
    bo.output = o->output ? o->output : name;
    bo.include_dir = arena_printf(&cc->arena, "%s/include/neuroc", o->prefix_dir);
    bo.lib_dir = arena_printf(&cc->arena, "%s/%s", o->prefix_dir, NEUROC_LIBDIR);
    if (!is_file(arena_printf(&cc->arena, "%s/libneurort.a", bo.lib_dir)))
        bo.lib_dir = arena_printf(&cc->arena, "%s/lib", o->prefix_dir);
    bo.cc = o->cc_cmd ? o->cc_cmd : "cc";
    if (o->mpi)
        bo.cc = getenv("MPICC") ? getenv("MPICC") : "mpicc";
    bo.cflags = o->cflags;
    bo.verbose = o->verbose;
    bo.gpu_mode = o->gpu_mode;
    bo.gpu_arch = o->gpu_arch;
    if (be->arch_default && !bo.gpu_arch)   /* the device program is written for it */
        bo.gpu_arch = be->arch_default(cc);
    bo.nvcc = o->nvcc;
    bo.hdf5_lib = "-lm";
#ifdef NEUROC_HDF5_LIB
    if (cg_needs_hdf5(m))
        bo.hdf5_lib = NEUROC_HDF5_LIB;
#endif
    if (be->check_target && be->check_target(cc, m, &bo))   /* the schedule on that target */
        return 1;
    char tmpl[] = "/tmp/neuroc-XXXXXX";
    if (o->emit_only) {
        if (make_dir(o->emit_only) != 0) {
            error_at(cc, NOLOC, "cannot create '%s': %s", o->emit_only, strerror(errno));
            return 1;
        }
        bo.emit_dir = o->emit_only;
        bo.emit_only = 1;
        return be->emit(cc, m, &bo) ? 1 : 0;
    }
    if (!is_file(arena_printf(&cc->arena, "%s/libneurort.a", bo.lib_dir)) ||
        !is_file(arena_printf(&cc->arena, "%s/neurort.h", bo.include_dir))) {
        error_at(cc, NOLOC, "cannot find the neuroc runtime (libneurort.a, neurort.h) under '%s'",
                 o->prefix_dir);
        return 1;
    }
    if (o->mpi && !is_file(arena_printf(&cc->arena, "%s/libneurort_mpi.a", bo.lib_dir))) {
        error_at(cc, NOLOC, "--mpi: this neuroc was built without MPI (no libneurort_mpi.a in '%s'); "
                 "install an MPI (Debian: libopenmpi-dev) and build neuroc again", bo.lib_dir);
        return 1;
    }
    if (!mkdtemp(tmpl)) {
        error_at(cc, NOLOC, "cannot create a temporary folder: %s", strerror(errno));
        return 1;
    }
    bo.emit_dir = tmpl;
    rc = be->emit(cc, m, &bo);
    if (rc == 0)
        rc = build_cached(cc, be, m, &bo, t_start);
    remove_tree(tmpl);
    return rc ? 1 : 0;
}
