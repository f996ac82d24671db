#!/bin/sh
# ompcollect-diff.sh - ompcollect diff of an imbalanced and a balanced run of one loop (t/ompcollect-balance.c) names the loop, the direction and size of the change and what most of it is; a report against itself shows no change; task constructs are compared by code location; rows only in one run are appeared/disappeared; limits and other programs are said; hostile inputs are refused with one line naming the file.
# SPDX-License-Identifier: BSD-3-Clause
. "${top_srcdir:?}/t/ompcollect-lib.sh"
program=$top_builddir/t/ompcollect-balance

echo "1..30"
n=0

# A before (thread k of 2 works k+1 units), B after (both work 1.5 units): one program, one loop.
"$oc" --runtime "$LIBOMP" -i 1ms -f json -o "$tmp/a.json" "$program" imbalanced >/dev/null 2>"$tmp/run.err" \
    && "$oc" --runtime "$LIBOMP" -i 1ms -f json -o "$tmp/b.json" "$program" balanced >/dev/null 2>>"$tmp/run.err"
status=$?
if [ $status -eq 77 ] || ! [ -s "$tmp/b.json" ]; then
    echo "Bail out! t/ompcollect-balance gave no JSON reports to compare (status $status): $(head -n 3 "$tmp/run.err" | tr '\n' ' ')"
    exit 1
fi
# The loop's construct is named at its pragma's line whichever compiler built it: GCC's call
# of GOMP_parallel sits on the loop's line before it, and the report must place the construct
# by the outlined body the call was handed (tools/report/symbols/gompsite.c).
line=$(grep -n '@loop ' "$top_srcdir/t/ompcollect-balance.c" | cut -d: -f1)

# check DESCRIPTION EXPRESSION FILE...: the Python expression holds over d (the first FILE, a diff's
# JSON), a and b (the reports it compared: $tmp/a.json, $tmp/b.json) and text (the second FILE, if any).
check() {
    description=$1 expression=$2
    shift 2
    python3 - "$expression" "$tmp/a.json" "$tmp/b.json" "$@" >"$tmp/check.err" 2>&1 <<'EOF'
import json, sys
expression, a, b, d = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3])), json.load(open(sys.argv[4]))
text = open(sys.argv[5]).read() if len(sys.argv) > 5 else ""
# With a diff's CSV as JSON (csv_tables) second: j is the diff's JSON, c its CSV's tables.
j, c = d, (json.loads(text) if text.startswith("{") else {})
def construct(diff, line):
    rows = [c for c in diff["constructs"] if c["location"]["line"] == line]
    return rows[0] if len(rows) == 1 else None
def states(report):
    return sum(report["totals"]["states"].values())
sys.exit(0 if eval(expression) else "does not hold: " + expression)
EOF
    result $? "$description" "$tmp/check.err" "$@"
}

"$oc" diff -f json "$tmp/a.json" "$tmp/b.json" >"$tmp/d.json" 2>"$tmp/err" \
    && "$oc" diff -o "$tmp/d.txt" "$tmp/a.json" "$tmp/b.json" 2>>"$tmp/err"
result $? "diff of the imbalanced and the balanced run: JSON and text (-o), exit 0" "$tmp/err"
check "the loop at ompcollect-balance.c:$line is one row, in both runs, 10 instances each" \
    "construct(d, $line) is not None and construct(d, $line)['status'] == 'matched' \
     and (construct(d, $line)['a_instances'], construct(d, $line)['b_instances']) == (10, 10) \
     and construct(d, $line)['location']['name'] == 'main ompcollect-balance.c:$line'" "$tmp/d.json"
check "its change is B's fork-to-join time less A's, and each share is that time over the run's wall time" \
    "construct(d, $line)['change_ns'] == b['constructs'][0]['total_ns'] - a['constructs'][0]['total_ns'] \
     and abs(construct(d, $line)['a_share'] - a['constructs'][0]['total_ns'] / a['wall_ns']) < 1e-6" "$tmp/d.json"
check "each state's change is B's samples x interval less A's, its share of each run's samples" \
    "all(s['change_ns'] == b['totals']['states'][s['state']] * b['interval_ns'] - a['totals']['states'][s['state']] * a['interval_ns'] \
         and abs(s['b_share'] - b['totals']['states'][s['state']] / states(b)) < 1e-6 for s in d['states']) \
     and len(d['states']) == 11" "$tmp/d.json"
check "the tables are sorted by the size of the change, largest first" \
    "all([abs(r['change_ns']) for r in d[k]] == sorted([abs(r['change_ns']) for r in d[k]], reverse=True) \
         for k in ('states', 'constructs', 'wait_locations'))" "$tmp/d.json"
check "the summary's speedup is A's wall time over B's" \
    "abs(d['summary']['speedup'] - a['wall_ns'] / b['wall_ns']) < 1e-4 \
     and d['summary']['wall_change_ns'] == b['wall_ns'] - a['wall_ns']" "$tmp/d.json"
# The part the summary names: recomputed here from the two reports (state x construct, and outside
# every construct), the largest of the parts that fell, with its share of their sum.
check "the summary's largest part and its share, recomputed from the reports" "$(cat <<'EOF'
(d["summary"]["speedup"] < 1.005 or (lambda parts: (lambda gains: d['summary']['largest'] is not None
    and min(gains) == d['summary']['largest']['change_ns']
    and abs(d['summary']['largest']['share_of_change'] - min(gains) / sum(gains)) < 1e-5)
    ([p for p in parts if p < 0]))(
  [b['constructs'][0]['states'][s] * b['interval_ns'] - a['constructs'][0]['states'][s] * a['interval_ns'] for s in a['states']]
  + [(b['totals']['states'][s] - b['constructs'][0]['states'][s]) * b['interval_ns']
     - (a['totals']['states'][s] - a['constructs'][0]['states'][s]) * a['interval_ns'] for s in a["states"]]))
EOF
)" "$tmp/d.json"
# By construction the balanced run is a quarter shorter: every region lasts 2 units (80 ms)
# imbalanced, 1.5 balanced, and thread 0 waits 1 unit of each in the barrier.  A machine so busy
# that the scheduler's delays come near a unit swamps that; the balanced run's own regions show how
# busy it was (their time past 1.5 units), and past a quarter of a unit these two checks are skipped.
delay=$(python3 -c 'import json, sys; c = json.load(open(sys.argv[1]))["constructs"][0]; print(int(c["total_ns"] / c["instances"] / 1e6 - 60))' "$tmp/b.json")
if [ "$delay" -le 10 ]; then
    grep -q "^B is [0-9.]*x faster (wall [0-9.]* s -> [0-9.]* s); [0-9]*% of the gain is IBAR at main ompcollect-balance\\.c:$line\$" "$tmp/d.txt"
    result $? "the text's summary: B is faster, and most of the gain is IBAR at the loop (delays: $delay ms a region)" "$tmp/d.txt"
    check "... the JSON's too: the loop's IBAR time fell, and it is at least half the gain" \
        "' faster ' in d['summary']['text'] and d['summary']['largest']['state'] == 'IBAR' \
         and d['summary']['largest']['construct']['line'] == $line \
         and construct(d, $line)['states_change_ns']['IBAR'] < 0 and d['summary']['largest']['share_of_change'] >= 0.5" \
        "$tmp/d.json"
else
    skip "the machine delayed the balanced run's regions by $delay ms each (more than 10: a timing matter)" 2
fi
grep -q "^ .* 10 -> 10  main ompcollect-balance\\.c:$line ([A-Z]* [-+][0-9.]* s)\$" "$tmp/d.txt"
result $? "the text's construct table names the loop with its instances in A and B" "$tmp/d.txt"

# A report against itself: nothing changed.
"$oc" diff -f json "$tmp/a.json" "$tmp/a.json" >"$tmp/same.json" 2>"$tmp/err" \
    && "$oc" diff "$tmp/a.json" "$tmp/a.json" >"$tmp/same.txt" 2>>"$tmp/err"
result $? "a report against itself: exit 0" "$tmp/err"
check "... every change is 0, every row matched, no warning, and the summary says so" \
    "all(r['change_ns'] == 0 and r['share_change'] == 0 for k in ('states', 'constructs', 'wait_locations') for r in d[k]) \
     and all(r['status'] == 'matched' for k in ('constructs', 'wait_locations') for r in d[k]) \
     and d['warnings'] == [] and d['same_program'] and d['summary']['largest'] is None \
     and d['summary']['text'].endswith('; thread time unchanged') and 'B is as fast as A' in text" \
    "$tmp/same.json" "$tmp/same.txt"

# Crafted inputs: the loop moved in B, another program, limits and record damage, and hostile reports.
python3 - "$tmp" <<'EOF' || { echo "Bail out! the crafted inputs could not be written"; exit 1; }
import json, sys
tmp = sys.argv[1]
def edit(name, change, source="b"):
    r = json.load(open("%s/%s.json" % (tmp, source)))
    change(r)
    open("%s/%s.json" % (tmp, name), "w").write(json.dumps(r))
edit("moved", lambda r: r["constructs"][0]["location"].update(module_offset="0x7", line=None, kind="module"))
edit("other", lambda r: r.update(program="/bin/other"))
edit("limits", lambda r: r.update(limits=[{"what": "waits", "count": 12, "bound": 1024, "text": "12 samples\nlost"}],
                                  record_damage={"findings": 2, "text": "a\rb"}), "a")
edit("interval", lambda r: r.update(interval_ns=0))
edit("overflow", lambda r: r.update(interval_ns=2**62))
edit("types", lambda r: r.update(wall_ns="long"))
open(tmp + "/hello.json", "w").write("hello\n")
EOF
"$oc" diff -f json "$tmp/a.json" "$tmp/moved.json" >"$tmp/moved-d.json" 2>"$tmp/err"
result $? "B's loop at another offset: exit 0" "$tmp/err"
check "... the loop is listed twice, disappeared from A's place and appeared at B's" \
    "sorted(c['status'] for c in d['constructs']) == ['appeared', 'disappeared'] \
     and [c['b_instances'] for c in d['constructs'] if c['status'] == 'appeared'] == [10] \
     and [c['a_instances'] for c in d['constructs'] if c['status'] == 'disappeared'] == [10]" "$tmp/moved-d.json"
"$oc" diff "$tmp/a.json" "$tmp/moved.json" >"$tmp/moved.txt" 2>"$tmp/err"
grep -q "(appeared; " "$tmp/moved.txt" && grep -q "(disappeared; " "$tmp/moved.txt"
result $? "... and so in the text" "$tmp/moved.txt"
"$oc" diff -f json "$tmp/a.json" "$tmp/other.json" >"$tmp/other-d.json" 2>"$tmp/err" \
    && "$oc" diff "$tmp/a.json" "$tmp/other.json" >"$tmp/other.txt" 2>>"$tmp/err"
result $? "reports of two programs: compared all the same (exit 0)" "$tmp/err"
grep -q "^warning: A and B are reports of different programs (.*ompcollect-balance and /bin/other)" "$tmp/other.txt" \
    && python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(not (d["same_program"] is False and len(d["warnings"]) == 1))' \
        "$tmp/other-d.json"
result $? "... with a warning line in the text and in the JSON's warnings" "$tmp/other.txt" "$tmp/other-d.json"
"$oc" diff -f json "$tmp/limits.json" "$tmp/b.json" >"$tmp/limits-d.json" 2>"$tmp/err" \
    && "$oc" diff "$tmp/limits.json" "$tmp/b.json" >"$tmp/limits.txt" 2>>"$tmp/err" \
    && grep -q '^  A: limit reached: 12 samples lost$' "$tmp/limits.txt" \
    && grep -q '^  A: record damaged (2 findings): a b$' "$tmp/limits.txt"
result $? "A's limits and record damage: said in the text, each on one line" "$tmp/err" "$tmp/limits.txt"
check "... and kept in the JSON's a.limits as the report gave them" \
    "d['a']['limits'] == [{'what': 'waits', 'count': 12, 'bound': 1024, 'text': '12 samples\\nlost'}, \
                         {'what': 'record_damage', 'count': 2, 'bound': 0, 'text': 'a\\rb'}] and d['b']['limits'] == []" \
    "$tmp/limits-d.json"

# csv_tables FILE: the diff CSV stream FILE as JSON, {table: [each row as a dict by its header]}; fails
# when a row is not as long as its table's header.
csv_tables() {
    python3 - "$1" <<'EOF'
import csv, json, sys
tables, header = {}, None
for row in csv.reader(open(sys.argv[1], newline="")):
    if row[0] == "section":
        header = row[1:]
        continue
    if header is None or len(row) - 1 != len(header):
        sys.exit("row %r does not fit its header %r" % (row, header))
    tables.setdefault(row[0], []).append(dict(zip(header, row[1:])))
print(json.dumps(tables))
EOF
}
"$oc" diff -f csv -o "$tmp/d.csv" "$tmp/a.json" "$tmp/b.json" 2>"$tmp/err" && csv_tables "$tmp/d.csv" >"$tmp/dcsv.json" 2>>"$tmp/err"
result $? "diff -f csv: exit 0, every row as long as its table's header" "$tmp/err" "$tmp/d.csv"
# The CSV holds what the JSON holds: the same summary, and each table's rows in the same order and figures.
check "... its summary, states, constructs and wait locations are the JSON's, row by row" \
    "c['summary'][0]['text'] == j['summary']['text'] and [s['side'] for s in c['side']] == ['A', 'B'] \
     and [(s['state'], int(s['change_ns'])) for s in c['state']] == [(s['state'], s['change_ns']) for s in j['states']] \
     and [(int(r['line']), r['status'], int(r['a_instances']), int(r['change_ns'])) for r in c['construct']] \
         == [(r['location']['line'], r['status'], r['a_instances'], r['change_ns']) for r in j['constructs']] \
     and [(r['state'], r['what'], int(r['change_ns'])) for r in c['wait_location']] \
         == [(r['state'], r['what'], r['change_ns']) for r in j['wait_locations']]" \
    "$tmp/d.json" "$tmp/dcsv.json"
"$oc" diff -f csv "$tmp/limits.json" "$tmp/b.json" >"$tmp/limits.csv" 2>"$tmp/err" \
    && csv_tables "$tmp/limits.csv" >"$tmp/limits-csv.json" 2>>"$tmp/err"
result $? "diff -f csv of a report with limits and record damage: exit 0, every row fits" "$tmp/err" "$tmp/limits.csv"
check "... the limits kept as the report gave them, line breaks quoted" \
    "[(l['side'], l['what'], l['text'], l['count'], l['bound']) for l in c['limit']] \
     == [('A', 'waits', '12 samples\\nlost', '12', '1024'), ('A', 'record_damage', 'a\\rb', '2', '0')]" \
    "$tmp/limits-d.json" "$tmp/limits-csv.json"

# Task constructs: the fib program with a low cut-off (A: many small tasks) and a high one (B: few), its two
# fib task constructs matched by code location with each run's counts, mean task and creation cost.  Each
# run repeats for 0.2 s at least: the scheduling estimate needs 10 samples of a thread at 1 ms.  The full
# task tier times every run, so each side's mean task is its runs' (the sampled tier's mean takes each
# task created to run once, in the report and in diff alike).
if tasks=$(test_program tasks-clang 2>"$tmp/tasks.err") \
    && "$oc" --runtime "$LIBOMP" -i 1ms --tasks=full -f json -o "$tmp/ta.json" "$tasks" 22 10 0 1 0.2 >"$tmp/ta.out" 2>>"$tmp/tasks.err" \
    && "$oc" --runtime "$LIBOMP" -i 1ms --tasks=full -f json -o "$tmp/tb.json" "$tasks" 22 16 0 1 0.2 >"$tmp/tb.out" 2>>"$tmp/tasks.err" \
    && "$oc" diff -f json -o "$tmp/td.json" "$tmp/ta.json" "$tmp/tb.json" 2>>"$tmp/tasks.err" \
    && "$oc" diff -o "$tmp/td.txt" "$tmp/ta.json" "$tmp/tb.json" 2>>"$tmp/tasks.err" \
    && "$oc" diff -f csv "$tmp/ta.json" "$tmp/tb.json" >"$tmp/td.csv" 2>>"$tmp/tasks.err" \
    && csv_tables "$tmp/td.csv" >"$tmp/td-csv.json" 2>>"$tmp/tasks.err"; then
    python3 - "$tmp/ta.json" "$tmp/tb.json" "$tmp/td.json" "$tmp/td-csv.json" "$tmp/ta.out" "$tmp/tb.out" \
        >"$tmp/tasks.check" 2>&1 <<'PY'
import json, sys
a, b, d, c = (json.load(open(p)) for p in sys.argv[1:5])
said = [int(open(p).read().split()[2]) for p in sys.argv[5:7]]  # "tasks: deferred N ..."
repetitions = [int(open(p).read().split()[10]) for p in sys.argv[5:7]]  # "... repetitions R"
def by_place(report):
    return {(t["location"]["module"], t["location"]["module_offset"]): t for t in report["tasks"]["constructs"]}
ra, rb = by_place(a), by_place(b)
rows = d["task_constructs"]
print("# deferred tasks the program made: A %d, B %d; rows %s" % (said[0], said[1],
      [(r["status"], r["a"]["created"], r["b"]["created"]) for r in rows]))
assert len(rows) == len(set(ra) | set(rb)) and all(r["status"] == "matched" for r in rows), rows
for r in rows:
    key = (r["location"]["module"], r["location"]["module_offset"])
    for side, report in (("a", ra), ("b", rb)):
        t, s = report[key], r[side]
        assert (s["created"], s["runs"], s["exec_ns"], s["create_ns"]) == (t["created"], t["runs"], t["exec_ns"], t["create_ns"]), (r, t)
        assert abs(s["mean_ns"] - t["exec_ns"] / t["runs"]) < 1 and abs(s["create_per_task_ns"] - t["create_ns"] / t["created"]) < 1
    assert r["change_ns"] == r["b"]["exec_ns"] - r["a"]["exec_ns"]
deferred = [sum(r[side]["created"] for r in rows) for side in "ab"]
assert deferred == said and deferred[0] / repetitions[0] > 2 * deferred[1] / repetitions[1], (deferred, said, repetitions)
assert len(c["task_construct"]) == len(rows) and {int(x["a_created"]) for x in c["task_construct"]} == {r["a"]["created"] for r in rows}
assert d["sched_per_run_ns"]["a"] == a["tasks"]["sched_per_run_ns"]
print("ok")
PY
    result $? "task constructs: matched by code location, each run's tasks, mean task time and creation cost as its report says (JSON, CSV)" \
        "$tmp/tasks.check" "$tmp/tasks.err"
    sed -n '/^Task constructs, largest change/,/^$/p' "$tmp/td.txt" >"$tmp/td-tasks.txt"
    [ "$(grep -c '  [0-9].* fib+0x' "$tmp/td-tasks.txt")" -ge 2 ] && ! grep -q ' (appeared)\| (disappeared)' "$tmp/td-tasks.txt" \
        && grep -q 'scheduling per task run' "$tmp/td.txt"
    result $? "task constructs: the text table, every row matched" "$tmp/td.txt"
else
    skip "no clang-built task program or no reports of it: $(head -n 2 "$tmp/tasks.err" | tr '\n' ' ')" 2
fi

# refused PATTERN DESCRIPTION FILE...: diff of the FILEs exits 1 with one line on stderr that matches
# the extended regular expression PATTERN, and writes nothing.
refused() {
    pattern=$1 description=$2
    shift 2
    "$oc" diff -f json "$@" >"$tmp/out" 2>"$tmp/err"
    status=$?
    [ $status -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -qE -- "$pattern" "$tmp/err" && ! [ -s "$tmp/out" ]
    result $? "$description (exit $status)" "$tmp/err"
}
refused '^ompcollect: diff: .*/hello\.json: not valid JSON: ' "text that is not JSON, refused naming the file" \
    "$tmp/a.json" "$tmp/hello.json"
refused '^ompcollect: diff: .*/types\.json: "wall_ns" is a string, not an integer' "wall_ns as a string" \
    "$tmp/types.json" "$tmp/b.json"
refused '^ompcollect: diff: .*/interval\.json: it has samples \(totals\.states\) but an "interval_ns" of 0' \
    "samples with no sampling interval: they are no time" "$tmp/a.json" "$tmp/interval.json"
refused '^ompcollect: diff: .*/overflow\.json: its totals\.states samples times "interval_ns" pass 9223372036854775807 ns' \
    "samples x interval beyond 64 bits" "$tmp/a.json" "$tmp/overflow.json"
"$oc" diff "$tmp/a.json" >"$tmp/out" 2>"$tmp/err"
status=$?
[ $status -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q 'give two JSON reports' "$tmp/err"
result $? "one report: a usage error (exit $status)" "$tmp/err"
