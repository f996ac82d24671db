#!/bin/sh
# ompcollect-cli.sh - the ompcollect launcher: help, errors, exit status, untouched program output, and well-formed JSON, CSV and SVG.
# SPDX-License-Identifier: BSD-3-Clause
. "${top_srcdir:?}/t/ompcollect-lib.sh"
prog=$top_builddir/t/ompcollect-prog

echo "1..31"
n=0
# A failed test shows the first 40 lines of each file it names.
result_lines="head -n 40"

run --help
grep -q -e '--timeline' "$tmp/out" && [ $status -eq 0 ]
result $? "--help prints the options and exits 0" "$tmp/out" "$tmp/err"

run --version
grep -q '^ompcollect (ompcollector) [0-9]' "$tmp/out" && [ $status -eq 0 ]
result $? "--version names the package version" "$tmp/out"

run
[ $status -eq 125 ] && grep -q 'no program' "$tmp/err"
result $? "no program: exit 125 with a message" "$tmp/err"

run --format=yaml "$prog"
[ $status -eq 125 ] && grep -q 'format' "$tmp/err"
result $? "unknown --format: exit 125 with a message" "$tmp/err"

run --events=ctwt,bogus_event sh -c ": > '$tmp/ran'"
[ $status -eq 125 ] && grep -q "bogus_event" "$tmp/err" && [ ! -e "$tmp/ran" ]
result $? "unknown --events name: exit 125, names it, program not run" "$tmp/err"

run --interval=0 "$prog"
[ $status -eq 125 ] && grep -q 'interval' "$tmp/err"
result $? "bad --interval: exit 125 with a message" "$tmp/err"

run --runtime "$LIBOMP" "$tmp/no-such-program"
[ $status -eq 127 ] && grep -q "cannot run '$tmp/no-such-program'" "$tmp/err"
result $? "missing program: exit 127, 'cannot run' message" "$tmp/err"

printf 'not a program\n' >"$tmp/plain"
run --runtime "$LIBOMP" "$tmp/plain"
[ $status -eq 126 ] && grep -q "cannot run" "$tmp/err"
result $? "program without execute permission: exit 126" "$tmp/err"

run --runtime "$LIBOMP" "$prog" 7
[ $status -eq 7 ]
result $? "the program's exit status (7) passes through" "$tmp/err"

grep -qx 'ompcollect-prog stdout threads=2' "$tmp/out" && grep -qx 'ompcollect-prog stderr' "$tmp/err" \
    && grep -q '^ompcollect report: ' "$tmp/err" && ! grep -q 'ompcollect report' "$tmp/out"
result $? "without -o the report goes to stderr, the program's streams are intact" "$tmp/out" "$tmp/err"

run --runtime "$LIBOMP" -o "$tmp/report.txt" "$prog"
[ $status -eq 0 ] && [ "$(cat "$tmp/out")" = 'ompcollect-prog stdout threads=2' ] \
    && [ "$(cat "$tmp/err")" = 'ompcollect-prog stderr' ] \
    && grep -q '^ompcollect report: ' "$tmp/report.txt" \
    && grep -q 'OVHD  WORK  IBAR  EBAR  IDLE SERIAL REDUC  LKWT  CTWT  ODWT  ATWT' "$tmp/report.txt"
result $? "with -o the program's stdout and stderr are exactly its own; the report has all 11 states" \
    "$tmp/out" "$tmp/err" "$tmp/report.txt"

run --runtime "$LIBOMP" "$prog" 0 signal
[ $status -eq 143 ] && grep -q "killed by signal 15" "$tmp/err"
result $? "program killed by SIGTERM: exit 143 and a message" "$tmp/err"

run --runtime "$LIBOMP" "$prog" 3 _exit
[ $status -eq 3 ] && grep -q '^ompcollect report: ' "$tmp/err" \
    && grep -q '^  incomplete: ended through _exit (status 3) without running its exit handlers' "$tmp/err"
result $? "program leaving through _exit: its status passes, its report is there and marked incomplete" "$tmp/err"

OMP_TOOL=disabled run --runtime "$LIBOMP" "$prog"
[ $status -eq 125 ] && grep -q "cannot attach" "$tmp/err" && grep -q "OMP_TOOL=disabled" "$tmp/err" \
    && ! grep -q 'ompcollect-prog' "$tmp/out"
result $? "OMP_TOOL=disabled: exit 125, 'cannot attach', program not run" "$tmp/err" "$tmp/out"

if readelf -d "$prog" 2>/dev/null | grep -q 'NEEDED.*libgomp'; then
    run "$prog"
    [ $status -eq 0 ] && grep -q "linked with GCC's libgomp.*running it on $LIBOMP" "$tmp/err" \
        && grep -q '^ompcollect report: ' "$tmp/err"
    result $? "GCC program without --runtime runs on configure's libomp, says so, and reports" "$tmp/err"
    run --runtime=none "$prog"
    [ $status -eq 125 ] && grep -q "cannot attach" "$tmp/err" && grep -q -e "--runtime=$LIBOMP" "$tmp/err" \
        && ! grep -q 'ompcollect-prog' "$tmp/out"
    result $? "GCC program with --runtime=none: exit 125, suggests --runtime, program not run" "$tmp/err"
else
    for what in "GCC program without --runtime runs on configure's libomp" "GCC program with --runtime=none"; do
        n=$((n + 1))
        echo "ok $n - $what # SKIP the test program does not link libgomp"
    done
fi

run sh -c 'echo ran >"$0"; exit 5' "$tmp/plain-ran"
[ $status -eq 5 ] && [ -s "$tmp/plain-ran" ] && grep -q "never loaded an OpenMP runtime" "$tmp/err" \
    && ! grep -q '^ompcollect report' "$tmp/err"
result $? "program that never loads an OpenMP runtime: runs, keeps its own exit status (5), no report, says why" "$tmp/err"

OMPCOLLECT_SHIM=$tmp/missing.so run --runtime "$LIBOMP" "$prog"
[ $status -eq 125 ] && grep -q "cannot find the shim" "$tmp/err"
result $? "OMPCOLLECT_SHIM pointing nowhere: exit 125" "$tmp/err"

run --runtime "$LIBOMP" "$prog" 0 spawn
[ $status -eq 0 ] && [ "$(grep -c '^ompcollect report: ' "$tmp/err")" -eq 2 ] \
    && [ "$(grep -c '^ompcollect-prog stderr' "$tmp/err")" -eq 2 ] \
    && [ "$(grep -c '^  exec.d by .*ompcollect-prog (pid [0-9]*) after a fork from pid [0-9]*$' "$tmp/err")" -eq 1 ]
result $? "a child the program forks and execs runs OpenMP too: a report each, the child's says where it came from" "$tmp/err"

# cover() judges only threads with >= 50 samples' worth of life: 1 ms makes the 50 ms program count.
run --runtime "$LIBOMP" --interval=1ms -f json -o "$tmp/report.json" "$prog"
[ $status -eq 0 ] && python3 -m json.tool "$tmp/report.json" >/dev/null
result $? "--format=json writes well-formed JSON" "$tmp/err" "$tmp/report.json"

holds "$tmp/report.json" 'len(r["states"]) == 11 and len(threads) >= 2 and totals["forks"] == 1 and totals["joins"] == 1 and all(t["samples"] > 0 for t in threads)'
result $? "JSON: 11 states, both threads sampled, one fork and one join" "$tmp/report.json"

holds "$tmp/report.json" 'all(cover(t) >= 0.9 for t in threads)'
result $? "JSON: every thread got at least 90% of the samples its lifetime allows" "$tmp/report.json"

run --runtime "$LIBOMP" --format csv -o "$tmp/report.csv" "$prog"
# Read as CSV (Python's csv module), not split at every comma: the text of a
# row (an opportunity's hint and detail) is quoted and holds commas, and a
# run on a loaded machine can have a finding that an idle one has not.
[ $status -eq 0 ] && python3 - "$tmp/report.csv" >"$tmp/csv.check" 2>&1 <<'PY'
import csv, sys
fields, bad, runs, threads = None, [], 0, 0
for row in csv.reader(open(sys.argv[1], newline="")):
    if row[0] == "section":
        fields = len(row)
        continue
    if len(row) != fields:
        bad.append(row)
    runs += row[0] == "run"
    threads += row[0] == "thread"
print("rows not as wide as their header: %s; %d run rows, %d thread rows" % (bad[:3], runs, threads))
sys.exit(0 if not bad and runs == 1 and threads >= 2 else 1)
PY
result $? "--format=csv: one run row, a row per thread, every row as wide as its header" "$tmp/csv.check" "$tmp/report.csv"

run --runtime "$LIBOMP" -o /dev/null --timeline "$tmp/timeline.svg" "$prog"
[ $status -eq 0 ] && python3 - "$tmp/timeline.svg" <<'EOF'
import sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
ns = "{http://www.w3.org/2000/svg}"
legend = [g for g in root.iter(ns + "g") if g.get("id") == "legend"]
labels = [t.text for t in legend[0].iter(ns + "text")] if legend else []
rows = [t for t in root.iter(ns + "text") if (t.text or "").startswith("thread ")]
spans = [r for r in root.iter(ns + "rect") if r.find(ns + "title") is not None]
sys.exit(0 if root.tag == ns + "svg" and len(labels) == 11 and "CTWT" in labels
         and len(rows) >= 2 and len(spans) >= 2 else 1)
EOF
result $? "--timeline writes well-formed SVG with a row per thread and an 11-state legend" "$tmp/err"

run --runtime "$LIBOMP" --no-sample -f json -o "$tmp/nosample.json" "$prog"
[ $status -eq 0 ] && holds "$tmp/nosample.json" 'r["sampling"] is False and totals["samples"] == 0 and totals["forks"] == 1'
result $? "--no-sample: no samples, FORK still counted" "$tmp/err" "$tmp/nosample.json"

# The suite's test switches (README, "Machines the suite runs on") stand in for another kernel's tick
# (OMPCOLLECT_TEST_TICK) and make every interval K times longer (OMPCOLLECT_TEST_INTERVAL_SCALE): the
# intervals expected here follow them as the launcher does.
scaled() { # scaled NS: the interval the launcher uses for NS
    python3 -c 'import sys; s = float(sys.argv[2] or 1); print(min(int(int(sys.argv[1]) * s), 10**10))' \
        "$1" "${OMPCOLLECT_TEST_INTERVAL_SCALE:-}"
}

# A thread's samples cannot outnumber its life over the interval (one more for where the grid falls):
# at 5 ms, the program's 50 ms or so give a few, where 1 ms would give five times as many.
five=$(scaled 5000000)
run --runtime "$LIBOMP" --interval=5ms -f json -o "$tmp/interval.json" "$prog"
[ $status -eq 0 ] && holds "$tmp/interval.json" "r['interval_ns'] == $five and 0 < initial['samples'] <= initial['lifetime_ns'] // $five + 1"
result $? "--interval=5ms samples every 5 ms: no more samples than the initial thread's life holds at 5 ms" \
    "$tmp/err" "$tmp/interval.json"

# The default is the kernel's tick (CLOCK_MONOTONIC_COARSE's resolution) when it is 1-10 ms, else 1 ms,
# plus 97 us: off the tick, so it cannot alias with the scheduler (doc/sampling-bias.md).
tick=$(python3 -c 'import sys, time; from os import environ as e; t = e.get("OMPCOLLECT_TEST_TICK", "")
print(round(float(t[:-2]) * 1e6) if t.endswith("ms") else round(time.clock_getres(getattr(time, "CLOCK_MONOTONIC_COARSE", 6)) * 1e9))')
default=$(python3 -c 'import sys; t = int(sys.argv[1]); print((t if 1000000 <= t <= 10000000 else 1000000) + 97000)' "$tick")
default=$(scaled "$default")
shown=$(python3 -c 'import sys; print("%.3g" % (int(sys.argv[1]) / 1e6))' "$default")
run --runtime "$LIBOMP" -f json -o "$tmp/default.json" "$prog"
[ $status -eq 0 ] && holds "$tmp/default.json" "r['interval_ns'] == $default and r['sampling'] is True" \
    && run --runtime "$LIBOMP" "$prog" && [ $status -eq 0 ] \
    && grep -Eq "^  wall [0-9.]+ s, sampling every $shown ms( with |, )" "$tmp/err"
result $? "the default interval is $shown ms (the kernel's tick is $tick ns), and the JSON and text reports say so" \
    "$tmp/err" "$tmp/default.json"

# -i wins over the default; --interval=tick asks for the tick itself.
other=2ms
run --runtime "$LIBOMP" -i $other -f json -o "$tmp/other.json" "$prog"
[ $status -eq 0 ] && holds "$tmp/other.json" "r['interval_ns'] == $(scaled 2000000)" \
    && run --runtime "$LIBOMP" --interval=tick -f json -o "$tmp/tick.json" "$prog" \
    && if [ "$tick" -ge 100000 ]; then
        [ $status -eq 0 ] && holds "$tmp/tick.json" "r['interval_ns'] == $(scaled "$tick")"
    else
        # No usable tick (a coarse clock finer than 100 us): refused.
        [ $status -eq 125 ] && grep -q 'tick' "$tmp/err"
    fi
result $? "-i $other overrides the default; --interval=tick samples every $tick ns" "$tmp/err" "$tmp/other.json" "$tmp/tick.json"

run --runtime "$LIBOMP" --events=ctwt,begin_ibar -f json -o "$tmp/events.json" "$prog"
[ $status -eq 0 ] && holds "$tmp/events.json" 'sorted(events) == ["begin_ctwt", "begin_ibar", "end_ctwt", "fork", "join"] and all(e["status"] == "ok" for e in events.values())'
result $? "--events registers the named events besides fork and join" "$tmp/err" "$tmp/events.json"

mkdir "$tmp/elsewhere"
(cd "$tmp" && "$oc" --runtime "$LIBOMP" -o rel.txt sh -c 'cd elsewhere && exec "$0"' "$prog" >/dev/null 2>&1)
grep -q '^ompcollect report: ' "$tmp/rel.txt" && [ ! -e "$tmp/elsewhere/rel.txt" ]
result $? "-o with a relative path is relative to where ompcollect ran" "$tmp/rel.txt"

# Two outputs naming one file (as written, or through another path to it) would overwrite each other:
# refused before the program runs, the message naming both options and the file.
bad=0
for args in "-o $tmp/same.out --trace-json=$tmp/same.out" "--timeline=$tmp/same.out -o $tmp/./same.out" \
    "--trace-json=$tmp/same.out --stacks-file=$tmp/elsewhere/../same.out" "--save=$tmp/same.out -o $tmp/same.out"; do
    rm -f "$tmp/ran"
    # shellcheck disable=SC2086
    run --runtime "$LIBOMP" $args sh -c ": > '$tmp/ran'"
    if [ $status -ne 125 ] || [ -e "$tmp/ran" ] || ! grep -q -e "--.* and --.*same.out" "$tmp/err"; then
        echo "$args: status $status" >>"$tmp/same.err"; cat "$tmp/err" >>"$tmp/same.err"; bad=1
    fi
done
run --runtime "$LIBOMP" -o /dev/null --trace-json=/dev/null "$prog"
[ $status -eq 0 ] || { echo "two outputs to /dev/null: status $status" >>"$tmp/same.err"; bad=1; }
result $bad "two outputs naming one file are refused with status 125 before the program runs" "$tmp/same.err"
