#!/bin/sh
# ompcollect-tables.sh - examples/solver.c under ompcollect: --csv-dir writes one CSV file per table that a CSV reader takes straight, --list-regions lists every instance with its construct, and the SVG timeline's tooltips name the constructs.
# SPDX-License-Identifier: BSD-3-Clause
. "${top_srcdir:?}/t/ompcollect-lib.sh"
# Its waits are made certain (see the file): the waits to name are there however busy the machine is.
source=$top_srcdir/examples/solver.c
seconds=${OMPCOLLECT_TABLES_SECONDS:-0.4}

echo "1..9"
n=0
solve_line=$(line_of solve-parallel)
update_line=$(line_of update-parallel)
critical_line=$(line_of update-critical)

cc=${CC:-cc}
# clang's and gcc's build is made once for all scripts (t/test-programs.sh).
case $cc in
clang | gcc) build() { built=$(test_program solver-$cc) && cp "$built" "$tmp/solver"; } ;;
*) build() { $cc -fopenmp -g -O2 -I"$top_srcdir/examples" -o "$tmp/solver" "$source"; } ;;
esac
if ! build 2>"$tmp/build.err"; then
    skip "$cc cannot build OpenMP programs" 9
    exit 0
fi

# One run gives the JSON report and the CSV directory, so their figures can be compared.
# The critical's short waits are in the tables only when samples land in them: 1 ms, whatever the default.
"$oc" --runtime "$LIBOMP" --interval=1ms -f json -o "$tmp/r.json" --csv-dir="$tmp/csv/" "$tmp/solver" "$seconds" >"$tmp/run.out" 2>"$tmp/run.err"
status=$?
ok "$([ $status -eq 0 ] && [ -s "$tmp/r.json" ] && [ -d "$tmp/csv" ] && echo True)" "--csv-dir: the run ends with status 0 and the directory is made" "$tmp/run.err"
cat >"$tmp/check.py" <<'PY'
import csv, glob, json, os, sys
directory, report = sys.argv[1], json.load(open(sys.argv[2]))
tables = {os.path.basename(f)[:-4]: list(csv.DictReader(open(f, newline=""))) for f in glob.glob(directory + "/*.csv")}
headers = {os.path.basename(f)[:-4]: open(f).readline().strip().split(",") for f in glob.glob(directory + "/*.csv")}
what = sys.argv[3]
if what == "names":
    print(set(tables) >= {"run", "thread", "thread_kind", "region", "wait", "construct", "wait_location", "event"})
elif what == "headers":
    print(all(h and h[0] != "section" and "" not in h for h in headers.values()) and headers["thread"][:2] == ["index", "tid"])
elif what == "rows":
    print(len(tables["thread"]) == len(report["threads"]) and len(tables["region"]) == len(report["regions"])
          and len(tables["construct"]) == len(report["constructs"]) and len(tables["wait_location"]) == len(report["wait_locations"])
          and len(tables["run"]) == 1 and int(tables["run"][0]["pid"]) == report["pid"])
elif what == "values":
    print(sorted(int(t["samples"]) for t in tables["thread"]) == sorted(t["samples"] for t in report["threads"])
          and any(w["kind"] == "critical(accum)" and w["state"] == "CTWT" for w in tables["wait_location"]))
PY
for what in names headers rows values; do
    case $what in
    names) text="one file per table: run, thread, thread_kind, region, wait, construct, wait_location, event" ;;
    headers) text="every file starts with its header row, without the stream's section column" ;;
    rows) text="a CSV reader gets as many rows per table as the JSON report has" ;;
    values) text="the values agree with the JSON report (samples per thread, the named critical)" ;;
    esac
    ok "$(python3 "$tmp/check.py" "$tmp/csv" "$tmp/r.json" $what 2>&1)" "--csv-dir: $text"
done
: >"$tmp/file"
"$oc" --runtime "$LIBOMP" --csv-dir="$tmp/file" "$tmp/solver" 0.05 >/dev/null 2>"$tmp/refused.err"
status=$?
ok "$([ $status -eq 125 ] && grep -q "not a directory" "$tmp/refused.err" && echo True)" \
    "--csv-dir naming a file is refused before the program runs (status 125)" "$tmp/refused.err"

# Text: instances only on request, then each with its construct.
"$oc" --runtime "$LIBOMP" -o "$tmp/default.txt" "$tmp/solver" "$seconds" >/dev/null 2>&1
ok "$(grep -q -- '--list-regions lists every instance' "$tmp/default.txt" && ! grep -Eq '^ +[0-9]+ +0 +1 +1 ' "$tmp/default.txt" &&
    grep -q "^  total: [1-9][0-9]* forks" "$tmp/default.txt" && echo True)" \
    "text: without --list-regions, no per-instance rows, and a pointer to the flag" "$tmp/default.txt"
"$oc" --runtime "$LIBOMP" --list-regions -o "$tmp/list.txt" "$tmp/solver" "$seconds" >/dev/null 2>&1
forks=$(sed -n 's/^  total: \([0-9]*\) forks.*/\1/p' "$tmp/list.txt")
rows=$(grep -Ec "^ +[0-9]+ +0 +1 +1 .* at (solve|update)[.a-z0-9]* solver.c:($solve_line|$update_line)$" "$tmp/list.txt")
ok "$([ -n "$forks" ] && [ "$forks" -gt 0 ] && [ "$rows" -eq "$forks" ] && echo True)" \
    "--list-regions: one row per instance ($rows of $forks forks), each naming its construct" "$tmp/list.txt"

# The SVG's tooltips name the construct of region spans and of waits (sampled at 1 ms, as above).
"$oc" --runtime "$LIBOMP" --interval=1ms --timeline="$tmp/t.svg" "$tmp/solver" "$seconds" >/dev/null 2>&1
ok "$(grep -Eq "<title>WORK in the construct at (solve|update)[.a-z0-9]* solver.c:($solve_line|$update_line), " "$tmp/t.svg" &&
    grep -Eq "<title>CTWT waiting at [^ ]+ solver.c:$critical_line, " "$tmp/t.svg" && echo True)" \
    "--timeline: WORK spans name their parallel construct, CTWT spans the critical's line" "$tmp/t.svg"
