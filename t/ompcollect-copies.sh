#!/bin/sh
# ompcollect-copies.sh - the program as written: a pragma the compiler copied (a loop unrolled into ten runtime calls, a function inlined at two call sites) is one construct row at its line, with every instance and the count of its copies, and so are its waits; diff matches each construct across a rebuild that shifts every pragma a line: t/ompcollect-copies.c built by clang and GCC at -O2.
# SPDX-License-Identifier: BSD-3-Clause
. "${top_srcdir:?}/t/ompcollect-lib.sh"
source=$top_srcdir/t/ompcollect-copies.c
per_compiler=6
echo "1..$((2 * per_compiler))"
n=0
unrolled=$(line_of UNROLLED) inlined=$(line_of INLINED) cloned=$(line_of CLONED)
for cc in clang gcc; do
    if ! command -v $cc >/dev/null 2>&1; then
        skip "$cc is not installed" $per_compiler
        continue
    fi
    # Built once (t/test-programs.sh).
    if ! built=$(test_program copies-$cc 2>"$tmp/build.err") || ! cp "$built" "$tmp/copies-$cc"; then
        skip "$cc cannot build OpenMP programs" $per_compiler
        continue
    fi
    "$oc" --runtime "$LIBOMP" --interval=1ms --save="$tmp/$cc.ses" -f json -o "$tmp/$cc.json" "$tmp/copies-$cc" \
        >"$tmp/$cc.out" 2>"$tmp/$cc.err"
    [ $? -eq 0 ] && grep -q '^copies: done' "$tmp/$cc.out"
    result $? "$cc: the program ran under ompcollect" "$tmp/$cc.err"
    check $cc "one construct row per pragma, each at its line ($unrolled, $inlined, $cloned), and no other" \
        "sorted(c['location']['line'] for c in r['constructs']) == sorted([$unrolled, $inlined, $cloned])"
    check $cc "the unrolled loop's ten runtime calls are one row: 10 copies, 10 instances" \
        "[(c['copies'], c['instances']) for c in r['constructs'] if c['location']['line'] == $unrolled] == [(10, 10)]"
    check $cc "the function inlined at two call sites is one row: 2 copies, 2 instances, named by the function it is written in" \
        "[(c['copies'], c['instances'], c['location']['function']) for c in r['constructs'] if c['location']['line'] == $inlined] == [(2, 2, 'accumulate')]"
    check $cc "no two wait rows share a state, a line and an object" \
        "len(set((w['state'], w['location'].get('line'), w['object']['address']) for w in r['wait_locations'])) == len(r['wait_locations'])"
    checked $cc "[(c['location'].get('line'), c['copies'], c['instances']) for c in r['constructs']]"
    # The usual before and after of a fix: the same source at the same path, rebuilt with a blank line above every
    # pragma.  diff matches each construct by its order in its function, so none appears or disappears.
    mkdir -p "$tmp/src" && cp "$source" "$tmp/src/copies.c" \
        && $cc -fopenmp -g -O2 -o "$tmp/before-$cc" "$tmp/src/copies.c" 2>>"$tmp/$cc.err" \
        && "$oc" --runtime "$LIBOMP" --interval=1ms -f json -o "$tmp/before-$cc.json" "$tmp/before-$cc" >/dev/null 2>>"$tmp/$cc.err" \
        && sed 's/^\(.*#pragma omp\)/\n\1/' "$source" >"$tmp/src/copies.c" \
        && $cc -fopenmp -g -O2 -o "$tmp/after-$cc" "$tmp/src/copies.c" 2>>"$tmp/$cc.err" \
        && "$oc" --runtime "$LIBOMP" --interval=1ms -f json -o "$tmp/after-$cc.json" "$tmp/after-$cc" >/dev/null 2>>"$tmp/$cc.err" \
        && "$oc" diff -f json -o "$tmp/diff-$cc.json" "$tmp/before-$cc.json" "$tmp/after-$cc.json" 2>>"$tmp/$cc.err" \
        && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
statuses = [c["status"] for c in d["constructs"]]
print(statuses)
sys.exit(0 if statuses == ["matched"] * 3 else 1)' "$tmp/diff-$cc.json" >"$tmp/diff-$cc.out" 2>&1
    result $? "$cc: diff of a rebuild with every pragma a line lower: each construct matched, none appeared or disappeared" \
        "$tmp/diff-$cc.out" "$tmp/$cc.err"
done
