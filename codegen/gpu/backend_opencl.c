/* backend_opencl.c -- the OpenCL back end: the SIMT layer's programs, the device program
 * embedded as source text and built by the OpenCL driver when the simulator starts.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "codegen.h"

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

const Backend backend_opencl = {"opencl", emit_opencl, build_opencl};
