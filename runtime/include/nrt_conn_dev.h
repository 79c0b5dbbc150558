/* nrt_conn_dev.h -- connectivity on the device: the kernels that build a projection's
 * synapses (CSR by presynaptic row) exactly as rt_conn.c specifies, with the same draws in
 * the same order, so a GPU build equals nrt_conn_build for the same seed, bit for bit.
 *
 * Written in the nrt_simt.h dialect (CUDA and OpenCL C alike) and pasted into every GPU
 * program after nrt_simt.h, nrt_math.h and nrt_philox.h. The host side is rt_gpu_conn.c
 * (nrt_gpu_conn_build), which launches these kernels by name, reads per-row counts back and
 * prefix-sums them into row_ptr. Conventions of every kernel here:
 *   - loops stride over the whole launch (NC_GID / NC_GSIZE, or NC_GROUP / NC_NGROUPS), so
 *     any launch size is correct; indices and offsets are int64 (nnz may exceed 2^31);
 *   - excl = !autapses && same_base, d = pre_offset - post_offset: (i, j) is an autapse to
 *     drop when excl && i + d == j;
 *   - key0 = nrt_seed_key(seed), stream = NRT_STREAM_CONNECT << 24 | (proj_id & 0xFFFFFF).
 * Rules:
 *   all_to_all      nrt_conn_all_rows writes row_ptr in closed form, nrt_conn_all_fill one
 *                   synapse per work-item. one_to_one: nrt_conn_one_fill.
 *   fixed_prob      each row's geometric skips are one sequential stream of draws, so one
 *                   work-item walks one row: nrt_conn_prob_count (row lengths), then, with
 *                   row_ptr from the host, nrt_conn_prob_fill walks it again and writes.
 *                   log1p(-p) comes from the host as lq; the logarithm is nrt_log
 *                   (nrt_math.h), whose bits the host's equal.
 *   fixed_indegree  nrt_conn_indeg_draw: one work-item per post draws its k partners in the
 *                   specified order into pres[j * k ..] (rejections through a per-work-item
 *                   set: a bitmap of n_pre bits or a hash table, whichever is smaller);
 *                   nrt_conn_indeg_count counts per pre (atomics); the host prefix-sums;
 *                   nrt_conn_indeg_fill scatters post indices into the rows (atomic cursors,
 *                   arbitrary order); nrt_conn_sort_rows sorts every row ascending, which is
 *                   exactly the host's stable counting sort (a row holds post indices only,
 *                   multapses are equal values).
 *   fixed_outdegree nrt_conn_indeg_draw with the roles swapped (a work-item per pre draws its
 *                   posts straight into its row, d negated), then nrt_conn_sort_rows.
 *   fixed_total     row_ptr from the host (nrt_conn_total_rows: the multinomial row lengths),
 *                   then nrt_conn_total_fill: a work-item per synapse finds its row (binary
 *                   search of row_ptr) and draws its post from (row, rank). Rows unsorted.
 *   pairs           (prob, within, where) the model's own kernels nc_rows_count_<proj> and
 *                   nc_rows_fill_<proj>, written by codegen/simt.c around its row function.
 * The column index of a projection (nrt_gpu_col_index: the synapses onto each post neuron,
 * for the gathered delivery into top-k populations and for plastic post handlers) is built
 * here too: see its section at the end.
 */
#ifndef NRT_CONN_DEV_H
#define NRT_CONN_DEV_H

/* ---- all_to_all ---- */

/* row_ptr[i] for i in [0, n_pre]: i * n_post less the autapses of the rows before i (rows
 * lo <= r < hi hold one when excl). */
NC_KERNEL nrt_conn_all_rows(NC_G int64_t *row_ptr, int64_t n_pre, int64_t n_post, int excl,
                            int64_t d)
{
    const int64_t lo = d < 0 ? -d : 0, hi = n_post - d < n_pre ? n_post - d : n_pre;
    int64_t i;
    for (i = NC_GID; i <= n_pre; i += NC_GSIZE) {
        const int64_t m = i < hi ? i : hi;
        row_ptr[i] = i * n_post - (excl && m > lo ? m - lo : 0);
    }
}

/* Pair g = i * n_post + j goes to row i, after the row's autapse when that comes first. */
NC_KERNEL nrt_conn_all_fill(NC_CONST_ARG int64_t *row_ptr, NC_G int32_t *col, int64_t n_pre,
                            int64_t n_post, int excl, int64_t d)
{
    const int64_t n = n_pre * n_post;
    int64_t g;
    for (g = NC_GID; g < n; g += NC_GSIZE) {
        const int64_t i = g / n_post, j = g - i * n_post, js = i + d;
        if (excl && j == js)
            continue;
        col[row_ptr[i] + j - (excl && js >= 0 && js < j ? 1 : 0)] = (int32_t)j;
    }
}

/* ---- one_to_one ---- */

NC_KERNEL nrt_conn_one_fill(NC_G int64_t *row_ptr, NC_G int32_t *col, int64_t n)
{
    int64_t i;
    for (i = NC_GID; i <= n; i += NC_GSIZE) {
        row_ptr[i] = i;
        if (i < n)
            col[i] = (int32_t)i;
    }
}

/* ---- fixed_prob ---- */

/* Walk row i (rt_conn.c, FIXED_PROB); store its posts at out unless out is 0; return how
 * many. lq = log1p(-p) < 0, 0 < p < 1. */
NC_DEV int64_t nrt_conn_prob_row(int64_t i, int64_t n_post, double lq, uint32_t key0,
                                 uint32_t stream, int excl, int64_t d, NC_G int32_t *out)
{
    const double np = (double)n_post;
    const int64_t js = excl ? i + d : -1;
    int64_t j = -1, n = 0;
    uint32_t c = 0;
    for (;;) {
        const nrt_u32x4 x = nrt_rng(key0, stream, (uint32_t)i, c, 0, 0);
        int h;
        c++;
        for (h = 0; h < 2; h++) {
            const double u = nrt_u01_53(x.v[2 * h], x.v[2 * h + 1]);
            const double skip = floor(nrt_log(u) / lq);
            if (skip >= np)
                return n;
            j += 1 + (int64_t)skip;
            if (j >= n_post)
                return n;
            if (j == js)
                continue;
            if (out)
                out[n] = (int32_t)j;
            n++;
        }
    }
}

NC_KERNEL nrt_conn_prob_count(NC_G int32_t *count, int64_t n_pre, int64_t n_post, double lq,
                              uint32_t key0, uint32_t stream, int excl, int64_t d)
{
    int64_t i;
    for (i = NC_GID; i < n_pre; i += NC_GSIZE)
        count[i] = (int32_t)nrt_conn_prob_row(i, n_post, lq, key0, stream, excl, d,
                                              (NC_G int32_t *)0);
}

NC_KERNEL nrt_conn_prob_fill(NC_CONST_ARG int64_t *row_ptr, NC_G int32_t *col, int64_t n_pre,
                             int64_t n_post, double lq, uint32_t key0, uint32_t stream,
                             int excl, int64_t d)
{
    int64_t i;
    for (i = NC_GID; i < n_pre; i += NC_GSIZE)
        (void)nrt_conn_prob_row(i, n_post, lq, key0, stream, excl, d, col + row_ptr[i]);
}

/* ---- fixed_indegree ---- */

/* Add pre to a work-item's set; 1 when it was not there yet. hash_bits == 0: a bitmap of
 * n_pre bits. Else an open-addressing table (linear probing) of 2^hash_bits words, at
 * least twice k, holding pre + 1 (0 = empty slot). */
NC_DEV int nrt_conn_set_add(NC_G uint32_t *set, int hash_bits, int64_t pre)
{
    const uint32_t key = (uint32_t)pre + 1u;
    uint32_t h;
    if (hash_bits == 0) {
        const uint32_t bit = 1u << (uint32_t)(pre & 31);
        if (set[pre >> 5] & bit)
            return 0;
        set[pre >> 5] |= bit;
        return 1;
    }
    h = (key * 0x9E3779B1u) >> (32 - hash_bits);
    for (;;) {
        const uint32_t v = set[h];
        if (v == 0u) {
            set[h] = key;
            return 1;
        }
        if (v == key)
            return 0;
        h = (h + 1u) & ((1u << hash_bits) - 1u);
    }
}

/* Post j's k partners in draw order (rt_conn.c, FIXED_INDEGREE) into pres[j * k ..].
 * Without multapses every work-item owns set_words words of `sets` (zero on entry, zeroed
 * again after each post): the launch must have exactly as many work-items as `sets` was
 * sized for. */
NC_KERNEL nrt_conn_indeg_draw(NC_G int32_t *pres, NC_G uint32_t *sets, int64_t set_words,
                              int hash_bits, int64_t n_pre, int64_t n_post, int64_t k,
                              int multapses, uint32_t key0, uint32_t stream, int excl,
                              int64_t d)
{
    NC_G uint32_t *set = multapses ? sets : sets + NC_GID * set_words;
    int64_t j, w;
    for (j = NC_GID; j < n_post; j += NC_GSIZE) {
        NC_G int32_t *out = pres + j * k;
        const int64_t self = excl ? j - d : -1;
        int64_t acc = 0;
        uint32_t r = 0;
        while (acc < k) {
            const nrt_u32x4 x = nrt_rng(key0, stream, (uint32_t)j, r, 0, 0);
            int h;
            r++;
            for (h = 0; h < 4 && acc < k; h++) {
                const int64_t pre = (int64_t)nrt_below(x.v[h], (uint32_t)n_pre);
                if (pre == self)
                    continue;
                if (!multapses && !nrt_conn_set_add(set, hash_bits, pre))
                    continue;
                out[acc++] = (int32_t)pre;
            }
        }
        if (!multapses)
            for (w = 0; w < set_words; w++)
                set[w] = 0u;
    }
}

/* count[pre] += 1 for every drawn partner (count zeroed before). */
NC_KERNEL nrt_conn_indeg_count(NC_CONST_ARG int32_t *pres, NC_G int32_t *count, int64_t total)
{
    int64_t e;
    for (e = NC_GID; e < total; e += NC_GSIZE)
        (void)nc_atomic_add_i32(count + pres[e], 1);
}

/* Synapse e = j * k + a (pre = pres[e]) goes to row pre at a free place (cursor zeroed
 * before); the order within a row is arbitrary until nrt_conn_sort_rows. */
NC_KERNEL nrt_conn_indeg_fill(NC_CONST_ARG int32_t *pres, NC_CONST_ARG int64_t *row_ptr,
                              NC_G int32_t *cursor, NC_G int32_t *col, int64_t total, int64_t k)
{
    int64_t e;
    for (e = NC_GID; e < total; e += NC_GSIZE) {
        const int32_t pre = pres[e];
        const uint32_t at = (uint32_t)nc_atomic_add_i32(cursor + pre, 1);
        col[row_ptr[pre] + (int64_t)at] = (int32_t)(e / k);
    }
}

/* ---- fixed_total ---- */

/* Synapse e of the CSR whose row_ptr the host computed (rt_conn.c, FIXED_TOTAL): row i with
 * row_ptr[i] <= e < row_ptr[i + 1] (the last such row, past empty ones), rank r = e -
 * row_ptr[i], post uniform over the row's admissible posts from word r % 4 of draw r / 4. */
NC_KERNEL nrt_conn_total_fill(NC_CONST_ARG int64_t *row_ptr, NC_G int32_t *col, int64_t n_pre,
                              int64_t n_post, uint32_t key0, uint32_t stream, int excl, int64_t d)
{
    const int64_t nnz = row_ptr[n_pre];
    int64_t e;
    for (e = NC_GID; e < nnz; e += NC_GSIZE) {
        int64_t lo = 0, hi = n_pre, i, r, js, post;
        uint32_t a;
        while (hi - lo > 1) {                 /* row_ptr[lo] <= e < row_ptr[hi] */
            const int64_t mid = lo + (hi - lo) / 2;
            if (row_ptr[mid] <= e)
                lo = mid;
            else
                hi = mid;
        }
        i = lo;
        r = e - row_ptr[i];
        js = excl && i + d >= 0 && i + d < n_post ? i + d : -1;
        a = (uint32_t)(n_post - (js >= 0 ? 1 : 0));
        const nrt_u32x4 x = nrt_rng(key0, stream, (uint32_t)i, (uint32_t)(r >> 2), 0, 0);
        post = (int64_t)nrt_below(x.v[r & 3], a);
        col[e] = (int32_t)(post + (js >= 0 && post >= js ? 1 : 0));
    }
}

/* ---- sorting rows (fixed_indegree, fixed_outdegree) ----
 * Every row is sorted ascending by one work-group with a bitonic network in which every
 * compare-exchange puts the smaller value first (the first step of each merge compares
 * mirrored pairs, the later ones pairs at distance s). The row of n is padded to a power of
 * two P with virtual +infinity, which such a network never moves, so a pair reaching past
 * the row's end is simply skipped. Steps whose pairs lie within aligned tiles of
 * NRT_CONN_TILE run in local memory: each tile is sorted there first; merges larger than a
 * tile take their long-distance steps in global memory and finish in local memory.
 * O(n log^2 n) work per row, log^2 P barriers. */

#define NRT_CONN_TILE 2048

/* One step over the pairs of a network on 2 * npairs elements (see above): mirrored pairs in
 * blocks of 2s when flip, else pairs (x, x + s); pairs with an element at n or beyond are
 * skipped. Every work-item of the group calls it. */
NC_DEV void nrt_conn_step_g(NC_G int32_t *a, int64_t n, int64_t npairs, int64_t s, int flip)
{
    int64_t t;
    for (t = NC_LID; t < npairs; t += NC_LSIZE) {
        const int64_t lo = t & (s - 1), x = ((t - lo) << 1) + lo;
        const int64_t y = flip ? x + 2 * (s - lo) - 1 : x + s;
        if (y < n) {
            const int32_t ax = a[x], ay = a[y];
            a[x] = ax < ay ? ax : ay;
            a[y] = ax < ay ? ay : ax;
        }
    }
}

NC_DEV void nrt_conn_step_l(NC_LP int32_t *a, int n, int npairs, int s, int flip)
{
    int t;
    for (t = NC_LID; t < npairs; t += NC_LSIZE) {
        const int lo = t & (s - 1), x = ((t - lo) << 1) + lo;
        const int y = flip ? x + 2 * (s - lo) - 1 : x + s;
        if (y < n) {
            const int32_t ax = a[x], ay = a[y];
            a[x] = ax < ay ? ax : ay;
            a[y] = ax < ay ? ay : ax;
        }
    }
}

/* The network's steps in order: at the first level (size TILE, or the whole row when it is
 * shorter) every tile is sorted in local memory; at each higher level (size 2 TILE .. P)
 * the steps of stride TILE or more run in global memory, then those below TILE, which stay
 * within aligned tiles, in local memory, tile by tile. (One loop nest on purpose: with the
 * tile code as a helper called from two places, PoCL 3.1 mixed rows of different
 * work-groups.) */
NC_KERNEL nrt_conn_sort_rows(NC_CONST_ARG int64_t *row_ptr, NC_G int32_t *col, int64_t n_pre)
{
    NC_L int32_t tile[NRT_CONN_TILE];
    int64_t i;
    for (i = NC_GROUP; i < n_pre; i += NC_NGROUPS) {
        NC_G int32_t *a = col + row_ptr[i];
        const int64_t n = row_ptr[i + 1] - row_ptr[i];
        int64_t size, s, b0, half_p = 1;
        while (2 * half_p < n)
            half_p <<= 1;                                  /* P / 2 */
        for (size = NRT_CONN_TILE; size <= 2 * half_p || size == NRT_CONN_TILE; size <<= 1) {
            const int first = size == NRT_CONN_TILE;
            for (s = size >> 1; s >= NRT_CONN_TILE; s >>= 1) {
                nrt_conn_step_g(a, n, half_p, s, s == size >> 1);
                NC_BARRIER();
            }
            for (b0 = 0; b0 < n; b0 += NRT_CONN_TILE) {
                const int m = (int)(n - b0 < NRT_CONN_TILE ? n - b0 : NRT_CONN_TILE);
                int t, sz, ls, tp = 1;
                while (tp < m)
                    tp <<= 1;
                for (t = NC_LID; t < m; t += NC_LSIZE)
                    tile[t] = a[b0 + t];
                NC_BARRIER();
                for (sz = first ? 2 : NRT_CONN_TILE; sz <= (first ? tp : NRT_CONN_TILE);
                     sz <<= 1)
                    for (ls = sz >> 1; ls > 0; ls >>= 1) {
                        nrt_conn_step_l(tile, m, tp >> 1, ls, first && ls == sz >> 1);
                        NC_BARRIER();
                    }
                for (t = NC_LID; t < m; t += NC_LSIZE)
                    a[b0 + t] = tile[t];
                NC_BARRIER();
            }
        }
    }
}

/* ---- the column index (nrt_gpu_col_index) ----
 * The synapses onto each post neuron j, ascending synapse index: cptr[j] .. cptr[j + 1] - 1
 * of csyn hold them, cpre their presynaptic rows. nrt_conn_indeg_count counts per column
 * (col as the list), nrt_conn_col_scan prefix-sums the counts into cptr, nrt_conn_col_fill
 * scatters each row's synapses into their columns (atomic cursors, arbitrary order), and
 * nrt_conn_sort_cols sorts every column by synapse index, its rows alongside. The synapse
 * indices are distinct, so the result is the host's stable counting sort, whatever order
 * the scatter took. */

#define NRT_SCAN_GROUP 256

/* cptr[q] = count[0] + .. + count[q - 1] for q in [0, n] (counts unsigned): one work-group
 * of at most NRT_SCAN_GROUP work-items, each summing a contiguous chunk (other groups
 * return). */
NC_KERNEL nrt_conn_col_scan(NC_CONST_ARG int32_t *count, NC_G int64_t *cptr, int64_t n)
{
    NC_L int64_t part[NRT_SCAN_GROUP + 1];
    const int64_t chunk = (n + NC_LSIZE - 1) / NC_LSIZE;
    const int64_t lo = NC_LID * chunk, hi = lo + chunk < n ? lo + chunk : n;
    int64_t q, acc = 0;
    if (NC_GROUP != 0)
        return;
    for (q = lo; q < hi; q++)
        acc += (int64_t)(uint32_t)count[q];
    part[NC_LID] = acc;
    NC_BARRIER();
    if (NC_LID == 0) {
        int64_t run = 0;
        int t;
        for (t = 0; t < NC_LSIZE; t++) {
            const int64_t v = part[t];
            part[t] = run;
            run += v;
        }
        part[NC_LSIZE] = run;
    }
    NC_BARRIER();
    acc = part[NC_LID];
    for (q = lo; q < hi; q++) {
        cptr[q] = acc;
        acc += (int64_t)(uint32_t)count[q];
    }
    if (NC_LID == 0)
        cptr[n] = part[NC_LSIZE];
}

/* The synapses of row i go to their columns at free places (cursor zeroed before), each
 * with its row. */
NC_KERNEL nrt_conn_col_fill(NC_CONST_ARG int64_t *row_ptr, NC_CONST_ARG int32_t *col,
                            NC_CONST_ARG int64_t *cptr, NC_G int32_t *cursor,
                            NC_G int64_t *csyn, NC_G int32_t *cpre, int64_t n_pre)
{
    int64_t i, s;
    for (i = NC_GID; i < n_pre; i += NC_GSIZE)
        for (s = row_ptr[i]; s < row_ptr[i + 1]; s++) {
            const int32_t j = col[s];
            const int64_t q = cptr[j] + (int64_t)(uint32_t)nc_atomic_add_i32(cursor + j, 1);
            csyn[q] = s;
            cpre[q] = (int32_t)i;
        }
}

/* The network of nrt_conn_sort_rows on (synapse, row) pairs, ordered by synapse. */
NC_DEV void nrt_conn_step_gp(NC_G int64_t *a, NC_G int32_t *r, int64_t n, int64_t npairs,
                             int64_t s, int flip)
{
    int64_t t;
    for (t = NC_LID; t < npairs; t += NC_LSIZE) {
        const int64_t lo = t & (s - 1), x = ((t - lo) << 1) + lo;
        const int64_t y = flip ? x + 2 * (s - lo) - 1 : x + s;
        if (y < n && a[y] < a[x]) {
            const int64_t ax = a[x];
            const int32_t rx = r[x];
            a[x] = a[y];
            r[x] = r[y];
            a[y] = ax;
            r[y] = rx;
        }
    }
}

NC_DEV void nrt_conn_step_lp(NC_LP int64_t *a, NC_LP int32_t *r, int n, int npairs, int s,
                             int flip)
{
    int t;
    for (t = NC_LID; t < npairs; t += NC_LSIZE) {
        const int lo = t & (s - 1), x = ((t - lo) << 1) + lo;
        const int y = flip ? x + 2 * (s - lo) - 1 : x + s;
        if (y < n && a[y] < a[x]) {
            const int64_t ax = a[x];
            const int32_t rx = r[x];
            a[x] = a[y];
            r[x] = r[y];
            a[y] = ax;
            r[y] = rx;
        }
    }
}

/* Every column of csyn sorted ascending, cpre alongside: nrt_conn_sort_rows's loop nest. */
NC_KERNEL nrt_conn_sort_cols(NC_CONST_ARG int64_t *cptr, NC_G int64_t *csyn,
                             NC_G int32_t *cpre, int64_t n_post)
{
    NC_L int64_t tile[NRT_CONN_TILE];
    NC_L int32_t tile_r[NRT_CONN_TILE];
    int64_t i;
    for (i = NC_GROUP; i < n_post; i += NC_NGROUPS) {
        NC_G int64_t *a = csyn + cptr[i];
        NC_G int32_t *r = cpre + cptr[i];
        const int64_t n = cptr[i + 1] - cptr[i];
        int64_t size, s, b0, half_p = 1;
        while (2 * half_p < n)
            half_p <<= 1;                                  /* P / 2 */
        for (size = NRT_CONN_TILE; size <= 2 * half_p || size == NRT_CONN_TILE; size <<= 1) {
            const int first = size == NRT_CONN_TILE;
            for (s = size >> 1; s >= NRT_CONN_TILE; s >>= 1) {
                nrt_conn_step_gp(a, r, n, half_p, s, s == size >> 1);
                NC_BARRIER();
            }
            for (b0 = 0; b0 < n; b0 += NRT_CONN_TILE) {
                const int m = (int)(n - b0 < NRT_CONN_TILE ? n - b0 : NRT_CONN_TILE);
                int t, sz, ls, tp = 1;
                while (tp < m)
                    tp <<= 1;
                for (t = NC_LID; t < m; t += NC_LSIZE) {
                    tile[t] = a[b0 + t];
                    tile_r[t] = r[b0 + t];
                }
                NC_BARRIER();
                for (sz = first ? 2 : NRT_CONN_TILE; sz <= (first ? tp : NRT_CONN_TILE);
                     sz <<= 1)
                    for (ls = sz >> 1; ls > 0; ls >>= 1) {
                        nrt_conn_step_lp(tile, tile_r, m, tp >> 1, ls, first && ls == sz >> 1);
                        NC_BARRIER();
                    }
                for (t = NC_LID; t < m; t += NC_LSIZE) {
                    a[b0 + t] = tile[t];
                    r[b0 + t] = tile_r[t];
                }
                NC_BARRIER();
            }
        }
    }
}

#endif
