#!/usr/bin/env python3
"""layers.py -- the layer rule of the source tree (docs/architecture.md, "Layers").

    python3 layers.py SRCDIR        check the tree; exit 1 with a list of violations
    python3 layers.py --selftest    plant one violation of each kind in a scratch tree

Layers, lowest first; a file may include headers of its own layer and of the layers
ALLOWED lists for it, nothing else:

    runtime/include   public runtime headers (also read by generated programs)
    runtime/src       the runtime's own files
    compiler          the front end (with grammar/ and its generated neuro.h)
    codegen           the back-end interface (codegen.h), shared code generation, the table
    codegen/c         the C back end            } never include each other
    codegen/gpu       the GPU layer and back ends }
    driver            the pass list, --explain, the command line

Every `#include "..."` of the files in those folders is resolved to a file (beside the
including file, then in each folder as an include folder; a header generated into the build
tree by its name in GENERATED) and its layer checked. Also, no file of compiler/ or driver/
names a back end: those reach back ends only through codegen.h's Backend and its table.
"""
import os
import re
import shutil
import sys
import tempfile

# folder -> its layer (a folder's files belong to the folder's layer)
FOLDERS = {
    "runtime/include": "runtime/include",
    "runtime/src": "runtime/src",
    "compiler": "compiler",
    "grammar": "compiler",
    "codegen": "codegen",
    "codegen/c": "codegen/c",
    "codegen/gpu": "codegen/gpu",
    "driver": "driver",
}

# layer -> the layers its files may include (its own included)
ALLOWED = {
    "runtime/include": {"runtime/include"},
    "runtime/src": {"runtime/include", "runtime/src"},
    "compiler": {"runtime/include", "compiler"},
    "codegen": {"runtime/include", "compiler", "codegen"},
    "codegen/c": {"runtime/include", "compiler", "codegen", "codegen/c"},
    "codegen/gpu": {"runtime/include", "compiler", "codegen", "codegen/gpu"},
    "driver": {"runtime/include", "compiler", "codegen", "driver"},
}

# Headers generated into the build tree, and the layer they belong to.
GENERATED = {
    "neuro.h": "compiler",        # grammar/neuro.y through Lemon: the token codes (build/grammar)
}

# Folders whose files may not name a back end, and the names: the back ends' records and
# the GPU layer's functions and types.
NO_BACKEND = {"compiler", "driver"}
BACKEND_NAME = re.compile(r"\b(backend_(?:c|cuda|opencl)|simt_\w*|Simt\w*|cuda_\w*|SIMT_\w*)\b")

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
SOURCE_EXT = (".c", ".h", ".def", ".y", ".re")


def layer_of(rel):
    return FOLDERS.get(os.path.dirname(rel))


def strip_comments_and_strings(text):
    """The text with comments, string and character literals blanked (lines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * max(0, j - i - 1) + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def resolve(src, rel, name):
    """The path (relative to src) that `#include "name"` in file rel reads, or None."""
    cands = [os.path.join(os.path.dirname(rel), name)] + [os.path.join(d, name) for d in FOLDERS]
    for c in cands:
        c = os.path.normpath(c)
        if os.path.isfile(os.path.join(src, c)):
            return c
    return None


def check(src):
    problems = []
    for folder in FOLDERS:
        d = os.path.join(src, folder)
        if not os.path.isdir(d):
            continue
        for f in sorted(os.listdir(d)):
            rel = os.path.join(folder, f)
            if not f.endswith(SOURCE_EXT) or not os.path.isfile(os.path.join(src, rel)):
                continue
            layer = layer_of(rel)
            with open(os.path.join(src, rel), encoding="utf-8", errors="replace") as fh:
                text = fh.read()
            for m in INCLUDE.finditer(text):
                line = text.count("\n", 0, m.start()) + 1
                name = m.group(1)
                target = resolve(src, rel, name)
                if target is not None:
                    tlayer = layer_of(target)
                elif name in GENERATED:
                    target, tlayer = "(generated) " + name, GENERATED[name]
                else:
                    problems.append(f"{rel}:{line}: #include \"{name}\": no such file in the layers' folders")
                    continue
                if tlayer is None:
                    problems.append(f"{rel}:{line}: #include \"{name}\" reads {target}, outside the layers")
                elif tlayer not in ALLOWED[layer]:
                    problems.append(f"{rel}:{line}: #include \"{name}\": layer {layer} includes {target} "
                                    f"of layer {tlayer} (it may include {', '.join(sorted(ALLOWED[layer]))})")
            if layer in NO_BACKEND:
                code = strip_comments_and_strings(text)
                for m in BACKEND_NAME.finditer(code):
                    line = code.count("\n", 0, m.start()) + 1
                    problems.append(f"{rel}:{line}: names the back end '{m.group(1)}' (layer {layer} "
                                    "reaches back ends only through codegen.h's Backend and backends[])")
    return problems


def selftest():
    """Each kind of violation, planted in a scratch tree, is reported; a clean tree passes."""
    tmp = tempfile.mkdtemp(prefix="layers-")
    try:
        files = {
            "runtime/include/nrt.h": "",
            "runtime/src/rt.c": '#include "nrt.h"\n',
            "compiler/neuroc.h": '#include "nrt.h"\n',
            "compiler/lex.c": '#include "neuroc.h"\n#include "neuro.h"\n',
            "codegen/codegen.h": '#include "neuroc.h"\n',
            "codegen/c/c_priv.h": '#include "codegen.h"\n',
            "codegen/gpu/gpu.h": '#include "codegen.h"\n',
            "driver/driver.c": '#include "codegen.h"\n/* backend_c */ const char *s = "simt_x";\n',
        }
        for p, t in files.items():
            os.makedirs(os.path.join(tmp, os.path.dirname(p)), exist_ok=True)
            with open(os.path.join(tmp, p), "w") as fh:
                fh.write(t)
        clean = check(tmp)
        if clean:
            print("selftest: a clean tree gives", clean)
            return 1
        plants = [
            ("runtime/src/rt.c", '#include "neuroc.h"\n', "layer runtime/src includes compiler/neuroc.h"),
            ("compiler/lex.c", '#include "codegen.h"\n', "layer compiler includes codegen/codegen.h"),
            ("codegen/codegen.h", '#include "gpu/gpu.h"\n', "layer codegen includes codegen/gpu/gpu.h"),
            ("codegen/c/c_priv.h", '#include "../gpu/gpu.h"\n', "layer codegen/c includes codegen/gpu/gpu.h"),
            ("codegen/gpu/gpu.h", '#include "c_priv.h"\n', "layer codegen/gpu includes codegen/c/c_priv.h"),
            ("driver/driver.c", '#include "gpu.h"\n', "layer driver includes codegen/gpu/gpu.h"),
            ("driver/driver.c", "int x = backend_cuda.gpu;\n", "names the back end 'backend_cuda'"),
            ("compiler/lex.c", "int y = simt_free_ok(0);\n", "names the back end 'simt_free_ok'"),
            ("compiler/lex.c", '#include "nowhere.h"\n', "no such file"),
        ]
        bad = 0
        for path, line, want in plants:
            full = os.path.join(tmp, path)
            with open(full) as fh:
                keep = fh.read()
            with open(full, "w") as fh:
                fh.write(keep + line)
            got = check(tmp)
            with open(full, "w") as fh:
                fh.write(keep)
            if len(got) != 1 or want not in got[0]:
                print(f"selftest: planting {line.strip()!r} in {path}: expected one report with {want!r}, got {got}")
                bad = 1
        print("selftest:", "FAILED" if bad else f"ok ({len(plants)} planted violations reported)")
        return bad
    finally:
        shutil.rmtree(tmp)


def main(argv):
    if len(argv) == 2 and argv[1] == "--selftest":
        return selftest()
    if len(argv) != 2:
        print(__doc__.split("\n\n")[1])
        return 2
    problems = check(argv[1])
    for p in problems:
        print(p)
    if problems:
        print(f"layers: {len(problems)} violation{'s' if len(problems) > 1 else ''} of the layer rule "
              "(docs/architecture.md, \"Layers\")")
        return 1
    print("layers: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
