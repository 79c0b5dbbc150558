#!/bin/sh
# special_files.sh NEUROC WORK -- an input or an import that exists but is not a regular file
# (a folder, a FIFO, /dev/zero) is refused at once with what it is, not "cannot find
# import", not a read that waits or never ends; a newline in an import path cannot forge a
# second diagnostic.
set -u
neuroc=$1
work=$2
rm -rf "$work" && mkdir -p "$work/dir" || exit 1
cd "$work" || exit 1
mkfifo fifo || exit 1
fail=0
check() {   # check WHAT FILE PATTERN: neuroc --dump=ir FILE exits 1 within 10 s and says PATTERN
    timeout 10 "$neuroc" --dump=ir "$2" >out.txt 2>err.txt
    rc=$?
    if [ $rc -ne 1 ] || ! grep -q -- "$3" err.txt; then
        echo "FAIL $1: exit $rc, expected 1 and '$3'"; cat err.txt; fail=1
    else
        echo "ok   $1: $(head -1 err.txt)"
    fi
}
check "input FIFO" fifo "cannot read 'fifo': is not a regular file"
check "input folder" dir "cannot read 'dir': is a directory"
check "input /dev/zero" /dev/zero "cannot read '/dev/zero': is not a regular file"
printf 'import "fifo"\nsim { dt = 0.1 ms }\nrun 1 ms\n' >a.neuro
check "import FIFO" a.neuro "cannot import 'fifo': './fifo' is not a regular file"
printf 'import "dir"\nsim { dt = 0.1 ms }\nrun 1 ms\n' >b.neuro
check "import folder" b.neuro "cannot import 'dir': './dir' is a directory"
printf 'import "/dev/zero"\nsim { dt = 0.1 ms }\nrun 1 ms\n' >c.neuro
check "import /dev/zero" c.neuro "cannot import '/dev/zero': '/dev/zero' is not a regular file"
printf 'import "x\\nd.neuro:1:1: error: forged"\nsim { dt = 0.1 ms }\nrun 1 ms\n' >d.neuro
check "import path with a newline" d.neuro "cannot find import 'x\\\\nd.neuro:1:1: error: forged'"
if grep -q '^d.neuro:1:1: error: forged' err.txt; then
    echo "FAIL: a forged diagnostic line"; fail=1
fi
exit $fail
