#!/bin/sh
# ompcollect-gccsites.sh - constructs GCC's code names away from their pragma are named at it (t/ompcollect-gccsites.c built by gcc -O2 -g, t/ompcollect-gccsites.f90 by gfortran): a worksharing loop's closing barrier at its directive, not the body's last line, an explicit barrier at its own; tail-calling task bodies laid back to back each at its pragma; a host teams construct (libomp reports it from GOMP_teams_reg) at its pragma, its parallel loop nested under it.
# SPDX-License-Identifier: BSD-3-Clause
. "${top_srcdir:?}/t/ompcollect-lib.sh"
source=$top_srcdir/t/ompcollect-gccsites.c
fsource=$top_srcdir/t/ompcollect-gccsites.f90
seconds=${OMPCOLLECT_GCCSITES_SECONDS:-0.4}
static_for=$(line_of static-for)
explicit=$(line_of explicit-barrier)
host_teams=$(line_of host-teams)
tasks="$(line_of task-a), $(line_of task-b), $(line_of task-c), $(line_of task-d), $(line_of task-root)"
fortran_do=$(grep -n '^!\$omp do' "$fsource" | head -n 1 | cut -d: -f1)
echo "1..12"
n=0
rows='"\n".join(str((k, w.get("what", w.get("kind", "")), label(w["location"]), w["location"]["line"])) for k in ("constructs", "wait_locations") for w in r[k]) + "\n" + str(sorted(t["location"]["line"] for t in r["tasks"]["constructs"]))'
# Runs program $1 under ompcollect (two threads, whatever the machine) into $tmp/$1.json.
collect() {
    OMP_NUM_THREADS=2 "$oc" --runtime "$LIBOMP" --interval=1ms -f json -o "$tmp/$1.json" \
        --trace-json="$tmp/$1.trace.json" "$tmp/$1" "$seconds" \
        >"$tmp/$1.out" 2>"$tmp/$1.err"
    echo $? >"$tmp/$1.status"
}

if ! command -v gcc >/dev/null 2>&1; then
    skip "gcc is not installed" 10
elif ! gcc -fopenmp -g -O2 -o "$tmp/gccsites" "$source" >"$tmp/build.err" 2>&1; then
    skip "gcc cannot build the program (OpenMP 5.0 host teams: GCC 9 or later): $(head -n 1 "$tmp/build.err")" 10
else
    name=gccsites
    collect $name
    check $name "ran and reported (exit 0)" "$(cat "$tmp/$name.status") == 0"
    # GCC gives the loop's GOMP_barrier call no line: the line table says the inner loop's.
    check $name "the static loop's closing barrier is named loops at its pragma ($static_for, +-1), not in its body" \
        "[(label(w['location']).split('.')[0], abs(w['location']['line'] - $static_for) <= 1) for w in r['wait_locations'] if w['what'] == 'barrier (end of worksharing)' and $static_for - 1 <= w['location']['line'] < $explicit] == [('loops', True)]"
    check $name "the explicit barrier keeps its own line ($explicit)" \
        "any(w['what'].startswith('barrier') and w['location']['line'] == $explicit and w['samples'] > 0 for w in r['wait_locations'])"
    check $name "one task construct row at each task pragma ($tasks), none elsewhere" \
        "sorted(t['location']['line'] for t in r['tasks']['constructs']) == sorted([$tasks])"
    check $name "the host teams construct is named league at its pragma ($host_teams, +-1), not in the runtime" \
        "[(c['location']['function'], abs((c['location']['line'] or 0) - $host_teams) <= 1, 'libomp' in (c['location']['module'] or '')) for c in r['constructs'] if c['kind'] == 'teams'] == [('league', True, False)]"
    check $name "its parallel loop is nested inside it" \
        "[c['inside']['line'] for c in r['constructs'] if c['kind'] == 'parallel' and abs(c['location']['line'] - $host_teams) <= 1] == [[t['location']['line'] for t in r['constructs'] if t['kind'] == 'teams'][0]]"
    check $name "no construct or wait is named by the runtime's code" \
        "not [l for l in [x['location'] for k in ('constructs', 'wait_locations') for x in r[k]] if 'libomp' in (l['module'] or '') or l['kind'] != 'line']"
    checked $name "$rows"
    # The trace labels a league by its kind: one per team and round, the parallel regions they fork apart.
    ok "$(python3 -c '
import json, sys
events = json.load(open(sys.argv[1]))
events = events["traceEvents"] if isinstance(events, dict) else events
kinds = [e["name"].split(" ")[0] for e in events if e.get("cat") == "region"]
print(kinds.count("teams") > 0 and kinds.count("parallel") > 0 or kinds)' "$tmp/$name.trace.json" 2>&1)" \
        "$name: the Chrome trace labels the host teams regions teams, the others parallel" "$tmp/$name.err"
    # The teams construct and the parallel loop it forks share the pragma's line: merge and diff keep them apart.
    "$oc" diff "$tmp/$name.json" "$tmp/$name.json" >"$tmp/diff.txt" 2>&1
    sed -n '/^Parallel constructs/,/^$/p' "$tmp/diff.txt" | grep -E "ompcollect-gccsites[.]c:$host_teams " >"$tmp/diff.rows"
    ok "$([ "$(wc -l <"$tmp/diff.rows")" -eq 2 ] && grep -q ' teams league ' "$tmp/diff.rows" && echo True || echo False)" \
        "$name: diff keeps the teams row and its parallel row at line $host_teams apart" "$tmp/diff.txt"
    # Another process's report for merge: the same figures under another pid.
    python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); r["pid"] += 1; json.dump(r, open(sys.argv[2], "w"))' \
        "$tmp/$name.json" "$tmp/$name-copy.json"
    "$oc" merge "$tmp/$name.json" "$tmp/$name-copy.json" >"$tmp/merge.txt" 2>&1
    sed -n '/^Top parallel constructs/,/^$/p' "$tmp/merge.txt" | grep -E "ompcollect-gccsites[.]c:$host_teams " >"$tmp/merge.rows"
    ok "$([ "$(wc -l <"$tmp/merge.rows")" -eq 2 ] && grep -q ' teams league ' "$tmp/merge.rows" && echo True || echo False)" \
        "$name: merge keeps the teams row and its parallel row at line $host_teams apart" "$tmp/merge.txt"
fi

if ! command -v gfortran >/dev/null 2>&1; then
    skip "gfortran is not installed (Debian: apt-get install gfortran)" 2
elif ! gfortran -fopenmp -g -O2 -o "$tmp/gccsites-f" "$fsource" >"$tmp/build.err" 2>&1; then
    skip "gfortran cannot build OpenMP programs: $(head -n 1 "$tmp/build.err")" 2
else
    name=gccsites-f
    collect $name
    check $name "ran and reported (exit 0)" "$(cat "$tmp/$name.status") == 0"
    check $name "the first !\$omp do's closing barrier is named comm at its directive ($fortran_do, +-1), not at its body's last line" \
        "[(label(w['location']).split('.')[0], abs(w['location']['line'] - $fortran_do) <= 1) for w in r['wait_locations'] if w['what'] == 'barrier (end of worksharing)'] == [('comm', True)]"
    checked $name "$rows"
fi
