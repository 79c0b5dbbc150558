/* backend_opencl.c -- the OpenCL back end: the SIMT layer's programs, the device program
 * embedded as source text and built by the OpenCL driver when the simulator starts.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "gpu.h"

static const SrcLoc NOLOC = {0, 0, 0, 0};

static const SimtTarget target = {
    "opencl", "NRT_API_OPENCL", "-cl-std=CL1.2 -cl-fp32-correctly-rounded-divide-sqrt", 0,
};

static int write_out(Compiler *cc, Out *o, const char *path)
{
    int rc = out_write_file(o, path);
    if (rc != 0)
        error_at(cc, NOLOC, "cannot write '%s': %s", path, strerror(errno));
    return rc;
}

/* Write <dir>/<model>.cl, <model>_program.h (the same text, embedded) and <model>.c. */
static int emit_opencl(Compiler *cc, IrModel *m, const BuildOpts *bo)
{
    Out dev = {0}, host = {0};
    int rc = simt_emit_device(cc, m, bo, &target, &dev);
    if (!rc) {
        const char *hdr = arena_printf(&cc->arena, "%s_program.h", m->name);
        rc = simt_write_program_header(cc, arena_printf(&cc->arena, "%s/%s", bo->emit_dir, hdr),
                                       (const unsigned char *)dev.buf.s, dev.buf.len);
        if (!rc)
            rc = write_out(cc, &dev, arena_printf(&cc->arena, "%s/%s.cl", bo->emit_dir, m->name));
        if (!rc)
            rc = simt_emit_host(cc, m, bo, &target, hdr, &host);
        if (!rc)
            rc = write_out(cc, &host, arena_printf(&cc->arena, "%s/%s.c", bo->emit_dir, m->name));
    }
    out_free(&dev);
    out_free(&host);
    return rc;
}

static int build_opencl(Compiler *cc, IrModel *m, const BuildOpts *bo)
{
    return simt_link_host(cc, m, bo, arena_printf(&cc->arena, "%s/%s.c", bo->emit_dir, m->name), NULL);
}

/* OpenCL has no graphs, cooperative launches or thread-block clusters. */
static int check_opencl(Compiler *cc, const IrModel *m, const Options *o)
{
    if (o->gpu_mode && (strcmp(o->gpu_mode, "graph") == 0 || strcmp(o->gpu_mode, "persistent") == 0 ||
                        strcmp(o->gpu_mode, "cluster") == 0)) {
        error_at(cc, NOLOC, "the %s schedule needs CUDA (OpenCL has block and launch)", o->gpu_mode);
        return -1;
    }
    return simt_check(cc, m, o);
}

static void explain_opencl(Compiler *cc, const IrModel *m, const char *arch)
{
    simt_explain(cc, m, arch, &target);
}

static int explain_warn_opencl(Compiler *cc, const IrModel *m, const char *arch, double neurons,
                               double synapses, int nw)
{
    return simt_explain_warn(cc, m, arch, &target, neurons, synapses, nw);
}

const Backend backend_opencl = {
    .name = "opencl",
    .gpu = 1,
    .check = check_opencl,
    .emit = emit_opencl,
    .build = build_opencl,
    .explain = explain_opencl,
    .explain_warn = explain_warn_opencl,
};
