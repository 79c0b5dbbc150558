/* c_priv.h -- the C back end's private header: what its files share, by file.
 *
 * backend_c.c holds the Backend object (emit_c writes the program's parts in order); each
 * other file emits one concern of the generated program, c_common.c what they all use.
 * Nothing here is seen outside codegen/c: the rest of neuroc reaches the C back end only
 * through backend_c (codegen.h).
 */
#ifndef NEUROC_C_PRIV_H
#define NEUROC_C_PRIV_H

#include "codegen.h"

/* --- c_common.c: the dialect hooks, storage types, the arrays owned ----- */
CgDialect cgc_dialect(const IrModel *m, const IrPop *pop);   /* cg_dialect with the C hooks */
const char *cgc_storage_type(IrType t);                      /* "real" or "int32_t" */
void cgc_expr_str(const CgDialect *d, const IrExpr *e, StrBuf *b);   /* b = e's text */
/* An array the program allocates, freed by free_all() on every way out: fmt names it. */
void cgc_own(const char *fmt, ...) NC_PRINTF(1, 2);
void cgc_own_line(const char *fmt, ...) NC_PRINTF(1, 2);   /* a line of free_all() as is */
void cgc_own_reset(void);                  /* forget the arrays (before and after a model) */
void cgc_free_all(Out *o);                 /* free_all(): nrt_free of every array owned */

/* --- c_host.c: the program around the populations and projections ------- */
void cgc_prelude(Out *o, const IrModel *m);    /* includes, types, inline helpers */
void cgc_records(Out *o, const IrModel *m);    /* the recordings and open_records() */
void cgc_step(Out *o, const IrModel *m);       /* do_step() */
void cgc_step_mpi(Out *o, const IrModel *m);   /* --mpi: local_step(), deliver_step() */
void cgc_main(Out *o, const IrModel *m);       /* check_finite, free_all, fail, main() */

/* --- c_series.c: analog input series ------------------------------------ */
void cgc_series(Out *o, const IrModel *m);       /* nc_series, the tables, load_series() */
void cgc_series_load(Out *o, const IrModel *m);  /* main's call of load_series() */

/* --- c_neuron.c: populations --------------------------------------------- */
void cgc_pop_storage(Out *o, const IrPop *p, const IrModel *m);   /* its arrays, scalars */
void cgc_pop_init(Out *o, const IrPop *p, const IrModel *m);   /* props_<P>, init_<P> */
void cgc_pop_step(Out *o, const IrPop *p, const IrModel *m);   /* step_<P> */
/* One exact propagator's Phi and Psi into entries `which`, `which` + 1 of pr (dd: double). */
void cgc_one_prop(Out *o, const CgDialect *dd, const IrProp *pr, IrExpr **A, int which);

/* --- c_proj.c: stored static projections and the delay rings ------------ */
void cgc_proj(Compiler *cc, Out *o, const IrProj *j, const IrModel *m);   /* build_, propagate_ */
void cgc_ring_alloc(Out *o, const IrProj *j);   /* the end of build_<J>: j's ring, sized maxd + 1 */
void cgc_ring_decl(Out *o, const IrProj *j);    /* the declarations of j's ring, if it owns one */

/* --- c_family.c: projection families (stored projections alike but for constants) -- */
void cgc_fam_plan(Compiler *cc, const IrModel *m);   /* which projections are members */
void cgc_fam_reset(void);                            /* forget them (after a model) */
void cgc_fam_explain(const IrModel *m);              /* --explain: the families, on stdout */
int cgc_fam_member(const IrProj *j);                 /* j is emitted by its family */
int cgc_fam_of(const IrProj *j);                     /* j's family, or -1 */
/* Projection k a run's first member: the run's length (its projections k, k + 1, ...) and
 * *u its index in nc_units[]; 0 when k is no member. */
int cgc_fam_unit(int k, int *u);
/* The stretch of projections from k on that are all family members: its length (0: k is
 * none), and the runs of members it holds, nc_units[*u0 .. *u1 - 1]. */
int cgc_fam_seg(const IrModel *m, int k, int *u0, int *u1);
int cgc_fam_mem_seg(Out *o, const IrModel *m, int k);   /* cg_mem_plan's CgMemUnit */
void cgc_families(Out *o, const IrModel *m);   /* every family's table and functions */
void cgc_fam_mem_split(Out *o, const IrModel *m);   /* in mem_threads(): the families' nrt_split bytes */
void cgc_fam_own_parts(Out *o, const IrModel *m);   /* in own_balance(): the members' nrt_own_part */
void cgc_fam_group(Out *o, const IrModel *m);       /* main: the members' rows grouped by thread */
void cgc_fam_mpi_dmin(Out *o, const IrModel *m);    /* --mpi: the members' shortest delay into dmin */
const CgFamPlan *cgc_fam_the_plan(void);            /* the model's plan (cgc_fam_plan) */

/* --- c_famthr.c: --threads, procedural family members on the pool ------- */
/* In cgc_families: before the families' functions, the members' table nc_pfm[], their spike
 * bounds and nc_pf_push (rows_fam<f> uses it); after deliver_units, pf_start() (main, after
 * the builds: cgc_par_group) and pf_deliver(step) (do_step: cgc_par_deliver). Nothing where
 * no member is on the threads (cgc_par_pfam). */
void cgc_fam_par_head(Out *o, const IrModel *m);
void cgc_fam_par_tail(Out *o, const IrModel *m);

/* --- c_proc.c: procedural projections ------------------------------------ */
void cgc_proc(Out *o, const IrProj *j, const IrModel *m);   /* build_, propagate_, save_ */
/* Row i of a member of a procedural family like j0 (c_family.c), in a block declaring its
 * `key0` and `rank` (as proc_row): d->row spells the numbers, wt and dt are the w and delay templates
 * (the table's F in scope); per synapse CGC_ROW_BUILD keeps the longest delay in `maxd`,
 * CGC_ROW_DELIVER adds w into `ring` (`D`, `width`, `roff`), CGC_ROW_FILL stores it into
 * `c`, `w_`, `d_` (as save_<J>), CGC_ROW_SCAN keeps `maxd` as BUILD but notes the first
 * unusable delay in nc_bad, nc_bi, nc_bj, nc_bd and jumps to nc_done (cgc_proc_scan). With
 * `mpi` (--mpi) DELIVER adds only into the rank's targets [vlo, vhi) (in scope) and SCAN keeps
 * the shortest delay in nc_dmin.
 * CGC_ROW_BUFFER (--threads, cgc_par_pfam) pushes w through nc_pf_push into the buffers
 * `nc_b` of the threads owning the posts (`nc_last`, `ring`, `m`, `roff`, `D`, `nc_plo`,
 * `nc_plen`, `T` in scope; with `mpi` the rank's targets only). */
enum { CGC_ROW_BUILD, CGC_ROW_DELIVER, CGC_ROW_FILL, CGC_ROW_SCAN, CGC_ROW_BUFFER };
/* The pool function scan_<name>(arg, t, T) of a procedural projection's build: thread t walks
 * rows [n t / T, n (t + 1) / T) of `n` (a C expression) through `row` (which emits one row
 * i in CGC_ROW_SCAN), keeping its longest delay and its first unusable delay in the struct
 * nc_ps_<name>; preamble (or NULL) is emitted first; cgc_parts_join("nc_ps_", name, "") after
 * nrt_pool_run(scan_<name>, ...). With `dmin` (--mpi) each part's shortest delay too, from 64
 * down, in nc_ps_<name>.dmin[t]. */
void cgc_proc_scan(Out *o, const char *name, const char *n, const char *preamble,
                   void (*row)(Out *, const void *), const void *arg, int dmin);
/* After the parts of a build ran on the pool, each keeping maxd[t] and, where `delay`, its first
 * unusable delay (bad[t], bi[t], bj[t], bd[t]) in the struct <pre><name><suf> (spelled in
 * parts: a name has no length limit): `maxd` from every part,
 * and from the first part in order with an unusable delay the one-thread message and `return
 * -1`. The projection's name: `lit` in the message's text, or else the C string `expr`. */
void cgc_parts_join(Out *o, const char *pre, const char *name, const char *suf, int delay, const char *lit, const char *expr);
void cgc_proc_fam_row(Out *o, const CgDialect *d, const IrProj *j0, const char *wt, const char *dt, int what,
                      int mpi);

/* --- c_plast.c: plastic projections -------------------------------------- */
/* The row function (PAIRS), storage, props_, build_, arrive_, learn_, catchup_ of j. */
void cgc_plast(Out *o, const IrProj *j, const IrModel *m);
/* A PH_ASSIGN phase of j's synapses (inside main): every synapse, in the syn_init context. */
void cgc_plast_assign(Out *o, const IrModel *m, const IrPhase *ph);

/* --- c_par.c: threads (--threads N; the pool of rt_pool.c) ---------------- */
int cgc_par_pop(const IrPop *p);                        /* p's neurons split over the threads */
/* j's delivery split by the posts of its ring (a stored static projection whose ring and
 * family hold only such projections; cgc_par_plan decides, once per model) */
int cgc_par_proj(const IrModel *m, const IrProj *j);
void cgc_par_reset(void);                               /* forget the model's decisions */
int cgc_par_proc(const IrProj *j);
/* a procedural family's member delivered on the threads: by (member, spike) into buffers, then
 * by post (c_famthr.c: pf_start(), pf_deliver(step)); every projection of its ring, and every
 * member of its family, is one */
int cgc_par_pfam(const IrModel *m, const IrProj *j);                      /* procedural j: rows by spike, then by post */
void cgc_par_regions(Out *o, const IrModel *m);         /* nc_neurons(), nc_deliver() */
void cgc_par_neurons(Out *o, const IrModel *m);         /* a step's neuron phase, spikes joined */
void cgc_par_deliver(Out *o, const IrModel *m);         /* a step's delivery, every projection */
void cgc_par_own_start(Out *o, const IrModel *m);       /* main: the warm-up of the delivery owners */
void cgc_par_group(Out *o, const IrModel *m);           /* main: unsorted rows grouped by thread */
int cgc_par_set(const IrModel *m, const IrPhase *ph);  /* a `set` block over neuron ranges on the threads */
void cgc_par_sets(Out *o, const IrModel *m);           /* their nc_set<p>() */
void cgc_par_mem(Out *o, const IrModel *m);
int cgc_par_rec(const IrRecord *rec);                   /* a state row gathered on the threads (nc_rec<r>) */
void cgc_par_records(Out *o, const IrModel *m);         /* nc_rec<r>() */             /* mem_threads(): the memory plan's nrt_split */

/* --- c_mpi.c: distributed runs (--mpi) ----------------------------------- */
int cgc_mpi_replicated(const IrModel *m, const IrPop *p);   /* every rank steps all of p */
int cgc_mpi_recorded(const IrModel *m, const IrProj *j);    /* `record ... of j` exists */
void cgc_mpi_prelude(Out *o);                               /* mpi, nc_D, nc_stop, nc_view */
/* <c><lo>, <c><hi>: this rank's slice of j's post population, in j's post view. */
void cgc_mpi_view(Out *o, const IrProj *j, const char *c, const char *lo, const char *hi);
/* In build_<J>, after the full build: keep the synapses onto this rank's slice. */
void cgc_mpi_restrict(Out *o, const IrModel *m, const IrProj *j, int file);

#endif
