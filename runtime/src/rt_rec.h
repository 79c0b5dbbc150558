/* rt_rec.h -- a recording's state (struct nrt_rec), private to the recording writers
 * (rt_record.c, rt_recsyn.c) and the manifest (rt_manifest.c).
 */
#ifndef NRT_REC_H
#define NRT_REC_H

#include "rt_internal.h"

#include <sys/types.h>

enum { FMT_NPY, FMT_CSV, FMT_SINK };
enum { KIND_SPIKES, KIND_STATE, KIND_RATE };

struct nrt_rec {
    nrt_rec *next;
    nrt_ctx *ctx;
    char *path;                   /* path as opened */
    char *file;                   /* name as given (relative to out_dir) */
    char *pop;
    int64_t pop_size;
    int fmt, kind;
    int nvars, nidx;
    char **vars, **units;
    int64_t *idx;
    int64_t every;
    int64_t win_lo, win_hi;       /* nrt_rec_window: the steps written; win_hi 0: all */
    char *synfile;                /* nrt_rec_synapses: the (pre, post) file's name, or NULL */
    int fd;
    unsigned char *buf;
    size_t buf_len, buf_cap;
    size_t row_bytes;             /* npy: bytes per row */
    size_t row_max;               /* csv: longest possible text row */
    int64_t rows_buf;             /* rows waiting in buf */
    int64_t rows_disk;            /* rows in the file (what the npy header says) */
    off_t end;                    /* bytes of valid data in the file */
    char *descr;                  /* npy: the descr text */
    size_t hdr_len;               /* npy: magic + length field + dict, multiple of 64 */
    int npy_major;                /* 1, or 2 for a header longer than 65535 bytes */
    int tdec;                     /* csv: decimals for times, -1: %.17g */
    int err;                      /* errno of a failed write; 0 while healthy */
    const nrt_rec_sink *sink;     /* FMT_SINK: the writer of the rows (rt_hdf5.c) */
    void *sink_h;                 /* its handle; NULL once closed */
    int has_view;                 /* nrt_rec_view: a view of pop ... */
    const char *view;             /* ... its declared name (NULL: an unnamed slice) */
    int64_t view_offset;          /* ... at this offset */
    char *target;                 /* rate: the target's name, its first neuron, its size */
    int64_t offset, size;
    int64_t count;                /* rate: spikes of the bin so far */
};

/* rt_manifest.c: write <out>/manifest.json (via a temporary file and rename) for the run in
 * ctx, with `error` (or NULL) as its "error". */
nrt_status nrt_write_manifest(nrt_ctx *ctx, const char *error);

#endif
