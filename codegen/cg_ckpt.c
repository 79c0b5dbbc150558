/* cg_ckpt.c -- checkpoints: what a model's mutable state is, and the program hash.
 *
 * cg_ckpt_list enumerates, from the IrModel alone, every piece of state a run changes
 * (docs/architecture.md, "Checkpoints"): per-neuron variables, settable scalars, delay
 * rings, plastic synapse, pre and post states with the pre { } and spike histories.
 * Static data (connectivity, delays, fixed weights, propagators) is rebuilt from the seed
 * on resume. cg_ckpt_c writes the C program's save and load functions over that list.
 */
#include <string.h>

#include "codegen.h"

static void add(Compiler *cc, CgCkpt **v, int *n, int *cap, CgCkpt it)
{
    if (*n == *cap) {
        int nc = *cap ? 2 * *cap : 16;
        CgCkpt *nv = arena_alloc(&cc->arena, (size_t)nc * sizeof *nv);
        if (*n)
            memcpy(nv, *v, (size_t)*n * sizeof *nv);
        *v = nv;
        *cap = nc;
    }
    (*v)[(*n)++] = it;
}

/* A variable of n elements (times proj's synapse count with per = 2); n = 0: a scalar. */
static CgCkpt var_item(const IrModel *m, const IrVar *v, const IrProj *proj, int64_t n, int per)
{
    CgCkpt it = {CK_VAR, v, proj, v->cname, n, per, v->type == IRT_REAL ? "real" : "int32_t", 0};
    if (!n)
        it.scalar = v->type == IRT_REAL ? (m->dbl ? 'd' : 'f') : 'i';
    return it;
}

/* Contract: the mutable state of m in a fixed order (populations, then projections, each
 * in model order), in the arena; returns the count. Names are the storage's C names
 * (unique in the model). */
int cg_ckpt_list(Compiler *cc, const IrModel *m, CgCkpt **out)
{
    CgCkpt *v = NULL;
    int n = 0, cap = 0;
    for (int i = 0; i < m->npops; i++) {
        const IrPop *p = m->pops[i];
        for (int k = 0; k < p->nvars; k++)
            add(cc, &v, &n, &cap, var_item(m, p->vars[k], NULL, p->vars[k]->per_neuron ? p->size : 0, 0));
    }
    for (int k = 0; k < m->nprojs; k++) {
        const IrProj *j = m->projs[k];
        const IrPlast *pl = j->plast;
        const char *c = j->cname;
        int64_t npre = j->pre.size, npost = j->post.size;
        CgCkpt ring = {CK_RING, NULL, j, arena_printf(&cc->arena, "%s_ring", c), j->ring_size, 1, "real", 0};
        if (j->ring == j)         /* merged receptors' projections share their owner's ring */
            add(cc, &v, &n, &cap, ring);
        if (!pl)
            continue;
        for (int q = 0; q < pl->nsyn; q++)
            add(cc, &v, &n, &cap, var_item(m, pl->syn[q], j, 1, 2));
        for (int q = 0; q < pl->npre; q++) {
            CgCkpt h = {CK_PRE_HIST, pl->pre[q], j, arena_printf(&cc->arena, "%s_h", pl->pre[q]->cname), npre, 1,
                        pl->pre[q]->type == IRT_REAL ? "real" : "int32_t", 0};
            add(cc, &v, &n, &cap, var_item(m, pl->pre[q], j, npre, 0));
            add(cc, &v, &n, &cap, h);
            if (cg_pre_after(j)) {
                h.name = arena_printf(&cc->arena, "%s_ha", pl->pre[q]->cname);
                add(cc, &v, &n, &cap, h);
            }
        }
        for (int q = 0; q < pl->npost; q++)
            add(cc, &v, &n, &cap, var_item(m, pl->post[q], j, npost, 0));
        for (int q = 0; q < pl->scope->nvars; q++) {
            const IrVar *sv = pl->scope->vars[q];
            if (sv->kind == IV_PARAM && !sv->per_neuron)
                add(cc, &v, &n, &cap, var_item(m, sv, j, 0, 0));
        }
        CgCkpt hist = {CK_HIST, NULL, j, arena_printf(&cc->arena, "%s_hist", c), npre, 1, "int32_t", 0};
        CgCkpt hist_n = {CK_HIST_N, NULL, j, arena_printf(&cc->arena, "%s_hist_n", c), 1, 1, "int64_t", 0};
        add(cc, &v, &n, &cap, hist);
        add(cc, &v, &n, &cap, hist_n);
    }
    *out = v;
    return n;
}

static void fnv(uint64_t *h, const char *s)
{
    for (; *s; s++) {
        *h ^= (unsigned char)*s;
        *h *= 0x100000001b3ULL;
    }
    *h ^= 0xff; /* separator: ("ab", "c") and ("a", "bc") differ */
    *h *= 0x100000001b3ULL;
}

/* Contract: FNV-1a (64 bits) of the neuroc version, the IR as --dump=ir prints it, the
 * phases and the checkpoint list: a checkpoint is read only by a program with the same
 * hash, whatever its back end. */
uint64_t cg_ckpt_hash(Compiler *cc, const IrModel *m)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    StrBuf b = {0};
    CgCkpt *it;
    int n = cg_ckpt_list(cc, m, &it);
    fnv(&h, NEUROC_VERSION);
    cg_dump_ir((IrModel *)m, &b); /* prints only */
    fnv(&h, b.s ? b.s : "");
    for (int p = 0; p < m->nphases; p++) {
        const IrPhase *ph = &m->phases[p];
        b.len = 0;
        sb_printf(&b, "phase %d %lld %s %lld %lld %.17g", (int)ph->kind, (long long)ph->steps,
                  ph->var ? ph->var->cname : "-", (long long)ph->view.offset, (long long)ph->view.size,
                  ph->value);
        fnv(&h, b.s);
    }
    for (int k = 0; k < n; k++) {
        b.len = 0;
        sb_printf(&b, "%s %lld %d %c", it[k].name, (long long)it[k].n, it[k].per, it[k].scalar ? it[k].scalar : '-');
        fnv(&h, b.s);
    }
    sb_free(&b);
    return h;
}

/* Contract: `static const uint64_t nc_model_hash` (cg_ckpt_hash) for a host program's
 * main (cg_main_open hands it to the runtime). */
void cg_ckpt_hash_decl(Compiler *cc, Out *o, const IrModel *m)
{
    out_line(o, "static const uint64_t nc_model_hash = 0x%016llxULL; /* cg_ckpt_hash */",
             (unsigned long long)cg_ckpt_hash(cc, m));
}

/* Contract: the C program's checkpoint functions, after every storage and props_*
 * function: nc_model_hash, ckpt_save(phase) (nrt_ckpt_save of every item) and ckpt_load()
 * (nrt_ckpt_load, then the propagators recomputed from the restored parameters). Both
 * return 0, or -1 with ctx.errmsg set. */
void cg_ckpt_c(Compiler *cc, Out *o, IrModel *m)
{
    CgCkpt *it;
    int n = cg_ckpt_list(cc, m, &it);
    cg_ckpt_hash_decl(cc, o, m);
    out_line(o, "/* the mutable state a checkpoint holds (cg_ckpt_list) */");
    out_open(o, "static int ckpt_items(nrt_ckpt_item *it)");
    out_line(o, "int n = 0;");
    for (int k = 0; k < n; k++) {
        if (it[k].scalar)
            out_line(o, "it[n++] = (nrt_ckpt_item){\"%s\", &%s, sizeof %s, '%c'};", it[k].name, it[k].name,
                     it[k].name, it[k].scalar);
        else if (it[k].per == 2)
            out_line(o, "it[n++] = (nrt_ckpt_item){\"%s\", %s, (size_t)%s.nnz * sizeof(%s), 0};", it[k].name,
                     it[k].name, it[k].proj->cname, it[k].ctype);
        else if (it[k].per == 1)
            out_line(o, "it[n++] = (nrt_ckpt_item){\"%s\", %s, (size_t)%s_D * %lld * sizeof(%s), 0};", it[k].name,
                     it[k].name, it[k].proj->cname, (long long)it[k].n, it[k].ctype);
        else
            out_line(o, "it[n++] = (nrt_ckpt_item){\"%s\", %s, (size_t)%lld * sizeof(%s), 0};", it[k].name,
                     it[k].name, (long long)it[k].n, it[k].ctype);
    }
    out_line(o, "return n;");
    out_close(o);
    out_blank(o);
    out_open(o, "static int ckpt_save(int phase)");
    out_line(o, "nrt_ckpt_item it[%d];", n ? n : 1);
    out_line(o, "return nrt_ckpt_save(&ctx, phase, it, ckpt_items(it)) == NRT_OK ? 0 : -1;");
    out_close(o);
    out_blank(o);
    out_open(o, "static int ckpt_load(void)");
    out_line(o, "nrt_ckpt_item it[%d];", n ? n : 1);
    out_line(o, "if (nrt_ckpt_load(&ctx, it, ckpt_items(it)) != NRT_OK) return -1;");
    for (int i = 0; i < m->npops; i++)
        out_line(o, "if (props_%s() != 0) return -1;", m->pops[i]->cname);
    for (int k = 0; k < m->nprojs; k++)
        if (m->projs[k]->plast)
            out_line(o, "if (props_%s() != 0) return -1;", m->projs[k]->cname);
    out_line(o, "return 0;");
    out_close(o);
    out_blank(o);
}
