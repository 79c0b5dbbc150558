/* cg_build.c -- what back ends share around the text: running the toolchain (the C
 * compiler, nvcc), in one process or several side by side.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "codegen.h"

/* Contract: codegen.h. */
int cg_spawn(Compiler *cc, char *const argv[], int verbose)
{
    (void)cc;
    if (verbose) {
        for (int i = 0; argv[i]; i++)
            fprintf(stderr, "%s%s", i ? " " : "", argv[i]);
        fputc('\n', stderr);
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        execvp(argv[0], argv);
        fprintf(stderr, "neuroc: error: cannot run '%s'\n", argv[0]);
        _exit(127);
    }
    return (int)pid;
}

/* Contract: codegen.h. */
int cg_wait(int pid)
{
    int st;
    if (pid < 0 || waitpid((pid_t)pid, &st, 0) < 0)
        return -1;
    if (WIFEXITED(st))
        return WEXITSTATUS(st) == 127 ? -1 : WEXITSTATUS(st);
    return -1;
}

/* Contract: codegen.h. */
int cg_run(Compiler *cc, char *const argv[], int verbose)
{
    return cg_wait(cg_spawn(cc, argv, verbose));
}

/* Contract: codegen.h. */
const char *cg_host_cflags(void)
{
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
    /* FMA: nrt_math.h's fma() in one instruction, vectorised with the rest of a neuron loop,
     * instead of a libm call (correctly rounded too: the same bits, but no vectorising).
     * AVX2: 256-bit integer operations (nrt_math's exponent bits). AVX-512 DQ and VL: the
     * int64 -> double conversion of a neuron's index (gcc vectorises a loop only if every
     * operation has a vector form), kept at 256-bit vectors; with them a big loop (HH's RK4
     * step) vectorises, and its scalar remainder is not vectorised again (compile time). */
    static char flags[160];
    if (!flags[0]) {
        __builtin_cpu_init();
        if (__builtin_cpu_supports("fma"))
            strcat(flags, " -mfma");
        if (__builtin_cpu_supports("avx2"))
            strcat(flags, " -mavx2");
        if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
            __builtin_cpu_supports("avx512vl"))
            strcat(flags, " -mavx512f -mavx512dq -mavx512vl -mprefer-vector-width=256"
                          " --param vect-epilogues-nomask=0");
        if (!flags[0])
            flags[0] = ' ';
    }
    return flags + 1;
#else
    return "";
#endif
}

/* The words of s (split at blanks) into argv; their number. */
static size_t split_blanks(Compiler *cc, const char *s, char **argv)
{
    size_t k = 0;
    while (*s) {
        size_t len = strcspn(s, " \t\n");
        if (len)
            argv[k++] = arena_strndup(&cc->arena, s, len);
        s += len;
        s += strspn(s, " \t\n");
    }
    return k;
}

/* Contract: codegen.h. */
char **cg_cc_argv(Compiler *cc, const BuildOpts *bo, const char *opt, const char *const *args)
{
    /* -O3 and no FP traps: gcc vectorises the C back end's neuron loops in select form
     * (c/c_neuron.c; both sides of a select are computed); neither changes a value (no
     * reassociation; no contraction, said explicitly for compilers that contract by
     * default). The alias checks of a loop over a dozen arrays exceed gcc's default limit
     * of 10. Then the host's flags (cg_host_cflags). */
    const char *const head[] = {bo->cc, "-std=c11", opt, "-fno-trapping-math", "-ffp-contract=off",
                                "--param", "vect-max-version-for-alias-checks=200", "-w"};
    enum { NHEAD = sizeof head / sizeof head[0] };
    const char *host = cg_host_cflags(), *f = bo->cflags ? bo->cflags : "";
    size_t n = 0, k = 0;
    while (args[n])
        n++;
    char **argv = arena_alloc(&cc->arena, sizeof *argv * (NHEAD + (strlen(host) + strlen(f)) / 2 + 2 + n + 1));
    for (; k < NHEAD; k++)
        argv[k] = (char *)head[k];
    k += split_blanks(cc, host, argv + k);
    k += split_blanks(cc, f, argv + k);
    for (size_t i = 0; i < n; i++)
        argv[k++] = (char *)args[i];
    argv[k] = NULL;
    return argv;
}
