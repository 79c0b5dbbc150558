/* rt_internal.h -- helpers shared by the runtime's source files; not installed.
 *
 * Error messages go to ctx->errmsg through nrt_seterr; nrt_signals_restore undoes the
 * signal handlers nrt_init installed (called from nrt_finish); nrt_conn_check validates a
 * connectivity spec for both the host and the device builds; then the interfaces between
 * the recording, HDF5, plotting and SVG files.
 */
#ifndef RT_INTERNAL_H
#define RT_INTERNAL_H

#include "neurort.h"

#include <stdio.h>

#if defined(__GNUC__)
#define NRT_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define NRT_PRINTF(a, b)
#endif

/* Make room for n + 1 entries of `size` bytes in the table *p of *cap entries (doubling it
 * as often as needed, the new entries zeroed): 0, or -1 with *p unchanged when memory runs out. */
int nrt_grow(void **p, int *cap, int n, size_t size);

/* Format a message into ctx->errmsg (truncated to fit); does nothing when ctx is NULL. */
void nrt_seterr(nrt_ctx *ctx, const char *fmt, ...) NRT_PRINTF(2, 3);

/* The checks of a connectivity spec made before building it (rt_conn.c), shared by the host
 * and device builds: NRT_EINVAL / NRT_ENOMEM with errmsg, else NRT_OK. */
nrt_status nrt_conn_check(nrt_ctx *ctx, const nrt_conn_spec *s);

/* Restore the SIGINT/SIGTERM actions that were in place before nrt_init. */
void nrt_signals_restore(nrt_ctx *ctx);

/* Injected faults (rt_fault.c, state in ctx->fault): read the environment at nrt_init; the
 * bytes a recording may still add to its file of the next n; the signal raised when
 * construction starts. */
nrt_status nrt_fault_init(nrt_ctx *ctx);
size_t nrt_fault_write(nrt_ctx *ctx, size_t n);
void nrt_fault_build(nrt_ctx *ctx);
/* The threads of the running pool (rt_pool.c): 0 or 1 where none was started (a test) or it
 * has one thread. (GPU programs start one too, but build their connectivity on the device.) */
int nrt_pool_size(void);
/* The jobs nrt_pool_run has handed to the pool's workers since nrt_pool_start (--bench's
 * parallel_regions). */
int64_t nrt_pool_regions(void);
/* The work of a state row's .npy value against a .csv value's, for nrt_pool_run: its 8 bytes
 * take ~6 ns, the text ~115 ns (development machine), so a .npy row is handed to the pool
 * from 2,048 x NRT_NPY_COST values on (a shorter one took longer on 2 threads than on one). */
enum { NRT_NPY_COST = 8 };
/* JSON text of a string (quoted, escaped) and of a number (shortest exact; null if not
 * finite), as manifest.json writes them (rt_record.c). */
void nrt_json_str(FILE *f, const char *s);
/* The (pre, post) indices of the synapses sel[0..n) of c to `path`, a .npy of dtype
 * [('pre','<i4'),('post','<i4')] (rt_recsyn.c); NRT_EIO with errmsg, and no file, on failure. */
nrt_status nrt_syn_pairs_write(nrt_ctx *ctx, const char *path, const nrt_csr *c, const int64_t *sel,
                               int64_t n);
void nrt_json_num(FILE *f, double x);
/* Close f, written as `tmp`, and rename it to `path`, so that `path` is either the old file or
 * the whole new one; on any failure remove tmp and return NRT_EIO with errmsg naming the file
 * (rt_record.c). */
nrt_status nrt_commit_file(nrt_ctx *ctx, FILE *f, const char *tmp, const char *path);

/* The data files' readers (rt_edges.c), for rt_series.c and rt_values.c: the whole file in memory
 * (NUL-terminated; NULL with errmsg "PATH: cannot ..."); a .csv holding a NUL byte refused
 * (-1 with "FILE:LINE: ..."); the header of a .npy holding a plain 1-D or 2-D array of
 * numbers (NRT_EINVAL with "FILE:LINE: ...", the data checked to be all there), and one
 * little-endian element of it as a double. */
typedef struct nrt_npy_array {
    int64_t rows, cols;           /* cols 1 for a 1-D array */
    int ndim;
    char kind;                    /* 'i', 'u' or 'f' */
    int size;                     /* bytes */
    size_t data;                  /* where the elements start, C order */
} nrt_npy_array;
char *nrt_file_slurp(nrt_ctx *ctx, const char *path, size_t *len, const char *what);
int nrt_csv_no_nul(nrt_ctx *ctx, const char *path, const char *text, size_t len);
nrt_status nrt_npy_plain(nrt_ctx *ctx, const char *path, const unsigned char *buf, size_t len,
                         nrt_npy_array *a);
double nrt_npy_value(const unsigned char *p, char kind, int size);
/* A .csv line split at commas into at most 8 trimmed fields (returns how many there were);
 * a decimal number as the language writes it (not C's hexadecimal floats): 1, else 0. */
int nrt_csv_split(char *line, char **f);
int nrt_csv_number(const char *s, double *v);

/* --instances B > 1 (rt_instances.c), called at the end of nrt_init: runs the batch and
 * returns NRT_EHELP in the parent (ctx->exit_status set; <out>/manifest.json lists the
 * instances) or an error with errmsg; returns NRT_OK in each instance's child process,
 * with ctx->seed, ctx->instance and ctx->out_dir set to that instance's. */
nrt_status nrt_instances_run(nrt_ctx *ctx);
/* In an instance's child, send its counts and timings to the parent (nrt_finish). */
void nrt_instance_report(const nrt_ctx *ctx, nrt_status finish_status);
/* snprintf(out, n, "%.9g", x) and snprintf(out, n, "%.*f", decimals, x), the same bytes and
 * return value, several times faster (rt_fmt.c; the CSV recordings). */
int nrt_fmt_g9(char *out, size_t n, double x);
int nrt_fmt_fixed(char *out, size_t n, double x, int decimals);
/* mkdir -p (rt_core.c): create every missing component of dir. 0, or -1 with errno set. */
int nrt_make_dirs(const char *dir);

/* `--set P.x=EXPR` (rt_expr.c): EXPR's dimension into dim; a constant (no `i`): *is_const = 1
 * and its value (internal units, double, as the compiler folds it) in out[0]; else its value
 * for i = 0 .. n-1 into out, computed as the generated code computes the same initialiser in
 * the model's precision (dbl: double, else float). 0 with a message in err on a malformed
 * expression, a wrong dimension inside it or a division by zero. */
int nrt_expr_eval(const char *text, double dt, int dbl, int64_t n, int *dim, int *is_const,
                  double *out, char *err, size_t errn);
/* A run-time parameter's value in the unit the model declared (rt_set.c), that unit in *unit. */
double nrt_param_declared(const nrt_param *p, const char **unit);
/* --sweep grids (rt_set.c): value k of sweep i in its parameter's declared unit into *v and
 * the parameter's name into *name; and instance b's index into sweep i's values. */
void nrt_sweep_value(nrt_ctx *ctx, int i, int64_t k, double *v, const char **name);
int64_t nrt_sweep_index(const nrt_ctx *ctx, int64_t b, int i);

/* --checkpoint-at and --resume (rt_ckpt.c): see their contracts there. */
int nrt_ckpt_parse_at(nrt_ctx *ctx, const char *s, int64_t *step);
int nrt_ckpt_open(nrt_ctx *ctx, const char *dir, int seed_given);

/* --- rt_record.c, for rt_hdf5.c: spike recordings whose rows go to a writer --- */

typedef struct nrt_rec_sink {
    const char *format;           /* the manifest's "format" ("hdf5") */
    const char *group_prefix;     /* the manifest's "group" is this + the population */
    /* append n rows (t '<f8', i '<i4': 12 bytes each, little-endian); NRT_OK or errmsg */
    nrt_status (*write)(nrt_ctx *ctx, void *h, const unsigned char *rows, int64_t n);
    /* flush and free h; NRT_OK or errmsg */
    nrt_status (*close)(nrt_ctx *ctx, void *h);
} nrt_rec_sink;

/* A spike recording named `file` (in the manifest) whose buffered rows go to sink->write
 * with handle h (closed by nrt_finish, or at once on failure). NULL with errmsg. */
nrt_rec *nrt_rec_spikes_sink(nrt_ctx *ctx, const char *file, const char *pop, int64_t pop_size,
                             const nrt_rec_sink *sink, void *h);

/* --- rt_recplan.c, for nrt_mem_check --- */

/* Before the run: NRT_EIO with errmsg when the state and rate recordings of the plan
 * (nrt_rec_plan) need more than the output folder's free space (unless --ignore-free-space);
 * a warning on stderr when all of them pass --max-record-size. NRT_OK with --dry-run. */
nrt_status nrt_rec_plan_check(nrt_ctx *ctx);
/* --dry-run: the recordings, their sizes and how each is known, the total, the free space. */
void nrt_rec_plan_print(nrt_ctx *ctx);

/* --- rt_hdf5.c, for rt_plot.c --- */

/* The spikes of the SONATA group `group` ("/spikes/P") of the HDF5 file path: n times (ms)
 * and node ids, malloc'd (the caller frees both). NRT_EINVAL with errmsg. */
nrt_status nrt_h5_read_spikes(nrt_ctx *ctx, const char *path, const char *group, double **t,
                              int64_t **ids, int64_t *n);

/* --- rt_plot_sweep.c, for rt_instances.c --- */

/* Unless quiet, print to stderr the rate of every population and declared view in each of
 * the n instances of folder dir (read from <dir>/instance_<b>/manifest.json; "-" where an
 * instance wrote none or a count is unknown). */
void nrt_instances_rates(nrt_ctx *ctx, const char *dir, int64_t n);

/* --- rt_svg.c: the drawing layer of rt_plot.c --- */

/* A panel: data [xlo, xhi] x [ylo, yhi] drawn in the pixel rectangle (x, y, w, h). */
typedef struct nrt_panel {
    double x, y, w, h;            /* pixels; y is the top edge */
    double xlo, xhi, ylo, yhi;    /* data range (non-empty) */
} nrt_panel;

double nrt_nice(double x, int round);
const char *nrt_svg_color(int k);
void nrt_svg_text(FILE *f, const char *s);
void nrt_svg_begin(FILE *f, int w, int h, const char *title);
void nrt_svg_end(FILE *f);
double nrt_svg_px(const nrt_panel *p, double x);
double nrt_svg_py(const nrt_panel *p, double y);
void nrt_svg_axes(FILE *f, const nrt_panel *p, const char *xlabel, const char *ylabel,
                  int integer_y);
void nrt_svg_axes_n(FILE *f, const nrt_panel *p, const char *xlabel, const char *ylabel,
                    int integer_y, int xwant, int ywant);
/* Pixels right of a panel that its legend takes (nrt_svg_legend: 36 characters). */
#define NRT_LEGEND_W 280
void nrt_svg_legend(FILE *f, const nrt_panel *p, int n, const char *const *labels);
void nrt_svg_legend_c(FILE *f, const nrt_panel *p, int n, const char *const *labels,
                      const char *const *colors);
void nrt_svg_note(FILE *f, double x, double y, const char *text);

#endif
