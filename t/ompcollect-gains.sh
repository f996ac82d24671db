#!/bin/sh
# ompcollect-gains.sh - make check-gains: each planted problem of t/ompcollect-gains.c (imbalance, hot critical, one lock for a table, too-fine tasks, serial initialisation; built with clang and gcc) profiled, and the gain ompcollect predicts for it held against what its fixed variant really saves: within 0.7-1.3x.
# SPDX-License-Identifier: BSD-3-Clause
. "${top_srcdir:?}/t/ompcollect-lib.sh"
source=$top_srcdir/t/ompcollect-gains.c
# GAINS_SECONDS: how long each run lasts (rounds until then); GAINS_RUNS: real runs of each variant, alternating.
seconds=${GAINS_SECONDS:-1}
runs=${GAINS_RUNS:-5}
cases="imbalance critical lock tasks serial"
compilers=
for cc in clang gcc; do
    command -v $cc >/dev/null 2>&1 && compilers="$compilers $cc"
done
count=$(echo $compilers | wc -w)
if [ "$count" = 0 ]; then
    echo "1..0 # SKIP neither clang nor gcc to build the planted problems"
    exit 0
fi
echo "1..$((count * 5))"

# The runtime the profiled run used, for the real runs too: gcc's code finds it as libgomp.so.1.
mkdir -p "$tmp/lib"
ln -s "$LIBOMP" "$tmp/lib/libgomp.so.1"
ln -s "$LIBOMP" "$tmp/lib/$(basename "$LIBOMP")"

# per_round PROGRAM CASE VARIANT: the time of one round in a plain run.
per_round() {
    LD_LIBRARY_PATH=$tmp/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$1" "$2" "$3" "$seconds" | sed -n 's/.* per_round \([0-9.]*\)$/\1/p'
}

# median: the median of the numbers on standard input.
median() {
    sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}

# predicted PROGRAM CASE: the share of the run the opportunity of the planted kind gains, from a profiled run.
predicted() {
    "$oc" --runtime "$LIBOMP" --interval=1ms --save="$tmp/p.ses" -o "$tmp/$cc-$2.txt" "$1" "$2" problem "$seconds" \
        >/dev/null 2>>"$tmp/$cc-$2.err"
    "$oc" report -f json -o "$tmp/p.json" "$tmp/p.ses" 2>>"$tmp/$cc-$2.err"
    python3 - "$tmp/p.json" "$2" <<'EOF'
import json, sys
kinds = {"imbalance": "imbalance", "critical": "critical", "lock": "lock", "tasks": "too_fine_tasks", "serial": "serial"}
found = [o["gain"]["share"] for o in json.load(open(sys.argv[1])).get("opportunities") or []
         if o["kind"] == kinds[sys.argv[2]]]
print(found[0] if found else 0)
EOF
}

n=0
printf '# %-6s %-10s %9s %9s %9s %9s %6s\n' compiler case problem_s fixed_s real predicted ratio
for cc in $compilers; do
    prog=$tmp/gains-$cc
    if ! $cc -fopenmp -g -O1 -fno-omit-frame-pointer -o "$prog" "$source" 2>"$tmp/$cc.build"; then
        skip "$cc cannot build OpenMP programs ($(head -1 "$tmp/$cc.build"))" 5 "$cc: planted problems"
        continue
    fi
    for case in $cases; do
        # Three profiled runs and $runs plain runs of each variant, alternating, so that a change of load hits both.
        : >"$tmp/pred" && : >"$tmp/prob" && : >"$tmp/fix"
        for i in 1 2 3; do predicted "$prog" $case >>"$tmp/pred"; done
        for i in $(seq "$runs"); do
            per_round "$prog" $case problem >>"$tmp/prob"
            per_round "$prog" $case fixed >>"$tmp/fix"
        done
        pred=$(median <"$tmp/pred") prob=$(median <"$tmp/prob") fix=$(median <"$tmp/fix")
        line=$(awk -v p="$pred" -v a="$prob" -v b="$fix" 'BEGIN {
            real = a > 0 ? 1 - b / a : 0
            printf "%9.6f %9.6f %8.1f%% %8.1f%% %6.2f", a, b, 100 * real, 100 * p, (real > 0 ? p / real : 0) }')
        printf '# %-6s %-10s %s\n' $cc $case "$line"
        ratio=${line##* }
        ok "$(awk -v r="$ratio" 'BEGIN { print (r >= 0.7 && r <= 1.3) ? "True" : "False" }')" \
            "$cc $case: predicted gain $(echo "$line" | awk '{ print $4 }') of the run against $(echo "$line" | awk '{ print $3 }') real (ratio $ratio, 0.7-1.3)" \
            "$tmp/$cc-$case.txt"
    done
done
