#!/bin/sh
# ompcollect-copies.sh - the program as written: a pragma the compiler copied (a loop unrolled into ten runtime calls, a function inlined at two call sites) is one construct row at its line, with every instance and the count of its copies, and so are its waits, in JSON and text: t/ompcollect-copies.c built by clang and GCC at -O2.
# SPDX-License-Identifier: BSD-3-Clause
. "${top_srcdir:?}/t/ompcollect-lib.sh"
source=$top_srcdir/t/ompcollect-copies.c
per_compiler=5
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
done
