#!/bin/sh
# ompcollect-task-trace.sh - task runs in traces: the fib-style task program's OTF2 archive has one task creation and one completion per task it made, its Chrome JSON one span per task with its id and creation site, nested in the barrier or task it ran in, and a full event log cuts the tasks and says so.
# SPDX-License-Identifier: BSD-3-Clause
. "${top_srcdir:?}/t/ompcollect-lib.sh"
# fib(N) cut off to serial below CUTOFF, UNDEFERRED if(0) tasks, REPEAT times.
# In each repetition the other thread runs a task inside the single's
# barrier by construction (t/ompcollect-tasks.c, fib's top call).
args=${OMPCOLLECT_TASKS_ARGS:-"24 14 40 8"}

echo "1..12"
n=0

for cc in clang gcc; do
    if ! command -v $cc >/dev/null 2>&1; then
        skip "$cc is not installed" 6
        continue
    fi
    # Built once (t/test-programs.sh).
    if ! built=$(test_program tasks-$cc 2>"$tmp/build.err") || ! cp "$built" "$tmp/tasks-$cc"; then
        skip "$cc cannot build OpenMP programs" 6
        continue
    fi
    # shellcheck disable=SC2086 # the arguments are words
    "$oc" --runtime "$LIBOMP" -f json -o "$tmp/$cc.json" --trace-json="$tmp/$cc.trace.json" \
        "$tmp/tasks-$cc" $args >"$tmp/$cc.out" 2>"$tmp/$cc.err"
    status=$?
    set -- $(sed -n 's/^tasks: deferred \([0-9]*\) undeferred \([0-9]*\) .*/\1 \2/p' "$tmp/$cc.out")
    tasks=$((${1:-0} + ${2:-0}))
    ok "$([ $status -eq 0 ] && [ "$tasks" -gt 0 ] && [ -s "$tmp/$cc.trace.json" ] && echo True)" \
        "$cc: the program made $tasks tasks under ompcollect --trace-json" "$tmp/$cc.err"

    # One span per task (tied tasks: one run each), its id and its creation site at the task's line.
    python3 - "$tmp/$cc.trace.json" "$tasks" >"$tmp/$cc.spans" 2>&1 <<'EOF'
import json, sys
trace = json.load(open(sys.argv[1]))
tasks = int(sys.argv[2])
spans = [e for e in trace['traceEvents'] if e.get('ph') == 'X' and e.get('cat') == 'task']
ids = [e['args']['task'] for e in spans]
assert len(spans) == tasks, "%d task spans for %d tasks" % (len(spans), tasks)
assert len(set(ids)) == tasks, "%d distinct ids" % len(set(ids))
assert not any(e['args'].get('part') for e in spans), "a tied task's run is not its whole"
# The program is built without -g: sites are function+offset, two constructs in fib and the if(0) one in main's region.
sites = set(e['name'] for e in spans)
assert all(e['name'].startswith('task at ') for e in spans), sites
assert len(sites) == 3 and sum('fib' in s for s in sites) == 2, sites
print("ok", len(spans), sites)
EOF
    ok "$(tail -n 1 "$tmp/$cc.spans" | grep -q '^ok' && echo True)" \
        "$cc: the Chrome JSON has one span per task ($tasks), each with its id, named by its task construct (3 of them)" \
        "$tmp/$cc.spans"

    # Nesting: every task span lies inside a span of its thread; some inside the barrier they ran in.
    python3 - "$tmp/$cc.trace.json" >"$tmp/$cc.nest" 2>&1 <<'EOF'
import bisect, json, sys
trace = json.load(open(sys.argv[1]))
events = [e for e in trace['traceEvents'] if e.get('ph') == 'X']
by_tid = {}
for e in events:
    by_tid.setdefault(e['tid'], []).append(e)
# Times are µs with ns decimals: sums compare within half a nanosecond.
e = 0.0005
def reach(s):
    return min(s['ts'], s['ts'] + s['dur']), max(s['ts'], s['ts'] + s['dur'])
inner = {}
for tid, spans in by_tid.items():
    # Only a span that reaches into [start - e, end + e] of a task can hold
    # it or overlap it, so each task is held against those, found by one
    # sweep over the spans in order of start, not against all its thread's.
    order = sorted(range(len(spans)), key=lambda i: reach(spans[i])[0])
    starts = [reach(spans[i])[0] for i in order]
    tasks = sorted((i for i, s in enumerate(spans) if s['cat'] == 'task'), key=lambda i: reach(spans[i])[0])
    near, running, added = {}, [], 0
    for i in tasks:
        lo, hi = reach(spans[i])
        while added < len(order) and starts[added] < lo - e:
            running.append(order[added])
            added += 1
        running = [j for j in running if reach(spans[j])[1] >= lo - e]
        later = order[bisect.bisect_left(starts, lo - e):bisect.bisect_right(starts, hi + e)]
        near[i] = [spans[j] for j in sorted(running + later)]
    for i, t in enumerate(spans):
        if t['cat'] != 'task':
            continue
        around = [s for s in near[i] if s is not t and s['ts'] <= t['ts'] + e and t['ts'] + t['dur'] <= s['ts'] + s['dur'] + e]
        assert around, "task %s on %s is inside no span" % (t['args']['task'], tid)
        for s in near[i]:  # no partial overlap with any span of its thread
            if s is t:
                continue
            a0, a1, b0, b1 = t['ts'], t['ts'] + t['dur'], s['ts'], s['ts'] + s['dur']
            assert a1 <= b0 + e or b1 <= a0 + e or (b0 <= a0 + e and a1 <= b1 + e) or (a0 <= b0 + e and b1 <= a1 + e), \
                "task %s overlaps %s" % (t['args']['task'], s['name'])
        least = min(around, key=lambda s: s['dur'])
        key = least['cat'] + ' ' + least['name'].split(' at ')[0]
        inner[key] = inner.get(key, 0) + 1
assert any(k.startswith('task') for k in inner), inner
assert any('barrier' in k or 'IBAR' in k or 'EBAR' in k for k in inner), inner
print("ok", inner)
EOF
    ok "$(tail -n 1 "$tmp/$cc.nest" | grep -q '^ok' && echo True)" \
        "$cc: task spans nest: inside the barrier they ran in, or the task whose wait ran them; no partial overlap" \
        "$tmp/$cc.nest"

    # shellcheck disable=SC2086
    "$oc" --runtime "$LIBOMP" -o /dev/null --trace="$tmp/$cc.otf2" "$tmp/tasks-$cc" $args \
        >"$tmp/$cc.otf2.out" 2>"$tmp/$cc.otf2.err"
    if [ $? -eq 125 ] && grep -q "built without OTF2" "$tmp/$cc.otf2.err"; then
        skip "$cc: ompcollect was built without OTF2" 2
    elif ! command -v otf2-print >/dev/null 2>&1; then
        skip "$cc: otf2-print (otf2-tools) is not installed" 2
    else
        set -- $(sed -n 's/^tasks: deferred \([0-9]*\) undeferred \([0-9]*\) .*/\1 \2/p' "$tmp/$cc.otf2.out")
        made=$((${1:-0} + ${2:-0}))
        otf2-print "$tmp/$cc.otf2/traces.otf2" >"$tmp/$cc.print" 2>"$tmp/$cc.print.err"
        ok "$([ $? -eq 0 ] && [ ! -s "$tmp/$cc.print.err" ] && [ "$made" -gt 0 ] &&
            [ "$(grep -c '^THREAD_TASK_CREATE ' "$tmp/$cc.print")" -eq "$made" ] &&
            [ "$(grep -c '^THREAD_TASK_COMPLETE ' "$tmp/$cc.print")" -eq "$made" ] && echo True)" \
            "$cc: otf2-print reads the archive: $made task creations and $made completions" "$tmp/$cc.print.err"
        # Every switch names a task created before it (or a thread's implicit task, generation 0).
        python3 - "$tmp/$cc.print" >"$tmp/$cc.switch" 2>&1 <<'EOF'
import re, sys
created, switches, enters = set(), 0, 0
pattern = re.compile(r'Thread Team: .*<(\d+)>, Creating Thread: (\d+) .*Generation Number: (\d+)')
for line in open(sys.argv[1]):
    word = line.split(' ', 1)[0]
    if word in ('THREAD_TASK_CREATE', 'THREAD_TASK_SWITCH', 'THREAD_TASK_COMPLETE'):
        key = pattern.search(line).groups()
        if word == 'THREAD_TASK_CREATE':
            assert key not in created, "created twice: %r" % (key,)
            created.add(key)
        elif key[2] != '0':
            assert key in created, "%s of a task not created: %r" % (word, key)
        switches += word == 'THREAD_TASK_SWITCH'
assert switches >= 2 * len(created), (switches, len(created))
print("ok", len(created), switches)
EOF
        ok "$(tail -n 1 "$tmp/$cc.switch" | grep -q '^ok' && echo True)" \
            "$cc: every task switch and completion names a task created before it, two switches per task" "$tmp/$cc.switch"
    fi

    # A full log: a small buffer cuts the tasks, and the trace and the report say so.
    # shellcheck disable=SC2086
    "$oc" --runtime "$LIBOMP" -f json -o "$tmp/$cc.cut.json" --trace-buffer=16K --trace-json="$tmp/$cc.cut.trace.json" \
        "$tmp/tasks-$cc" $args >/dev/null 2>"$tmp/$cc.cut.err"
    python3 - "$tmp/$cc.cut.json" "$tmp/$cc.cut.trace.json" "$tasks" >"$tmp/$cc.cut" 2>&1 <<'EOF'
import json, sys
report = json.load(open(sys.argv[1]))
trace = json.load(open(sys.argv[2]))
tasks = int(sys.argv[3])
log = report['event_log']
assert log['dropped'] > 0, log
spans = [e for e in trace['traceEvents'] if e.get('cat') == 'task']
assert 0 < len(spans) < tasks, (len(spans), tasks)
assert trace['otherData']['events_dropped'] == log['dropped'], (trace['otherData'], log)
cuts = [e for e in trace['traceEvents'] if e.get('ph') == 'i' and e['name'].startswith('event log full')]
assert cuts, "no cut mark"
print("ok", len(spans), log['dropped'])
EOF
    ok "$(tail -n 1 "$tmp/$cc.cut" | grep -q '^ok' && echo True)" \
        "$cc: with --trace-buffer=16K the log is cut: fewer task spans, the drops counted and marked where they began" \
        "$tmp/$cc.cut" "$tmp/$cc.cut.err"
done
