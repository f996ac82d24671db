#!/bin/sh
# record-damage-t.sh - a record the observed program damaged (scribbled strings, forged counts and table sizes, absurd times, logs that claim more than they hold, forged task events, a forged task-stack table, a forged serial code table, forged MPI call sites) ends in reports (and OTF2 archives whose regions and teams still balance) that say so, in bounded time and memory; a damaged or foreign saved run is refused with a message.
# SPDX-License-Identifier: BSD-3-Clause
: "${top_builddir:?}" "${top_srcdir:?}"
. "$top_srcdir/t/tap.sh"
oc=$top_builddir/tools/ompcollect
damage=$top_builddir/t/record-damage
# Built when configure found libotf2; the sanitizer runtimes a preload names would clash with its own.
reader=$top_builddir/t/otf2-read
cases="strings threads-negative threads-huge counts-huge stack-size times logs waits tables tasks task-sites stack-copies
serial-places mpi-sites mpi-dropped task-stacks"
echo "1..$((7 * 16 + 3 + 3 + 3 + 2 + 2 + 5 + 3))"
n=0
if ! command -v python3 >/dev/null 2>&1; then
    skip "python3 is needed to read the reports" $((7 * 16 + 3 + 3 + 3 + 2 + 2 + 5 + 3))
    exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/record-damage.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
gunzip -c "$top_srcdir/t/golden/solver.ses.gz" >"$tmp/solver.ses"
# Task events are damaged in a run that traced tasks.
gunzip -c "$top_srcdir/t/golden/tasktrace.ses.gz" >"$tmp/tasktrace.ses"
# Serial code places exist in runs saved since record version 7.
gunzip -c "$top_srcdir/t/golden/serial.ses.gz" >"$tmp/serial.ses"
# MPI call sites exist in runs saved since record version 8 (an MPI rank's).
gunzip -c "$top_srcdir/t/golden/mpi.ses.gz" >"$tmp/mpi.ses"
# Task-stack tables (which task construct a sampled stack ran in) exist in runs saved since --gprofng's OMP_task.
gunzip -c "$top_srcdir/t/golden/gprofng.ses.gz" >"$tmp/gprofng.ses"

# The reports run with at most 2 GiB of address space and 60 s.
report() {
    (ulimit -v 2097152 2>/dev/null; exec timeout 60 "$oc" report "$@")
}
for case in $cases; do
    source=$tmp/solver.ses stacks=--stacks-file="$tmp/$case.folded"
    [ "$case" = tasks ] && source=$tmp/tasktrace.ses stacks= # a run without --stacks
    [ "$case" = serial-places ] && source=$tmp/serial.ses stacks=
    case $case in mpi-*) source=$tmp/mpi.ses stacks= ;; esac
    [ "$case" = task-stacks ] && source=$tmp/gprofng.ses
    "$damage" "$source" "$tmp/$case.ses" "$case" >"$tmp/$case.log" 2>&1
    result $? "$case: the damaged copy is written" "$tmp/$case.log"
    # One report writes every output, the OTF2 archive too when OTF2 is built (each output is its
    # own view of the one model the loader builds, so a report per output would load it again).
    otf2=
    [ -x "$reader" ] && otf2=--trace="$tmp/$case.otf2"
    # shellcheck disable=SC2086 # $stacks and $otf2 are one word or none
    report -f json -o "$tmp/$case.json" --timeline="$tmp/$case.svg" --trace-json="$tmp/$case.trace.json" \
        $stacks $otf2 "$tmp/$case.ses" >"$tmp/$case.err" 2>&1
    status=$?
    # A rank's saved run names its outputs by its rank, as the rank's own run did (FILE.0.json).
    for name in json svg trace.json otf2; do
        tagged=$tmp/$case.${name%json}0.json
        [ "$name" = json ] || [ "$name" = trace.json ] || tagged=$tmp/$case.0.$name
        [ ! -e "$tagged" ] || mv "$tagged" "$tmp/$case.$name"
    done
    [ $status -eq 0 ]
    result $? "$case: every output is written (exit $status, within 60 s and 2 GiB)" "$tmp/$case.err"
    # One python3 for both JSON files: the trace's verdict goes to $case.trace.check first.
    python3 - "$tmp/$case.json" "$tmp/$case.trace.json" "$tmp/$case.trace.check" >"$tmp/$case.check" 2>&1 <<'PY'
import json, sys
def refuse(constant):
    raise ValueError("not JSON: " + constant)
# Readers that keep integers in 64 signed bits (jansson, ompcollect merge) refuse any other.
def in_range(text):
    if not -2**63 <= int(text) < 2**63:
        raise ValueError("an integer past 64 signed bits: " + text)
    return int(text)
with open(sys.argv[3], "w") as verdict:
    try:
        json.load(open(sys.argv[2], encoding="utf-8"), parse_constant=refuse, parse_int=in_range)
        print("valid JSON", file=verdict)
    except Exception as error:
        print("not valid JSON: %r" % (error,), file=verdict)
report = json.load(open(sys.argv[1], encoding="utf-8"), parse_constant=refuse, parse_int=in_range)
damage = report.get("record_damage")
assert damage and damage["findings"] >= 1, "no record_damage member: %r" % (damage,)
print(damage["text"])
PY
    result $? "$case: the JSON report is valid JSON and says the record was damaged" "$tmp/$case.check" "$tmp/$case.err"
    grep -q "record of pid [0-9]* is damaged" "$tmp/$case.err"
    result $? "$case: stderr says which process's record was damaged" "$tmp/$case.err"
    grep -qx 'valid JSON' "$tmp/$case.trace.check" 2>/dev/null && grep -q 'record damaged' "$tmp/$case.trace.json"
    result $? "$case: the trace is valid JSON and says the record was damaged" "$tmp/$case.trace.check"
    size=$(wc -c <"$tmp/$case.svg" 2>/dev/null || echo 0)
    [ "$size" -gt 0 ] && [ "$size" -lt 4000000 ] && grep -q 'record damaged' "$tmp/$case.svg"
    result $? "$case: the SVG says the record was damaged and stays small ($size bytes)" "$tmp/$case.err"
    if [ ! -x "$reader" ]; then
        skip "$case: no OTF2 (t/otf2-read is not built)"
        continue
    fi
    # An archive said to be written is one OTF2's reader opens (a location each, regions, teams and lock orders
    # balanced); a record with no usable thread gets none, and the message says why.
    # (A rank's is said under its rank's name, FILE.0.otf2, moved above.)
    if grep -Eq "OTF2 trace of pid [0-9]+: $tmp/$case(\.0)?\.otf2/traces\.otf2" "$tmp/$case.err"; then
        [ $status -eq 0 ] && env -u LD_PRELOAD "$reader" "$tmp/$case.otf2/traces.otf2" >"$tmp/$case.otf2.read" 2>&1
    else
        grep -q "OTF2 trace .* failed: the record holds no usable thread" "$tmp/$case.err" && [ ! -e "$tmp/$case.otf2" ]
    fi
    result $? "$case: the OTF2 archive said to be written is read back balanced, or none and why" \
        "$tmp/$case.err" "$tmp/$case.otf2.read"
done

# Thread 1's last entry, a run's end saying it ends neither a part nor its task, is where its log stops.
grep -q "thread 1's event log: 1 of [0-9]* events ignored" "$tmp/tasks.check"
result $? "tasks: a run's end that ends neither a part nor the task is ignored with what follows, and said" \
    "$tmp/tasks.check"

# Not damage: thread 0's task runs marked as ending parts, not their tasks (the COMPLETING flag is
# logged at a run's end): each is a part in the Chrome JSON and completes no task in OTF2.
parts=$("$damage" "$tmp/tasktrace.ses" "$tmp/parts.ses" task-parts 2>"$tmp/parts.log")
otf2=
[ -x "$reader" ] && otf2=--trace="$tmp/parts.otf2"
# shellcheck disable=SC2086 # $otf2 is one word or none
report -o /dev/null --trace-json="$tmp/parts.trace.json" $otf2 "$tmp/parts.ses" >>"$tmp/parts.log" 2>&1 &&
    python3 - "$tmp/parts.trace.json" "$parts" >>"$tmp/parts.log" 2>&1 <<'PY'
import json, sys
trace = json.load(open(sys.argv[1], encoding="utf-8"))
assert "record damaged" not in json.dumps(trace["otherData"]), trace["otherData"]
runs = [e for e in trace["traceEvents"] if e.get("cat") == "task"]
parts = [e for e in runs if e["args"].get("part")]
assert len(parts) == int(sys.argv[2]) and len(parts) < len(runs), (len(parts), sys.argv[2], len(runs))
print("ok:", len(parts), "of", len(runs), "runs are parts")
PY
result $? "task-parts: runs logged as ending a part are parts in the Chrome JSON, not completions" "$tmp/parts.log"
if [ -x "$reader" ] && command -v otf2-print >/dev/null 2>&1; then
    # One listing for both counts (an otf2-print costs about a CPU-second).
    otf2-print "$tmp/parts.otf2/traces.otf2" >"$tmp/parts.print" 2>/dev/null
    done_tasks=$(grep -c '^THREAD_TASK_COMPLETE ' "$tmp/parts.print")
    made=$(grep -c '^THREAD_TASK_CREATE ' "$tmp/parts.print")
    [ "$made" -gt 0 ] && [ $((done_tasks + parts)) -eq "$made" ]
    result $? "task-parts: OTF2 completes only the tasks no part-run ended ($done_tasks of $made, $parts parts)" \
        "$tmp/parts.log"
else
    skip "task-parts: no OTF2 (t/otf2-read or otf2-print missing)"
fi

# The forged task construct rows: held to what they can be, the impossible row kept out of nothing, the 12
# creations past the table said in every format.
python3 - "$tmp/task-sites.json" >"$tmp/task-sites.rows" 2>&1 <<'PY'
import json, sys
r = json.load(open(sys.argv[1], encoding="utf-8"))
# The next test's (one python3 for both).
print("limits:", [l["count"] for l in r["limits"] if l["what"] == "task_constructs"] == [12])
rows = {c["location"]["address"]: c for c in r["tasks"]["constructs"]} if r["tasks"] else {}
forged = rows.get("0x401000")
assert forged and forged["undeferred"] <= forged["created"] == 3 and forged["max_ns"] <= forged["exec_ns"], forged
# Counts past 2^63-1 are null in JSON (the forged row of UINT64_MAX tasks).
assert all(c["undeferred"] <= c["created"] and c["max_ns"] <= c["exec_ns"] for c in rows.values()
           if None not in (c["undeferred"], c["created"])), rows
assert "task construct rows" in r["record_damage"]["text"], r["record_damage"]["text"]
assert sum(t["executed"] for t in r["tasks"]["threads"]) <= r["tasks"]["events"]["begin_finish_task"], r["tasks"]["threads"]
print("ok")
PY
result $? "task-sites: forged task construct counts are held to what they can be, and said" "$tmp/task-sites.rows"
grep -qx "limits: True" "$tmp/task-sites.rows"
result $? "task-sites: JSON limits count the 12 task creations past the task construct table" "$tmp/task-sites.json"
report -o "$tmp/task-sites.txt" "$tmp/task-sites.ses" >/dev/null 2>&1
report -f csv -o "$tmp/task-sites.csv" "$tmp/task-sites.ses" >/dev/null 2>&1
grep -q 'limit reached: 12 task creations and runs belong to task constructs that found no row' "$tmp/task-sites.txt" &&
    grep -q '^limits,task_constructs,12,4096,' "$tmp/task-sites.csv"
result $? "task-sites: the text and CSV reports say the same limit" "$tmp/task-sites.txt"

# A forged serial code table is ignored whole, and said; samples the table could not place are a limit said in
# every format, the rows kept.
python3 - "$tmp/serial-places.json" >"$tmp/serial-places.rows" 2>&1 <<'PY'
import json, sys
r = json.load(open(sys.argv[1], encoding="utf-8"))
assert "serial code places" in r["record_damage"]["text"], r["record_damage"]["text"]
assert r["serial_code"] is None or r["serial_code"]["functions"] == [], r["serial_code"]
print("ok")
PY
result $? "serial-places: a serial code table counting more than the SERIAL samples is ignored, and said" \
    "$tmp/serial-places.rows"
# limit_case CASE SAVED-RUN WHAT COUNT BOUND SENTENCE [PYTHON]: CASE's change to SAVED-RUN is the limit WHAT of
# COUNT (bound BOUND), no damage: in JSON (and PYTHON over its r), as SENTENCE on stderr and in the text report, and
# as the CSV row; the outputs stay in $tmp/CASE.* for further checks.
limit_case() {
    "$damage" "$2" "$tmp/$1.ses" "$1" >"$tmp/$1.log" 2>&1 &&
        report -f json -o "$tmp/$1.json" "$tmp/$1.ses" >/dev/null 2>"$tmp/$1.err" &&
        report -o "$tmp/$1.txt" "$tmp/$1.ses" >/dev/null 2>&1 &&
        report -f csv -o "$tmp/$1.csv" "$tmp/$1.ses" >/dev/null 2>&1 &&
        python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert [l["count"] for l in r["limits"] if l["what"] == sys.argv[2]] == [int(sys.argv[3])], r["limits"]
assert "record_damage" not in r or not r["record_damage"], r.get("record_damage")
exec(sys.argv[4])' "$tmp/$1.json" "$3" "$4" "${7:-}" >"$tmp/$1.check" 2>&1 &&
        grep -qF "$6" "$tmp/$1.txt" && grep -qF "$6" "$tmp/$1.err" && grep -q "^limits,$3,$4,$5," "$tmp/$1.csv"
}
limit_case serial-limit "$tmp/serial.ses" serial_places 7 16384 "7 samples of serial code found no row" \
    'assert r["serial_code"]["not_located"] == 7 and r["serial_code"]["functions"], r["serial_code"]' &&
    grep -q "^  7 samples not located" "$tmp/serial-limit.txt"
result $? "serial-limit: 7 samples the table could not place are a limit on stderr and in JSON, text and CSV, the rows kept" \
    "$tmp/serial-limit.log" "$tmp/serial-limit.check" "$tmp/serial-limit.err"
limit_case task-stacks-limit "$tmp/gprofng.ses" task_stacks 5 1024 "5 samples in explicit tasks found no cell" &&
    report -o /dev/null --gprofng="$tmp/task-stacks-limit.er" "$tmp/task-stacks-limit.ses" >/dev/null 2>&1 &&
    grep -q '<event kind="comment" id="0" text="ompcollect: limit reached: 5 samples in explicit tasks found no cell' \
        "$tmp/task-stacks-limit.er/log.xml"
result $? "task-stacks-limit: 5 samples the task-stack table had no cell for are a limit on stderr and in JSON, text, CSV and the gprofng experiment's notes" \
    "$tmp/task-stacks-limit.log" "$tmp/task-stacks-limit.check" "$tmp/task-stacks-limit.err"
# The experiment's notes are gprofng's own: its header shows the limit and the damage of a damaged run.
if command -v gprofng >/dev/null 2>&1; then
    report -o /dev/null --gprofng="$tmp/task-sites.er" "$tmp/task-sites.ses" >/dev/null 2>&1 &&
        gprofng display text -header "$tmp/task-stacks-limit.er" >"$tmp/gprofng-notes.txt" 2>&1 &&
        gprofng display text -header "$tmp/task-sites.er" >>"$tmp/gprofng-notes.txt" 2>&1 &&
        grep -q '^\*\*\* Note: ompcollect: limit reached: 5 samples in explicit tasks found no cell' "$tmp/gprofng-notes.txt" &&
        grep -q '^\*\*\* Note: ompcollect: record damaged ([0-9]* findings\?): .*task construct rows' "$tmp/gprofng-notes.txt"
    result $? "gprofng's header shows the run's limit and its record damage as notes" "$tmp/gprofng-notes.txt"
else
    skip "gprofng (binutils) is not installed" 1
fi

# Forged MPI call sites: the table is ignored whole, MPI_Init and MPI_Finalize held to the threads' MPI time; a
# count of calls past the table above the threads' calls is ignored, the sound rows kept; in JSON, text and CSV.
report -o "$tmp/mpi-sites.%r.txt" "$tmp/mpi-sites.ses" >/dev/null 2>&1 &&
    report -f csv -o "$tmp/mpi-sites.%r.csv" "$tmp/mpi-sites.ses" >/dev/null 2>&1 &&
    python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
m = r["totals"]["mpi"]
assert "MPI call sites with an unknown call" in r["record_damage"]["text"], r["record_damage"]["text"]
assert "MPI_Init and MPI_Finalize took longer" in r["record_damage"]["text"], r["record_damage"]["text"]
assert m["sites"] == [] and m["setup_ns"] <= m["ns"], m' "$tmp/mpi-sites.json" >"$tmp/mpi-sites.check" 2>&1 &&
    ! grep -q "^    MPI_" "$tmp/mpi-sites.0.txt" && grep -q "^record_damage,.*MPI call sites" "$tmp/mpi-sites.0.csv" &&
    ! grep -q "^mpi_site," "$tmp/mpi-sites.0.csv"
result $? "mpi-sites: forged MPI call sites are ignored whole and MPI's start and end held, in JSON, text and CSV" \
    "$tmp/mpi-sites.check" "$tmp/mpi-sites.0.txt"
report -o "$tmp/mpi-dropped.%r.txt" "$tmp/mpi-dropped.ses" >/dev/null 2>&1 &&
    report -f csv -o "$tmp/mpi-dropped.%r.csv" "$tmp/mpi-dropped.ses" >/dev/null 2>&1 &&
    python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
m = r["totals"]["mpi"]
assert "MPI calls past the call site table" in r["record_damage"]["text"], r["record_damage"]["text"]
assert len(m["sites"]) == 3 and m["sites_dropped"] == 0, m' "$tmp/mpi-dropped.json" >"$tmp/mpi-dropped.check" 2>&1 &&
    [ "$(grep -c "^    MPI_" "$tmp/mpi-dropped.0.txt")" -eq 3 ] && ! grep -q "calls at sites past" "$tmp/mpi-dropped.0.txt" &&
    [ "$(grep -c "^mpi_site," "$tmp/mpi-dropped.0.csv")" -eq 3 ]
result $? "mpi-dropped: more calls past the site table than the threads made is ignored and said, the rows kept" \
    "$tmp/mpi-dropped.check" "$tmp/mpi-dropped.0.txt"
# Every thread of a full team points at thread 0's tables and one 16 MiB event log: the tables that share
# bytes are not read, so the report costs what the record holds once (peak memory under twice the saved
# run), not 4,096 times (gigabytes before).
"$damage" "$tmp/solver.ses" "$tmp/alias.ses" alias >"$tmp/alias.log" 2>&1
result $? "alias: the damaged copy is written" "$tmp/alias.log"
(ulimit -v 2097152 2>/dev/null; exec python3 - "$tmp/alias.ses" "$oc" "$tmp" >"$tmp/alias.check" 2>&1) <<'PY'
import os, resource, subprocess, sys
saved, oc, tmp = sys.argv[1:]
args = [oc, "report", "-f", "json", "-o", tmp + "/alias.json", "--timeline=" + tmp + "/alias.svg",
        "--trace-json=" + tmp + "/alias.trace.json", saved]
with open(tmp + "/alias.err", "w") as err:
    status = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=err, timeout=60).returncode
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
size = os.path.getsize(saved)
print("exit", status, "peak", peak, "saved run", size)
assert status == 0, open(tmp + "/alias.err").read()
assert "share bytes of the record" in open(tmp + "/alias.err").read(), open(tmp + "/alias.err").read()
assert peak < 2 * size, "peak %d of a %d-byte saved run" % (peak, size)
PY
result $? "alias: tables that share bytes are refused as damage, within 60 s and twice the record's size" \
    "$tmp/alias.check"

# Every module's path names a FIFO no one writes: opened as an ELF file it blocked the symbolizer for good.
mkfifo "$tmp/fifo" &&
    OMPC_DAMAGE_PATH=$tmp/fifo "$damage" "$tmp/solver.ses" "$tmp/fifo.ses" module-path >"$tmp/fifo.log" 2>&1 &&
    report -o "$tmp/fifo.txt" --stacks "$tmp/fifo.ses" >>"$tmp/fifo.log" 2>&1
status=$?
[ $status -eq 0 ] && [ -s "$tmp/fifo.txt" ]
result $? "module-path: a module path naming a FIFO is not opened; the report is written (exit $status)" \
    "$tmp/fifo.log"

# Names that would drive a terminal (escape sequences, a carriage return, C1 controls, a bidi override)
# reach the text report as their codes, never as the bytes.
"$damage" "$tmp/solver.ses" "$tmp/terminal.ses" terminal >"$tmp/terminal.log" 2>&1 &&
    report -o "$tmp/terminal.txt" "$tmp/terminal.ses" >>"$tmp/terminal.log" 2>&1 &&
    report "$tmp/terminal.ses" 2>"$tmp/terminal.stderr" >/dev/null &&
    python3 - "$tmp"/terminal*.txt "$tmp/terminal.stderr" >>"$tmp/terminal.log" 2>&1 <<'PY'
import sys
# The process is not the launched one: its report is terminal.PID.txt.
assert len(sys.argv) == 3, sys.argv
for name in sys.argv[1:]:
    text = open(name, "rb").read()
    bad = [b for b in text if (b < 0x20 and b not in (0x0a, 0x09)) or b == 0x7f]
    assert not bad, "%s: control bytes %r" % (name, sorted(set(bad)))
    assert b"\xc2\x9b" not in text and b"\xe2\x80\xae" not in text, name + ": a C1 control or bidi override"
    # A byte of no UTF-8 character stays (a Latin-1 name), but for 0x80..0x9f, C1 controls to 8-bit terminals.
    assert b"evil\\x1b]0;owned\\x07\\x1b[2J\\x0d\\u009b31m\\u202eexe\\x9b0m\xff" in text, name + ": no escaped name"
print("ok")
PY
result $? "terminal: names with escape sequences and controls are escaped in the text report (file and stderr)" \
    "$tmp/terminal.log"
# The same names reach merge's and diff's text through a JSON report: escaped there too.
report -f json -o "$tmp/terminal-json.json" "$tmp/terminal.ses" >"$tmp/terminal-compare.log" 2>&1 &&
    "$oc" merge -o "$tmp/terminal-merge.txt" "$tmp"/terminal-json*.json >>"$tmp/terminal-compare.log" 2>&1 &&
    "$oc" diff -o "$tmp/terminal-diff.txt" "$tmp"/terminal-json*.json "$tmp"/terminal-json*.json \
        >>"$tmp/terminal-compare.log" 2>&1 &&
    python3 - "$tmp/terminal-merge.txt" "$tmp/terminal-diff.txt" >>"$tmp/terminal-compare.log" 2>&1 <<'PY'
import sys
for name in sys.argv[1:]:
    text = open(name, "rb").read()
    bad = [b for b in text if (b < 0x20 and b not in (0x0a, 0x09)) or b == 0x7f]
    assert not bad, "%s: control bytes %r" % (name, sorted(set(bad)))
    assert b"\xc2\x9b" not in text and b"\xe2\x80\xae" not in text, name + ": a C1 control or bidi override"
assert b"evil\\x1b]0;owned" in open(sys.argv[1], "rb").read(), "merge names no escaped program"
print("ok")
PY
result $? "terminal: the names are escaped in merge's and diff's text too" "$tmp/terminal-compare.log"

# Region ids past 2^63-1 (no damage: ids are the runtime's) reach the Chrome trace as null, not as numbers
# readers that keep 64 signed bits refuse (session-fuzz's finding).
"$damage" "$tmp/tasktrace.ses" "$tmp/region-ids.ses" region-ids >"$tmp/region-ids.log" 2>&1 &&
    report -o /dev/null --trace-json="$tmp/region-ids.trace.json" "$tmp/region-ids.ses" >>"$tmp/region-ids.log" 2>&1 &&
    python3 - "$tmp/region-ids.trace.json" >>"$tmp/region-ids.log" 2>&1 <<'PY'
import json, sys
def in_range(text):
    assert -2**63 <= int(text) < 2**63, "an integer past 64 signed bits: " + text
    return int(text)
trace = json.load(open(sys.argv[1], encoding="utf-8"), parse_int=in_range)
assert any(e.get("cat") == "region" and e["args"].get("id", 0) is None for e in trace["traceEvents"]), "no null id"
print("ok")
PY
result $? "region-ids: ids past 2^63-1 are null in the Chrome trace, which holds no integer past 64 bits" \
    "$tmp/region-ids.log"

head -c 20000 "$tmp/solver.ses" >"$tmp/cut.ses"
report "$tmp/cut.ses" >"$tmp/cut.err" 2>&1
status=$?
[ $status -eq 125 ] && grep -q 'truncated' "$tmp/cut.err"
result $? "a truncated saved run is refused with exit 125, saying so (exit $status)" "$tmp/cut.err"
report "$top_srcdir/t/golden/MANIFEST" >"$tmp/foreign.err" 2>&1
status=$?
[ $status -eq 125 ] && grep -q 'not a run saved' "$tmp/foreign.err"
result $? "a file that is no saved run is refused with exit 125 (exit $status)" "$tmp/foreign.err"
printf 'OMPCSES1\001\000\000\000\000\000\000\000\377\377\377\377\377\377\377\377' >"$tmp/huge.ses"
report "$tmp/huge.ses" >"$tmp/huge.err" 2>&1
status=$?
[ $status -eq 125 ] && grep -q 'facts' "$tmp/huge.err"
result $? "a saved run claiming an enormous header is refused before reading it (exit $status)" "$tmp/huge.err"
