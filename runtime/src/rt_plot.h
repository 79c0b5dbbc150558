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

#endif
