/* rt_hdf5.c -- spike recordings as SONATA spike files (HDF5), `record spikes ... to "x.h5"`.
 *
 * Built only when CMake finds libhdf5; only simulators with an .h5 recording reference
 * nrt_rec_spikes_h5, so only they pull this file and link libhdf5. Buffering and the manifest
 * are rt_record.c's (nrt_rec_spikes_sink); this file appends each flushed buffer to
 *   /spikes/<population>/timestamps  float64, attribute units = "ms"
 *   /spikes/<population>/node_ids    uint64
 * (chunked, growing datasets), with the group attribute sorting = by_time (the SONATA enum
 * none = 0, by_id = 1, by_time = 2), and flushes the file after each append. nrt_plot reads
 * such files back through nrt_h5_read_spikes (a weak reference in rt_plot.c: present in
 * programs that link this file, the simulators with .h5 recordings and neuroc).
 */
#define _POSIX_C_SOURCE 200809L

#include "rt_internal.h"

#include <hdf5.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK 65536

typedef struct H5Spikes {
    hid_t file, group, ts, ids;
    hsize_t n;                    /* rows written */
    char path[4200];
} H5Spikes;

static nrt_status h5_close(nrt_ctx *ctx, void *hv)
{
    H5Spikes *h = hv;
    herr_t e = 0;
    if (!h)
        return NRT_OK;
    if (h->ids >= 0)
        e |= H5Dclose(h->ids);
    if (h->ts >= 0)
        e |= H5Dclose(h->ts);
    if (h->group >= 0)
        e |= H5Gclose(h->group);
    if (h->file >= 0)
        e |= H5Fclose(h->file);
    if (e < 0)
        nrt_seterr(ctx, "cannot close the HDF5 file '%s'", h->path);
    free(h);
    return e < 0 ? NRT_EIO : NRT_OK;
}

/* Append n values of memory type mt from buf to the 1-D dataset d of n0 rows. */
static herr_t append(hid_t d, hid_t mt, hsize_t n0, hsize_t n, const void *buf)
{
    hsize_t size = n0 + n;
    hid_t fs, ms;
    herr_t e;
    if (H5Dset_extent(d, &size) < 0 || (fs = H5Dget_space(d)) < 0)
        return -1;
    ms = H5Screate_simple(1, &n, NULL);
    e = H5Sselect_hyperslab(fs, H5S_SELECT_SET, &n0, NULL, &n, NULL);
    if (e >= 0 && ms >= 0)
        e = H5Dwrite(d, mt, ms, fs, H5P_DEFAULT, buf);
    if (ms >= 0)
        H5Sclose(ms);
    H5Sclose(fs);
    return ms < 0 ? -1 : e;
}

static nrt_status h5_write(nrt_ctx *ctx, void *hv, const unsigned char *rows, int64_t n)
{
    H5Spikes *h = hv;
    double *t = malloc(sizeof *t * (size_t)(n ? n : 1));
    uint64_t *id = malloc(sizeof *id * (size_t)(n ? n : 1));
    int64_t k;
    herr_t e;
    if (!t || !id) {
        free(t);
        free(id);
        nrt_seterr(ctx, "out of memory writing '%s'", h->path);
        return NRT_ENOMEM;
    }
    for (k = 0; k < n; k++) {
        const unsigned char *p = rows + 12 * k;
        uint64_t u = 0;
        uint32_t i = 0;
        int b;
        for (b = 7; b >= 0; b--)
            u = u << 8 | p[b];
        for (b = 3; b >= 0; b--)
            i = i << 8 | p[8 + b];
        memcpy(&t[k], &u, sizeof u);
        id[k] = i;
    }
    e = append(h->ts, H5T_NATIVE_DOUBLE, h->n, (hsize_t)n, t);
    if (e >= 0)
        e = append(h->ids, H5T_NATIVE_UINT64, h->n, (hsize_t)n, id);
    if (e >= 0)
        e = H5Fflush(h->file, H5F_SCOPE_LOCAL);
    free(t);
    free(id);
    if (e < 0) {
        nrt_seterr(ctx, "cannot write recording '%s' (HDF5 error)", h->path);
        return NRT_EIO;
    }
    h->n += (hsize_t)n;
    return NRT_OK;
}

static const nrt_rec_sink sonata = {"hdf5", "/spikes/", h5_write, h5_close};

/* A growing 1-D chunked dataset `name` of file type ft in group g; < 0 on failure. */
static hid_t growing(hid_t g, const char *name, hid_t ft)
{
    hsize_t zero = 0, unl = H5S_UNLIMITED, chunk = CHUNK;
    hid_t sp = H5Screate_simple(1, &zero, &unl), pl = H5Pcreate(H5P_DATASET_CREATE), d = -1;
    if (sp >= 0 && pl >= 0 && H5Pset_chunk(pl, 1, &chunk) >= 0)
        d = H5Dcreate2(g, name, ft, sp, H5P_DEFAULT, pl, H5P_DEFAULT);
    if (pl >= 0)
        H5Pclose(pl);
    if (sp >= 0)
        H5Sclose(sp);
    return d;
}

/* The attributes SONATA names: sorting (enum) on the group, units on timestamps. */
static herr_t attributes(H5Spikes *h)
{
    hid_t en = H5Tenum_create(H5T_NATIVE_UINT8), sp = H5Screate(H5S_SCALAR), str, a;
    uint8_t v;
    herr_t e = (en < 0 || sp < 0) ? -1 : 0;
    if (e >= 0) {
        v = 0;
        e |= H5Tenum_insert(en, "none", &v);
        v = 1;
        e |= H5Tenum_insert(en, "by_id", &v);
        v = 2;
        e |= H5Tenum_insert(en, "by_time", &v);
    }
    if (e >= 0 && (a = H5Acreate2(h->group, "sorting", en, sp, H5P_DEFAULT, H5P_DEFAULT)) >= 0) {
        v = 2;
        e |= H5Awrite(a, en, &v);
        e |= H5Aclose(a);
    } else {
        e = -1;
    }
    str = H5Tcopy(H5T_C_S1);
    if (e >= 0 && str >= 0 && H5Tset_size(str, H5T_VARIABLE) >= 0 &&
        (a = H5Acreate2(h->ts, "units", str, sp, H5P_DEFAULT, H5P_DEFAULT)) >= 0) {
        const char *ms = "ms";
        e |= H5Awrite(a, str, &ms);
        e |= H5Aclose(a);
    } else {
        e = -1;
    }
    if (str >= 0)
        H5Tclose(str);
    if (en >= 0)
        H5Tclose(en);
    if (sp >= 0)
        H5Sclose(sp);
    return e;
}

/* Contract: see neurort.h. NULL with errmsg when the file cannot be created. */
nrt_rec *nrt_rec_spikes_h5(nrt_ctx *ctx, const char *file, const char *pop, int64_t pop_size)
{
    H5Spikes *h = calloc(1, sizeof *h);
    hid_t top;
    if (!h) {
        nrt_seterr(ctx, "out of memory opening recording '%s'", file);
        return NULL;
    }
    h->file = h->group = h->ts = h->ids = -1;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* the runtime never prints: errors go to errmsg */
    if (file[0] == '/' || !ctx->out_dir)
        snprintf(h->path, sizeof h->path, "%s", file);
    else
        snprintf(h->path, sizeof h->path, "%.2000s/%.2000s", ctx->out_dir, file);
    h->file = H5Fcreate(h->path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (h->file < 0) {
        nrt_seterr(ctx, "cannot open recording '%s' for writing (HDF5)", h->path);
        h5_close(ctx, h);
        return NULL;
    }
    top = H5Gcreate2(h->file, "spikes", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (top >= 0) {
        h->group = H5Gcreate2(top, pop, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        H5Gclose(top);
    }
    if (h->group >= 0) {
        h->ts = growing(h->group, "timestamps", H5T_IEEE_F64LE);
        h->ids = growing(h->group, "node_ids", H5T_STD_U64LE);
    }
    if (h->ts < 0 || h->ids < 0 || attributes(h) < 0) {
        nrt_seterr(ctx, "cannot create the SONATA groups of '%s' (HDF5)", h->path);
        h5_close(ctx, h);
        return NULL;
    }
    return nrt_rec_spikes_sink(ctx, file, pop, pop_size, &sonata, h);
}

/* Contract: see rt_internal.h. */
nrt_status nrt_h5_read_spikes(nrt_ctx *ctx, const char *path, const char *group, double **t,
                              int64_t **ids, int64_t *n)
{
    hid_t f, dt = -1, di = -1, sp;
    hssize_t m = -1;
    char name[700];
    uint64_t *u = NULL;
    int64_t k;
    herr_t e = -1;
    *t = NULL;
    *ids = NULL;
    *n = 0;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f >= 0) {
        snprintf(name, sizeof name, "%.600s/timestamps", group);
        dt = H5Dopen2(f, name, H5P_DEFAULT);
        snprintf(name, sizeof name, "%.600s/node_ids", group);
        di = H5Dopen2(f, name, H5P_DEFAULT);
    }
    if (dt >= 0 && di >= 0 && (sp = H5Dget_space(dt)) >= 0) {
        m = H5Sget_simple_extent_npoints(sp);
        H5Sclose(sp);
    }
    if (m >= 0) {
        *t = malloc(sizeof **t * (size_t)(m ? m : 1));
        *ids = malloc(sizeof **ids * (size_t)(m ? m : 1));
        u = malloc(sizeof *u * (size_t)(m ? m : 1));
        if (*t && *ids && u && H5Dread(dt, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, *t) >= 0 &&
            H5Dread(di, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, u) >= 0)
            e = 0;
        for (k = 0; e >= 0 && k < m; k++)
            (*ids)[k] = (int64_t)u[k];
    }
    free(u);
    if (di >= 0)
        H5Dclose(di);
    if (dt >= 0)
        H5Dclose(dt);
    if (f >= 0)
        H5Fclose(f);
    if (e < 0) {
        free(*t);
        free(*ids);
        *t = NULL;
        *ids = NULL;
        nrt_seterr(ctx, "cannot read the SONATA spikes %s of '%s'", group, path);
        return NRT_EINVAL;
    }
    *n = (int64_t)m;
    return NRT_OK;
}
