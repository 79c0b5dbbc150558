/* simt_shmem.c -- the device side of the shared-memory plan (simt_layout.c): the copies
 * of resident buffers into shared memory at the start of a launch of the block or cluster
 * kernel and back out at its end (simt_emit_resident, simt_emit_resident_cluster), and the
 * cluster kernel's own synapse tables, built once and kept between launches.
 */
#include <string.h>

#include "simt_priv.h"

static void res_out(Out *o, const Simt *S, const Arg *a, int64_t at);

/* For each resident buffer (plan_resident): its copy into shared memory (RES_IN), its
 * shared-memory pointer under the argument's name (RES_NAMES), its copy back (RES_OUT). */
void simt_emit_resident(Out *o, const Simt *S, int what)
{
    for (int i = 0; i < S->nargs; i++) {
        const Arg *a = &S->args[i];
        if (a->res < 0)
            continue;
        if (what == RES_IN)
            out_line(o, "nc_res_copy(nc_res + %lld, %s, %s);", (long long)a->res, a->name, a->len);
        else if (what == RES_NAMES)
            out_line(o, "%s *const %s = (%s *)(nc_res + %lld);", a->type, a->name, a->type, (long long)a->res);
        else if (!a->ro)
            res_out(o, S, a, a->res);
    }
}

/* The copy back of resident buffer a: a work-group's own neurons of a per-neuron variable
 * and its own targets of a delay ring (the cluster schedule: every group holds all of them,
 * up to date for its own part), the rest (the same in every group) by group 0. */
static void res_out(Out *o, const Simt *S, const Arg *a, int64_t at)
{
    const long long rs = S->m->dbl ? 8 : 4;
    if (a->pop) {
        const long long size = (long long)a->pop->size, es = (long long)(a->bytes / a->pop->size);
        out_begin(o);
        out_line(o, "const int64_t lo = nc_part(%lld, NC_GROUP, NC_NGROUPS), hi = nc_part(%lld, NC_GROUP + 1, NC_NGROUPS);",
                 size, size);
        out_line(o, "nc_res_copy((char *)%s + lo * %lld, nc_res + %lld + lo * %lld, (hi - lo) * %lld);", a->name, es,
                 (long long)at, es, es);
        out_close(o);
    } else if (a->ring) {
        const long long np = (long long)a->ring->ring_size;
        out_begin(o);
        simt_own_range(o, (long long)a->ring->ring_off, np, arena_printf(&S->cc->arena, "nc_part(%lld, NC_GROUP, NC_NGROUPS)", (long long)a->ring->post.pop->size),
                    arena_printf(&S->cc->arena, "nc_part(%lld, NC_GROUP + 1, NC_NGROUPS)", (long long)a->ring->post.pop->size));
        out_line(o, "for (int64_t sl = 0; sl < %s_D; sl++)", a->ring->cname);
        out_line(o, "    nc_res_copy((char *)%s + (sl * %lld + nc_tlo) * %lld, nc_res + %lld + (sl * %lld + nc_tlo) * %lld, (nc_thi - nc_tlo) * %lld);",
                 a->name, np, rs, (long long)at, np, rs, rs);
        out_close(o);
    } else {
        out_line(o, "if (NC_GROUP == 0) nc_res_copy(%s, nc_res + %lld, %s);", a->name, (long long)at, a->len);
    }
}

/* The cluster kernel's resident buffers (plan_resident_cluster): RES_IN, the copies in (whole
 * buffers, then each slice at nc_at, advancing), RES_NAMES, the pointers under the arguments'
 * names (a slice's shifted by its group's first neuron, so the phases index it as the whole),
 * RES_OUT, the copies back of this group's part. */
void simt_emit_resident_cluster(Out *o, const Simt *S, int what)
{
    const IrModel *m = S->m;
    const long long rs = m->dbl ? 8 : 4;
    if (what == RES_IN) {
        for (int i = 0; i < m->npops; i++)
            out_line(o, "const int64_t nc_slo%d = nc_part(%lld, NC_GROUP, NC_NGROUPS), nc_shi%d = nc_part(%lld, NC_GROUP + 1, NC_NGROUPS);",
                     i, (long long)m->pops[i]->size, i, (long long)m->pops[i]->size);
        out_line(o, "uint32_t nc_at = %lld; /* the next free byte */", (long long)S->cres_bytes);
    }
    for (int i = 0; i < S->nargs; i++) {
        const Arg *a = &S->args[i];
        if (a->cslice) {
            const int p = a->pop->id;
            const char *var = a->name;
            const long long es = strcmp(a->type, "double") == 0 || strcmp(a->type, "int64_t") == 0 ||
                                         (strcmp(a->type, "real") == 0 && rs == 8) ? 8 : 4;
            if (what == RES_IN) {
                out_line(o, "const uint32_t nc_o_%s = nc_at;", var);
                out_line(o, "nc_at += (uint32_t)(((nc_shi%d - nc_slo%d) * %lld + 15) & ~(int64_t)15);", p, p, es);
                out_line(o, "nc_res_copy(nc_res + nc_o_%s, (const char *)%s + nc_slo%d * %lld, (nc_shi%d - nc_slo%d) * %lld);",
                         var, var, p, es, p, p, es);
            } else if (what == RES_NAMES) {
                out_line(o, "%s *const %s = (%s *)(nc_res + nc_o_%s) - nc_slo%d;", a->type, var, a->type, var, p);
            } else {
                out_line(o, "nc_res_copy((char *)%s + nc_slo%d * %lld, nc_res + nc_o_%s, (nc_shi%d - nc_slo%d) * %lld);", var,
                         p, es, var, p, p, es);
            }
        } else if (a->cres >= 0) {
            if (what == RES_IN)
                out_line(o, "nc_res_copy(nc_res + %lld, %s, %s);", (long long)a->cres, a->name, a->len);
            else if (what == RES_NAMES)
                out_line(o, "%s *const %s = (%s *)(nc_res + %lld);", a->type, a->name, a->type, (long long)a->cres);
            else
                res_out(o, S, a, a->cres);
        }
    }
}

/* Row i of j's global targets, 16 at a time in v[u] (the rows are in L2: 16 loads in flight),
 * `body` run for each u; past the row's end v[u] is -1, outside every group's targets. */
static void own_row_scan(Out *o, const IrProj *j, const char *body)
{
    out_line(o, "const int64_t rs = %s_rp[i], re = %s_rp[i + 1];", j->cname, j->cname);
    out_open(o, "for (int64_t s0 = rs; s0 < re; s0 += 16)");
    out_line(o, "int32_t v[16];");
    out_line(o, "for (int u = 0; u < 16; u++) v[u] = s0 + u < re ? %s_col[s0 + u] : -1;", j->cname);
    out_line(o, "for (int u = 0; u < 16; u++) %s", body);
    out_close(o);
}

static void emit_own_builds(Out *o, const Simt *S);

/* Each group's own synapses of the fused projections without per-synapse delays, in the
 * cluster kernel's shared memory while they fit (simt_own_table): the row offsets (pre size + 1,
 * 32 bits) and the targets in the group's own part, 16 bits from its first. A spike's
 * delivery then reads a row of a few entries from shared memory, where the rows in global
 * memory take a trip to L2 and a filter over every target (simt_emit_prop_fused). The run's first
 * launch builds them (emit_own_builds: rows counted, summed by nc_block_scan, filled) and
 * keeps a copy in the group's region of nc_otc; later launches copy that in (building them
 * every launch cost CUBA more than they saved: docs/performance.md). A projection that does
 * not fit keeps its global rows (nc_otab ~0u). */
void simt_emit_own_tables(Out *o, const Simt *S)
{
    const IrModel *m = S->m;
    if (!simt_n_own_tables(m)) {
        out_line(o, "NC_BARRIER();");
        return;
    }
    /* group r's region of nc_otc (NC_CLUSTER_SHMEM bytes): a header (built, first and end
     * byte of the tables in shared memory, nc_otab), then the tables as in shared memory */
    const long long hdr = (16 + 8 * (long long)m->nprojs + 15) / 16 * 16;
    out_line(o, "/* the own synapses: built by the run's first launch, kept in nc_otc (emit_own_tables) */");
    out_line(o, "NC_G uint32_t *const nc_oc = nc_otc + (int64_t)NC_GROUP * %lld;", (long long)simt_cluster_shmem(S) / 4);
    out_line(o, "const uint32_t nc_t0 = (nc_at + 15u) & ~15u;");
    out_open(o, "if (nc_oc[0] == 1u && nc_oc[1] == nc_t0) /* an earlier launch of this run built them */");
    out_line(o, "nc_res_copy(nc_res + nc_t0, (const char *)nc_oc + %lld, (nc_oc[2] - nc_t0 + 15u) & ~15u);", hdr);
    out_line(o, "if (NC_LID < %d) nc_otab[NC_LID] = nc_oc[4 + NC_LID];", 2 * m->nprojs);
    out_line(o, "nc_at = nc_oc[2];");
    out_line(o, "NC_BARRIER();");
    out_close(o);
    out_open(o, "else");
    out_line(o, "if (NC_LID < %d) nc_otab[NC_LID] = 0xffffffffu;", 2 * m->nprojs);
    emit_own_builds(o, S);
    out_line(o, "NC_BARRIER();");
    out_line(o, "nc_res_copy((char *)nc_oc + %lld, nc_res + nc_t0, (nc_at - nc_t0 + 15u) & ~15u);", hdr);
    out_line(o, "if (NC_LID < %d) nc_oc[4 + NC_LID] = nc_otab[NC_LID];", 2 * m->nprojs);
    out_line(o, "if (NC_LID == 0) nc_oc[0] = 1u, nc_oc[1] = nc_t0, nc_oc[2] = nc_at; /* read by the next launch */");
    out_close(o);
}

/* The builds of simt_emit_own_tables, one projection after the other from nc_at. */
static void emit_own_builds(Out *o, const Simt *S)
{
    const IrModel *m = S->m;
    for (int k = 0; k < m->nprojs; k++) {
        const IrProj *j = m->projs[k];
        if (!simt_own_table(m, j))
            continue;
        const long long npre = (long long)j->pre.size, psz = (long long)j->post.pop->size;
        out_open(o, "/* %s */", j->name);
        simt_own_targets(o, j, arena_printf(&S->cc->arena, "nc_part(%lld, NC_GROUP, NC_NGROUPS)", psz),
                    arena_printf(&S->cc->arena, "nc_part(%lld, NC_GROUP + 1, NC_NGROUPS)", psz));
        out_line(o, "const uint32_t at = (nc_at + 15u) & ~15u;");
        out_open(o, "if (nc_thi - nc_tlo <= 65536 && (int64_t)at + %lld <= %lld)", 4 * (npre + 1), (long long)simt_cluster_shmem(S));
        out_line(o, "uint32_t *const orp = (uint32_t *)(nc_res + at);");
        out_open(o, "for (int64_t i = NC_LID; i < %lld; i += NC_LSIZE)", npre);
        out_line(o, "uint32_t c = 0;");
        own_row_scan(o, j, "c += v[u] >= nc_tlo && v[u] < nc_thi;");
        out_line(o, "orp[i + 1] = c;");
        out_close(o);
        out_line(o, "if (NC_LID == 0) orp[0] = 0;");
        out_line(o, "NC_BARRIER();");
        out_line(o, "uint32_t run = 0;");
        out_open(o, "for (int64_t b = 0; b < %lld; b += NC_LSIZE)", npre);
        out_line(o, "const int64_t i = b + NC_LID;");
        out_line(o, "const int c = i < %lld ? (int)orp[i + 1] : 0;", npre);
        out_line(o, "int total;");
        out_line(o, "const int x = nc_block_scan(c, nc_tmp, &total);");
        out_line(o, "if (i < %lld) orp[i + 1] = run + (uint32_t)(x + c);", npre);
        out_line(o, "run += (uint32_t)total;");
        out_close(o);
        out_line(o, "const uint32_t cat = at + %lld;", 4 * (npre + 1));
        out_open(o, "if ((int64_t)cat + 2 * (int64_t)run <= %lld) /* the launch's dynamic shared memory */", (long long)simt_cluster_shmem(S));
        out_line(o, "uint16_t *const ocol = (uint16_t *)(nc_res + cat);");
        out_open(o, "for (int64_t i = NC_LID; i < %lld; i += NC_LSIZE)", npre);
        out_line(o, "uint32_t q = orp[i];");
        own_row_scan(o, j, "if (v[u] >= nc_tlo && v[u] < nc_thi) ocol[q++] = (uint16_t)(v[u] - nc_tlo);");
        out_close(o);
        out_line(o, "if (NC_LID == 0) nc_otab[%d] = at, nc_otab[%d] = cat;", 2 * k, 2 * k + 1);
        out_line(o, "nc_at = cat + 2 * run;");
        out_close(o);
        out_close(o);
        out_close(o);
    }
}
