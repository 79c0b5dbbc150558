/* main.c -- the neuroc command line: options in, compile_file() out.
 *
 *   neuroc FILE -o OUT [--backend auto|c|cuda|opencl] [--emit-only DIR] [-I DIR]
 *          [--dump=tokens|ast|ir] [--explain] [--cc CC] [--cflags FLAGS] [-v] [--version] [--help]
 *   neuroc plot DIR          (the figures of a run folder: nrt_plot of the runtime)
 */
#define _DEFAULT_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver.h"
#include "neurort.h"

/* A NEUROC_SANITIZE build builds the simulators with its own sanitizer flags (CMakeLists.txt),
 * before any --cflags: its runtime library links only with them. */
#ifndef NEUROC_DEFAULT_CFLAGS
#define NEUROC_DEFAULT_CFLAGS ""
#endif

static const char *with_default_cflags(Compiler *cc, const char *user)
{
    if (!*NEUROC_DEFAULT_CFLAGS)
        return user;
    return arena_printf(&cc->arena, "%s %s", NEUROC_DEFAULT_CFLAGS, user);
}

static void usage(FILE *f)
{
    fputs("usage: neuroc FILE.neuro [-o OUT] [options]\n"
          "Compile a .neuro model into a standalone simulator.\n"
          "\n"
          "  -o OUT              the simulator to write (default: the model's name)\n"
          "  --backend B         auto (default), c, cuda or opencl\n"
          "  --emit-only DIR     write the generated sources into DIR and stop\n"
          "  -I DIR              also search DIR for imports\n"
          "  --dump=WHAT         print tokens, ast or ir and stop\n"
          "  --explain           say what would be built: populations, projections,\n"
          "                      integrators and why, kernel plan, memory, warnings\n"
          "  --cc CC             C compiler for the generated code (default: $CC or cc)\n"
          "  --cflags FLAGS      extra flags for it, split at blanks (default: $NEUROC_CFLAGS;\n"
          "                      a NEUROC_SANITIZE build puts its sanitizer flags first)\n"
          "  --gpu-mode M        GPU schedule: auto (default), block, cluster, launch,\n"
          "                      graph, persistent (cluster, graph and persistent: CUDA\n"
          "                      only) or free (a model without projections)\n"
          "  --gpu-arch sm_XX    CUDA target (default: the present GPU's, else sm_90)\n"
          "  --nvcc PATH         CUDA compiler (default: $NVCC, nvcc on PATH, /usr/local/cuda/bin)\n"
          "  --no-cache          build without the compile cache ($NEUROC_CACHE, else\n"
          "                      $XDG_CACHE_HOME/neuroc or ~/.cache/neuroc; off: NEUROC_CACHE=off)\n"
          "  --mpi               a distributed simulator: run it with mpirun -np N (c back end,\n"
          "                      or cuda/opencl with one GPU per rank; compiled with $MPICC,\n"
          "                      else mpicc)\n"
          "  --no-check-finite   leave the state check (NaN, infinity, declared ranges) out of\n"
          "                      the simulator: its --check-finite does nothing\n"
          "  --proj-tables=off   one construction and delivery per static projection, not one\n"
          "                      per family of projections alike but for constants\n"
          "  --proj-tables=on    families also of stored projections on a GPU in a model of\n"
          "                      at most 128 projections (default: there only procedural ones)\n"
          "  -v, --verbose       show the commands neuroc runs (and cache hits and misses)\n"
          "  --version           print the version\n"
          "  --help              this text\n"
          "\n"
          "Then run the simulator: ./OUT [--out DIR] [--seed N] [--quiet] [--plot] [--set P.x=V] [--help]\n"
          "\n"
          "  neuroc plot DIR     draw the figures of a run's output folder (SVG files and\n"
          "                      index.html, as ./OUT --plot does after its run)\n",
          f);
}

/* `neuroc plot DIR`: the figures of a finished or interrupted run's folder, drawn by the
 * runtime's nrt_plot (the code `./sim --plot` runs). 0, 1 on failure, 2 on a bad line. */
static int plot_main(int argc, char **argv)
{
    static nrt_ctx ctx;
    if (argc == 3 && (strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0)) {
        usage(stdout);
        return 0;
    }
    if (argc != 3 || argv[2][0] == '-' || !argv[2][0]) {
        fprintf(stderr, "neuroc: error: 'neuroc plot' takes one output folder: neuroc plot DIR\n");
        return 2;
    }
    if (nrt_plot(&ctx, argv[2]) != NRT_OK) {
        fprintf(stderr, "neuroc: error: %s\n", ctx.errmsg);
        return 1;
    }
    fprintf(stderr, "neuroc: figures of '%s' written; open %s/index.html\n", argv[2], argv[2]);
    return 0;
}

/* The install prefix: the folder above the one holding this executable. */
static const char *find_prefix(Compiler *cc, const char *argv0)
{
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) {
        if (!realpath(argv0, buf))
            return ".";
        n = (ssize_t)strlen(buf);
    }
    buf[n] = 0;
    char *s = strrchr(buf, '/');
    if (s)
        *s = 0;
    s = strrchr(buf, '/');
    if (s && s != buf)
        *s = 0;
    else
        strcpy(buf, "/");
    return arena_strdup(&cc->arena, buf);
}

static int need(int i, int argc, char **argv)
{
    if (i + 1 >= argc) {
        fprintf(stderr, "neuroc: error: '%s' needs a value (try --help)\n", argv[i]);
        return 0;
    }
    return 1;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "plot") == 0)
        return plot_main(argc, argv);
    Compiler cc;
    compiler_init(&cc);
    Options *o = &cc.opt;
    o->cc_cmd = getenv("CC");
    o->cflags = getenv("NEUROC_CFLAGS") ? with_default_cflags(&cc, getenv("NEUROC_CFLAGS")) : NEUROC_DEFAULT_CFLAGS;
    o->incdirs = xmalloc(sizeof(char *) * (size_t)argc);
    int rc = 2;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            rc = 0;
            goto done;
        } else if (strcmp(a, "--version") == 0) {
            printf("neuroc %s\n", NEUROC_VERSION);
            rc = 0;
            goto done;
        } else if (strcmp(a, "-o") == 0) {
            if (!need(i, argc, argv)) goto done;
            o->output = argv[++i];
        } else if (strcmp(a, "--backend") == 0) {
            if (!need(i, argc, argv)) goto done;
            o->backend = argv[++i];
        } else if (strncmp(a, "--backend=", 10) == 0) {
            o->backend = a + 10;
        } else if (strcmp(a, "--emit-only") == 0) {
            if (!need(i, argc, argv)) goto done;
            o->emit_only = argv[++i];
        } else if (strcmp(a, "-I") == 0) {
            if (!need(i, argc, argv)) goto done;
            o->incdirs[o->nincdirs++] = argv[++i];
        } else if (strncmp(a, "-I", 2) == 0) {
            o->incdirs[o->nincdirs++] = a + 2;
        } else if (strcmp(a, "--dump=tokens") == 0) {
            o->dump = DUMP_TOKENS;
        } else if (strcmp(a, "--dump=ast") == 0) {
            o->dump = DUMP_AST;
        } else if (strcmp(a, "--dump=ir") == 0) {
            o->dump = DUMP_IR;
        } else if (strcmp(a, "--explain") == 0) {
            o->explain = 1;
        } else if (strcmp(a, "--cc") == 0) {
            if (!need(i, argc, argv)) goto done;
            o->cc_cmd = argv[++i];
        } else if (strcmp(a, "--cflags") == 0) {
            if (!need(i, argc, argv)) goto done;
            o->cflags = with_default_cflags(&cc, argv[++i]);
        } else if (strcmp(a, "--gpu-mode") == 0) {
            if (!need(i, argc, argv)) goto done;
            o->gpu_mode = argv[++i];
            if (strcmp(o->gpu_mode, "auto") && strcmp(o->gpu_mode, "block") && strcmp(o->gpu_mode, "launch") &&
                strcmp(o->gpu_mode, "graph") && strcmp(o->gpu_mode, "persistent") && strcmp(o->gpu_mode, "free") &&
                strcmp(o->gpu_mode, "cluster")) {
                fprintf(stderr, "neuroc: error: unknown GPU schedule '%s' (expected auto, block, launch, graph, "
                                "persistent, free or cluster)\n", o->gpu_mode);
                goto done;
            }
        } else if (strcmp(a, "--gpu-arch") == 0) {
            if (!need(i, argc, argv)) goto done;
            o->gpu_arch = argv[++i];
            if (strncmp(o->gpu_arch, "sm_", 3) != 0 && strncmp(o->gpu_arch, "compute_", 8) != 0) {
                fprintf(stderr, "neuroc: error: --gpu-arch takes sm_XX (for example sm_90), not '%s'\n",
                        o->gpu_arch);
                goto done;
            }
        } else if (strcmp(a, "--nvcc") == 0) {
            if (!need(i, argc, argv)) goto done;
            o->nvcc = argv[++i];
        } else if (strcmp(a, "--no-cache") == 0) {
            o->no_cache = 1;
        } else if (strcmp(a, "--mpi") == 0) {
            o->mpi = 1;
        } else if (strcmp(a, "--no-check-finite") == 0) {
            o->no_check = 1;
        } else if (strcmp(a, "--proj-tables=off") == 0 || strcmp(a, "--proj-tables=on") == 0) {
            o->no_proj_tables = a[15] == 'f';
            o->proj_tables_on = a[15] != 'f';
        } else if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
            o->verbose = 1;
        } else if (a[0] == '-' && a[1] != 0) {
            fprintf(stderr, "neuroc: error: unknown option '%s' (try --help)\n", a);
            goto done;
        } else if (o->input) {
            fprintf(stderr, "neuroc: error: more than one input file ('%s' and '%s')\n", o->input, a);
            goto done;
        } else {
            o->input = a;
        }
    }
    if (!o->input) {
        fprintf(stderr, "neuroc: error: no input file\n");
        usage(stderr);
        goto done;
    }
    o->prefix_dir = find_prefix(&cc, argv[0]);
    o->stdlib_dir = arena_printf(&cc.arena, "%s/share/neuroc/stdlib", o->prefix_dir);
    rc = compile_file(&cc);
done:
    compiler_free(&cc);
    return rc;
}
