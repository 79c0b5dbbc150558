/* sema_lattice.c -- lattice positions and distances: `grid(..) spacing s [periodic]` layouts
 * of populations, the positions pos.x .. pos.u of a neuron, and dist, dx .. du between the
 * pre and post neurons of a projection (wrapped on periodic grids).
 */
#include <math.h>
#include <string.h>

#include "sema_priv.h"

Dim sema_dim_len(void)
{
    Dim d = DIM_NONE;
    d.e[DIM_L] = 1;
    return d;
}

/* Axis of a lattice name: pos.x .. pos.u and dx .. du (0..3); -1 for `dist`; -2 otherwise. */
int sema_space_axis(const char *s)
{
    static const char axes[] = "xyzu";
    if (strcmp(s, "dist") == 0)
        return -1;
    if (s[0] == 'd' && s[1] && !s[2] && strchr(axes, s[1]))
        return (int)(strchr(axes, s[1]) - axes);
    return -2;
}

/* Coordinate `axis` (um) of the neuron with base index `ix` in grid g:
 * (ix / (n0 ... n_{axis-1}) % n_axis + 0.5) * spacing. */
static IrExpr *grid_coord(Compiler *cc, const IrGrid *g, IrExpr *ix, int axis)
{
    int64_t stride = 1;
    for (int d = 0; d < axis; d++)
        stride *= g->n[d];
    IrExpr *c = ix;
    if (stride > 1)
        c = ir_bin(cc, IB_DIV, c, ir_const(cc, (double)stride, IRT_INT));
    if (axis < g->ndim - 1)
        c = ir_bin(cc, IB_MOD, c, ir_const(cc, (double)g->n[axis], IRT_INT));
    c = ir_bin(cc, IB_ADD, c, ir_const(cc, 0.5, IRT_REAL));
    return ir_bin(cc, IB_MUL, c, ir_const(cc, g->spacing, IRT_REAL));
}

/* pos.x .. pos.u: the position of the current neuron (population initialisers, stimuli). */
/* out of line: conv_node recurses, and its frame would hold this one's locals at every level */
NC_NOINLINE Val sema_conv_pos(Ctx *x, AstNode *n)
{
    Compiler *cc = x->cc;
    static const char axes[] = "xyzu";
    const char *a = n->name2[0] && !n->name2[1] ? strchr(axes, n->name2[0]) : NULL;
    if (!a) {
        error_at(cc, n->loc2, "unknown position '%s': a lattice has axes x, y, z and u",
                 n->name2);
        return sema_bad(cc);
    }
    if (!(x->allow & A_POS) || !x->inst) {
        error_at(cc, n->loc, "positions are available in population initialisers and stimuli, "
                             "not in %s", x->where);
        return sema_bad(cc);
    }
    const IrGrid *g = &x->inst->pop->grid;
    int axis = (int)(a - axes);
    if (axis >= g->ndim) {
        error_at(cc, n->loc, "'pos.%s' needs a grid of %d dimension%s; population '%s' has %s",
                 n->name2, axis + 1, axis ? "s" : "", x->inst->pop->name,
                 g->ndim ? arena_printf(&cc->arena, "%d", g->ndim) : "no grid");
        return sema_bad(cc);
    }
    return sema_mkval(grid_coord(cc, g, ir_leaf(cc, IE_INDEX, IRT_INT), axis), sema_dim_len());
}

/* Check that a projection's two grids can be measured against each other; 1 if so. */
int sema_space_ok(Compiler *cc, const IrProj *pj, SrcLoc loc, const char *what)
{
    const IrGrid *a = &pj->pre.pop->grid, *b = &pj->post.pop->grid;
    if (!a->ndim || !b->ndim) {
        error_at(cc, loc, "%s needs both populations on grids; '%s' has no grid", what,
                 a->ndim ? pj->post.pop->name : pj->pre.pop->name);
        return 0;
    }
    if (a->ndim != b->ndim) {
        error_at(cc, loc, "%s needs grids of equal dimension; '%s' is %d-D and '%s' is %d-D",
                 what, pj->pre.pop->name, a->ndim, pj->post.pop->name, b->ndim);
        return 0;
    }
    if (a->periodic != b->periodic) {
        error_at(cc, loc, "%s needs both grids periodic or neither ('%s' is periodic)", what,
                 a->periodic ? pj->pre.pop->name : pj->post.pop->name);
        return 0;
    }
    for (int d = 0; a->periodic && d < a->ndim; d++) {
        double la = (double)a->n[d] * a->spacing, lb = (double)b->n[d] * b->spacing;
        if (fabs(la - lb) > 1e-9 * fabs(lb)) {
            error_at(cc, loc, "%s wraps around periodic grids of unequal extent along axis %d "
                     "(%g um and %g um)", what, d + 1, la, lb);
            return 0;
        }
    }
    return 1;
}

/* Displacement post - pre along `axis` (um), wrapped to the nearest image on periodic grids. */
static IrExpr *space_delta(Compiler *cc, const IrProj *pj, int axis)
{
    const IrGrid *a = &pj->pre.pop->grid, *b = &pj->post.pop->grid;
    IrExpr *ib = ir_bin(cc, IB_ADD, ir_leaf(cc, IE_PRE, IRT_INT),
                        ir_const(cc, (double)pj->pre.offset, IRT_INT));
    IrExpr *jb = ir_bin(cc, IB_ADD, ir_leaf(cc, IE_POST, IRT_INT),
                        ir_const(cc, (double)pj->post.offset, IRT_INT));
    IrExpr *d = ir_bin(cc, IB_SUB, grid_coord(cc, b, jb, axis), grid_coord(cc, a, ib, axis));
    if (b->periodic) {
        IrExpr *len = ir_const(cc, (double)b->n[axis] * b->spacing, IRT_REAL);
        IrExpr *k = ir_call(cc, IF_ROUND, (IrExpr *[]){ir_bin(cc, IB_DIV, d, len)}, 1);
        d = ir_bin(cc, IB_SUB, d, ir_bin(cc, IB_MUL, len, k));
    }
    return d;
}

/* dist (Euclidean, wrapped on periodic grids) or dx .. du in projection expressions. */
/* out of line: conv_node recurses, and its frame would hold this one's locals at every level */
NC_NOINLINE Val sema_conv_space(Ctx *x, AstNode *n)
{
    Compiler *cc = x->cc;
    const IrProj *pj = x->S->proj;
    int axis = sema_space_axis(n->name);
    if (!pj || !sema_space_ok(cc, pj, n->loc, arena_printf(&cc->arena, "'%s'", n->name)))
        return sema_bad(cc);
    int nd = pj->post.pop->grid.ndim;
    if (axis >= nd) {
        error_at(cc, n->loc, "'%s' needs grids of %d dimensions; these are %d-D", n->name,
                 axis + 1, nd);
        return sema_bad(cc);
    }
    if (axis >= 0)
        return sema_mkval(space_delta(cc, pj, axis), sema_dim_len());
    IrExpr *sum = NULL;
    for (int d = 0; d < nd; d++) {
        IrExpr *dd = space_delta(cc, pj, d);
        IrExpr *sq = ir_bin(cc, IB_MUL, dd, dd);
        sum = sum ? ir_bin(cc, IB_ADD, sum, sq) : sq;
    }
    return sema_mkval(ir_call(cc, IF_SQRT, (IrExpr *[]){sum}, 1), sema_dim_len());
}

/* `grid(n0, ..) spacing s [periodic]` (1 to 4 axes, a length spacing, default 1 um) into *g;
 * returns the number of neurons. */
int64_t sema_grid_layout(Sema *S, AstNode *gn, IrGrid *g, int *ok)
{
    Compiler *cc = S->cc;
    int64_t total = 1;
    if (gn->list.n < 1 || gn->list.n > 4) {
        error_at(cc, gn->loc, "a grid has 1 to 4 axes, %d given", gn->list.n);
        *ok = 0;
        return 0;
    }
    g->ndim = gn->list.n;
    for (int d = 0; d < g->ndim; d++) {
        AstNode *a = gn->list.v[d];
        if (a->kind == AST_ARG) {
            error_at(cc, a->loc, "grid sizes are positional: grid(nx, ny, ...)");
            *ok = 0;
            return 0;
        }
        g->n[d] = sema_const_int(S, a, "a grid size", 1, 2000000000, ok);
        if (!*ok)
            return 0;
        if (total > 2000000000 / g->n[d]) {
            error_at(cc, gn->loc, "a grid of more than 2000000000 neurons");
            *ok = 0;
            return 0;
        }
        total *= g->n[d];
    }
    g->spacing = 1.0;
    if (gn->a) {
        Ctx x = {S, cc, &S->global, NULL, NULL, 0, NULL, "a grid spacing", 0, NULL, 0, 0};
        Dim dd;
        if (!sema_const_eval(&x, gn->a, &g->spacing, &dd)) {
            *ok = 0;
            return 0;
        }
        if (!dim_eq(dd, sema_dim_len()) || !(g->spacing > 0) || !isfinite(g->spacing)) {
            error_at(cc, gn->a->loc, "a grid spacing must be a positive length (e.g. '20 um'), got %s",
                     dim_eq(dd, sema_dim_len()) ? "a length that is not positive" : sema_fmt_dim(cc, dd));
            *ok = 0;
            return 0;
        }
    }
    g->periodic = gn->flag;
    return total;
}
