#!/bin/sh
# ompcollect-otf2.sh - traces from the exact event log: OTF2 archives (--trace) read back with otf2-print and the OTF2 reader API, Chrome JSON spans from events, and counted drops when the buffer is full.
# SPDX-License-Identifier: BSD-3-Clause
. "${top_srcdir:?}/t/ompcollect-lib.sh"
locks=$top_builddir/examples/locks
critical=$top_builddir/examples/critical
nested=$top_builddir/examples/nested
reader=$top_builddir/t/otf2-read
# The reader is built like the suite (with the sanitizers linked in, in
# such builds); the runtimes preloaded for ompcollect's programs would clash.
read_archive() {
    env -u LD_PRELOAD "$reader" "$@"
}

echo "1..12"
n=0
# A failed test shows the first 40 lines of each file it names.
result_lines="head -n 40"

# The lock example with every event registered (a trace's default) and a
# JSON report to compare the trace with.
run --runtime "$LIBOMP" -f json -o "$tmp/locks.json" --trace "$tmp/tr" --trace-json "$tmp/locks.trace.json" \
    "$locks" 0.3
ran=$status
have_otf2=1
if [ $ran -eq 125 ] && grep -q "built without OTF2" "$tmp/err"; then
    have_otf2=0
    # Still a trace in JSON without OTF2.
    run --runtime "$LIBOMP" -f json -o "$tmp/locks.json" --trace-json "$tmp/locks.trace.json" "$locks" 0.3
    ran=$status
fi

if [ $have_otf2 -eq 1 ]; then
    [ $ran -eq 0 ] && [ -f "$tmp/tr/traces.otf2" ] && [ -d "$tmp/tr/traces" ]
    result $? "--trace DIR writes the OTF2 archive DIR/traces.otf2" "$tmp/err"
else
    run --trace "$tmp/tr" "$locks" 0.01
    [ $status -eq 125 ] && grep -q "libopen-trace-format2-dev" "$tmp/err" && [ ! -e "$tmp/tr" ]
    result $? "without OTF2, --trace is refused with status 125 and says what to install" "$tmp/err"
fi

if [ $have_otf2 -eq 0 ]; then
    skip "ompcollect was built without OTF2 (libopen-trace-format2-dev)"
    skip "ompcollect was built without OTF2"
    skip "ompcollect was built without OTF2"
elif ! command -v otf2-print >/dev/null 2>&1; then
    skip "otf2-print (otf2-tools) is not installed"
    skip "otf2-print (otf2-tools) is not installed"
    skip "otf2-print (otf2-tools) is not installed"
else
    otf2-print "$tmp/tr/traces.otf2" >"$tmp/print.out" 2>"$tmp/print.err"
    [ $? -eq 0 ] && [ ! -s "$tmp/print.err" ] && grep -q "^ENTER" "$tmp/print.out"
    result $? "otf2-print reads the archive without an error or a warning" "$tmp/print.err"

    # One location per OpenMP thread; every Enter left in order on its location;
    # regions named and placed by file and line, none a state; every thread
    # enters the parallel region in a team; as many forks and joins as the
    # report; the lock's acquisitions; the states as a metric.
    otf2-print -G "$tmp/tr/traces.otf2" >"$tmp/defs.out" 2>&1
    python3 - "$tmp/print.out" "$tmp/defs.out" "$tmp/locks.json" >"$tmp/structure.out" 2>&1 <<'EOF'
import json, re, sys
events = open(sys.argv[1]).read().splitlines()
defs = open(sys.argv[2]).read().splitlines()
report = json.load(open(sys.argv[3]))
ok = True
def fail(*what):
    global ok
    print(*what); ok = False
openmp = [t for t in report["threads"] if t["openmp"]]
locations = [l for l in defs if l.startswith("LOCATION ")]
if len(locations) != len(openmp):
    fail(len(locations), "locations for", len(openmp), "OpenMP threads")
region_defs = [l for l in defs if l.startswith("REGION ")]
regions = dict(re.match(r'REGION\s+(\d+)\s+Name: "(.*?)" <', l).groups()[::-1] for l in region_defs)
for state in ["WORK", "LKWT", "SERIAL", "OVHD", "IBAR", "CTWT", "ODWT", "ATWT", "EBAR", "IDLE", "REDUC"]:
    if state in regions:
        fail("a state is a region:", state)
if any("Role: ARTIFICIAL" in l for l in region_defs):
    fail("ARTIFICIAL regions:", [l for l in region_defs if "Role: ARTIFICIAL" in l])
placed = [l for l in region_defs if re.search(r'Name: "parallel at [^"]*locks\.c:(\d+)".*Role: PARALLEL.*File: "[^"]*locks\.c" <\d+>, Begin: [1-9]', l)]
if not placed:
    fail("no parallel region with its file and line:", region_defs)
if not any(r.startswith("lock wait at ") for r in regions):
    fail("no lock wait named by its location:", list(regions))
if not any("COMM_LOCATIONS" in l for l in defs) or not any(l.startswith("COMM ") for l in defs):
    fail("no thread team definitions (a COMM_LOCATIONS group and a Comm)")
if not any(l.startswith("METRIC_MEMBER") and '"thread state"' in l for l in defs):
    fail("no thread state metric")
stacks, teams, parallel = {}, {}, set()
forks = joins = acquisitions = 0
states = set()
for line in events:
    m = re.match(r'(ENTER|LEAVE|THREAD_FORK|THREAD_JOIN|THREAD_TEAM_BEGIN|THREAD_TEAM_END|THREAD_ACQUIRE_LOCK|METRIC)\s+(\d+)\s+(\d+)\s+(.*)', line)
    if not m:
        continue
    kind, location, when, rest = m.groups()
    if kind == "THREAD_FORK":
        forks += 1
    elif kind == "THREAD_JOIN":
        joins += 1
    elif kind == "THREAD_ACQUIRE_LOCK":
        acquisitions += 1
    elif kind == "METRIC":
        states.add(int(re.search(r'"thread state" <\d+>; UINT64; (\d+)', rest).group(1)))
    elif kind == "THREAD_TEAM_BEGIN":
        teams[location] = teams.get(location, 0) + 1
    elif kind == "THREAD_TEAM_END":
        teams[location] = teams.get(location, 0) - 1
        if teams[location] < 0:
            fail("team end without a begin on", location, "at", when)
    elif kind == "ENTER":
        name = re.search(r'Region: "(.*?)"', rest).group(1)
        if name.startswith("parallel at "):
            parallel.add(location)
            if not teams.get(location):
                fail("parallel region entered outside a team on", location, "at", when)
        stacks.setdefault(location, []).append(name)
    else:
        region = re.search(r'Region: "(.*?)"', rest).group(1)
        if not stacks.get(location) or stacks[location].pop() != region:
            fail("leave of", region, "that is not the innermost on", location, "at", when)
open_left = {l: s for l, s in stacks.items() if s}
if open_left:
    fail("left open:", open_left)
if len(stacks) != len(openmp):
    fail("events on", len(stacks), "locations for", len(openmp), "OpenMP threads")
totals = report["totals"]
if forks != totals["forks"] or joins != totals["joins"] or forks == 0:
    fail("forks/joins", forks, joins, "report", totals["forks"], totals["joins"])
if len(parallel) != len(openmp) or any(teams.values()):
    fail("parallel region entered on", sorted(parallel), "of", len(openmp), "threads; teams left open:", teams)
if acquisitions == 0:
    fail("no lock acquisitions")
if 8 not in states or not states <= set(range(12)):
    fail("thread states seen:", states)
print(len(locations), "locations;", len(regions), "regions;", forks, "forks;", joins, "joins;",
      acquisitions, "acquisitions; states", sorted(states))
sys.exit(0 if ok else 1)
EOF
    result $? "otf2-print: a location per thread, balanced regions with file and line, every thread in the parallel region and its team, the report's forks, lock acquisitions, states as a metric" "$tmp/structure.out"

    grep -q "^CLOCK_PROPERTIES.*Ticks per Seconds: 1000000000, Global Offset: [1-9]" "$tmp/defs.out" \
        && grep -q "Date: [12][0-9][0-9][0-9]-" "$tmp/defs.out"
    result $? "the clock properties give nanoseconds, the offset and the real date" "$tmp/defs.out"
fi

# The reader API: the same structure, without scraping any text.
if [ $have_otf2 -eq 0 ] || [ ! -x "$reader" ]; then
    skip "no OTF2: t/otf2-read is not built"
else
    read_archive "$tmp/tr/traces.otf2" >"$tmp/read.out" 2>&1
    [ $? -eq 0 ] && python3 - "$tmp/read.out" "$tmp/locks.json" >"$tmp/read.check" 2>&1 <<'EOF'
import json, sys
got = dict(line.split(" ", 1) for line in open(sys.argv[1]).read().splitlines())
report = json.load(open(sys.argv[2]))
locations = str(sum(1 for t in report["threads"] if t["openmp"]))
want = {"locations": locations, "forks": str(report["totals"]["forks"]), "joins": str(report["totals"]["joins"]),
        "state_regions": "0", "artificial_regions": "0", "events_dropped": "0", "locations_left_in_team": "0",
        "locations_entering_parallel": locations, "bad_state_metrics": "0"}
bad = {k: (got.get(k), v) for k, v in want.items() if got.get(k) != v}
if got.get("enters") != got.get("leaves") or int(got.get("parallel_regions", 0)) < 1 \
        or got.get("team_begins") != got.get("team_ends") or int(got.get("team_begins", 0)) < int(locations) \
        or int(got.get("acquisitions", 0)) < 1 or int(got.get("regions_with_line", 0)) < 1 \
        or int(got.get("states_distinct", 0)) < 2:
    bad["structure"] = got
print(got, bad)
sys.exit(1 if bad else 0)
EOF
    result $? "the OTF2 reader API: the report's locations, forks and joins; balanced regions and teams; ordered acquisitions; the state metric" "$tmp/read.out" "$tmp/read.check"
fi

# Chrome JSON from the event log: spans nest on every thread, waits come
# from their events with the region they happened in, regions from FORK to
# JOIN as often as the report counts them.
[ $ran -eq 0 ] && python3 - "$tmp/locks.trace.json" "$tmp/locks.json" >"$tmp/json.out" 2>&1 <<'EOF'
import json, sys
trace = json.load(open(sys.argv[1]))
report = json.load(open(sys.argv[2]))
ok = True
def fail(*what):
    global ok
    print(*what); ok = False
by_thread = {}
for e in trace["traceEvents"]:
    if e["ph"] == "X":
        by_thread.setdefault(e["tid"], []).append(e)
for tid, spans in by_thread.items():
    stack, last = [], 0
    for e in spans:
        # The trace keeps the record's nanoseconds: compare them as integers.
        begin = round(e["ts"] * 1000)
        end = begin + round(e["dur"] * 1000)
        if e["dur"] < 0 or begin < last:
            fail("out of order or negative on", tid, e)
        last = begin
        while stack and stack[-1] <= begin:
            stack.pop()
        if stack and end > stack[-1]:
            fail("not nested on", tid, e, "in a span ending", stack[-1])
        stack.append(end)
regions = [e for s in by_thread.values() for e in s if e["cat"] == "region"]
# A state from its wait's events names its region (a sampled one has no arguments); a region from FORK has its id.
exact_waits = [e for s in by_thread.values() for e in s
               if e["cat"] == "state" and e["name"] == "LKWT" and e.get("args", {}).get("region")]
if len(regions) != report["totals"]["forks"] or not all(r["args"].get("id") for r in regions):
    fail("regions", len(regions), "forks", report["totals"]["forks"])
if not exact_waits:
    fail("no LKWT span from events with its region id")
if len({e["tid"] for e in exact_waits}) < 2:
    fail("exact LKWT on fewer than two threads")
meta = trace["otherData"]
if meta.get("events_dropped") != 0 or not meta.get("events_recorded"):
    fail("metadata", meta)
print(sum(len(s) for s in by_thread.values()), "spans;", len(regions), "regions;", len(exact_waits), "exact LKWT")
sys.exit(0 if ok else 1)
EOF
result $? "--trace-json: spans from the events nest per thread, regions match the report's forks" "$tmp/json.out" "$tmp/err"

# A tiny buffer: events are dropped, and the report, the JSON trace and the
# OTF2 archive all say how many.
if [ $have_otf2 -eq 1 ]; then
    run --runtime "$LIBOMP" -f json -o "$tmp/small.json" --trace "$tmp/small" --trace-json "$tmp/small.trace.json" \
        --trace-buffer=64 "$critical" 0.1
else
    run --runtime "$LIBOMP" -f json -o "$tmp/small.json" --trace-json "$tmp/small.trace.json" \
        --trace-buffer=64 "$critical" 0.1
fi
[ $status -eq 0 ] && python3 - "$tmp/small.json" "$tmp/small.trace.json" >"$tmp/drop.out" 2>&1 <<'EOF'
import json, sys
report = json.load(open(sys.argv[1]))
trace = json.load(open(sys.argv[2]))
log = report["event_log"]
events = sum(c for t in report["threads"] for c in t["events"].values())
print(log, "events", events, "trace", trace["otherData"])
# An uncontended wait's BEGIN and END are taken out of the log again (short_waits): a fast or a loaded machine has some.
ok = (log["bytes_per_thread"] == 64 and log["dropped"] > 0
      and log["recorded"] + log["dropped"] + 2 * log["short_waits"] == events
      and trace["otherData"]["events_dropped"] == log["dropped"])
sys.exit(0 if ok else 1)
EOF
drop=$?
if [ $drop -eq 0 ] && [ $have_otf2 -eq 1 ]; then
    dropped=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["event_log"]["dropped"])' "$tmp/small.json")
    if [ -x "$reader" ]; then
        read_archive "$tmp/small/traces.otf2" >"$tmp/small.read" 2>&1 && grep -qx "events_dropped $dropped" "$tmp/small.read"
        drop=$?
    fi
fi
result $drop "--trace-buffer=64 drops events, and the report and both traces count them alike" "$tmp/drop.out" "$tmp/small.read" "$tmp/err"

# The text report says so too.
run --runtime "$LIBOMP" -o "$tmp/small.txt" --trace-json "$tmp/small2.json" --trace-buffer=64 "$critical" 0.05
[ $status -eq 0 ] && grep -q "did not fit their 64-byte event logs (--trace-buffer)" "$tmp/small.txt"
result $? "the text report says how many events did not fit" "$tmp/small.txt" "$tmp/err"

# Bad values and places are refused before the program runs.
bad=0
mkdir -p "$tmp/full" && : >"$tmp/full/something"
for args in "--trace-buffer=0 --trace-json=$tmp/x.json" "--trace-buffer=lots --trace-json=$tmp/x.json" \
    "--trace-buffer=2G --trace-json=$tmp/x.json" "--trace-buffer=1M" "--trace=$tmp/full" \
    "--trace=$tmp/no/such/dir"; do
    # shellcheck disable=SC2086
    run $args "$locks" 0.01
    if [ $status -ne 125 ] || [ ! -s "$tmp/err" ] || grep -q "acquisitions" "$tmp/out"; then
        echo "$args: status $status" >>"$tmp/bad.out"
        bad=1
    fi
done
result $bad "bad --trace-buffer sizes and --trace places are refused with status 125" "$tmp/bad.out"

# %p names the archive as it names the report.
if [ $have_otf2 -eq 1 ]; then
    run --runtime "$LIBOMP" -o "$tmp/p.txt" --trace "$tmp/arch.%p" "$locks" 0.02
    set -- "$tmp"/arch.[0-9]*
    [ $status -eq 0 ] && [ -f "$1/traces.otf2" ] && [ "$1" = "$tmp/arch.$(sed -n 's/.*(pid \([0-9]*\).*/\1/p' "$tmp/p.txt" | head -n 1)" ]
    result $? "--trace takes the --output patterns (%p)" "$tmp/err" "$tmp/p.txt"
else
    skip "ompcollect was built without OTF2"
fi

# Nested parallelism: each inner region is a team of its own, forked by an
# outer team's thread; every thread enters the regions of the teams it is in.
if [ $have_otf2 -eq 1 ] && [ -x "$reader" ]; then
    run --runtime "$LIBOMP" -f json -o "$tmp/nested.json" --trace "$tmp/nested" "$nested" 0.1
    [ $status -eq 0 ] && read_archive "$tmp/nested/traces.otf2" >"$tmp/nested.read" 2>&1 \
        && otf2-print -G "$tmp/nested/traces.otf2" >"$tmp/nested.defs" 2>&1 \
        && python3 - "$tmp/nested.read" "$tmp/nested.json" "$tmp/nested.defs" >"$tmp/nested.check" 2>&1 <<'EOF'
import json, sys
got = dict(line.split(" ", 1) for line in open(sys.argv[1]).read().splitlines())
report = json.load(open(sys.argv[2]))
teams = [l for l in open(sys.argv[3]).read().splitlines() if l.startswith("COMM ")]
locations = sum(1 for t in report["threads"] if t["openmp"])
forks = report["totals"]["forks"]
print(got, len(teams), "teams")
ok = (got["forks"] == str(forks) and got["locations_entering_parallel"] == str(locations) and locations >= 3
      and got["team_begins"] == got["team_ends"] and int(got["team_begins"]) >= 2 * forks
      and got["locations_left_in_team"] == "0" and len(teams) >= 2)
sys.exit(0 if ok else 1)
EOF
    result $? "nested regions: every thread enters the regions of its teams, each fork a team of at least 2" \
        "$tmp/nested.check" "$tmp/nested.read" "$tmp/err"
else
    skip "no OTF2: t/otf2-read is not built"
fi

# A definition must fit in one of the archive's chunks (256 KB): a file name
# longer than a path can be (a #line of 300,000 bytes here) is kept as its
# first 4096 bytes and its length, and the archive is written.
if [ $have_otf2 -eq 1 ] && command -v otf2-print >/dev/null 2>&1; then
    long=$(head -c 300000 </dev/zero | tr '\0' x)
    { printf '#line 1 "%s.c"\n' "$long"
      printf 'int main(void)\n{\n    int n = 0;\n#pragma omp parallel reduction(+ : n)\n    n++;\n    return n == 0;\n}\n'
    } >"$tmp/long.c"
    if $CC -fopenmp -g -o "$tmp/long" "$tmp/long.c" >"$tmp/long.cc" 2>&1; then
        run --runtime "$LIBOMP" -o /dev/null --trace "$tmp/long.otf2" "$tmp/long"
        [ $status -eq 0 ] && otf2-print -G "$tmp/long.otf2/traces.otf2" >"$tmp/long.defs" 2>&1 \
            && grep -q "^STRING .*x\{4000\}.*\[\.\.\. 3[0-9]\{5\} bytes in all\]\"\$" "$tmp/long.defs" \
            && ! grep -q "x\{5000\}" "$tmp/long.defs"
        result $? "a 300,000-byte file name: the trace keeps its first 4096 bytes and its length" "$tmp/err" "$tmp/long.defs"
    else
        skip "$CC cannot build an OpenMP program ($(head -n 1 "$tmp/long.cc"))"
    fi
else
    skip "no OTF2 or no otf2-print"
fi
