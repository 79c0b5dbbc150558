#!/bin/sh
# check_man.sh NEUROC SOURCE_DIR WORK_DIR
# The man pages docs/man/neuroc.1 and docs/man/neuroc-sim.1 render without a groff warning,
# `man -l` shows them, and each names every option that `neuroc --help` and a generated
# simulator's --help (an OpenCL one, with a run-time parameter: every option shows) print.
# Exit: 0 pass, 1 fail, 77 skipped (no groff).
set -u
NEUROC=$1; SRC=$2; WORK=$3
fails=0
ok()  { echo "ok   $*"; }
bad() { fails=$((fails + 1)); echo "FAIL $*"; }
if ! command -v groff >/dev/null 2>&1; then
    echo "skipped: groff not installed"; exit 77
fi
rm -rf "$WORK"; mkdir -p "$WORK"
for page in neuroc.1 neuroc-sim.1; do
    f="$SRC/docs/man/$page"
    if groff -man -Tutf8 -ww -z "$f" 2>"$WORK/warn.txt" && [ ! -s "$WORK/warn.txt" ]; then
        ok "$page renders without warnings"
    else
        bad "$page: groff says: $(head -3 "$WORK/warn.txt")"
    fi
    if command -v man >/dev/null 2>&1; then
        MANWIDTH=80 man -l "$f" >"$WORK/$page.txt" 2>/dev/null
        grep -q "^SYNOPSIS" "$WORK/$page.txt" && ok "man -l $page" || bad "man -l $page shows no SYNOPSIS"
    fi
done
# every option of a --help text must be in the page (roff writes '-' as '\-')
options_in() { # help.txt page
    for opt in $(grep -oE '(^|[ [])--?[a-zA-Z][a-zA-Z-]*' "$1" | tr -d ' [' | sort -u); do
        if sed 's/\\-/-/g' "$2" | grep -qe "$opt"; then :; else echo "$opt"; fi
    done
}
"$NEUROC" --help | grep -v "^Then run the simulator" >"$WORK/neuroc_help.txt"
missing=$(options_in "$WORK/neuroc_help.txt" "$SRC/docs/man/neuroc.1")
[ -z "$missing" ] && ok "neuroc.1 names every option of neuroc --help" || bad "neuroc.1 lacks: $missing"
if "$NEUROC" "$SRC/tests/set/lif_tau.neuro" --backend opencl -o "$WORK/sim" 2>"$WORK/cc.txt"; then
    "$WORK/sim" --help >"$WORK/sim_help.txt"
    missing=$(options_in "$WORK/sim_help.txt" "$SRC/docs/man/neuroc-sim.1")
    [ -z "$missing" ] && ok "neuroc-sim.1 names every option of a simulator's --help" || bad "neuroc-sim.1 lacks: $missing"
else
    bad "cannot compile a simulator: $(tail -2 "$WORK/cc.txt")"
fi
[ $fails -eq 0 ]
