#!/bin/sh
# ompcollect-pragma.sh - parallel constructs are named at their pragma's line whichever compiler built them, though GCC puts its runtime call on another line (a loop's, after run-time sized arrays, in an inlined function), and a task in a region's body by the function it is written in, though the compiler outlined it: t/ompcollect-pragma.c with clang and GCC.
# SPDX-License-Identifier: BSD-3-Clause
. "${top_srcdir:?}/t/ompcollect-lib.sh"
source=$top_srcdir/t/ompcollect-pragma.c
pragmas=$(grep -n 'pragma omp parallel.*PRAGMA' "$source" | cut -d: -f1 | tr '\n' ' ')
inlined=$(grep -n 'pragma omp parallel num_threads(2) /\* PRAGMA' "$source" | head -n 1 | cut -d: -f1)
task=$(grep -n 'TASK_IN_BODY' "$source" | cut -d: -f1)
taskwait=$(grep -n 'TASKWAIT_IN_BODY' "$source" | cut -d: -f1)
echo "1..10"
n=0
for cc in clang gcc; do
    if ! command -v $cc >/dev/null 2>&1; then
        skip "$cc is not installed" 5
        continue
    fi
    # Built once (t/test-programs.sh).
    if ! built=$(test_program pragma-$cc 2>"$tmp/build.err") || ! cp "$built" "$tmp/pragma-$cc"; then
        skip "$cc cannot build OpenMP programs" 5
        continue
    fi
    "$oc" --runtime "$LIBOMP" --save="$tmp/$cc.ses" -f json -o "$tmp/$cc.json" "$tmp/pragma-$cc" >"$tmp/$cc.out" 2>"$tmp/$cc.err"
    status=$?
    result "$([ $status -eq 0 ] && [ -s "$tmp/$cc.json" ] && grep -q '^pragma: 10 regions' "$tmp/$cc.out" && echo 0 || echo 1)" \
        "$cc: the program ran under ompcollect" "$tmp/$cc.err"
    python3 - "$tmp/$cc.json" "$pragmas" >"$tmp/$cc.lines" 2>&1 <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
lines = sorted(c["location"]["line"] for c in report["constructs"])
print(" ".join(str(line) for line in lines))
sys.exit(0 if lines == sorted(int(x) for x in sys.argv[2].split()) else 1)
PY
    result $? "$cc: the three parallel constructs are named at their pragmas' lines ($(echo $pragmas)), none elsewhere" "$tmp/$cc.lines"
    python3 "$query" "$tmp/$cc.json" \
        "[c['location']['function'] for c in r['constructs'] if c['location']['line'] == $inlined] == ['spread']" \
        >"$tmp/$cc.inlined" 2>&1
    result "$([ "$(cat "$tmp/$cc.inlined")" = True ] && echo 0 || echo 1)" \
        "$cc: the construct inlined into main is named by the function it was written in (spread)" "$tmp/$cc.inlined"
    # The JSON's function is the compiler's body (clang 14: .omp_outlined..N, GCC: main._omp_fn.N), its enclosing main.
    python3 "$query" "$tmp/$cc.json" \
        "[x.get('enclosing') for x in [t['location'] for t in r['tasks']['constructs'] if t['location']['line'] == $task] + [w['location'] for w in r['wait_locations'] if w['what'] == 'taskwait' and w['location']['line'] == $taskwait]] in (['main'], ['main', 'main'])" \
        >"$tmp/$cc.body" 2>&1
    result "$([ "$(cat "$tmp/$cc.body")" = True ] && echo 0 || echo 1)" \
        "$cc: the task and the taskwait in a region's body are named by the function they are written in (main)" "$tmp/$cc.body"
    "$oc" report -o "$tmp/$cc.txt" "$tmp/$cc.ses" 2>>"$tmp/$cc.err"
    sed -n '/^Tasks by construct/,/^$/p' "$tmp/$cc.txt" >"$tmp/$cc.rows"
    grep -Eq "^  main ompcollect-pragma.c:$task " "$tmp/$cc.rows"
    result $? "$cc: the text report's task row reads main ompcollect-pragma.c:$task" "$tmp/$cc.rows"
done
