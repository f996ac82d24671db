#!/bin/sh
# ompcollect-tasksites.sh - tasks by construct on a program of known structure built with clang and GCC: fib's two task constructs each make exactly the tasks its recursion computes, a taskloop is one row, untied tasks that yield are executed once each, and task waits are named taskwait and taskgroup, in JSON, CSV and text.
# SPDX-License-Identifier: BSD-3-Clause
. "${top_srcdir:?}/t/ompcollect-lib.sh"
# fib(N) with cut-off CUTOFF, a taskloop of LOOP tasks, UNTIED untied tasks, a taskwait of SECONDS.
set -- 24 14 8 16 0.3
args="$*" fib_n=$1 cutoff=$2 loop_tasks=$3 untied_tasks=$4
per_cc=9
echo "1..$((2 * per_cc))"
n=0
source=$top_srcdir/t/ompcollect-tasksites.c
# The lines the report must name, found by their markers in the source.
line_of() {
    grep -n "$1" "$source" | head -n 1 | cut -d: -f1
}
line_x=$(line_of 'TASK_X') line_y=$(line_of 'TASK_Y') line_untied=$(line_of '/\* UNTIED')
line_parallel=$(line_of 'pragma omp parallel num_threads(2)')
waits="$(line_of 'TASKWAIT_FIB'), $(line_of 'TASKWAIT_LONG'), $(line_of 'omp taskwait$')"
# Tasks each fib construct makes: one per call at or above the cut-off.
expected=$(python3 -c "
import functools, sys
sys.setrecursionlimit(10000)
@functools.lru_cache(None)
def calls(k):
    return 0 if k < $cutoff else 1 + calls(k - 1) + calls(k - 2)
print(calls($fib_n))")

for cc in clang gcc; do
    if ! command -v $cc >/dev/null 2>&1; then
        skip "$cc is not installed" $per_cc
        continue
    fi
    if ! built=$(test_program tasksites-$cc 2>"$tmp/build.err") || ! cp "$built" "$tmp/tasksites-$cc"; then
        skip "$cc cannot build OpenMP programs" $per_cc
        continue
    fi
    json=$tmp/$cc.json
    # shellcheck disable=SC2086 # the arguments are words
    "$oc" --runtime "$LIBOMP" --tasks=full -f json -o "$json" "$tmp/tasksites-$cc" $args >"$tmp/$cc.out" 2>"$tmp/$cc.err"
    status=$?
    set -- $(sed -n 's/^tasksites: x \([0-9]*\) y \([0-9]*\) loop \([0-9]*\) untied \([0-9]*\) .*/\1 \2 \3 \4/p' "$tmp/$cc.out")
    made_x=${1:-0} made_y=${2:-0} made_loop=${3:-0} made_untied=${4:-0}
    ok "$([ $status -eq 0 ] && [ "$made_x" -eq "$expected" ] && [ "$made_y" -eq "$expected" ] &&
        [ "$made_loop" -eq "$loop_tasks" ] && [ "$made_untied" -eq "$untied_tasks" ] && [ -s "$json" ] && echo True)" \
        "$cc: the program ran under ompcollect and made $expected + $expected fib tasks, $loop_tasks taskloop and $untied_tasks untied tasks" \
        "$tmp/$cc.err"
    c="r['tasks']['constructs']"
    # libomp 14 now and then gives gcc code's tasks the enclosing parallel
    # construct's address (lib/tool.c, task_construct_site): the counts
    # below are exact only if the shim corrects that.
    # One row of the construct at line $1 (None unless exactly one).
    at="(lambda line: ([x for x in $c if x['location']['line'] == line] + [None])[0] if len([x for x in $c if x['location']['line'] == line]) == 1 else None)"
    cat >"$tmp/$cc.tests" <<TESTS
counted once, constructs known	r['tasks']['counted_once'] is True and $c is not None and len($c) >= 5
TASK_X	$at($line_x) is not None and 'fib' in $at($line_x)['location']['function'] and $at($line_x)['created'] == $expected and $at($line_x)['executed'] == $expected and $at($line_x)['deferred'] == $expected and not any(x['location']['line'] == $line_parallel for x in $c)
TASK_Y	$at($line_y) is not None and 'fib' in $at($line_y)['location']['function'] and $at($line_y)['created'] == $expected and $at($line_y)['executed'] == $expected
taskloop	len([x for x in $c if x['created'] == $loop_tasks]) == 1 and [x for x in $c if x['created'] == $loop_tasks][0]['executed'] == $loop_tasks
untied	$at($line_untied) is not None and $at($line_untied)['created'] == $untied_tasks and $at($line_untied)['executed'] == $untied_tasks and $at($line_untied)['runs'] >= $untied_tasks
totals	sum(x['created'] for x in $c) == r['tasks']['created'] and sum(x['executed'] for x in $c) == r['tasks']['executed'] == r['tasks']['created'] and sum(t['executed'] for t in r['tasks']['threads']) == r['tasks']['created'] and r['tasks']['stolen'] <= r['tasks']['created'] and all(0 < x['max_ns'] <= x['exec_ns'] and x['mean_ns'] <= x['max_ns'] and 1 <= x['threads'] <= 2 for x in $c)
waits	any(w['what'] == 'taskwait' for w in r['wait_locations']) and not any(w['what'].startswith('barrier') and w['location']['line'] in ($waits) for w in r['wait_locations'])
TESTS
    python3 "$query" "$json" --each "$tmp/$cc.tests" >"$tmp/$cc.results" 2>&1
    while IFS="$(printf '\t')" read -r what expression; do
        n_line=$(grep -n -F "$what	" "$tmp/$cc.tests" | head -n 1 | cut -d: -f1)
        value=$(sed -n "${n_line}p" "$tmp/$cc.results")
        case $what in
        'counted once, constructs known') text="JSON: tasks are counted once and the task construct table is there" ;;
        TASK_X) text="JSON: fib's first task construct (line $line_x) made and executed exactly $expected tasks, all deferred; no task is placed at the parallel construct (line $line_parallel)" ;;
        TASK_Y) text="JSON: fib's second task construct (line $line_y) made and executed exactly $expected tasks" ;;
        taskloop) text="JSON: the taskloop is one row of $loop_tasks tasks, all executed" ;;
        untied) text="JSON: the untied tasks (line $line_untied) were executed once each ($untied_tasks), however many parts they ran in" ;;
        totals) text="JSON: the rows add up to the task totals, executed == created, every row's max within its total" ;;
        waits) text="JSON: task waits are named taskwait, never barrier, at the taskwait lines ($waits)" ;;
        esac
        ok "$value" "$cc: $text" "$json"
        : "$expression"
    done <"$tmp/$cc.tests"
    # One saved run gives both: the CSV and the text must say the same.
    # shellcheck disable=SC2086
    "$oc" --runtime "$LIBOMP" --tasks=full --save="$tmp/$cc.ses" -f csv -o "$tmp/$cc.csv" "$tmp/tasksites-$cc" $args >/dev/null 2>&1
    "$oc" report -o "$tmp/$cc.txt" "$tmp/$cc.ses" >/dev/null 2>&1
    made=$expected
    # On a failure: both tables' rows, not the report's first lines.
    { grep '^task_construct,' "$tmp/$cc.csv"; sed -n '/^Tasks by construct/,/^$/p' "$tmp/$cc.txt"; } >"$tmp/$cc.rows" 2>/dev/null
    ok "$(grep -q '^section,codeptr,function,file,line,module,module_offset,created,undeferred,deferred,executed,runs,stolen,create_ns,exec_ns,mean_ns,max_ns,suspend_ns,suspensions,threads,thread_mask$' "$tmp/$cc.csv" &&
        grep -Eq "^task_construct,0x[0-9a-f]+,[^,]*fib[^,]*,[^,]*ompcollect-tasksites.c,$line_x,[^,]*,0x[0-9a-f]+,$made,0,$made,$made," "$tmp/$cc.csv" &&
        grep -q '^Tasks by construct' "$tmp/$cc.txt" &&
        grep -Eq "^  [^ ]*fib[^ ]* ompcollect-tasksites.c:$line_x +$made +0 +$made " "$tmp/$cc.txt" && echo True)" \
        "$cc: CSV's task_construct section and the text's Tasks by construct table have fib's row with the same counts" \
        "$tmp/$cc.rows"
done
