/* driver.h -- the top layer: the pass list (driver.c) and --explain (explain.c), entered
 * from the command line (main.c), the tests and the fuzzer.
 *
 * The driver sees the front end (neuroc.h, sema.h) and the back ends only through
 * codegen.h's Backend records and their table; it names no back end.
 */
#ifndef NEUROC_DRIVER_H
#define NEUROC_DRIVER_H

#include "codegen.h"
#include "neuroc.h"

/* --- driver.c ----------------------------------------------------------- */

void compiler_init(Compiler *cc);
void compiler_free(Compiler *cc);
int compile_file(Compiler *cc);                 /* the pass list; 0 on success */
/* The front end on file `file` already registered (src_add/src_load; its path says where
 * imports resolve): parse with its imports, check, lower. NULL after errors (diagnosed).
 * The in-process entry of the fuzzer (tests/fuzz). */
IrModel *compile_front(Compiler *cc, uint32_t file);

/* --- explain.c ---------------------------------------------------------- */

/* --explain: print what back end be would build of m, for the target arch (NULL without
 * one), to stdout: settings, populations, projections, integrators, merged receptors,
 * run-time parameters, the back end's schedule and kernel plan, estimated memory and
 * warnings. */
void explain_model(Compiler *cc, IrModel *m, const Backend *be, const char *arch);

#endif
