/* rt_plot.h -- what rt_plot.c (the figures) reads with rt_plot_read.c: manifest.json through a
 * small JSON reader, and the recordings it lists, streamed row by row (.npy, .csv, .h5). */
#ifndef RT_PLOT_H
#define RT_PLOT_H

#include "rt_internal.h"

#include <stdio.h>

enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

typedef struct Json Json;
struct Json {
    int type;
    double num;                   /* J_NUM, J_BOOL (0/1) */
    char *str;                    /* J_STR */
    int n;                        /* J_ARR, J_OBJ: items */
    char **keys;                  /* J_OBJ */
    Json *items;
};

typedef struct JParse {
    const char *s;
    int depth;
} JParse;

/* The rows of a recording, streamed: spikes (step, index) or state rows (t, values). */
typedef struct Reader {
    FILE *f;
    int npy;
    double *ht;                   /* hdf5: every spike's time and id, read at open */
    int64_t *hid;
    int64_t rows;                 /* npy: rows in the header; csv: -1 (unknown) */
    int64_t done;
    size_t row_bytes;             /* npy */
    char *line;                   /* csv: the current line (getline) */
    size_t line_cap;
    nrt_ctx *ctx;
    char *path;
    int bad;                      /* a row that is no spike: errmsg says which */
} Reader;

void pl_json_free(Json *j);
int pl_parse_value(JParse *p, Json *j);
const Json *pl_jget(const Json *o, const char *key);
double pl_jnum(const Json *o, const char *key, double dflt);
const char *pl_jstr(const Json *o, const char *key, const char *dflt);
char *pl_slurp(nrt_ctx *ctx, const char *path, size_t *len);
Reader *pl_rd_open(nrt_ctx *ctx, const char *path, int cols, const char *group);
void pl_rd_close(Reader *r);
int pl_rd_spike(Reader *r, double *t, int64_t *i);
int pl_rd_row(Reader *r, double *vals, int cols);

/* {===== The figures of one folder (rt_plot.c, rt_plot_state.c, rt_plot_sweep.c) ===== */

typedef struct Fig {
    char file[256];
    char caption[512];
} Fig;

typedef struct Plot {
    nrt_ctx *ctx;
    const char *dir;
    const Json *man;
    double dt;                    /* ms */
    int64_t steps;                /* completed steps */
    double T;                     /* simulated ms shown on time axes (>= dt) */
    Fig *figs;
    int nfigs;
    int max_marks;
    char skipped[1024];           /* .h5 recordings this program cannot read */
} Plot;

/* <dir>/<name>, malloc'd (NULL with errmsg). */
char *pl_path_in(const Plot *P, const char *name);
/* Open <dir>/<name>.tmp for writing; finish with pl_fig_close, which renames it to <name>
 * and, with a caption, lists the figure in index.html. */
FILE *pl_fig_open(Plot *P, const char *name);
nrt_status pl_fig_close(Plot *P, FILE *f, const char *name, const char *caption);
/* The figure name <prefix>_<recording file without its extension>.svg (rt_plot.c). */
void pl_fig_name(const Plot *P, char *out, size_t n, const char *prefix, const char *file);
/* A file name as a relative URL in an attribute (percent-encoded). */
void pl_url_text(FILE *f, const char *s);
/* index.html's figures: each of P's figures as a linked image with its caption. */
void pl_index_figures(FILE *f, const Plot *P);
/* <dir>/manifest.json parsed into *man (an object; pl_json_free it); NRT_EINVAL with errmsg
 * (no readable file, or no JSON object). */
nrt_status pl_load_manifest(nrt_ctx *ctx, const char *dir, Json *man);

/* rt_plot_state.c: a state recording as small multiples (a panel per neuron or synapse, up
 * to PL_MAX_CELLS), and for a synapse recording the histograms of its first and last rows. */
#define PL_MAX_CELLS 16
nrt_status pl_fig_state(Plot *P, const Json *rec);
/* rt_plot_state.c: a rate recording (`record rate of T bin B`) as a staircase, rate_<rec>.svg. */
nrt_status pl_fig_rate(Plot *P, const Json *rec);
/* rt_plot_sweep.c: the overview of a folder of instances (a sweep or --instances batch):
 * rates against each swept value and index.html linking every instance. */
nrt_status pl_sweep_overview(Plot *P);

/* ===== The figures of one folder =====} */

#endif
