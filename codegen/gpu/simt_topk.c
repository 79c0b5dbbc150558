/* simt_topk.c -- k-winners-take-all on the GPU back ends (docs/language.md, "Top-k"),
 * and the deterministic delivery into top-k populations.
 *
 * Selection (per top-k population and step, after the first part of the step has written
 * key[n] and win[n] = candidate): a radix select over the total order of the C back end,
 * the key words
 *   float:  w0 = order-preserving bits of the value, w1 = tie draw, w2 = ~n
 *   double: w0, w1 = order-preserving bits (high, low), w2 = tie draw, w3 = ~n
 * compared lexicographically (larger = earlier), 8 bits per pass, most significant first.
 * Pass p (0 <= p < NP = 4 * words) histograms digit p of the candidates whose earlier digits
 * equal the prefix chosen so far; the next pass first picks, from that histogram, the bucket
 * holding the remaining winners (work-item 0 of each work-group, identically). When the
 * picked bucket holds exactly the remaining number, or every candidate wins, the selection
 * is done early. The mark pass (p = NP) sets win[n] = candidate && key words >= prefix:
 * exactly min(k, candidates) winners, since the words are distinct (they end with ~n).
 * State, per population: <P>_tkh[NP][256] histograms (each pass clears the next one, the
 * mark pass the first), <P>_tks[(NP + 1) * 8]: per pass {status (0 running, 1 done,
 * 2 no winners), remaining, prefix words}; each work-group counts into a local histogram
 * (SIMT_TOPK_LOCAL ints of local memory: state + 256 bins) and adds it to the global one
 * once. Every pass is one function called by all
 * work-items (grid-stride loops, work-group barriers only): one kernel per pass in the
 * launch/graph schedules, grid barriers between passes in the persistent schedule, block
 * barriers in the block schedule. No host round trip. Distributed (--mpi, simt_mpi.c): each
 * rank's passes take its own neurons, and the host sums pass p's histogram over the ranks
 * before pass p + 1 picks from it.
 *
 * Delivery: the grid schedules add spikes with atomics in no fixed order, so sums into a
 * top-k population could differ from the C back end's in the last bits and pick other
 * winners. A projection into a top-k population is instead gathered per target over its
 * column index (synapses onto each post neuron, ascending presynaptic index, built on the
 * device at load time: nrt_gpu_col_index), reading the presynaptic spike flags: each target's sum is formed in
 * the C back end's order (spike index ascending = presynaptic index ascending, then
 * synapse rank; with per-synapse delays, emission steps oldest first, from a history of
 * the flags of the last D steps).
 */
#include <stdio.h>
#include <string.h>

#include "codegen.h"
#include "gpu.h"

int simt_topk_words(const IrModel *m)
{
    return m->dbl ? 4 : 3;
}

int simt_topk_passes(const IrModel *m)
{
    return 4 * simt_topk_words(m);
}

int simt_topk_any(const IrModel *m)
{
    for (int i = 0; i < m->npops; i++)
        if (m->pops[i]->topk)
            return 1;
    return 0;
}

int simt_gathers(const IrProj *j)
{
    return j->post.pop->topk != NULL && !j->plast && !j->procedural;
}

int simt_needs_flags(const IrModel *m, const IrPop *p)
{
    for (int k = 0; k < m->nprojs; k++)
        if (m->projs[k]->pre.pop == p && simt_gathers(m->projs[k]))
            return 1;
    return 0;
}

void simt_topk_common(Out *o, const IrModel *m)
{
    if (!simt_topk_any(m))
        return;
    out_line(o, "/* top-k: pick the bucket of digit pp that holds the remaining winners (simt_topk.c) */");
    out_open(o, "NC_DEV void nc_tk_pick(NC_G const int32_t *h, NC_LP int32_t *s, const int pp)");
    out_line(o, "if (s[0] != 0) return;");
    out_open(o, "if (pp == 0)");
    out_line(o, "int64_t total = 0;");
    out_line(o, "for (int b = 0; b < 256; b++) total += h[b];");
    out_line(o, "if (s[1] <= 0) { s[0] = 2; return; }");
    out_line(o, "if ((int64_t)s[1] >= total) { s[0] = 1; return; } /* every candidate wins: prefix 0 */");
    out_close(o);
    out_line(o, "int acc = 0;");
    out_open(o, "for (int b = 255; b >= 0; b--)");
    out_open(o, "if (acc + h[b] >= s[1])");
    out_line(o, "s[2 + pp / 4] |= (int32_t)((uint32_t)b << (24 - 8 * (pp %% 4)));");
    out_line(o, "s[1] -= acc;");
    out_line(o, "if (h[b] == s[1]) s[0] = 1;");
    out_line(o, "return;");
    out_close(o);
    out_line(o, "acc += h[b];");
    out_close(o);
    out_close(o);
    out_blank(o);
}

void simt_topk_pop(Out *o, const CgDialect *d, const IrModel *m, const IrPop *p)
{
    const IrTopk *tk = p->topk;
    const char *c = p->cname, *key = tk->key->cname, *win = tk->win->cname;
    int nw = simt_topk_words(m), np = simt_topk_passes(m);
    long long n = (long long)p->size;
    StrBuf kb = {0};
    cg_expr(d, tk->k, &kb);
    out_line(o, "/* top-k of %s: key word w of neuron n (simt_topk.c) */", p->name);
    out_open(o, "NC_DEV uint32_t nc_tkw_%s(NC_ARGS, const int64_t n, const int w, const int64_t step)", c);
    out_open(o, "if (w < %d)", nw - 2);
    out_line(o, "real v = %s[n];", key);
    out_line(o, "if (v == (real)0) v = (real)0; /* -0 = +0 */");
    if (m->dbl) {
        out_line(o, "uint64_t u = nc_f64_bits(v);");
        out_line(o, "u = (u >> 63) ? ~u : (u | 0x8000000000000000ul);");
        out_line(o, "return w == 0 ? (uint32_t)(u >> 32) : (uint32_t)u;");
    } else {
        out_line(o, "const uint32_t u = nc_f32_bits(v);");
        out_line(o, "return (u & 0x80000000u) ? ~u : (u | 0x80000000u);");
    }
    out_close(o);
    out_line(o, "if (w == %d) return nrt_rng(seedkey, %uu, (uint32_t)n, 0, (uint32_t)step, 0).v[0];", nw - 2,
             tk->stream);
    out_line(o, "return ~(uint32_t)n;");
    out_close(o);
    out_blank(o);
    out_line(o, "/* top-k of %s: pass p < %d histograms digit p; pass %d marks the winners */", p->name, np, np);
    out_open(o, "NC_DEV void nc_tk_pass_%s(NC_ARGS, const int64_t step, const int p, NC_LP int32_t *sh)", c);
    out_open(o, "if (NC_LID == 0)");
    out_open(o, "if (p == 0)");
    out_line(o, "sh[0] = 0;");
    out_line(o, "sh[1] = (int32_t)(%s);", kb.s);
    out_line(o, "for (int q = 0; q < %d; q++) sh[2 + q] = 0;", nw);
    out_close(o);
    out_open(o, "else");
    out_line(o, "for (int q = 0; q < %d; q++) sh[q] = %s_tks[(p - 1) * 8 + q];", nw + 2, c);
    out_line(o, "nc_tk_pick(%s_tkh + (int64_t)(p - 1) * 256, sh, p - 1);", c);
    out_close(o);
    out_close(o);
    out_line(o, "NC_BARRIER();");
    out_line(o, "const int32_t st = sh[0];");
    out_line(o, "uint32_t pre[%d];", nw);
    out_line(o, "for (int q = 0; q < %d; q++) pre[q] = (uint32_t)sh[2 + q];", nw);
    out_line(o, "if (NC_GID == 0) for (int q = 0; q < %d; q++) %s_tks[p * 8 + q] = sh[q];", nw + 2, c);
    out_line(o, "NC_BARRIER(); /* sh is read: the next pass may write it */");
    out_line(o, "const int nxt = p + 1 < %d ? p + 1 : 0; /* the histogram to clear for later */", np);
    out_line(o, "if (p < %d - 1 || p == %d) for (int64_t q = NC_GID; q < 256; q += NC_GSIZE) %s_tkh[nxt * 256 + q] = 0;",
             np, np, c);
    char hib[32];
    snprintf(hib, sizeof hib, "%lld", n);
    const char *lo = "", *hi = hib;
    if (m->mpi && !cg_mpi_reads_pre(m, p)) {   /* distributed: this rank's neurons; the host sums
                                                 * each histogram over the ranks (replicated: all) */
        out_line(o, "const int64_t nc_e = 4 + 3 * (nc_sl[2] * %d + %d);", m->npops, p->id);
        out_line(o, "const int64_t nc_lo = 32 * nc_sl[nc_e], nc_hi = 32 * nc_sl[nc_e + 1] < %lld ? 32 * nc_sl[nc_e + 1] : %lld;",
                 n, n);
        lo = "nc_lo + ";
        hi = "nc_hi";
    }
    out_open(o, "if (p < %d)", np);
    out_line(o, "if (st != 0) return; /* the same in every work-item */");
    out_line(o, "const int w = p / 4, j = p %% 4;");
    out_line(o, "NC_LP int32_t *lh = sh + 8; /* this work-group's histogram, added to the global one once */");
    out_line(o, "for (int q = NC_LID; q < 256; q += NC_LSIZE) lh[q] = 0;");
    out_line(o, "NC_BARRIER();");
    out_open(o, "for (int64_t n = %sNC_GID; n < %s; n += NC_GSIZE)", lo, hi);
    out_line(o, "if (!(%s[n] != 0 && %s[n] == %s[n])) continue;", win, key, key);
    out_line(o, "int ok = 1;");
    out_line(o, "for (int q = 0; q < w && ok; q++) ok = nc_tkw_%s(NC_PASS, n, q, step) == pre[q];", c);
    out_line(o, "if (!ok) continue;");
    out_line(o, "const uint32_t x = nc_tkw_%s(NC_PASS, n, w, step);", c);
    out_line(o, "if (j && (x >> (32 - 8 * j)) != (pre[w] >> (32 - 8 * j))) continue;");
    out_line(o, "nc_atomic_add_i32_local(&lh[(int)((x >> (24 - 8 * j)) & 255u)], 1);");
    out_close(o);
    out_line(o, "NC_BARRIER();");
    out_line(o, "for (int q = NC_LID; q < 256; q += NC_LSIZE) if (lh[q]) nc_atomic_add_i32(&%s_tkh[p * 256 + q], lh[q]);", c);
    out_line(o, "return;");
    out_close(o);
    out_open(o, "for (int64_t n = %sNC_GID; n < %s; n += NC_GSIZE)", lo, hi);
    out_line(o, "int won = 0;");
    out_open(o, "if (%s[n] != 0 && %s[n] == %s[n] && st != 2)", win, key, key);
    out_line(o, "won = 1;");
    out_open(o, "for (int q = 0; q < %d; q++)", nw);
    out_line(o, "const uint32_t x = nc_tkw_%s(NC_PASS, n, q, step);", c);
    out_line(o, "if (x != pre[q]) { won = x > pre[q]; break; }");
    out_close(o);
    out_close(o);
    out_line(o, "%s[n] = won;", win);
    out_close(o);
    out_close(o);
    out_blank(o);
    sb_free(&kb);
}

void simt_gather(Out *o, const IrModel *m, const IrProj *j)
{
    const char *c = j->cname, *pc = j->pre.pop->cname;
    long long np = (long long)j->post.size, npre = (long long)j->pre.size, off = (long long)j->pre.offset;
    (void)m;
    out_line(o, "/* projection %s: %s -> %s, gathered per target in the C back end's order (simt_topk.c) */", j->name,
             j->pre.pop->name, j->post.pop->name);
    out_open(o, "NC_DEV void nc_deliver_%s_grid(NC_ARGS, const int64_t step)", c);
    if (!j->delay) {
        out_open(o, "for (int64_t j = NC_GID; j < %lld; j += NC_GSIZE)", np);
        out_line(o, "real acc = 0;");
        out_line(o, "int any = 0;");
        out_open(o, "for (int64_t q = %s_cptr[j]; q < %s_cptr[j + 1]; q++)", c, c);
        out_open(o, "if (%s_fl[(int64_t)%s_cpre[q] + %lld])", pc, c, off);
        out_line(o, "acc += %s_w[%s_csyn[q]];", c, c);
        out_line(o, "any = 1;");
        out_close(o);
        out_close(o);
        out_line(o, "if (any) %s_ring[nc_mod(step + 1, %s_D) * %lld + j] += acc;", c, c, np);
        out_close(o);
        out_close(o);
        out_blank(o);
        return;
    }
    out_line(o, "/* the arrivals of step a = step + 1: emissions e = a - D + 1 .. step, oldest first (the C");
    out_line(o, " * back end's ring order), each in (pre, rank) order; spikes of earlier steps from the");
    out_line(o, " * flag history %s_fh[e %% D][i], this step's from the flags, which are kept for later */", c);
    out_line(o, "const int64_t a = step + 1;");
    out_open(o, "for (int64_t j = NC_GID; j < %lld; j += NC_GSIZE)", np);
    out_line(o, "real acc = 0;");
    out_line(o, "int any = 0;");
    out_open(o, "for (int64_t e = a - %s_D + 1; e <= step; e++)", c);
    out_line(o, "if (e < 0) continue;");
    out_open(o, "for (int64_t q = %s_cptr[j]; q < %s_cptr[j + 1]; q++)", c, c);
    out_line(o, "const int64_t s = %s_csyn[q], i = %s_cpre[q];", c, c);
    out_line(o, "if (%s_d[s] != a - e) continue;", c);
    out_line(o, "if (!(e == step ? %s_fl[i + %lld] : %s_fh[nc_mod(e, %s_D) * %lld + i])) continue;", pc, off, c, c, npre);
    out_line(o, "acc += %s_w[s];", c);
    out_line(o, "any = 1;");
    out_close(o);
    out_close(o);
    out_line(o, "if (any) %s_ring[nc_mod(a, %s_D) * %lld + j] += acc;", c, c, np);
    out_close(o);
    out_line(o, "for (int64_t i = NC_GID; i < %lld; i += NC_GSIZE) %s_fh[nc_mod(step, %s_D) * %lld + i] = %s_fl[i + %lld];",
             npre, c, c, npre, pc, off);
    out_close(o);
    out_blank(o);
}

void simt_gather_host(Out *o, const IrProj *j)
{
    const char *c = j->cname;
    out_line(o, "/* the column index of %s for the gathered delivery: synapses onto each post neuron in (pre, rank) order,",
             j->name);
    out_line(o, " * built on the device (nrt_gpu_col_index) */");
    out_begin(o);
    out_line(o, "if (nrt_gpu_col_index(&ctx, gpu, &%s_csr, %uu, \"%s: column index\", &%s_cptr, &%s_csyn, &%s_cpre) != NRT_OK) return -1;",
             c, (unsigned)j->id, j->name, c, c, c);
    if (j->delay) {
        out_line(o, "/* presynaptic spike flags of the last D steps, zero (as allocated) before the first step */");
        out_line(o, "if (dalloc(&%s_fh, (size_t)%s_D * %lld * sizeof(int32_t), \"%s: spike flag history\")) return -1;", c, c,
                 (long long)j->pre.size, j->name);
    }
    out_close(o);
}
