#!/bin/sh
# ompcollect-mpi.sh - ompcollect under mpirun on the hybrid MPI+OpenMP example: one report per rank, named by rank, never one overwriting another, a pipe or device taking them all as it is; merge sums them; MPI's own threads stay out of the OpenMP totals.
# SPDX-License-Identifier: BSD-3-Clause
. "${top_srcdir:?}/t/ompcollect-lib.sh"
hybrid=$top_builddir/examples/hybrid$EXEEXT

if [ ! -x "$hybrid" ]; then
    echo "1..0 # SKIP examples/hybrid was not built: configure found no usable mpicc (Debian: apt-get install openmpi-bin libopenmpi-dev)"
    exit 0
fi
mpi_launcher examples/hybrid
seconds=${OMPCOLLECT_MPI_SECONDS:-0.3}

if ! $limit "$mpirun" -np 2 $flags "$hybrid" 0.05 >"$tmp/plain.out" 2>"$tmp/plain.err" \
    || [ "$(grep -c '^hybrid: rank' "$tmp/plain.out")" -ne 2 ]; then
    echo "1..0 # SKIP $mpirun -np 2 cannot run examples/hybrid here: $(head -n 3 "$tmp/plain.err" | tr '\n' ' ')"
    exit 0
fi

echo "1..$((11 + ${TIMING_CHECKS:-0}))"
n=0
# job DIRECTORY OMPCOLLECT-OPTION...: the hybrid example on 2 ranks, each under ompcollect, in DIRECTORY.
job() {
    directory=$tmp/$1
    shift
    mkdir -p "$directory"
    (cd "$directory" && $limit "$mpirun" -np 2 $flags "$oc" --runtime "$LIBOMP" "$@" "$hybrid" "$seconds" \
        >"$directory.out" 2>"$directory.err")
    status=$?
}

job patterned -o 'r.%r.txt'
[ $status -eq 0 ] && [ "$(ls "$tmp/patterned" | wc -l)" -eq 2 ] \
    && grep -q '^ompcollect report: .*(pid [0-9]*, rank 0, host ' "$tmp/patterned/r.0.txt" \
    && grep -q '^ompcollect report: .*(pid [0-9]*, rank 1, host ' "$tmp/patterned/r.1.txt"
result $? "mpirun -np 2 ompcollect -o r.%r.txt: two reports, r.0.txt of rank 0 and r.1.txt of rank 1" \
    "$tmp/patterned.err" "$tmp/patterned.out"
grep -q 'total: [1-9][0-9]* forks' "$tmp/patterned/r.0.txt" && grep -q '^Totals: ' "$tmp/patterned/r.1.txt"
result $? "both ranks' reports are whole and hold their regions" "$tmp/patterned/r.0.txt" "$tmp/patterned/r.1.txt"

job plain -o r.txt
[ $status -eq 0 ] && [ ! -e "$tmp/plain/r.txt" ] && [ -f "$tmp/plain/r.0.txt" ] && [ -f "$tmp/plain/r.1.txt" ] \
    && grep -q 'rank 0,' "$tmp/plain/r.0.txt" && grep -q 'rank 1,' "$tmp/plain/r.1.txt"
result $? "mpirun ... ompcollect -o r.txt: no rank overwrites another; each writes r.RANK.txt" \
    "$tmp/plain.err" "$tmp/plain.out"
[ "$(grep -c "^ompcollect: .*RANK is set and --output names no %r: each rank writes its own file (rank 0: r.0.txt)" "$tmp/plain.err")" -eq 1 ]
result $? "... and says so once" "$tmp/plain.err"

# A pipe (as /dev/null or /dev/stdout) takes every rank's report as it is: a name made from it (/dev/null.0) would be
# a file beside it, which the suite itself once left in /dev.  The shell holds the pipe open for writing too (after
# the reader started, which must not hold it), so its reader sees the end only when both ranks are done.
mkfifo "$tmp/pipe"
cat <"$tmp/pipe" >"$tmp/pipe.got" &
reader=$!
exec 4>"$tmp/pipe"
job piped -o "$tmp/pipe" 4>&-
exec 4>&-
wait $reader
# The ranks write at once: their reports may interleave in pipe-sized pieces, each report's header whole in its first.
[ $status -eq 0 ] && [ -z "$(ls "$tmp" | grep '^pipe\.[0-9]')" ] && ! grep -q 'names no %r' "$tmp/piped.err" \
    && [ "$(grep -o 'ompcollect report: [^(]*(pid [0-9]*, rank [01],' "$tmp/pipe.got" | sed 's/.*rank //' | sort | tr -d '\n')" = "0,1," ]
result $? "mpirun ... ompcollect -o PIPE: both ranks' reports go down the pipe, and no file is made beside it" \
    "$tmp/piped.err" "$tmp/pipe.got"

job json -f json -o 'r.%r.json' --timeline 't.svg'
[ $status -eq 0 ] && [ -f "$tmp/json/t.0.svg" ] && [ -f "$tmp/json/t.1.svg" ] && [ ! -e "$tmp/json/t.svg" ]
result $? "--timeline t.svg under mpirun: one picture per rank, t.0.svg and t.1.svg" "$tmp/json.err"
holds "$tmp/json/r.0.json" 'r["rank"] == 0 and r["host"] != "" and totals["threads"] == 2 and totals["samples"] == sum(t["samples"] for t in threads if t["openmp"])' \
    && holds "$tmp/json/r.1.json" 'r["rank"] == 1 and totals["threads"] == 2 and totals["samples"] == sum(t["samples"] for t in threads if t["openmp"])'
result $? "JSON: rank and host in each report; MPI's own threads are kept out of the 2 OpenMP threads' totals" \
    "$tmp/json/r.0.json"
holds "$tmp/json/r.1.json" 'initial["states"]["WORK"] > 0 and all(not t["openmp"] for t in threads if not t["initial"] and t["states"]["WORK"] == 0 and sum(t["events"].values()) == 0)'
result $? "JSON: threads never in an OpenMP state and without events are marked not OpenMP" "$tmp/json/r.1.json"

"$oc" merge -f json "$tmp/json/r.0.json" "$tmp/json/r.1.json" >"$tmp/merged.json" 2>"$tmp/merge.err"
status=$?
[ $status -eq 0 ] && python3 - "$tmp/merged.json" "$tmp/json/r.0.json" "$tmp/json/r.1.json" <<'EOF'
import json, sys
merged = json.load(open(sys.argv[1]))
reports = [json.load(open(p)) for p in sys.argv[2:]]
totals = merged["totals"]
ok = (totals["samples"] == sum(r["totals"]["samples"] for r in reports)
      and all(totals["states"][s] == sum(r["totals"]["states"][s] for r in reports) for s in reports[0]["states"])
      and [x["rank"] for x in merged["reports"]] == [0, 1])
sys.exit(0 if ok else 1)
EOF
result $? "merge of the two ranks' JSON reports: the totals of both" "$tmp/merge.err" "$tmp/merged.json"
python3 - "$tmp/merged.json" "$tmp/json/r.0.json" "$tmp/json/r.1.json" <<'EOF'
import json, sys
merged = json.load(open(sys.argv[1]))
reports = [json.load(open(p)) for p in sys.argv[2:]]
places = lambda r: {(c["location"]["module"], c["location"]["module_offset"]) for c in r["constructs"]}
rows = [(c["location"]["module"], c["location"]["module_offset"]) for c in merged["constructs"]]
print("# merged constructs: %s" % [(c["location"]["name"], c["processes"]) for c in merged["constructs"]])
ok = (sorted(rows) == sorted(places(reports[0]) | places(reports[1]))
      and all(c["processes"] == 2 and ".c:" in c["location"]["name"] for c in merged["constructs"]
              if (c["location"]["module"], c["location"]["module_offset"]) in places(reports[0]) & places(reports[1]))
      and sum(c["time_ns"] for c in merged["constructs"]) == sum(c["total_ns"] for r in reports for c in r["constructs"]))
sys.exit(0 if ok else 1)
EOF
result $? "merge of the two ranks: one row per construct by code location (module, offset), named by file:line, times summed" \
    "$tmp/merged.json"
"$oc" merge "$tmp/json/r.0.json" "$tmp/json/r.1.json" >"$tmp/merged.txt" 2>>"$tmp/merge.err"
# The imbalance merge reports is the one in the ranks' reports: max / mean - 1
# of each rank's WORK time (samples x interval).  Whether the example's
# built-in 2:1 split shows as such is a question of timing: on a busy machine
# the scheduler's delays, tens of ms, land in both ranks' WORK and can hide
# the 10 ms per step that rank 1 works longer.  So that claim is checked only
# by `make check-timing` (TIMING_CHECKS=1), on a machine left alone.
grep -q '^  rank 0 ' "$tmp/merged.txt" && grep -q '^  rank 1 ' "$tmp/merged.txt" && grep -q '^Slowest: rank [01] ' "$tmp/merged.txt" \
    && python3 - "$tmp/merged.json" "$tmp/json/r.0.json" "$tmp/json/r.1.json" <<'EOF'
import json, sys
merged = json.load(open(sys.argv[1]))
work = [r["totals"]["states"]["WORK"] * r["interval_ns"] for r in (json.load(open(p)) for p in sys.argv[2:])]
expected = max(work) / (sum(work) / len(work)) - 1 if sum(work) > 0 else 0
print("# WORK time per rank (ns): %s; imbalance %.6f, merge says %.6f" % (work, expected, merged["imbalance"]["WORK"]))
sys.exit(0 if abs(merged["imbalance"]["WORK"] - expected) < 1e-5 else 1)
EOF
result $? "merge names each rank, the slowest, and the WORK imbalance of the ranks' reports" "$tmp/merged.txt"
if [ "${TIMING_CHECKS:-0}" = 1 ]; then
    python3 -c 'import json, sys; m = json.load(open(sys.argv[1])); sys.exit(0 if m["imbalance"]["WORK"] > 0.1 else 1)' "$tmp/merged.json"
    result $? "timing: merge finds the WORK imbalance the example builds in (> 10%)" "$tmp/merged.json"
fi
