#!/bin/sh
# ompcollect-sites.sh - each wait, lock and construct of t/ompcollect-sites.c (built -O2 -g by clang and GCC) is named by the function it is written in and its line, though the compiler made its runtime call a tail call, outlined it from a function that is only inlined, or (clang, forced) gave the call line 0, or (clang) kept no declarations (-gline-tables-only); no row names the runtime's code or a compiler-outlined body.
# SPDX-License-Identifier: BSD-3-Clause
. "${top_srcdir:?}/t/ompcollect-lib.sh"
source=$top_srcdir/t/ompcollect-sites.c
seconds=${OMPCOLLECT_SITES_SECONDS:-0.3}

tail_taskwait=$(line_of tail-taskwait)
held_taskwait=$(line_of held-taskwait)
single_taskwait=$(line_of single-taskwait)
orphan_for=$(line_of orphan-for)
share_end=$(line_of share-end)
last_for=$(line_of last-for)
last_end=$(line_of last-end)
tasks_parallel=$(line_of tasks-parallel)
loops_parallel=$(line_of loops-parallel)
locked_parallel=$(line_of locked-parallel)
lock=$(line_of lock)

echo "1..29"
n=0
# Every named row of a report: its label and line, for a failed check's diagnostic.
rows='"\n".join(str((k, w.get("what", ""), label(w["location"]), w["location"]["line"], w["location"]["module"])) for k in ("constructs", "wait_locations") for w in r[k])'
# Runs program $1 under ompcollect: JSON report, saved record, a text report from it.
collect() {
    "$oc" --runtime "$LIBOMP" --interval=1ms -f json -o "$tmp/$1.json" --save="$tmp/$1.ses" \
        "$tmp/$1" "$seconds" >"$tmp/$1.out" 2>"$tmp/$1.err"
    echo $? >"$tmp/$1.status"
    "$oc" report -o "$tmp/$1.txt" "$tmp/$1.ses" 2>>"$tmp/$1.err"
}
# A construct row of function $1 at line $2 (+-1) in the source file.
construct() {
    echo "any(label(c['location']).split('.')[0] == '$1' and abs((c['location']['line'] or 0) - $2) <= 1 and (c['location']['file'] or '').endswith('ompcollect-sites.c') for c in r['constructs'])"
}
# The loop whose barrier closes its region's body (the return address is the runtime's call of the body).
last_loop() {
    echo "the barrier of the loop called last in its region's body is named share_last, a worksharing barrier ($last_for-$last_end)"
}
last_loop_named() {
    echo "any(w['state'] == 'IBAR' and w['what'] == 'barrier (end of worksharing)' and label(w['location']).split('.')[0] == 'share_last' and $last_for - 1 <= w['location']['line'] <= $last_end and w['samples'] > 0 for w in r['wait_locations'])"
}
# No row of the report named by the runtime's code or a body the compiler outlined (JSON labels, the whole text report).
unnamed() {
    n=$((n + 1))
    if [ ! -s "$tmp/$1.txt" ]; then
        echo "not ok $n - $1: the text report names no runtime address and no outlined body # no text report"
    elif grep -Eq 'lib(g?omp|iomp5)[.]so[.0-9]*[+]0x|[.]omp_outlined|_omp_fn[.]|[.]omp_task_entry' "$tmp/$1.txt"; then
        echo "not ok $n - $1: the text report names no runtime address and no outlined body"
        grep -E 'lib(g?omp|iomp5)[.]so[.0-9]*[+]0x|[.]omp_outlined|_omp_fn[.]|[.]omp_task_entry' "$tmp/$1.txt" | head -n 5 | sed 's/^/# /'
    else
        echo "ok $n - $1: the text report names no runtime address and no outlined body"
    fi
}

for cc in clang gcc; do
    if ! command -v $cc >/dev/null 2>&1; then
        skip "$cc is not installed" 11
        [ $cc = clang ] && skip "clang is not installed" 5
        [ $cc = gcc ] && skip "gcc is not installed" 2
        continue
    fi
    # Built once (t/test-programs.sh).
    if ! built=$(test_program sites-$cc 2>"$tmp/build.err") || ! cp "$built" "$tmp/sites-$cc"; then
        skip "$cc cannot build OpenMP programs" 11
        [ $cc = clang ] && skip "clang cannot build OpenMP programs" 5
        [ $cc = gcc ] && skip "gcc cannot build OpenMP programs" 2
        continue
    fi
    name=sites-$cc
    collect $name
    check $name "ran and reported (exit 0)" "$(cat "$tmp/$name.status") == 0 and r['locations_known'] is True"
    check $name "the parallel constructs are named tasks:$tasks_parallel, loops:$loops_parallel and locked:$locked_parallel (inlined into main)" \
        "$(construct tasks "$tasks_parallel") and $(construct loops "$loops_parallel") and $(construct locked "$locked_parallel")"
    # waiter's taskwait ends it: a jump, whose return address is its caller's (a line of tasks, or the runtime's call of a task body).
    check $name "the taskwait closing waiter is named waiter:$tail_taskwait" \
        "any(w['what'] == 'taskwait' and label(w['location']).split('.')[0] == 'waiter' and w['location']['line'] == $tail_taskwait and w['samples'] > 0 for w in r['wait_locations'])"
    check $name "the taskwait held goes on after is named held:$held_taskwait, not at its task's pragma" \
        "any(w['what'] == 'taskwait' and label(w['location']).split('.')[0] == 'held' and w['location']['line'] == $held_taskwait and w['samples'] > 0 for w in r['wait_locations'])"
    check $name "every taskwait row is at a taskwait ($tail_taskwait, $held_taskwait or $single_taskwait), none at a call of waiter, a task or the region" \
        "all(w['location']['line'] in ($tail_taskwait, $held_taskwait, $single_taskwait) for w in r['wait_locations'] if w['what'] == 'taskwait')"
    # GCC puts the orphaned loop's closing barrier at the function's closing brace; clang at the pragma.
    check $name "the orphaned loop's barrier (share's last call) is named share, between its pragma and the function's end ($orphan_for-$share_end)" \
        "any(w['state'] == 'IBAR' and label(w['location']).split('.')[0] == 'share' and $orphan_for - 1 <= w['location']['line'] <= $share_end and w['samples'] > 0 for w in r['wait_locations'])"
    check $name "the lock in the region of the inlined locked() is named locked:$lock" \
        "any(w['state'] == 'LKWT' and label(w['location']) == 'locked' and w['location']['line'] == $lock for w in r['wait_locations'])"
    check $name "$(last_loop)" "$(last_loop_named)"
    check $name "no construct, wait or task construct is named by the runtime's code or an outlined body (JSON labels)" \
        "not [l for l in [x['location'] for k in ('constructs', 'wait_locations') for x in r[k]] + [t['location'] for t in r['tasks']['constructs']] if 'libomp' in (l['module'] or '') or 'libgomp' in (l['module'] or '') or label(l).startswith('.') or '_omp_fn.' in label(l) or l['kind'] != 'line']"
    check $name "the task constructs are named tasks, waiter and held" \
        "len(r['tasks']['constructs']) > 0 and {label(t['location']).split('.')[0] for t in r['tasks']['constructs']} <= {'tasks', 'waiter', 'held'}"
    checked $name "$rows"
    unnamed $name

    if [ $cc = gcc ]; then
        # As users run it: no --runtime, the launcher's libgomp.so.1 and its link to libomp in GCC's runtime's place.
        name=sites-gcc-auto
        cp "$tmp/sites-gcc" "$tmp/$name"
        "$oc" --interval=1ms -f json -o "$tmp/$name.json" --save="$tmp/$name.ses" "$tmp/$name" "$seconds" \
            >"$tmp/$name.out" 2>"$tmp/$name.err"
        "$oc" report -o "$tmp/$name.txt" "$tmp/$name.ses" 2>>"$tmp/$name.err"
        if [ -s "$tmp/$name.json" ] && python3 "$query" "$tmp/$name.json" "'libgomp' in r['runtime']['why']" | grep -q True; then
            check $name "without --runtime: $(last_loop)" "$(last_loop_named)"
            checked $name "$rows"
            unnamed $name
        else
            skip "ompcollect has no LLVM runtime of its own to put in libgomp's place" 2
        fi
        continue
    fi
    # -gline-tables-only has no declarations: a body's function is the one handing it to the runtime.
    name=sites-lines
    if $cc -fopenmp -gline-tables-only -O2 -o "$tmp/$name" "$source" 2>"$tmp/build.err"; then
        collect $name
        check $name "-gline-tables-only: ran and reported (exit 0)" "$(cat "$tmp/$name.status") == 0"
        check $name "-gline-tables-only: the lock in the region of the inlined locked() is named locked:$lock" \
            "any(w['state'] == 'LKWT' and label(w['location']) == 'locked' and w['location']['line'] == $lock for w in r['wait_locations'])"
        checked $name "$rows"
        unnamed $name
    else
        skip "clang cannot build with -gline-tables-only: $(head -n 1 "$tmp/build.err")" 3
    fi
    # clang -O2 gives some runtime calls line 0; forced here on every fork call by a .loc in the
    # assembly (GNU as drops line-0 rows, so GCC's code cannot be made to carry one).
    name=sites-line0
    if ! $cc -fopenmp -g -O2 -S -o "$tmp/$name.s" "$source" 2>"$tmp/build.err" \
        || ! awk '/^[ \t]*\.loc[ \t]/ { file = $2 } /call[q]?[ \t]+__kmpc_fork_call/ { print "\t.loc\t" file " 0 0" } { print }' \
            "$tmp/$name.s" >"$tmp/$name-0.s" \
        || ! grep -q '\.loc[[:space:]]*[0-9]* 0 0' "$tmp/$name-0.s" \
        || ! $cc -fopenmp -o "$tmp/$name" "$tmp/$name-0.s" 2>>"$tmp/build.err"; then
        skip "clang cannot build the line-0 variant: $(head -n 1 "$tmp/build.err")" 2
        continue
    fi
    collect $name
    check $name "with line 0 on every fork call: ran and reported (exit 0)" "$(cat "$tmp/$name.status") == 0"
    check $name "with line 0 on every fork call: the constructs are still named tasks:$tasks_parallel, loops:$loops_parallel, locked:$locked_parallel with their file" \
        "$(construct tasks "$tasks_parallel") and $(construct loops "$loops_parallel") and $(construct locked "$locked_parallel")"
    checked $name "$rows"
done
