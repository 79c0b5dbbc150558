/* simt_merge.c -- the merge of a distributed GPU simulator (neuroc --mpi --backend
 * cuda|opencl; simt_mpi.c's head comment): each step's spike bits of every rank (nc_xr) into
 * each population's spike list, ascending as one GPU has it, with its count, spike records
 * and flags, and this rank's words of the step's slot cleared. A population of at most
 * SIMT_MPI_GROUP words is one work-group of nc_k_merge; a larger one has its own kernels,
 * nc_k_mcount_<pop> and nc_k_merge_<pop>, a work-group per SIMT_MPI_GROUP words (a word per
 * work-item): each group's spikes counted into nc_mb, then written after those of the groups
 * before it. Own kernels, not a range test on the group id in nc_k_merge: that form lost
 * spikes on PoCL (docs/architecture.md). Each is compiled for groups of SIMT_MPI_GROUP
 * (NC_KERNEL_BOUNDED): a population with many views (the multi-area model's 254) tests each
 * spike against every view, and nvcc gave that kernel 255 registers, too many for 512
 * work-items, so the captured graph could not be instantiated. */
#include "simt_priv.h"

/* nc_k_merge's work-groups for population p: one per SIMT_MPI_GROUP words of its spike
 * bits (a word per work-item), so that a large population's merge spreads over the device;
 * several of them count their words first (nc_k_mcount into nc_mb) and each writes its
 * spikes after those of the groups before it, in one GPU's ascending order. */
int simt_merge_groups(const IrPop *p)
{
    const long long w = ((long long)p->size + 31) / 32;
    return w > SIMT_MPI_GROUP ? (int)((w + SIMT_MPI_GROUP - 1) / SIMT_MPI_GROUP) : 1;
}

/* The first of population i's merge groups among those of the populations of several
 * (their places in nc_mb), or with i = npops how many there are. */
int simt_merge_first(const IrModel *m, int i)
{
    int g = 0;
    for (int k = 0; k < i; k++)
        if (simt_merge_groups(m->pops[k]) > 1)
            g += simt_merge_groups(m->pops[k]);
    return g;
}

/* Population i's work-group in nc_k_merge (one group each), or with i = npops how many
 * groups it has (at least 1: it also sets the step); populations of several groups merge
 * in their own kernels, nc_k_merge_<pop>, whose code has no branch on the group. */
int simt_merge_small(const IrModel *m, int i)
{
    int g = 0;
    for (int k = 0; k < i; k++)
        g += simt_merge_groups(m->pops[k]) == 1;
    return i == m->npops && g == 0 ? 1 : g;
}

/* The host's binds of the kernels of populations of several merge groups, and of the
 * plastic projections' nc_k_lmerge and nc_k_pre*: " || bind(...)"... */
const char *simt_mpi_merge_binds(const Simt *S)
{
    StrBuf b = {0};
    for (int i = 0; i < S->m->npops; i++) {
        const IrPop *p = S->m->pops[i];
        if (simt_merge_groups(p) == 1)
            continue;
        if (p->has_spikes)
            sb_printf(&b, " || bind(k_mcount_%s)", p->cname);
        sb_printf(&b, " || bind(k_merge_%s)", p->cname);
    }
    if (simt_merge_local_pops(S->m))   /* plastic projections: nc_k_lmerge, nc_k_pre0, nc_k_pre1 */
        sb_printf(&b, " || bind(k_lmerge)");
    if (simt_plast_split_pre0(S->m))
        sb_printf(&b, " || bind(k_pre0)");
    if (simt_plast_split(S->m))
        sb_printf(&b, " || bind(k_pre1)");
    const char *r = arena_printf(&S->cc->arena, "%s", b.s ? b.s : "");
    sb_free(&b);
    return r;
}

/* Whether some population's merge takes several work-groups (nc_k_mcount_<pop>, nc_mb). */
int simt_mpi_merge_blocks(const IrModel *m)
{
    return simt_merge_first(m, m->npops) > 0;
}

/* The words of population i's merge group: with one group, all of them (w0, w1 of each
 * work-item, its share); with several, block nc_b's (b0, b1) and each work-item's share. */
static void emit_merge_words(Out *o, long long w, int g)
{
    if (g == 1) {
        out_line(o, "const int64_t per = (%lld + NC_LSIZE - 1) / NC_LSIZE;", w);
        out_line(o, "const int64_t w0 = NC_LID * per, w1 = w0 + per < %lld ? w0 + per : %lld;", w, w);
        return;
    }
    out_line(o, "const int64_t per = (b1 - b0 + NC_LSIZE - 1) / NC_LSIZE;");
    out_line(o, "const int64_t w0 = b0 + NC_LID * per, w1 = w0 + per < b1 ? w0 + per : b1;");
}

/* The walk over a work-item's words [w0, w1) of population i in every rank's slots of
 * nc_xr (rank r's part of the words at r SW + slot + its offset): opens the loop, with `r`
 * and `e` the word's rank and its slice entry in nc_sl; the caller closes it. */
static void open_word_walk(Out *o, const IrModel *m, int i)
{
    out_open(o, "for (int64_t w = w0; w < w1; w++)");
    out_open(o, "while (w >= nc_sl[e + 1] && r + 1 < R)");
    out_line(o, "r++;");
    out_line(o, "e = 4 + 3 * (r * %d + %d);", m->npops, i);
    out_close(o);
}

/* Population i's part of nc_k_merge: its spike list of the step (ascending), the spike
 * records and flags, its count, and this rank's words of the slot cleared. With several
 * groups (merge_groups) group nc_b of them starts after the spikes of groups 0 .. nc_b - 1
 * (nc_mb, counted by nc_k_mcount, which also cleared the last step's flags). */
static void emit_merge_pop(Out *o, const Simt *S, int i, void (*spike_recs)(const Simt *, const IrPop *, Out *))
{
    const IrModel *m = S->m;
    const IrPop *p = m->pops[i];
    const long long n = (long long)p->size, w = (n + 31) / 32;
    const int g = simt_merge_groups(p), g0 = simt_merge_first(m, i);
    if (g == 1) {
        out_open(o, "if (NC_GROUP == %d)", simt_merge_small(m, i));
        out_line(o, "/* %s: %lld words */", p->name, w);
    } else {   /* its own kernel, nc_k_merge_<pop>: no branch on the group */
        out_begin(o);
        out_line(o, "/* %s: %lld words, %d groups of %d */", p->name, w, g, SIMT_MPI_GROUP);
        out_line(o, "const int64_t nc_b = NC_GROUP, b0 = nc_b * %d, b1 = b0 + %d < %lld ? b0 + %d : %lld;",
                 SIMT_MPI_GROUP, SIMT_MPI_GROUP, w, SIMT_MPI_GROUP, w);
    }
    if (p->has_spikes) {
        if (g == 1 && simt_spike_flags(m, p)) {   /* the last step's flags off (its list and count are intact) */
            out_line(o, "const int nc_prev = nc_cnt[%d + (int)((step + 1) & 1)];", 2 * i);
            out_line(o, "for (int q = NC_LID; q < nc_prev; q += NC_LSIZE) %s_fl[%s_spk[q]] = 0;", p->cname, p->cname);
            out_line(o, "NC_BARRIER(); /* before the list is written again */");
        }
        if (g > 1) {   /* the spikes of the groups before this one */
            out_line(o, "int before = 0, base;");
            out_line(o, "for (int64_t q = NC_LID; q < nc_b; q += NC_LSIZE) before += nc_mb[%d + q];", g0);
            out_line(o, "(void)nc_block_scan(before, nc_tmp, &base);");
        }
        emit_merge_words(o, w, g);
        out_line(o, "int64_t r = 0, e = %d;", 4 + 3 * i);
        out_line(o, "int c = 0;");
        open_word_walk(o, m, i);
        out_line(o, "c += nc_popc(nc_xr[r * SW + slot + nc_sl[e + 2] + (w - nc_sl[e])]);");
        out_close(o);
        out_line(o, "int total;");
        out_line(o, g == 1 ? "int at = nc_block_scan(c, nc_tmp, &total);" : "int at = base + nc_block_scan(c, nc_tmp, &total);");
        out_line(o, "r = 0;");
        out_line(o, "e = %d;", 4 + 3 * i);
        open_word_walk(o, m, i);
        out_line(o, "uint32_t b = nc_xr[r * SW + slot + nc_sl[e + 2] + (w - nc_sl[e])];");
        out_open(o, "while (b)");
        out_line(o, "const int64_t n = w * 32 + nc_ctz(b);");
        out_line(o, "b &= b - 1;");
        out_line(o, "%s_spk[at++] = (int32_t)n;", p->cname);
        if (simt_spike_flags(m, p))   /* the spike flag gathered deliveries and `on pre & post` read */
            out_line(o, "%s_fl[n] = 1;", p->cname);
        spike_recs(S, p, o);
        out_close(o);
        out_close(o);
        if (g == 1)
            out_line(o, "if (NC_LID == 0) nc_cnt[%d + (int)(step & 1)] = total;", 2 * i);
        else   /* the last group knows the population's count */
            out_line(o, "if (nc_b == %d && NC_LID == 0) nc_cnt[%d + (int)(step & 1)] = base + total;", g - 1, 2 * i);
        out_line(o, "NC_BARRIER(); /* every word read before this rank's are cleared */");
    } else {
        out_line(o, g == 1 ? "if (NC_LID == 0) nc_cnt[%d + (int)(step & 1)] = 0;" : "if (nc_b == 0 && NC_LID == 0) nc_cnt[%d + (int)(step & 1)] = 0;",
                 2 * i);
    }
    out_line(o, "const int64_t em = 4 + 3 * (me * %d + %d);", m->npops, i);
    if (g == 1) {
        out_line(o, "for (int64_t w = nc_sl[em] + NC_LID; w < nc_sl[em + 1]; w += NC_LSIZE) nc_xs[slot + nc_sl[em + 2] + (w - nc_sl[em])] = 0;");
    } else {   /* this rank's words of the block */
        out_line(o, "const int64_t c0 = nc_sl[em] > b0 ? nc_sl[em] : b0, c1 = nc_sl[em + 1] < b1 ? nc_sl[em + 1] : b1;");
        out_line(o, "for (int64_t w = c0 + NC_LID; w < c1; w += NC_LSIZE) nc_xs[slot + nc_sl[em + 2] + (w - nc_sl[em])] = 0;");
    }
    out_close(o);
}

/* The opening of a merge kernel `name` of step nc_j of the chunk: its step and the slices. */
static void open_merge_kernel(Out *o, const Simt *S, const char *name)
{
    simt_kernel_open(o, S, "NC_KERNEL_BOUNDED(%d) %s(NC_ARGS, const int64_t nc_j)", SIMT_MPI_GROUP, name);
    out_line(o, "NC_L int nc_tmp[%d];", SIMT_MPI_GROUP + 64);
    out_line(o, "const int64_t step = nc_ctl[1] + nc_j;");
    out_line(o, "const int hf = (int)nc_ctl[2];");
    out_line(o, "const int64_t R = nc_sl[0], SW = nc_sl[1] * nc_sl[3], me = nc_sl[2], slot = nc_j %% nc_sl[3] * nc_sl[1];");
    out_line(o, "(void)hf;");
    out_line(o, "(void)me;");
}

/* The kernels of population i of several merge groups (merge_groups): nc_k_mcount_<pop>,
 * each group's spikes into nc_mb (and the last step's spike flags off), then
 * nc_k_merge_<pop>, each group's spikes written after those of the groups before it. */
static void emit_merge_big(Out *o, const Simt *S, int i, void (*spike_recs)(const Simt *, const IrPop *, Out *))
{
    const IrModel *m = S->m;
    const IrPop *p = m->pops[i];
    const long long w = ((long long)p->size + 31) / 32;
    const int g = simt_merge_groups(p), g0 = simt_merge_first(m, i);
    if (p->has_spikes) {
        out_line(o, "/* distributed runs: %s's spikes of step nc_j of the chunk, per merge group (nc_mb) */", p->name);
        open_merge_kernel(o, S, arena_printf(&S->cc->arena, "nc_k_mcount_%s", p->cname));
        out_line(o, "const int64_t nc_b = NC_GROUP, b0 = nc_b * %d, b1 = b0 + %d < %lld ? b0 + %d : %lld;", SIMT_MPI_GROUP,
                 SIMT_MPI_GROUP, w, SIMT_MPI_GROUP, w);
        if (simt_spike_flags(m, p)) {   /* the last step's flags off, before any group sets the step's */
            out_line(o, "const int nc_prev = nc_cnt[%d + (int)((step + 1) & 1)];", 2 * i);
            out_line(o, "for (int64_t q = nc_b * NC_LSIZE + NC_LID; q < nc_prev; q += %d * NC_LSIZE) %s_fl[%s_spk[q]] = 0;", g,
                     p->cname, p->cname);
        }
        emit_merge_words(o, w, g);
        out_line(o, "int64_t r = 0, e = %d;", 4 + 3 * i);
        out_line(o, "int c = 0, total;");
        open_word_walk(o, m, i);
        out_line(o, "c += nc_popc(nc_xr[r * SW + slot + nc_sl[e + 2] + (w - nc_sl[e])]);");
        out_close(o);
        out_line(o, "(void)nc_block_scan(c, nc_tmp, &total);");
        out_line(o, "if (NC_LID == 0) nc_mb[%d + nc_b] = total;", g0);
        out_close(o);
        out_blank(o);
    }
    out_line(o, "/* distributed runs: %s's spike list of step nc_j of the chunk, a block of %d words per group */", p->name,
             SIMT_MPI_GROUP);
    open_merge_kernel(o, S, arena_printf(&S->cc->arena, "nc_k_merge_%s", p->cname));
    emit_merge_pop(o, S, i, spike_recs);
    out_close(o);
    out_blank(o);
}

/* nc_k_merge (a work-group per population of one merge group) and the kernels of the
 * others (emit_merge_big). spike_recs: the spike recordings of a population for neuron `n`. */
void simt_merge_device(Out *o, const Simt *S, void (*spike_recs)(const Simt *, const IrPop *, Out *))
{
    const IrModel *m = S->m;
    out_line(o, "/* distributed runs: the spike bits of step nc_j of the chunk, every rank's (nc_xr, gathered by");
    out_line(o, " * NCCL or MPI: rank r's slot k at (r D + k) SW), into each population's spike list, ascending;");
    if (simt_mpi_merge_blocks(m))
        out_line(o, " * a work-group per population of one merge group (nc_k_merge_<pop> for the others); the step is nc_ctl[3] for the delivery after it */");
    else
        out_line(o, " * work-group p merges population p; the step is nc_ctl[3] for the delivery after it */");
    simt_kernel_open(o, S, "NC_KERNEL_BOUNDED(%d) nc_k_merge(NC_ARGS, const int64_t nc_j)", SIMT_MPI_GROUP);
    out_line(o, "NC_L int nc_tmp[%d];", SIMT_MPI_GROUP + 64);
    out_line(o, "const int64_t step = nc_ctl[1] + nc_j;");
    out_line(o, "const int hf = (int)nc_ctl[2];");
    out_line(o, "const int64_t R = nc_sl[0], SW = nc_sl[1] * nc_sl[3], me = nc_sl[2], slot = nc_j %% nc_sl[3] * nc_sl[1];");
    out_line(o, "(void)hf;");
    out_line(o, "if (NC_GID == 0) nc_ctl[3] = step;");
    for (int i = 0; i < m->npops; i++)
        if (simt_merge_groups(m->pops[i]) == 1)
            emit_merge_pop(o, S, i, spike_recs);
    out_close(o);
    out_blank(o);
    for (int i = 0; i < m->npops; i++)
        if (simt_merge_groups(m->pops[i]) > 1)
            emit_merge_big(o, S, i, spike_recs);
}

/* Whether population i's spikes of a step are read in the step itself by the phases of a
 * plastic projection onto it (`on post`, `on pre & post`, the post { } scope's `on spike`):
 * with plastic projections (simt_plast_split) nc_k_lmerge lists the rank's own spikes for
 * them before the exchange. */
static int local_list(const IrModel *m, int i)
{
    if (!simt_plast_split(m))
        return 0;
    for (int k = 0; k < m->nprojs; k++) {
        const IrProj *j = m->projs[k];
        if (j->plast && j->post.pop == m->pops[i] && (j->plast->on_post.n || j->plast->on_prepost.n || j->plast->post_spike.n))
            return 1;
    }
    return 0;
}

/* How many populations nc_k_lmerge lists (local_list; 0: no such kernel). */
int simt_merge_local_pops(const IrModel *m)
{
    int g = 0;
    for (int i = 0; i < m->npops; i++)
        g += local_list(m, i);
    return g;
}

/* nc_k_lmerge (exchanging every D > 1 steps with plastic projections, simt_mpi_host_steps):
 * this rank's own spikes of step nc_j of the chunk (its words of the step's slot of nc_xs,
 * not yet exchanged) into the spike list of each population of local_list, with its count,
 * for the plastic phases of the step; no record, no flag, nothing cleared: the merge after
 * the exchange writes the whole list of the step again. A work-item per word, which takes
 * its place in the list by an atomic add of its spikes to the count: the order of the list
 * is free, as each phase that reads it (`on post`, the post { } scope's `on spike`) writes
 * each synapse or neuron once whatever the order. The count of step s starts at 0: cleared
 * by nc_k_synapses at the end of s - 1 (the interval's first step) or by nc_k_lmerge of
 * s - 1, which clears the next step's (nothing reads the count of s - 1 after it before the
 * merge writes it again). */
void simt_merge_local_device(Out *o, const Simt *S)
{
    const IrModel *m = S->m;
    if (!simt_merge_local_pops(m))
        return;
    out_line(o, "/* distributed runs exchanging every D > 1 steps: this rank's spikes of step nc_j of the chunk, before");
    out_line(o, " * the exchange, for the plastic phases of the step (in any order: a word's spikes after an atomic add) */");
    simt_kernel_open(o, S, "NC_KERNEL nc_k_lmerge(NC_ARGS, const int64_t nc_j)");
    out_line(o, "const int64_t step = nc_ctl[1] + nc_j;");
    out_line(o, "const int64_t me = nc_sl[2], slot = nc_j %% nc_sl[3] * nc_sl[1];");
    for (int i = 0; i < m->npops; i++) {
        if (!local_list(m, i))
            continue;
        const IrPop *p = m->pops[i];
        out_begin(o);
        out_line(o, "/* %s: this rank's words [a, a + W) */", p->name);
        out_line(o, "const int64_t em = 4 + 3 * (me * %d + %d), a = nc_sl[em], W = nc_sl[em + 1] - a, xo = slot + nc_sl[em + 2];",
                 m->npops, i);
        out_line(o, "if (NC_GID == 0) nc_cnt[%d + (int)((step + 1) & 1)] = 0; /* the next step's count starts at 0 */", 2 * i);
        out_open(o, "for (int64_t w = NC_GID; w < W; w += NC_GSIZE)");
        out_line(o, "uint32_t b = nc_xs[xo + w];");
        out_line(o, "if (!b) continue;");
        out_line(o, "int at = nc_atomic_add_i32(&nc_cnt[%d + (int)(step & 1)], nc_popc(b));", 2 * i);
        out_open(o, "while (b)");
        out_line(o, "%s_spk[at++] = (int32_t)((a + w) * 32 + nc_ctz(b));", p->cname);
        out_line(o, "b &= b - 1;");
        out_close(o);
        out_close(o);
        out_close(o);
    }
    out_close(o);
    out_blank(o);
}
