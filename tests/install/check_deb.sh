#!/bin/sh
# check_deb.sh BUILD_DIR SOURCE_DIR WORK_DIR
# The Debian package: `cpack -G DEB` builds it from the build tree; it is unpacked with
# `dpkg-deb -x` into a temporary root (nothing is installed on the system), must hold the
# compiler, runtime, stdlib, docs (tutorial, language reference, examples), the MIT
# licence (also as Debian's copyright file, and named in the description), man pages and
# editor files, and its neuroc must compile and run the packaged CUBA example to the same
# spikes, bit for bit, as the build tree's neuroc.
# Exit: 0 pass, 1 fail, 77 skipped (no cpack or dpkg-deb).
set -u
BUILD=$1; SRC=$2; WORK=$3
fails=0
ok()  { echo "ok   $*"; }
bad() { fails=$((fails + 1)); echo "FAIL $*"; }
for t in cpack dpkg-deb; do
    command -v $t >/dev/null 2>&1 || { echo "skipped: $t not installed"; exit 77; }
done
rm -rf "$WORK"; mkdir -p "$WORK"
if ! cpack -G DEB --config "$BUILD/CPackConfig.cmake" -B "$WORK/pkg" >"$WORK/cpack.log" 2>&1; then
    bad "cpack -G DEB failed: $(tail -3 "$WORK/cpack.log")"; exit 1
fi
deb=$(ls "$WORK"/pkg/neuroc_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] && ok "cpack -G DEB wrote $(basename "$deb")" || { bad "no .deb under $WORK/pkg"; exit 1; }
version=$(sed -n 's/^project(neuroc VERSION \([0-9.]*\).*/\1/p' "$SRC/CMakeLists.txt")
[ "$(dpkg-deb -f "$deb" Package)" = neuroc ] && [ "$(dpkg-deb -f "$deb" Version)" = "$version" ] &&
    ok "control: neuroc $version" || bad "control: $(dpkg-deb -f "$deb" Package Version)"
dpkg-deb -f "$deb" Depends | grep -q "c-compiler" && ok "depends on a C compiler" || bad "Depends: $(dpkg-deb -f "$deb" Depends)"
dpkg-deb -x "$deb" "$WORK/root" || { bad "dpkg-deb -x failed"; exit 1; }
R=$WORK/root/usr
for f in bin/neuroc lib/libneurort.a include/neuroc/neurort.h include/neuroc/nrt_units.h \
         share/neuroc/stdlib/neurons.neuro share/neuroc/stdlib/synapses.neuro \
         share/doc/neuroc/tutorial.md share/doc/neuroc/language.md share/doc/neuroc/cli.md \
         share/doc/neuroc/examples/cuba.neuro share/man/man1/neuroc.1 share/man/man1/neuroc-sim.1 \
         share/neuroc/editors/vim/syntax/neuro.vim share/neuroc/editors/vim/ftdetect/neuro.vim \
         share/neuroc/editors/vscode/package.json share/neuroc/editors/vscode/syntaxes/neuro.tmLanguage.json; do
    [ -s "$R/$f" ] || bad "the package lacks /usr/$f"
done
[ $fails -eq 0 ] && ok "the package holds neuroc, runtime, stdlib, docs, examples, man pages, editor files"
for f in share/doc/neuroc/copyright share/doc/neuroc/LICENSE; do
    if cmp -s "$R/$f" "$SRC/LICENSE" && grep -q "^MIT License" "$R/$f"; then
        ok "/usr/$f is the MIT licence"
    else
        bad "the package lacks the licence as /usr/$f"
    fi
done
dpkg-deb -f "$deb" Description | grep -q "License: MIT" && ok "the description names the licence" ||
    bad "the package description does not name the licence"
if command -v man >/dev/null 2>&1; then
    MANWIDTH=80 man -l "$R/share/man/man1/neuroc.1" 2>/dev/null | grep -q "^SYNOPSIS" &&
        ok "man -l the packaged neuroc.1" || bad "the packaged neuroc.1 does not render"
fi
# the packaged compiler finds its runtime and stdlib under the unpacked root
if "$R/bin/neuroc" "$R/share/doc/neuroc/examples/cuba.neuro" -o "$WORK/cuba_pkg" 2>"$WORK/cc.txt" &&
   "$WORK/cuba_pkg" --quiet --seed 3 --out "$WORK/out_pkg"; then
    ok "the packaged neuroc compiles and runs examples/cuba.neuro"
else
    bad "the packaged neuroc: $(tail -3 "$WORK/cc.txt")"
fi
"$BUILD/bin/neuroc" "$SRC/examples/cuba.neuro" -o "$WORK/cuba_build" 2>/dev/null &&
    "$WORK/cuba_build" --quiet --seed 3 --out "$WORK/out_build"
spk=$(cd "$WORK/out_build" && ls *.npy | head -1)
if [ -n "$spk" ] && cmp -s "$WORK/out_pkg/$spk" "$WORK/out_build/$spk"; then
    ok "same spikes as the build tree's neuroc ($spk, $(wc -c <"$WORK/out_pkg/$spk") bytes)"
else
    bad "the packaged and the build tree's simulators differ ($spk)"
fi
[ $fails -eq 0 ]
