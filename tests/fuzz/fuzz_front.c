/* fuzz_front.c -- libFuzzer target: the whole front end in-process.
 *
 * The input is the text of a model file: lex, parse (imports resolved against the real
 * stdlib, NEUROC_FUZZ_STDLIB), checks, lowering to IR and the IR dump into a buffer.
 * Every input must end in an IR model or in diagnostics: a crash, a hang, a leak, an
 * undefined behaviour (under the sanitizers) or a model with no IR and no error is a bug.
 */
#include "driver.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Compiler cc;
    compiler_init(&cc);
    cc.diag.out = NULL;
    cc.opt.stdlib_dir = NEUROC_FUZZ_STDLIB;
    /* a folder that does not exist: relative imports resolve only in the stdlib */
    uint32_t f = src_add(&cc, "/nonexistent-neuroc-fuzz/fuzz.neuro", (const char *)data, size);
    IrModel *m = compile_front(&cc, f);
    if (m) {
        StrBuf b = {0};
        cg_dump_ir(m, &b);
        if (b.len == 0 || cc.diag.nerrors != 0)
            abort();                      /* a model without IR, or IR after an error */
        sb_free(&b);
    } else if (cc.diag.nerrors == 0) {
        abort();                          /* rejected without a diagnostic */
    }
    compiler_free(&cc);
    return 0;
}
