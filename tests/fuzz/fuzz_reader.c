/* fuzz_reader.c -- libFuzzer targets for the runtime's file readers: built eight times,
 * FUZZ_SPIKES (nrt_spike_file), FUZZ_SERIES (nrt_series_file, in float and double),
 * FUZZ_VALUES (nrt_values_file, `--set P.x=@FILE`) or neither
 * (nrt_conn_file, edge lists), with FUZZ_SUFFIX ".csv" or ".npy" choosing the format (the
 * readers pick it by the file name's suffix).
 *
 * The input is the file's bytes, written to a private temporary folder and read back for
 * fixed sizes (128 x 128 neurons; 128 neurons, dt 0.1 ms, 1000 steps). A file must be read or
 * refused with a message; what is read must satisfy the readers' contracts (neurort.h):
 * CSR rows in range and ascending, spike steps in range with distinct ascending neurons,
 * series of at least one row and column whose values are finite, exactly N_VALUES finite
 * values.
 */
#define _DEFAULT_SOURCE
#include "neurort.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N_PRE 128
#define N_POST 128
#define N_STEPS 1000
#define N_VALUES 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char in_dir[] = "/tmp/neuroc-fuzz-XXXXXX", in_path[64];

static void remove_input(void)
{
    unlink(in_path);
    rmdir(in_dir);
}

static const char *input_path(void)
{
    if (!in_path[0]) {
        if (!mkdtemp(in_dir))
            abort();
        snprintf(in_path, sizeof in_path, "%s/in%s", in_dir, FUZZ_SUFFIX);
        atexit(remove_input);
    }
    return in_path;
}

static void check(int ok)
{
    if (!ok)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = input_path();
    FILE *fp = fopen(path, "wb");
    nrt_ctx ctx;
    nrt_status st;
    int64_t i, k;
    if (!fp || fwrite(data, 1, size, fp) != size || fclose(fp) != 0)
        abort();
    memset(&ctx, 0, sizeof ctx);
#if defined(FUZZ_SERIES)
    for (int size4 = 0; size4 < 2; size4++) {
        void *v;
        int64_t rows, cols;
        st = nrt_series_file(&ctx, path, 1000.0, size4 ? 4 : 8, &v, &rows, &cols);
        if (st == NRT_OK) {
            check(rows >= 1 && cols >= 1 && v != NULL);
            for (k = 0; k < rows * cols; k++)
                check(size4 ? isfinite(((float *)v)[k]) : fabs(((double *)v)[k]) <= FLT_MAX);
            nrt_free(v);
        } else {
            check(ctx.errmsg[0] != 0 && v == NULL);
        }
        (void)i;
    }
#elif defined(FUZZ_VALUES)
    double *v;
    st = nrt_values_file(&ctx, path, N_VALUES, &v);
    if (st == NRT_OK) {
        for (i = 0; i < N_VALUES; i++)
            check(v[i] == v[i] && v[i] - v[i] == 0);
        nrt_free(v);
    } else {
        check(ctx.errmsg[0] != 0 && v == NULL);
    }
    (void)k;
#elif defined(FUZZ_SPIKES)
    int64_t *step_ptr, nnz;
    int32_t *idx;
    st = nrt_spike_file(&ctx, path, N_PRE, 0.1, N_STEPS, &step_ptr, &idx, &nnz);
    if (st == NRT_OK) {
        check(step_ptr[0] == 0 && step_ptr[N_STEPS] == nnz && nnz >= 0);
        for (i = 0; i < N_STEPS; i++) {
            check(step_ptr[i] <= step_ptr[i + 1]);
            for (k = step_ptr[i]; k < step_ptr[i + 1]; k++)
                check(idx[k] >= 0 && idx[k] < N_PRE && (k == step_ptr[i] || idx[k - 1] < idx[k]));
        }
        nrt_free(step_ptr);
        nrt_free(idx);
    } else {
        check(ctx.errmsg[0] != 0 && step_ptr == NULL && idx == NULL);
    }
#else
    nrt_csr c;
    double *w, *delay;
    st = nrt_conn_file(&ctx, path, N_PRE, N_POST, 0, &c, &w, &delay);
    if (st == NRT_OK) {
        check(c.n_pre == N_PRE && c.n_post == N_POST && c.row_ptr[0] == 0 &&
              c.row_ptr[N_PRE] == c.nnz);
        for (i = 0; i < N_PRE; i++) {
            check(c.row_ptr[i] <= c.row_ptr[i + 1]);
            for (k = c.row_ptr[i]; k < c.row_ptr[i + 1]; k++)
                check(c.col[k] >= 0 && c.col[k] < N_POST && (k == c.row_ptr[i] || c.col[k - 1] <= c.col[k]));
        }
        for (k = 0; delay && k < c.nnz; k++)
            check(delay[k] >= 0);
        nrt_csr_free(&c);
        nrt_free(w);
        nrt_free(delay);
    } else {
        check(ctx.errmsg[0] != 0 && w == NULL && delay == NULL);
    }
#endif
    return 0;
}
