#!/bin/sh
# ompcollect-tasktier.sh - the default (sampled) task tier against the full one on the same program (t/ompcollect-tasksites.c, clang and GCC): counts per construct exact in both, sampled times within the sample-count margin of the full tier's exact ones; --task-graph's log through OMPCOLLECTOR_EVENT_TASK_LOG, and through OMPCOLLECTOR_EVENT_TASK on a shim without it (t/ompcollect-oldshim.c).
# SPDX-License-Identifier: BSD-3-Clause
. "${top_srcdir:?}/t/ompcollect-lib.sh"
# fib(N) with cut-off CUTOFF, a taskloop of LOOP tasks, UNTIED untied tasks, a task that spins SECONDS of wall time.
args="24 14 8 16 0.3"
per_cc=9
echo "1..$((2 * per_cc))"
n=0
source=$top_srcdir/t/ompcollect-tasksites.c
line_long=$(grep -n 'LONG_TASK \*/' "$source" | head -n 1 | cut -d: -f1)
q() {
    python3 "$query" "$1" "$2" 2>&1
}
# The margin of a sampled time against an exact one: a count of n
# independent hits strays about sqrt(n) samples, so 3 sqrt(n) and a few
# samples for where runs begin and end between two samples.  In samples of
# the run's interval, whatever the machine's speed.
margin="(lambda a, b, i: abs(a - b) <= i * (3 * (max(a, b) / i) ** 0.5 + 3))"
# Per construct line: (created, undeferred) of a report's rows, lines known.
counts="(lambda c: sorted((x['location'].get('line') or 0, x['created'], x['undeferred']) for x in c))"

# A shim from before OMPCOLLECTOR_EVENT_TASK_LOG: t/ompcollect-oldshim.c answers it UNKNOWN and passes the rest on.
oldshim=
if env -u LD_PRELOAD $CC $SANITIZER_CFLAGS -shared -fPIC -I"$top_srcdir/include" -o "$tmp/liboldshim.so" "$top_srcdir/t/ompcollect-oldshim.c" \
    -Wl,--no-as-needed "$SHIM" -Wl,--as-needed -Wl,-rpath,"$(dirname "$SHIM")" -ldl >"$tmp/oldshim.err" 2>&1; then
    oldshim=$tmp/liboldshim.so
fi

for cc in clang gcc; do
    if ! command -v $cc >/dev/null 2>&1; then
        skip "$cc is not installed" $per_cc
        continue
    fi
    if ! built=$(test_program tasksites-$cc 2>"$tmp/build.err") || ! cp "$built" "$tmp/tasksites-$cc"; then
        skip "$cc cannot build OpenMP programs" $per_cc
        continue
    fi
    # A 1 ms interval gives the 0.3 s sleeping task some 300 samples.
    # shellcheck disable=SC2086 # the arguments are words
    "$oc" --runtime "$LIBOMP" -i 1ms --save="$tmp/$cc-sampled.ses" -f json -o "$tmp/$cc-sampled.json" "$tmp/tasksites-$cc" $args \
        >/dev/null 2>"$tmp/$cc-sampled.err"
    s1=$?
    # shellcheck disable=SC2086
    "$oc" --runtime "$LIBOMP" -i 1ms --tasks=full -f json -o "$tmp/$cc-full.json" "$tmp/tasksites-$cc" $args \
        >/dev/null 2>"$tmp/$cc-full.err"
    s2=$?
    # shellcheck disable=SC2086
    "$oc" --runtime "$LIBOMP" -i 1ms -o "$tmp/$cc-sampled.txt" "$tmp/tasksites-$cc" $args >/dev/null 2>&1
    ok "$([ $s1 -eq 0 ] && [ $s2 -eq 0 ] && [ -s "$tmp/$cc-sampled.json" ] && [ -s "$tmp/$cc-full.json" ] && echo True)" \
        "$cc: the program ran under the default tier and under --tasks=full" "$tmp/$cc-sampled.err"
    s="r['tasks']"
    ok "$(q "$tmp/$cc-sampled.json" "$s['tier'] == 'sampled' and $s['registered'].pop('ompcollector_event_task_create') == 'ok' and set($s['registered'].values()) == {'via-ompcollector_event_task_create'} and all(x['executed'] == 0 and x['runs'] == 0 and x['exec_ns'] == x['sampled_ns'] for x in $s['constructs'])")" \
        "$cc: the default tier says it is sampled, registered OMPCOLLECTOR_EVENT_TASK_CREATE alone, and follows no run" "$tmp/$cc-sampled.json"
    ok "$(grep -q '~exec ms' "$tmp/$cc-sampled.txt" && grep -q '^  (sampled: tasks counted as they were created; exec is sampled time' "$tmp/$cc-sampled.txt" && echo True)" \
        "$cc: the text report marks the constructs' exec as sampled and says how many samples it rests on" "$tmp/$cc-sampled.txt"
    full=$(q "$tmp/$cc-full.json" "$counts(r['tasks']['constructs'])")
    ok "$(q "$tmp/$cc-sampled.json" "len($counts($s['constructs'])) >= 4 and $counts($s['constructs']) == $full and $s['created'] == sum(x['created'] for x in $s['constructs'])")" \
        "$cc: every construct's created and undeferred counts are the full tier's exactly ($full)" "$tmp/$cc-sampled.json"
    # A thread's creations not yet in their rows (record.h's pending creations) are the loader's to check:
    # one entry naming a row no construct holds makes it refuse that thread's entries, and say so.
    # The tool is a program of its own: the sanitized shim's preloaded runtime would clash with its own.
    env -u LD_PRELOAD "$top_builddir/t/record-damage" "$tmp/$cc-sampled.ses" "$tmp/$cc-pending.ses" task-pending >"$tmp/$cc-pending.err" 2>&1 &&
        "$oc" report -f json -o "$tmp/$cc-pending.json" "$tmp/$cc-pending.ses" >>"$tmp/$cc-pending.err" 2>&1
    sampled=$(q "$tmp/$cc-sampled.json" "$counts($s['constructs'])")
    ok "$(q "$tmp/$cc-pending.json" "'pending task creations' in r['record_damage']['text'] and len($counts($s['constructs'])) == len($sampled) and all(a[0] == b[0] and a[1] <= b[1] for a, b in zip($counts($s['constructs']), $sampled))")" \
        "$cc: a thread's pending creations naming a row no construct holds are refused and said in record_damage" "$tmp/$cc-pending.err"
    # --task-graph logs every run for the graph and takes the table's times from the samples, as the default does.
    # shellcheck disable=SC2086
    "$oc" --runtime "$LIBOMP" -i 1ms --task-graph="$tmp/$cc-graph.dot" -f json -o "$tmp/$cc-graph.json" "$tmp/tasksites-$cc" $args \
        >/dev/null 2>"$tmp/$cc-graph.err"
    ok "$(q "$tmp/$cc-graph.json" "$s['tier'] == 'sampled' and $s['registered'].get('ompcollector_event_task_log') == 'ok' and set(v for k, v in $s['registered'].items() if k != 'ompcollector_event_task_log') == {'via-ompcollector_event_task_log'} and $counts($s['constructs']) == $full and $s['graph']['tasks'] == $s['created'] and $s['graph']['complete'] and $s['graph']['work_ns'] > 0 and $s['graph']['max_depth'] >= 5 and 2 * $s['graph']['roots'] < $s['graph']['tasks'] and $s['graph']['joins'] > 0")" \
        "$cc: --task-graph's table is the sampled tier's with the full tier's counts, and its graph has every task created, their parents (fib nested 5 deep at least) and their task waits" "$tmp/$cc-graph.err"
    # The same with a shim that lacks OMPCOLLECTOR_EVENT_TASK_LOG: the agent falls back to OMPCOLLECTOR_EVENT_TASK and
    # the legacy-shaped task wait events, and the table and graph are the same.
    if [ -z "$oldshim" ]; then
        skip "the stand-in for an older shim did not build: $(head -n 1 "$tmp/oldshim.err")" 1
    else
        # shellcheck disable=SC2086
        OMPCOLLECT_SHIM=$oldshim "$oc" --runtime "$LIBOMP" -i 1ms --task-graph="$tmp/$cc-old.dot" -f json -o "$tmp/$cc-old.json" \
            "$tmp/tasksites-$cc" $args >/dev/null 2>"$tmp/$cc-old.err"
        ok "$(q "$tmp/$cc-old.json" "$s['tier'] == 'sampled' and 'ompcollector_event_task_log' not in $s['registered'] and $s['registered'].get('ompcollector_event_task') == 'ok' and set(v for k, v in $s['registered'].items() if k != 'ompcollector_event_task') == {'via-ompcollector_event_task'} and $counts($s['constructs']) == $full and $s['graph']['tasks'] == $s['created'] and $s['graph']['complete'] and $s['graph']['max_depth'] >= 5 and 2 * $s['graph']['roots'] < $s['graph']['tasks'] and $s['graph']['joins'] > 0")" \
            "$cc: on a shim without OMPCOLLECTOR_EVENT_TASK_LOG, --task-graph falls back to OMPCOLLECTOR_EVENT_TASK with the same counts, every task, their parents and their task waits" "$tmp/$cc-old.err"
    fi
    # Within one --tasks=full run, each construct's sampled time against its exact time.
    ok "$(q "$tmp/$cc-full.json" "all($margin(x['sampled_ns'], x['exec_ns'], r['interval_ns']) for x in r['tasks']['constructs']) and sum(x['sampled_ns'] for x in r['tasks']['constructs']) > 0")" \
        "$cc: in the full tier's run every construct's sampled time is within the sample-count margin of its exact time" "$tmp/$cc-full.json"
    # Across the two runs, the task that spins 0.3 s of wall time: its time does not depend on the machine's speed.
    long="(lambda c: [x['exec_ns'] for x in c if x['location']['line'] == $line_long][0])"
    exact=$(q "$tmp/$cc-full.json" "$long(r['tasks']['constructs'])")
    sampled=$(q "$tmp/$cc-sampled.json" "$long($s['constructs'])")
    ok "$(q "$tmp/$cc-sampled.json" "$margin($long($s['constructs']), $exact, r['interval_ns']) and $exact >= 0.3e9")" \
        "$cc: the 0.3 s task's sampled time (default tier, $sampled ns) is within the sample-count margin of its exact time ($exact ns, --tasks=full)" "$tmp/$cc-sampled.json"
done
