/* simt_table.c -- table mode: the kernels of a model whose arguments are too many for a
 * device take the table of them instead (docs/architecture.md, "Table mode").
 *
 * Every model kernel takes every buffer and scalar (NC_ARGS, 8 bytes each). Devices accept
 * a limited argument space: every OpenCL device at least 1,024 bytes
 * (CL_DEVICE_MAX_PARAMETER_SIZE; PoCL exactly that), CUDA 4,096. A program whose arguments
 * need more is written in table mode, decided at compile time, so that every other program
 * is the text it always was:
 *   device  a model kernel takes NC_KARGS, the table nc_argt of one 64-bit word per argument,
 *           and its first line NC_UNPACK declares the arguments as locals of their names; the
 *           phases it calls take NC_ARGS as before. CUDA: a buffer's word is its device
 *           address. OpenCL 1.2 has no device addresses: every buffer is a range of one
 *           buffer, the arena (nrt_gpu_arena), passed as nc_arena; its word is its offset.
 *   host    bind() writes the table where it changed (nc_args_row, on the compute queue in
 *           order with the launches) and binds it (and the arena) as the kernel's first
 *           arguments; NC_NARGS counts those, NC_NTAB the table's words.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <string.h>

#include "simt_priv.h"

static int cuda(const Simt *S)
{
    return strcmp(S->t->name, "cuda") == 0;
}

/* The kernel argument space below which the target passes arguments as lists: CUDA's 4,096
 * bytes; OpenCL's least, 1,024 bytes (CL_DEVICE_MAX_PARAMETER_SIZE: PoCL exactly that, NVIDIA
 * 4,352), since the program must build on every device the simulator may meet. */
static int64_t param_space(const SimtTarget *t)
{
    return strcmp(t->name, "cuda") == 0 ? 4096 : 1024;
}

int simt_table_needed(const Simt *S)
{
    return (int64_t)S->nargs * 8 > param_space(S->t);
}

int simt_table_kargs(const Simt *S)
{
    return cuda(S) ? 1 : 2;
}

void simt_kernel_open(Out *o, const Simt *S, const char *fmt, ...)
{
    StrBuf b = {0};
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(&b, fmt, ap);
    va_end(ap);
    const char *at = S->table ? strstr(b.s, "NC_ARGS") : NULL;
    if (at) {
        out_open(o, "%.*sNC_KARGS%s", (int)(at - b.s), b.s, at + strlen("NC_ARGS"));
        out_line(o, "NC_UNPACK;");
    } else {
        out_open(o, "%s", b.s);
    }
    sb_free(&b);
}

void simt_table_device(Out *o, const Simt *S)
{
    StrBuf un = {0};
    for (int i = 0; i < S->nargs; i++) {
        const Arg *a = &S->args[i];
        if (a->kind == ARG_MEM)
            sb_printf(&un, "%sNC_G %s *%s = (NC_G %s *)NC_ARGP(nc_argt[%d])", i ? "; " : "", a->type, a->name,
                      a->type, i);
        else
            sb_printf(&un, "%s%s %s = (%s)nc_argt[%d]", i ? "; " : "", a->type, a->name, a->type, i);
    }
    out_line(o, "/* table mode: %d arguments (%d bytes) are more than every device takes (%d bytes), so the",
             S->nargs, S->nargs * 8, (int)param_space(S->t));
    out_line(o, " * kernels take the table of them (nc_argt: one 64-bit word each) and unpack it */");
    if (cuda(S)) {
        out_line(o, "#define NC_KARGS const int64_t *nc_argt");
        out_line(o, "#define NC_ARGP(w) (uintptr_t)(w)");
    } else {
        out_line(o, "#define NC_KARGS __global uchar *nc_arena, __global const long *nc_argt");
        out_line(o, "#define NC_ARGP(w) (nc_arena + (w)) /* a buffer's word: its offset in the arena */");
    }
    out_line(o, "#define NC_UNPACK %s", un.s);
    sb_free(&un);
}

void simt_table_host(Out *o, const Simt *S)
{
    out_line(o, "static nrt_dmem nc_argt; /* the table of the kernels' arguments (simt_table.c) */");
    out_line(o, "static int64_t nc_argw[NC_NTAB], nc_argn[NC_NTAB]; /* as last written; the current run's */");
    out_line(o, "static int nc_argw_ok;");
    out_open(o, "static void nc_args_row(int64_t *w)");
    for (int i = 0; i < S->nargs; i++) {
        const Arg *a = &S->args[i];
        if (a->kind == ARG_MEM)
            out_line(o, "w[%d] = nrt_gpu_mem_word(gpu, %s.h ? %s : nc_dummy);", i, a->name, a->name);
        else
            out_line(o, "w[%d] = (int64_t)%s;", i, a->name);
    }
    out_close(o);
    out_open(o, "static int bind(nrt_kernel *k)");
    out_line(o, "if (!k) return 0;");
    out_line(o, "nc_args_row(nc_argn);");
    out_open(o, "if (!nc_argw_ok || memcmp(nc_argn, nc_argw, sizeof nc_argw) != 0)");
    out_line(o, "if (nrt_gpu_write(gpu, nc_argt, 0, nc_argn, sizeof nc_argn) != NRT_OK) return -1;");
    out_line(o, "memcpy(nc_argw, nc_argn, sizeof nc_argw);");
    out_line(o, "nc_argw_ok = 1;");
    out_close(o);
    if (cuda(S))
        out_line(o, "return nrt_gpu_arg_mem(k, 0, nc_argt) != NRT_OK ? -1 : 0;");
    else
        out_line(o, "return nrt_gpu_arg_arena(k, 0) != NRT_OK || nrt_gpu_arg_mem(k, 1, nc_argt) != NRT_OK ? -1 : 0;");
    out_close(o);
}
