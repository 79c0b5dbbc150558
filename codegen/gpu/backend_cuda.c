/* backend_cuda.c -- the CUDA back end: the SIMT layer's programs, the device program
 * compiled by nvcc into a fatbin (SASS for --gpu-arch plus PTX) embedded in the host
 * program, which loads it through the CUDA driver API (nrt_gpu.h).
 *
 * nvcc runs with --fmad=false: no contraction into fused multiply-adds, so the device does
 * the same roundings as the C back end.
 */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu.h"

static const SrcLoc NOLOC = {0, 0, 0, 0};

static const SimtTarget target = {"cuda", "NRT_API_CUDA", "", 1};

static int write_out(Compiler *cc, Out *o, const char *path)
{
    int rc = out_write_file(o, path);
    if (rc != 0)
        error_at(cc, NOLOC, "cannot write '%s': %s", path, strerror(errno));
    return rc;
}

/* Write <dir>/<model>.cu (device) and <model>.c (host); the build adds <model>_program.c. */
static int emit_cuda(Compiler *cc, IrModel *m, const BuildOpts *bo)
{
    Out dev = {0}, host = {0};
    int rc = simt_emit_device(cc, m, bo, &target, &dev);
    if (!rc)
        rc = write_out(cc, &dev, arena_printf(&cc->arena, "%s/%s.cu", bo->emit_dir, m->name));
    if (!rc)
        rc = simt_emit_host(cc, m, bo, &target, NULL, &host);
    if (!rc)
        rc = write_out(cc, &host, arena_printf(&cc->arena, "%s/%s.c", bo->emit_dir, m->name));
    out_free(&dev);
    out_free(&host);
    return rc;
}

/* The first GPU's identity: the information file (model, UUID, bus) of the first folder of
 * /proc/driver/nvidia/gpus (named by bus, the order nvidia-smi lists them in;
 * $NEUROC_NVIDIA_PROC names another folder, for the tests); NULL without one. */
static const char *gpu_identity(Compiler *cc)
{
    const char *root = getenv("NEUROC_NVIDIA_PROC");
    DIR *d = opendir(root && *root ? root : (root = "/proc/driver/nvidia/gpus"));
    if (!d)
        return NULL;
    const char *first = NULL;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.' && (!first || strcmp(e->d_name, first) < 0))
            first = arena_strdup(&cc->arena, e->d_name);
    closedir(d);
    FILE *f = first ? fopen(arena_printf(&cc->arena, "%s/%s/information", root, first), "rb") : NULL;
    if (!f)
        return NULL;
    char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    return n ? arena_strndup(&cc->arena, buf, n) : NULL;
}

/* Contract: sm_XY of the first GPU nvidia-smi reports, else "sm_90" (arena-owned). Kept in
 * the cache folder under the GPU's identity: nvidia-smi takes longer than a cached build. */
const char *cuda_default_arch(Compiler *cc)
{
    const char *id = gpu_identity(cc);
    const char *key = id ? arena_printf(&cc->arena, "cuda arch of the GPU %s", id) : NULL;
    const char *memo = key ? cache_memo_get(cc, key) : NULL;
    if (memo && strncmp(memo, "sm_", 3) == 0)
        return memo;
    FILE *p = popen("nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null", "r");
    if (!p)
        return "sm_90";
    char line[64] = "";
    int maj = 0, min = 0;
    int ok = fgets(line, sizeof line, p) && sscanf(line, "%d.%d", &maj, &min) == 2 && maj > 0;
    pclose(p);
    if (!ok)
        return "sm_90";
    const char *arch = arena_printf(&cc->arena, "sm_%d%d", maj, min);
    if (key)
        cache_memo_put(cc, key, arch);
    return arch;
}

static const char *find_nvcc(Compiler *cc, const BuildOpts *bo)
{
    if (bo->nvcc)
        return bo->nvcc;
    const char *e = getenv("NVCC");
    if (e && *e)
        return e;
    const char *path = getenv("PATH");
    for (const char *s = path; s && *s;) {
        const char *c = strchr(s, ':');
        size_t n = c ? (size_t)(c - s) : strlen(s);
        const char *f = arena_printf(&cc->arena, "%.*s/nvcc", (int)n, s);
        if (n && access(f, X_OK) == 0)
            return f;
        s = c ? c + 1 : NULL;
    }
    if (access("/usr/local/cuda/bin/nvcc", X_OK) == 0)
        return "/usr/local/cuda/bin/nvcc";
    return NULL;
}

/* nvcc takes --split-compile (CUDA 12.1 on): asked once per compilation. */
static int nvcc_splits(Compiler *cc, const char *nvcc)
{
    const char *cmd = arena_printf(&cc->arena, "'%s' --version 2>/dev/null", nvcc);
    if (strchr(nvcc, '\''))
        return 0;
    FILE *p = popen(cmd, "r");
    if (!p)
        return 0;
    char line[256];
    int maj = 0, min = 0;
    while (fgets(line, sizeof line, p))
        if (sscanf(line, "Cuda compilation tools, release %d.%d", &maj, &min) == 2)
            break;
    pclose(p);
    return maj > 12 || (maj == 12 && min >= 1);
}

/* <model>_program.c: the fatbin as nc_program[] and nc_program_len, by the assembler's
 * .incbin (a 2 MB fatbin written as a C array took the C compiler 1.5 s). The path is the
 * build folder's (/tmp/neuroc-XXXXXX) and the model's C name: nothing to quote. */
static int write_program(Compiler *cc, const char *path, const char *fatbin)
{
    FILE *f = fopen(fatbin, "rb");
    if (!f || fseek(f, 0, SEEK_END) != 0) {
        error_at(cc, NOLOC, "cannot read '%s': %s", fatbin, strerror(errno));
        if (f)
            fclose(f);
        return -1;
    }
    const long len = ftell(f);
    fclose(f);
    if (strpbrk(fatbin, "\"\\\n") || len <= 0) {
        error_at(cc, NOLOC, "cannot embed '%s' (%s)", fatbin, len <= 0 ? "empty" : "a path .incbin cannot quote");
        return -1;
    }
    Out o = {0};
    out_line(&o, "/* the device program (%s), embedded (generated by neuroc) */", fatbin);
    out_line(&o, "#include <stddef.h>");
    out_line(&o, "__asm__(\".section .rodata\\n.balign 16\\n.globl nc_program\\nnc_program:\\n\"");
    out_line(&o, "        \".incbin \\\"%s\\\"\\n.byte 0\\n.previous\\n\");", fatbin);
    out_line(&o, "const size_t nc_program_len = %ld;", len);
    int rc = out_write_file(&o, path);
    if (rc != 0)
        error_at(cc, NOLOC, "cannot write '%s': %s", path, strerror(errno));
    out_free(&o);
    return rc ? -1 : 0;
}

static int build_cuda(Compiler *cc, IrModel *m, const BuildOpts *bo)
{
    const char *nvcc = find_nvcc(cc, bo);
    if (!nvcc) {
        error_at(cc, NOLOC, "the cuda back end needs nvcc: none on PATH or in /usr/local/cuda/bin "
                            "(give one with --nvcc or $NVCC)");
        return -1;
    }
    const char *arch = bo->gpu_arch ? bo->gpu_arch : cuda_default_arch(cc);
    const char *cu = arena_printf(&cc->arena, "%s/%s.cu", bo->emit_dir, m->name);
    const char *fatbin = arena_printf(&cc->arena, "%s/%s.fatbin", bo->emit_dir, m->name);
    const char *archopt = arena_printf(&cc->arena, "-arch=%s", arch);
    /* --split-compile=0: nvcc optimises the kernels on every core (CUDA 12.1 on) */
    char *argv[] = {(char *)nvcc, (char *)"-fatbin", (char *)"-O3", (char *)"--fmad=false", (char *)"--diag-suppress=177", (char *)archopt,
                    (char *)"-o", (char *)fatbin, (char *)cu, (char *)"--split-compile=0", NULL};
    if (!nvcc_splits(cc, nvcc))
        argv[9] = NULL;
    /* the host program compiles meanwhile: it declares nc_program[], which <model>_program.c
     * defines once the fatbin is there */
    const char *obj = arena_printf(&cc->arena, "%s/%s.o", bo->emit_dir, m->name);
    int dev = cg_spawn(cc, argv, bo->verbose);
    int host = simt_spawn_host(cc, bo, arena_printf(&cc->arena, "%s/%s.c", bo->emit_dir, m->name), obj);
    int rc = cg_wait(dev), rch = cg_wait(host);
    if (rc != 0) {
        error_at(cc, NOLOC, "nvcc failed on the generated device program %s (%s)", cu,
                 rc < 0 ? "could not run it" : "see its messages above");
        return -1;
    }
    if (rch != 0) {
        error_at(cc, NOLOC, "the C compiler '%s' failed on the generated host program (%s)", bo->cc,
                 rch < 0 ? "could not run it" : "see its messages above");
        return -1;
    }
    const char *prog = arena_printf(&cc->arena, "%s/%s_program.c", bo->emit_dir, m->name);
    if (write_program(cc, prog, fatbin))
        return -1;
    return simt_link_host(cc, m, bo, obj, prog);
}

/* The cluster schedule needs a target with thread-block clusters (sm_90 and later) and a
 * model it can run. */
static int check_target_cuda(Compiler *cc, const IrModel *m, const BuildOpts *bo)
{
    if (bo->gpu_mode && strcmp(bo->gpu_mode, "cluster") == 0) {
        const char *why = simt_cluster_why(m, bo->gpu_arch);
        if (why) {
            error_at(cc, NOLOC, "the cluster schedule cannot run this model: %s", why);
            return -1;
        }
    }
    return 0;
}

static void explain_cuda(Compiler *cc, const IrModel *m, const char *arch)
{
    simt_explain(cc, m, arch, &target);
}

static int explain_warn_cuda(Compiler *cc, const IrModel *m, const char *arch, double neurons,
                             double synapses, int nw)
{
    return simt_explain_warn(cc, m, arch, &target, neurons, synapses, nw);
}

const Backend backend_cuda = {
    .name = "cuda",
    .gpu = 1,
    .check = simt_check,
    .arch_default = cuda_default_arch,
    .check_target = check_target_cuda,
    .emit = emit_cuda,
    .build = build_cuda,
    .explain = explain_cuda,
    .explain_warn = explain_warn_cuda,
};
