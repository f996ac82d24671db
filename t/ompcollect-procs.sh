#!/bin/sh
# ompcollect-procs.sh - every process that runs OpenMP gets its own report (forked children too, none lost or overwritten), merge sums them, programs ompcollect cannot observe are refused before they run, and GCC-built libraries run on LLVM's libomp without --runtime.
# SPDX-License-Identifier: BSD-3-Clause
. "${top_srcdir:?}/t/ompcollect-lib.sh"
jobs=$top_builddir/t/ompcollect-jobs

echo "1..20"
n=0

# A program that forks two OpenMP children: three reports, named apart.
mkdir "$tmp/fork"
"$oc" --runtime "$LIBOMP" -o "$tmp/fork/r.txt" "$jobs" fork2 >"$tmp/fork.out" 2>"$tmp/fork.err"
status=$?
parent=$(sed -n 's/^fork2: parent \([0-9]*\), children \([0-9]*\) \([0-9]*\)$/\1/p' "$tmp/fork.out")
first=$(sed -n 's/^fork2: parent \([0-9]*\), children \([0-9]*\) \([0-9]*\)$/\2/p' "$tmp/fork.out")
second=$(sed -n 's/^fork2: parent \([0-9]*\), children \([0-9]*\) \([0-9]*\)$/\3/p' "$tmp/fork.out")
[ $status -eq 0 ] && [ -n "$second" ] && [ "$(ls "$tmp/fork" | wc -l)" -eq 3 ] \
    && [ -f "$tmp/fork/r.txt" ] && [ -f "$tmp/fork/r.$first.txt" ] && [ -f "$tmp/fork/r.$second.txt" ]
result $? "fork of two OpenMP children with -o r.txt: three reports, r.txt for the program, r.PID.txt for each child" \
    "$tmp/fork.out" "$tmp/fork.err"
grep -q "^ompcollect report: .*(pid $parent," "$tmp/fork/r.txt" \
    && grep -q "^  forked from pid $parent$" "$tmp/fork/r.$first.txt" \
    && grep -q "^  forked from pid $parent$" "$tmp/fork/r.$second.txt" \
    && grep -q "total: 2 forks, 2 joins" "$tmp/fork/r.txt" \
    && grep -q "total: 1 forks, 1 joins" "$tmp/fork/r.$first.txt" \
    && grep -q "total: 1 forks, 1 joins" "$tmp/fork/r.$second.txt"
result $? "each report holds its own process's regions: 2 in the parent, 1 in each child, which names its parent" \
    "$tmp/fork/r.txt" "$tmp/fork/r.$first.txt"
! grep -q '^  incomplete' "$tmp/fork/r.$first.txt" \
    && grep -q '^  incomplete: ended without running its exit handlers' "$tmp/fork/r.$second.txt"
result $? "the child that left through exit is complete, the one that left through _exit is marked incomplete" \
    "$tmp/fork/r.$second.txt"
grep -q "^ompcollect: 3 processes ran OpenMP; reports:" "$tmp/fork.err"
result $? "ompcollect lists the three reports" "$tmp/fork.err"

mkdir "$tmp/forkp"
"$oc" --runtime "$LIBOMP" -o "$tmp/forkp/r.%p.txt" "$jobs" fork2 >"$tmp/forkp.out" 2>"$tmp/forkp.err"
parent=$(sed -n 's/^fork2: parent \([0-9]*\), .*/\1/p' "$tmp/forkp.out")
[ "$(ls "$tmp/forkp" | wc -l)" -eq 3 ] && [ -f "$tmp/forkp/r.$parent.txt" ]
result $? "-o r.%p.txt: each of the three processes names its file by its pid" "$tmp/forkp.err"

"$oc" --runtime "$LIBOMP" "$jobs" fork2 >/dev/null 2>"$tmp/forks.err"
[ "$(grep -c '^ompcollect report: ' "$tmp/forks.err")" -eq 3 ]
result $? "without -o the three reports follow one another on stderr" "$tmp/forks.err"

# Two runs at once with the same -o and nothing to tell them apart: neither report is lost.
mkdir "$tmp/same"
"$oc" --runtime "$LIBOMP" -o "$tmp/same/r.txt" "$top_builddir/t/ompcollect-prog" >/dev/null 2>"$tmp/same1.err" &
"$oc" --runtime "$LIBOMP" -o "$tmp/same/r.txt" "$top_builddir/t/ompcollect-prog" >/dev/null 2>"$tmp/same2.err" &
wait
[ "$(ls "$tmp/same" | wc -l)" -eq 2 ] && [ -f "$tmp/same/r.txt" ] \
    && [ "$(cat "$tmp/same1.err" "$tmp/same2.err" | grep -c "r.txt was written by another process during this run .*: it stays, and this report went to .*/r\.[0-9]*\.txt$")" -eq 1 ] \
    && [ "$(cat "$tmp"/same/* | grep -c '^ompcollect report: ')" -eq 2 ]
result $? "two runs writing the same -o file at once: one keeps the name, the other's report goes beside it, and it says so" \
    "$tmp/same1.err" "$tmp/same2.err"

# merge: the totals of several reports are the sums of theirs.
mkdir "$tmp/json"
"$oc" --runtime "$LIBOMP" -f json -o "$tmp/json/r.json" "$jobs" fork2 >/dev/null 2>"$tmp/json.err"
"$oc" merge -f json "$tmp"/json/r*.json >"$tmp/merged.json" 2>"$tmp/merge.err"
status=$?
[ $status -eq 0 ] && python3 - "$tmp/merged.json" "$tmp"/json/r*.json <<'EOF'
import json, sys
merged = json.load(open(sys.argv[1]))
reports = [json.load(open(p)) for p in sys.argv[2:]]
totals = merged["totals"]
ok = (len(reports) == 3 and totals["reports"] == 3
      and totals["samples"] == sum(r["totals"]["samples"] for r in reports)
      and totals["threads"] == sum(r["totals"]["threads"] for r in reports)
      and all(totals["states"][s] == sum(r["totals"]["states"][s] for r in reports) for s in reports[0]["states"])
      and sorted(x["pid"] for x in merged["reports"]) == sorted(r["pid"] for r in reports))
sys.exit(0 if ok else 1)
EOF
result $? "merge of the three JSON reports: samples, threads and every state are the sums of theirs" \
    "$tmp/merge.err" "$tmp/merged.json"
"$oc" merge "$tmp"/json/r*.json >"$tmp/merged.txt" 2>"$tmp/merge.err"
grep -q '^ompcollect merge: 3 reports of ' "$tmp/merged.txt" && grep -q '^Slowest: ' "$tmp/merged.txt" \
    && grep -q '^Imbalance across processes' "$tmp/merged.txt" && grep -q '^Top parallel constructs over all processes' "$tmp/merged.txt" \
    && grep -q '^Totals: ' "$tmp/merged.txt"
result $? "merge prints per-process and total breakdowns, the slowest, the imbalance and the top constructs" "$tmp/merged.txt"
printf '{"tool": "something else"}' >"$tmp/other.json"
"$oc" merge "$tmp/other.json" >/dev/null 2>"$tmp/merge-bad.err"
status=$?
printf '{"tool": "ompcollect", "totals": {' >"$tmp/broken.json"
"$oc" merge "$tmp/broken.json" >/dev/null 2>"$tmp/merge-broken.err"
broken=$?
[ $status -eq 1 ] && [ $broken -eq 1 ] && grep -q 'not an ompcollect JSON report' "$tmp/merge-bad.err" \
    && grep -q 'not valid JSON: .* at byte' "$tmp/merge-broken.err"
result $? "merge refuses other and broken JSON with a message naming the file (exit 1)" \
    "$tmp/merge-bad.err" "$tmp/merge-broken.err"

# Programs ompcollect cannot observe: refused before they run.
cat >"$tmp/static.c" <<'EOF'
#include <stdio.h>
int main(int argc, char **argv) { FILE *f = fopen(argv[1], "w"); return f == NULL; }
EOF
if ${CC:-cc} -static -o "$tmp/static" "$tmp/static.c" >"$tmp/static.log" 2>&1; then
    "$oc" "$tmp/static" "$tmp/static-ran" >/dev/null 2>"$tmp/static.err"
    status=$?
    [ $status -eq 125 ] && grep -q 'statically linked' "$tmp/static.err" && [ ! -e "$tmp/static-ran" ]
    result $? "a static program: refused (exit 125) with the reason, before it runs" "$tmp/static.err"
else
    skip "${CC:-cc} cannot link statically (no static C library?)" 1 "a static program: refused before it runs"
fi

failed=0
for launcher in mpirun mpiexec srun /usr/bin/mpiexec.hydra mpirun.openmpi orterun; do
    "$oc" "$launcher" -np 2 sh -c ": >'$tmp/launcher-ran'" >/dev/null 2>"$tmp/launcher.err"
    status=$?
    [ $status -eq 125 ] && grep -q "ompcollect must run inside each rank" "$tmp/launcher.err" \
        && grep -q "write '$(basename "$launcher") \.\.\. ompcollect \[OPTION\]\.\.\. PROGRAM'" "$tmp/launcher.err" \
        && [ ! -e "$tmp/launcher-ran" ] || { failed=1; break; }
done
result $failed "ompcollect mpirun/mpiexec/srun/...: refused (exit 125) with the hint 'mpirun ... ompcollect PROGRAM', nothing run" \
    "$tmp/launcher.err"

# GCC-built OpenMP in a library: the program itself needs no runtime.
gcc=$(command -v gcc)
if [ -z "$gcc" ] || ! "$gcc" -shared -fPIC -fopenmp -o "$tmp/libompcwork.so" "$top_srcdir/t/ompcollect-gomplib.c" >"$tmp/gcc.log" 2>&1 \
    || ! readelf -d "$tmp/libompcwork.so" 2>/dev/null | grep -q 'NEEDED.*libgomp'; then
    for what in "the programs" "linked" "linked" "linked" "dlopen" "dlopen" "dlopen" "--runtime=none"; do
        skip "gcc with libgomp is needed to build the library" 1 "a program whose OpenMP comes from a GCC-built library ($what)"
    done
else
    "$gcc" -o "$tmp/linked" "$top_srcdir/t/ompcollect-gompuser.c" -L"$tmp" -lompcwork -Wl,-rpath,"$tmp" 2>>"$tmp/gcc.log"
    "$gcc" -DLOADER -o "$tmp/loader" "$top_srcdir/t/ompcollect-gompuser.c" -ldl 2>>"$tmp/gcc.log"
    ! readelf -d "$tmp/linked" | grep -q 'NEEDED.*gomp' && ! readelf -d "$tmp/loader" | grep -q 'NEEDED.*gomp'
    result $? "the test programs need no OpenMP runtime themselves, only the library does" "$tmp/gcc.log"
    for what in linked loader; do
        if [ $what = linked ]; then set -- "$tmp/linked" 6; else set -- "$tmp/loader" 6 "$tmp/libompcwork.so"; fi
        "$oc" -f json -o "$tmp/$what.json" "$@" >"$tmp/$what.out" 2>"$tmp/$what.err"
        status=$?
        [ $status -eq 0 ] && grep -q '^gompuser: 6 regions, 2 threads$' "$tmp/$what.out" \
            && holds "$tmp/$what.json" 'totals["forks"] == 6 and totals["joins"] == 6 and totals["states"]["WORK"] > 0'
        result $? "GCC-built library, $what: profiled without --runtime, all 6 regions counted" \
            "$tmp/$what.err" "$tmp/$what.json"
        # Known gap: with the ASan-built shim preloaded, the library's worker thread goes unfollowed.
        if [ -n "${SANITIZER_CFLAGS:-}" ]; then
            skip "known gap in sanitizer builds: the worker thread goes unfollowed (see ChangeLog)" 1 "GCC-built library, $what: both OpenMP threads followed"
        else
            holds "$tmp/$what.json" 'len(threads) == 2'
            result $? "GCC-built library, $what: both OpenMP threads followed" "$tmp/$what.json"
        fi
        holds "$tmp/$what.json" '"libgomp" in r["runtime"]["why"] and r["runtime"]["file"] == "'"$LIBOMP"'" and r["runtime"]["version"].startswith("LLVM libomp")'
        result $? "GCC-built library, $what: the report says LLVM libomp ran in place of GCC's libgomp" "$tmp/$what.json"
    done
    "$oc" --runtime=none "$tmp/loader" 2 "$tmp/libompcwork.so" >"$tmp/none.out" 2>"$tmp/none.err"
    status=$?
    [ $status -eq 0 ] && grep -q '^gompuser: 2 regions, 2 threads$' "$tmp/none.out" \
        && grep -q "^  runtime .*libgomp.* GCC's libgomp, which has no OMPT: its regions and thread states were invisible" "$tmp/none.err"
    result $? "--runtime=none, a library loaded late on GCC's libgomp: the program runs, and the report says why it saw no OpenMP" \
        "$tmp/none.err"
fi
