/* backend_cuda.c -- the CUDA back end: the SIMT layer's programs, the device program
 * compiled by nvcc into a fatbin (SASS for --gpu-arch plus PTX) embedded in the host
 * program, which loads it through the CUDA driver API (nrt_gpu.h).
 *
 * nvcc runs with --fmad=false: no contraction into fused multiply-adds, so the device does
 * the same roundings as the C back end.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codegen.h"

static const SrcLoc NOLOC = {0, 0, 0, 0};

static const SimtTarget target = {"cuda", "NRT_API_CUDA", "", 1};

static int write_out(Compiler *cc, Out *o, const char *path)
{
    int rc = out_write_file(o, path);
    if (rc != 0)
        error_at(cc, NOLOC, "cannot write '%s': %s", path, strerror(errno));
    return rc;
}

/* Write <dir>/<model>.cu (device) and <model>.c (host); the build adds <model>_program.h. */
static int emit_cuda(Compiler *cc, IrModel *m, const BuildOpts *bo)
{
    Out dev = {0}, host = {0};
    int rc = simt_emit_device(cc, m, bo, &target, &dev);
    if (!rc)
        rc = write_out(cc, &dev, arena_printf(&cc->arena, "%s/%s.cu", bo->emit_dir, m->name));
    if (!rc)
        rc = simt_emit_host(cc, m, bo, &target, arena_printf(&cc->arena, "%s_program.h", m->name), &host);
    if (!rc)
        rc = write_out(cc, &host, arena_printf(&cc->arena, "%s/%s.c", bo->emit_dir, m->name));
    out_free(&dev);
    out_free(&host);
    return rc;
}

/* Contract: sm_XY of the first GPU nvidia-smi reports, else "sm_90" (arena-owned). */
const char *cuda_default_arch(Compiler *cc)
{
    FILE *p = popen("nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null", "r");
    if (!p)
        return "sm_90";
    char line[64] = "";
    int maj = 0, min = 0;
    int ok = fgets(line, sizeof line, p) && sscanf(line, "%d.%d", &maj, &min) == 2 && maj > 0;
    pclose(p);
    return ok ? arena_printf(&cc->arena, "sm_%d%d", maj, min) : "sm_90";
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
    char *argv[] = {(char *)nvcc, (char *)"-fatbin", (char *)"-O3", (char *)"--fmad=false", (char *)"--diag-suppress=177", (char *)archopt,
                    (char *)"-o", (char *)fatbin, (char *)cu, NULL};
    int rc = cg_run(cc, argv, bo->verbose);
    if (rc != 0) {
        error_at(cc, NOLOC, "nvcc failed on the generated device program %s (%s)", cu,
                 rc < 0 ? "could not run it" : "see its messages above");
        return -1;
    }
    FILE *f = fopen(fatbin, "rb");
    if (!f) {
        error_at(cc, NOLOC, "cannot read '%s': %s", fatbin, strerror(errno));
        return -1;
    }
    StrBuf img = {0};
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        sb_putn(&img, buf, n);
    fclose(f);
    rc = simt_write_program_header(cc, arena_printf(&cc->arena, "%s/%s_program.h", bo->emit_dir, m->name),
                                   (const unsigned char *)img.s, img.len);
    sb_free(&img);
    if (rc)
        return -1;
    return simt_build_host(cc, m, bo, arena_printf(&cc->arena, "%s/%s.c", bo->emit_dir, m->name));
}

const Backend backend_cuda = {"cuda", emit_cuda, build_cuda};
