/* ast.c -- AST node construction.  One fat node kind (struct AstNode) whose fields are
 * used per kind as listed in ast_nodes.def; everything lives in cc->arena.
 */
#include "neuroc.h"

#include <string.h>

static const char *const kind_names[] = {
#define X(e, s) s,
#include "ast_nodes.def"
#undef X
};
_Static_assert(sizeof kind_names / sizeof kind_names[0] == AST__COUNT, "ast_nodes.def names");

/* A zeroed node of kind k at loc, owned by the arena. */
AstNode *ast_new(Compiler *cc, AstKind k, SrcLoc loc)
{
    AstNode *n = arena_alloc(&cc->arena, sizeof(AstNode));
    n->kind = k;
    n->loc = loc;
    return n;
}

/* Append n to l, growing the array in the arena (old arrays are left to the arena). */
void ast_append(Compiler *cc, AstList *l, AstNode *n)
{
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 4;
        AstNode **v = arena_alloc(&cc->arena, sizeof(AstNode *) * (size_t)cap);
        if (l->n)
            memcpy(v, l->v, sizeof(AstNode *) * (size_t)l->n);
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = n;
}

/* "binop", "model", ... from ast_nodes.def; "?" for an out-of-range kind. */
const char *ast_kind_name(AstKind k)
{
    if ((unsigned)k >= AST__COUNT)
        return "?";
    return kind_names[k];
}
