#!/bin/sh
# ompcollect-tasks.sh - runs a fib-style task program built with clang and GCC under ompcollect and checks the report's task table (JSON, CSV, text) against the tasks the program says it made.
# SPDX-License-Identifier: BSD-3-Clause
. "${top_srcdir:?}/t/ompcollect-lib.sh"
# fib(N) cut off to serial below CUTOFF, UNDEFERRED if(0) tasks, REPEAT times.
args=${OMPCOLLECT_TASKS_ARGS:-"30 18 40 2"}

echo "1..22"
n=0
# The per-run checks need every run followed: --tasks=full (t/ompcollect-tasktier.sh compares the sampled default with it).
# Evaluates a Python expression over report $1 (see t/ompcollect-query.py; t = r['tasks']).
q() {
    python3 "$query" "$1" "$2" 2>&1
}

for cc in clang gcc; do
    if ! command -v $cc >/dev/null 2>&1; then
        skip "$cc is not installed" 9
        continue
    fi
    # Built once (t/test-programs.sh).
    if ! built=$(test_program tasks-$cc 2>"$tmp/build.err") || ! cp "$built" "$tmp/tasks-$cc"; then
        skip "$cc cannot build OpenMP programs" 9
        continue
    fi
    json=$tmp/$cc.json
    # shellcheck disable=SC2086 # the arguments are words
    "$oc" --runtime "$LIBOMP" --tasks=full -f json -o "$json" "$tmp/tasks-$cc" $args >"$tmp/$cc.out" 2>"$tmp/$cc.err"
    status=$?
    set -- $(sed -n 's/^tasks: deferred \([0-9]*\) undeferred \([0-9]*\) .*/\1 \2/p' "$tmp/$cc.out")
    deferred=${1:-0} undeferred=${2:-0}
    ok "$([ $status -eq 0 ] && [ "$deferred" -gt 0 ] && [ "$undeferred" -gt 0 ] && [ -s "$json" ] && echo True)" \
        "$cc: the program ran under ompcollect, made $deferred deferred and $undeferred undeferred tasks, and a JSON report came" "$tmp/$cc.err"
    # The shim's payload event stands for the 13 legacy task events, which are not registered: the report says so.
    ok "$(q "$json" "r['tasks'] is not None and r['tasks']['tier'] == 'full' and r['tasks']['registered'].pop('ompcollector_event_task') == 'ok' and set(r['tasks']['registered'].values()) == {'via-ompcollector_event_task'} and len(r['tasks']['registered']) == 13")" \
        "$cc: OMPCOLLECTOR_EVENT_TASK registered OK, the 13 legacy task events delivered through it (not registered), and a task table"
    t="r['tasks']"
    ok "$(q "$json" "$t['created'] == $deferred + $undeferred and sum(x['created'] for x in $t['threads']) == $t['created']")" \
        "$cc: tasks created ($deferred + $undeferred) equal what the program made, and the threads' rows add up"
    ok "$(q "$json" "$t['undeferred'] == $undeferred and $t['deferred'] == $deferred")" \
        "$cc: undeferred (END_CREATE_TASK_IMM) equal the if(0) tasks, deferred the others"
    ok "$(q "$json" "$t['executed'] == $t['created'] and sum(x['executed'] for x in $t['threads']) == $t['executed']")" \
        "$cc: every task created was executed once"
    ok "$(q "$json" "0 <= $t['stolen'] <= $t['executed'] and 0 <= $t['suspensions'] <= $t['executed'] and $t['events']['begin_steal_task'] == $t['stolen']")" \
        "$cc: stolen and suspensions are within the tasks executed"
    ok "$(q "$json" "$t['exec_ns'] > 0 and all(0 <= x['suspend_ns'] <= x['exec_ns'] <= x['lifetime_ns'] <= r['wall_ns'] for x in $t['threads'])")" \
        "$cc: per thread, suspended time <= execution time <= the thread's life <= the wall time"

    # shellcheck disable=SC2086
    "$oc" --runtime "$LIBOMP" --tasks=full -f csv -o "$tmp/$cc.csv" "$tmp/tasks-$cc" $args >/dev/null 2>&1
    ok "$(grep -q '^section,thread,tid,created,undeferred,deferred,executed,stolen,suspensions,create_ns,exec_ns,suspend_ns,lifetime_ns,sched_ns$' "$tmp/$cc.csv" &&
        grep -q "^task,all,,$((deferred + undeferred)),$undeferred,$deferred,$((deferred + undeferred))," "$tmp/$cc.csv" && echo True)" \
        "$cc: CSV has the task section with its header, and its 'all' row counts the same tasks" "$tmp/$cc.csv"
    # shellcheck disable=SC2086
    "$oc" --runtime "$LIBOMP" --tasks=full -o "$tmp/$cc.txt" "$tmp/tasks-$cc" $args >/dev/null 2>&1
    ok "$(grep -q '^Tasks (' "$tmp/$cc.txt" &&
        grep -Eq "^  all +$((deferred + undeferred)) +$undeferred +$deferred +$((deferred + undeferred)) " "$tmp/$cc.txt" && echo True)" \
        "$cc: the text report has the Tasks table with the same counts" "$tmp/$cc.txt"
done

# --no-tasks, and a program without tasks: no table anywhere.
program=$tmp/tasks-gcc
[ -x "$program" ] || program=$tmp/tasks-clang
if [ -x "$program" ]; then
    # shellcheck disable=SC2086
    "$oc" --runtime "$LIBOMP" --no-tasks -f json -o "$tmp/none.json" "$program" $args >/dev/null 2>&1
    ok "$(q "$tmp/none.json" "r['tasks'] is None")" "--no-tasks: JSON 'tasks' is null"
    # shellcheck disable=SC2086
    "$oc" --runtime "$LIBOMP" --no-tasks -o "$tmp/none.txt" "$program" $args >/dev/null 2>&1
    ok "$( [ -s "$tmp/none.txt" ] && ! grep -q '^Tasks (' "$tmp/none.txt" && echo True)" "--no-tasks: no Tasks table in the text report" "$tmp/none.txt"
else
    skip "no compiler built the task program" 2
fi
"$oc" --runtime "$LIBOMP" -f json -o "$tmp/imbalance.json" "$top_builddir/examples/imbalance" 0.2 >/dev/null 2>&1
ok "$(q "$tmp/imbalance.json" "r['tasks'] is None")" "a program without explicit tasks: JSON 'tasks' is null"
"$oc" --runtime "$LIBOMP" -f csv -o "$tmp/imbalance.csv" "$top_builddir/examples/imbalance" 0.2 >/dev/null 2>&1
ok "$( [ -s "$tmp/imbalance.csv" ] && ! grep -q '^task,' "$tmp/imbalance.csv" && echo True)" "a program without explicit tasks: no task rows in the CSV"
