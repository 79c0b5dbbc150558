/* test_core.c -- nrt_init option parsing (--out, --seed, --quiet, --help, bad options;
 * --device and --list-devices, which only GPU back ends take), the default and nested
 * output folders, nrt_alloc's error text, the memory check (nrt_mem_check), SIGINT handling through nrt_finish
 * ("interrupted"), and the progress and summary text on stderr.
 */
#define _POSIX_C_SOURCE 200809L

#include "neurort.h"
#include "nrt_gpu.h"
#include "tcheck.h"

#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *dir;

static nrt_status init_with(nrt_ctx *c, int argc, const char **argv)
{
    memset(c, 0, sizeof *c);
    c->model = "core";
    c->backend = "c";
    c->default_seed = 77;
    c->dt = 0.1;
    return nrt_init(c, argc, (char **)argv);
}

/* nrt_init with another back end, stdout captured into *text (malloc'd). */
static nrt_status init_backend(nrt_ctx *c, const char *backend, int argc, const char **argv,
                               char **text)
{
    char path[1024];
    int saved, fd;
    nrt_status st;
    FILE *f;
    long n;
    memset(c, 0, sizeof *c);
    c->model = "core";
    c->backend = backend;
    c->default_seed = 77;
    snprintf(path, sizeof path, "%s/stdout.txt", dir);
    fflush(stdout);
    saved = dup(1);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 1);
    close(fd);
    st = nrt_init(c, argc, (char **)argv);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    *text = NULL;
    f = fopen(path, "rb");
    if (f) {
        fseek(f, 0, SEEK_END);
        n = ftell(f);
        fseek(f, 0, SEEK_SET);
        *text = calloc(1, (size_t)n + 1);
        if (fread(*text, 1, (size_t)n, f) != (size_t)n)
            (*text)[0] = '\0';
        fclose(f);
    }
    return st;
}

/* --device and --list-devices */
static void check_devices(const char *out)
{
    nrt_ctx c;
    char *text;
    nrt_status st;
    int n;
    { /* the C back end has no devices; its help does not mention them */
        const char *a[] = {"x", "--out", out, "--device", "1"};
        CHECK(init_with(&c, 5, a) == NRT_EINVAL);
        CHECKF(strcmp(c.errmsg, "option '--device': the C back end has no devices (--device "
                      "and --list-devices are options of CUDA and OpenCL simulators)") == 0,
               "'%s'", c.errmsg);
        const char *b[] = {"x", "--list-devices"};
        CHECK(init_with(&c, 2, b) == NRT_EINVAL);
        CHECKF(strstr(c.errmsg, "option '--list-devices': the C back end has no devices"),
               "'%s'", c.errmsg);
        const char *h[] = {"x", "--help"};
        CHECK(init_backend(&c, "c", 2, h, &text) == NRT_EHELP);
        CHECK(text && strstr(text, "--seed N") && !strstr(text, "--device"));
        free(text);
    }
    { /* GPU back ends: -1 unless given; strict values */
        const char *a[] = {"x", "--out", out, "--quiet"};
        CHECK(init_backend(&c, "opencl", 4, a, &text) == NRT_OK && c.device == -1);
        free(text);
        nrt_finish(&c);
        const char *b[] = {"x", "--out", out, "--device", "3"};
        CHECKF(init_backend(&c, "cuda", 5, b, &text) == NRT_OK && c.device == 3, "%s",
               c.errmsg);
        free(text);
        nrt_finish(&c);
        const char *d[] = {"x", "--out", out, "--device=2147483647"};
        CHECK(init_backend(&c, "opencl", 4, d, &text) == NRT_OK && c.device == 2147483647);
        free(text);
        nrt_finish(&c);
        const char *bad[] = {"-1", "abc", "", "2147483648", "1x"};
        size_t i;
        for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            const char *e[] = {"x", "--out", out, "--device", bad[i]};
            CHECKF(init_backend(&c, "opencl", 5, e, &text) == NRT_EINVAL, "'%s' accepted",
                   bad[i]);
            CHECKF(strstr(c.errmsg, "invalid device '") && strstr(c.errmsg, "--list-devices"),
                   "'%s'", c.errmsg);
            free(text);
        }
        const char *f[] = {"x", "--device"};
        CHECK(init_backend(&c, "cuda", 2, f, &text) == NRT_EINVAL);
        CHECK(strstr(c.errmsg, "option '--device' needs a value") != NULL);
        free(text);
        const char *h[] = {"x", "--help"};
        CHECK(init_backend(&c, "cuda", 2, h, &text) == NRT_EHELP);
        CHECKF(text && strstr(text, "[--device N] [--list-devices]") &&
               strstr(text, "run on CUDA device N of --list-devices") &&
               strstr(text, "$NEUROC_DEVICE"), "'%s'", text ? text : "");
        free(text);
    }
    { /* --list-devices prints the list to stdout (exit 0), or says why it cannot */
        nrt_ctx z;
        const char *a[] = {"x", "--list-devices"};
        memset(&z, 0, sizeof z);
        n = nrt_gpu_count(&z, NRT_API_OPENCL);
        st = init_backend(&c, "opencl", 2, a, &text);
        if (n > 0) {
            CHECKF(st == NRT_EHELP, "%s", c.errmsg);
            CHECKF(text && strstr(text, "OpenCL devices (--device N):\n  0: "), "'%s'",
                   text ? text : "");
        } else {
            CHECK(st == NRT_EDEVICE && c.errmsg[0] != '\0');
        }
        free(text);
        memset(&z, 0, sizeof z);
        n = nrt_gpu_count(&z, NRT_API_CUDA);
        st = init_backend(&c, "cuda", 2, a, &text);
        if (n > 0) {
            CHECKF(st == NRT_EHELP, "%s", c.errmsg);
            CHECK(text && strstr(text, "CUDA devices (--device N):\n  0: "));
        } else {
            CHECKF(st == NRT_EDEVICE && strcmp(c.errmsg, z.errmsg) == 0, "'%s' / '%s'",
                   c.errmsg, z.errmsg);
        }
        free(text);
    }
}

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *b;
    long n;
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    b = calloc(1, (size_t)n + 1);
    if (fread(b, 1, (size_t)n, f) != (size_t)n)
        b[0] = 0;
    fclose(f);
    return b;
}

int main(int argc, char **argv)
{
    nrt_ctx c;
    char out[1024], prog[1024], want[1024], path[1024];
    int saved, fd;
    char *text;
    void *p;

    if (argc < 2)
        return 2;
    dir = argv[1];
    snprintf(out, sizeof out, "%s/a/b/c", dir);
    {
        const char *a[] = {"x", "--out", out, "--quiet"};
        CHECKF(init_with(&c, 4, a) == NRT_OK, "%s", c.errmsg);
        CHECK(is_dir(out) && c.quiet && c.seed == 77 && strcmp(c.out_dir, out) == 0);
        CHECK(nrt_finish(&c) == NRT_OK);
    }
    {   /* the memory check: within 90% of the device, over it, and the procedural hint */
        const char *a[] = {"x", "--out", out, "--quiet"};
        CHECKF(init_with(&c, 4, a) == NRT_OK, "%s", c.errmsg);
        nrt_mem_add(&c, "population P", -1, 1000.0);
        nrt_mem_add(&c, "projection EE", 500.0, 6000.0);
        CHECK(nrt_mem_check(&c, 10000.0) == NRT_OK);
        CHECK(nrt_mem_check(&c, 7000.0) == NRT_EDEVICE);
        CHECKF(strstr(c.errmsg, "(largest: projection EE; see --dry-run); a static projection with "
                                "'storage = procedural' keeps no synapses") != NULL, "'%s'", c.errmsg);
        CHECK(nrt_finish(&c) == NRT_OK);
        CHECKF(init_with(&c, 4, a) == NRT_OK, "%s", c.errmsg);
        nrt_mem_add(&c, "population P", -1, 6000.0);
        nrt_mem_add(&c, "projection EE (procedural)", 500.0, 1000.0);
        CHECK(nrt_mem_check(&c, 7000.0) == NRT_EDEVICE);
        CHECKF(strstr(c.errmsg, "(largest: population P; see --dry-run)") != NULL &&
               strstr(c.errmsg, "procedural") == NULL, "'%s'", c.errmsg);
        CHECK(nrt_finish(&c) == NRT_OK);
    }
    {
        const char *a[] = {"x", "--x"};
        CHECK(init_with(&c, 2, a) == NRT_EINVAL);
        CHECKF(strcmp(c.errmsg, "unknown option '--x' (try --help)") == 0, "'%s'", c.errmsg);
    }
    {
        const char *bad[] = {"12a", "-1", "", "18446744073709551616", " 5", "0x10"};
        size_t i;
        for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            const char *a[] = {"x", "--out", out, "--seed", bad[i]};
            CHECKF(init_with(&c, 5, a) == NRT_EINVAL, "seed '%s' accepted", bad[i]);
            CHECK(strstr(c.errmsg, "seed") != NULL);
        }
    }
    {
        const char *a[] = {"x", "--out", out, "--seed=18446744073709551615"};
        CHECK(init_with(&c, 4, a) == NRT_OK && c.seed == UINT64_MAX);
        nrt_finish(&c);
    }
    {
        const char *a[] = {"x", "--out", out, "--seed", "123"};
        CHECK(init_with(&c, 5, a) == NRT_OK && c.seed == 123 && !c.quiet);
        nrt_finish(&c);
    }
    {
        const char *a[] = {"x", "--seed"};
        CHECK(init_with(&c, 2, a) == NRT_EINVAL && strstr(c.errmsg, "--seed"));
        const char *b[] = {"x", "stray"};
        CHECK(init_with(&c, 2, b) == NRT_EINVAL && strstr(c.errmsg, "stray"));
    }
    {
        const char *a[] = {"x", "--quiet", "-h"};
        fflush(stdout);
        CHECK(init_with(&c, 3, a) == NRT_EHELP);
    }
    check_devices(out);
    { /* default: <dir of argv[0]>/<model>_out */
        snprintf(prog, sizeof prog, "%s/bin/prog", dir);
        snprintf(want, sizeof want, "%s/bin/core_out", dir);
        const char *a[] = {prog, "--quiet"};
        CHECKF(init_with(&c, 2, a) == NRT_OK, "%s", c.errmsg);
        CHECKF(c.out_dir && strcmp(c.out_dir, want) == 0, "'%s'", c.out_dir);
        CHECK(is_dir(want));
        nrt_finish(&c);
    }
    { /* a folder that cannot be created */
        FILE *f;
        snprintf(path, sizeof path, "%s/plainfile", dir);
        f = fopen(path, "w");
        if (f)
            fclose(f);
        snprintf(out, sizeof out, "%s/plainfile/sub", dir);
        const char *a[] = {"x", "--out", out};
        CHECK(init_with(&c, 3, a) == NRT_EIO);
        CHECKF(strstr(c.errmsg, out) != NULL, "'%s'", c.errmsg);
    }
    { /* allocation failure text */
        nrt_ctx z;
        memset(&z, 0, sizeof z);
        p = nrt_alloc(&z, SIZE_MAX / 2, "the big table");
        CHECK(p == NULL);
        CHECKF(strstr(z.errmsg, "out of memory allocating the big table (") != NULL, "'%s'",
               z.errmsg);
        p = nrt_alloc(&z, 100, "small");
        CHECK(p != NULL && ((char *)p)[99] == 0);
        nrt_free(p);
        nrt_free(NULL);
    }
    { /* SIGINT sets stop_requested; the manifest says interrupted; summary on stderr */
        snprintf(out, sizeof out, "%s/sig", dir);
        const char *a[] = {"x", "--out", out};
        CHECK(init_with(&c, 3, a) == NRT_OK);
        CHECK(nrt_pop_register(&c, "exc", 100) == 0);
        CHECK(nrt_pop_register(&c, "inhibitory_cells", 25) == 1);
        c.total_steps = 1000;
        raise(SIGINT);
        CHECK(c.stop_requested == SIGINT); /* the signal, named in the manifest */
        c.step = 400;
        c.pops[0].spikes = 200;
        c.t_simulate = 0.08;
        /* capture stderr */
        snprintf(path, sizeof path, "%s/stderr.txt", dir);
        fflush(stderr);
        saved = dup(2);
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, 2);
        close(fd);
        c.t0 = nrt_now() - 10.0;
        c.t_last_progress = 0;
        nrt_progress(&c); /* first call: starts the RTF clock and prints */
        c.step = 500;
        nrt_progress(&c); /* within 1 s of the last one: silent */
        nrt_report(&c);
        fflush(stderr);
        dup2(saved, 2);
        close(saved);
        CHECK(nrt_finish(&c) == NRT_OK && c.interrupted);
        text = read_text(path);
        CHECK(text != NULL);
        if (text) {
            fputs(text, stderr);
            CHECK(strstr(text, " 40.0%") != NULL);
            CHECK(strstr(text, " 50.0%") == NULL);
            CHECK(strstr(text, "inhibitory_cells") != NULL);
            CHECK(strstr(text, "40.00") != NULL); /* 200 spikes / 100 / 0.05 s = 40 Hz */
            CHECK(strstr(text, "RTF 1.6") != NULL);
            CHECK(strstr(text, out) != NULL);
            free(text);
        }
        snprintf(path, sizeof path, "%s/sig/manifest.json", dir);
        text = read_text(path);
        CHECK(text && strstr(text, "\"interrupted\": true") &&
              strstr(text, "\"completed_steps\": 500") &&
              strstr(text, "\"signal\": \"SIGINT\"") && strstr(text, "\"error\": null"));
        free(text);
        /* handlers restored: SIGINT is back to the default (not raised here) */
        {
            struct sigaction sa;
            sigaction(SIGINT, NULL, &sa);
            CHECK(sa.sa_handler == SIG_DFL);
        }
    }
    nrt_ctx_free(&c);
    return tcheck_done("test_core");
}
