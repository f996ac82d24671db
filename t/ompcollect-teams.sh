#!/bin/sh
# ompcollect-teams.sh - a teams construct and a target region run on the host are rows of their own kind at their pragma, the parallel regions their teams fork nested under them, and clang's __omp_offloading_ entry names never shown: t/ompcollect-teams.c with clang (-O2 and -O0) and GCC.
# SPDX-License-Identifier: BSD-3-Clause
. "${top_srcdir:?}/t/ompcollect-lib.sh"
source=$top_srcdir/t/ompcollect-teams.c
host=$(grep -n 'HOST_TEAMS' "$source" | cut -d: -f1)
target=$(grep -n '/\* TARGET' "$source" | cut -d: -f1)
rounds=$(sed -n 's/^#define ROUNDS \([0-9]*\)$/\1/p' "$source")
checks=8
echo "1..$((3 * checks))"
n=0

# check CC LABEL: runs the build $tmp/teams-LABEL and checks its reports.
check() {
    label=$1 prog=$tmp/teams-$1 base=$tmp/$1
    # Teams of two threads at most, whatever the machine: the counts below do not depend on it.
    OMP_NUM_THREADS=2 "$oc" --runtime "$LIBOMP" --stacks --save="$base.ses" -f json -o "$base.json" "$prog" \
        >"$base.out" 2>"$base.err"
    status=$?
    # GCC's program calls GOMP_target_ext and GOMP_teams4, which LLVM libomp 14 lacks: ompcollect refuses it.
    if [ $status -ne 0 ] && grep -q 'it needs GOMP_' "$base.err"; then
        skip "$label: ompcollect cannot run it on $LIBOMP ($(grep -o 'it needs GOMP_[A-Za-z0-9_]*' "$base.err"))" $checks
        return
    fi
    result "$([ $status -eq 0 ] && [ -s "$base.json" ] && grep -q "^teams: $rounds rounds" "$base.out" && echo 0 || echo 1)" \
        "$label: the program ran under ompcollect" "$base.err" "$base.out"
    "$oc" report -o "$base.txt" "$base.ses" 2>>"$base.err"
    "$oc" report -f csv -o "$base.csv" "$base.ses" 2>>"$base.err"
    # One row per construct of each pragma: the host's teams and the parallel loop its teams fork, the
    # target's teams and its loop; each named at its pragma's line (a call returns within a line of it).
    cat >"$tmp/tests" <<TESTS
$label: one teams row, at the host teams pragma (line $host), in main, one instance a round ($rounds)	[(c['location']['function'], c['instances']) for c in r['constructs'] if c['kind'] == 'teams' and abs(c['location']['line'] - $host) <= 1] == [('main', $rounds)]
$label: one target teams row, at the target pragma (line $target), in offload, not in an __omp_offloading_ entry, one instance a round	[(c['location']['function'], c['location'].get('enclosing', c['location']['function']), c['instances']) for c in r['constructs'] if c['kind'] == 'target teams' and abs(c['location']['line'] - $target) <= 1] in ([('offload', 'offload', $rounds)], [('main', 'offload', $rounds)])
$label: one parallel row at the host pragma, inside the host teams construct	[c['inside']['line'] for c in r['constructs'] if c['kind'] == 'parallel' and abs(c['location']['line'] - $host) <= 1] == [[t['location']['line'] for t in r['constructs'] if t['kind'] == 'teams'][0]]
$label: one target parallel row at the target pragma, inside the target teams construct	[c['inside']['line'] for c in r['constructs'] if c['kind'] == 'target parallel' and abs(c['location']['line'] - $target) <= 1] == [[t['location']['line'] for t in r['constructs'] if t['kind'] == 'target teams'][0]]
$label: no other construct rows	len(r['constructs']) == 4
TESTS
    python3 "$query" "$base.json" --each "$tmp/tests" >"$base.results" 2>&1
    i=0
    while IFS='	' read -r description _; do
        i=$((i + 1))
        value=$(sed -n "${i}p" "$base.results")
        echo "$value" >"$base.value"
        result "$([ "$value" = True ] && echo 0 || echo 1)" "$description" "$base.value"
    done <"$tmp/tests"
    # The text table: the teams row, then its parallel construct indented under it.
    sed -n '/^Parallel constructs/,/^$/p' "$base.txt" >"$base.rows"
    grep -A1 -E "^  teams main ompcollect-teams.c:($((host - 1))|$host|$((host + 1))) " "$base.rows" |
        grep -Eq "^    parallel main ompcollect-teams.c:($((host - 1))|$host|$((host + 1))) "
    result $? "$label: the text table shows the teams row with its parallel construct indented under it" "$base.rows"
    cat "$base.txt" "$base.json" "$base.csv" | grep -n '__omp_offloading' >"$base.offloading"
    result "$([ -s "$base.txt" ] && [ -s "$base.csv" ] && [ ! -s "$base.offloading" ] && echo 0 || echo 1)" \
        "$label: no __omp_offloading_ name in the text, JSON or CSV report (with --stacks)" "$base.offloading"
}

for build in clang-O2 clang-O0 gcc-O2; do
    cc=${build%-*} level=${build#*-}
    if ! command -v "$cc" >/dev/null 2>&1; then
        skip "$cc is not installed" $checks
        continue
    fi
    if ! "$cc" -fopenmp -g -"$level" -o "$tmp/teams-$build" "$source" >"$tmp/$build.build" 2>&1; then
        skip "$cc cannot build the teams and target constructs" $checks
        continue
    fi
    check "$build"
done
