#!/bin/sh
# ompcollect-gains.sh - make check-gains: each planted problem of t/ompcollect-gains.c (imbalance, hot critical, one lock for a table, too-fine tasks, serial initialisation) and t/ompcollect-gains-mpi.c (MPI imbalance, 2 ranks), built with clang and gcc, profiled, and the gain ompcollect predicts for it held against what its fixed variant really saves: within 0.7-1.3x.
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
echo "1..$((count * 6))"
mpi_source=$top_srcdir/t/ompcollect-gains-mpi.c
mpicc=${MPICC:-mpicc}
mpi_flags

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

# mpi_per_round PROGRAM VARIANT: the time of one round in a plain run on 2 ranks (rank 0 prints it).
mpi_per_round() {
    LD_LIBRARY_PATH=$tmp/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} $limit "$mpirun" -np 2 $flags "$1" "$2" "$seconds" \
        2>>"$tmp/$cc-mpi.err" | sed -n 's/.* per_round \([0-9.]*\)$/\1/p'
}

# mpi_predicted PROGRAM: the share of the job's runtime a balanced layout gains at the planted MPI call, from
# the 2 ranks' profiled reports merged (ompcollect merge).
mpi_predicted() {
    rm -rf "$tmp/mpi" && mkdir "$tmp/mpi"
    (cd "$tmp/mpi" && $limit "$mpirun" -np 2 $flags "$oc" --runtime "$LIBOMP" --interval=1ms -f json -o 'r.%r.json' \
        "$1" problem "$seconds" >/dev/null 2>>"$tmp/$cc-mpi.err")
    "$oc" merge -o "$tmp/$cc-mpi.txt" "$tmp/mpi/r.0.json" "$tmp/mpi/r.1.json" 2>>"$tmp/$cc-mpi.err"
    "$oc" merge -f json -o "$tmp/m.json" "$tmp/mpi/r.0.json" "$tmp/mpi/r.1.json" 2>>"$tmp/$cc-mpi.err"
    python3 - "$tmp/m.json" <<'EOF'
import json, sys
try:
    calls = json.load(open(sys.argv[1]))["mpi_calls"]["calls"]
except (OSError, ValueError, KeyError, TypeError):
    calls = []
found = [c["balanced_share"] for c in calls if c["call"] == "MPI_Allreduce" and not c["setup"]]
print(found[0] if found and found[0] is not None else 0)
EOF
}

# judge CASE: the medians of $tmp/pred, prob and fix as a table row, and the TAP line on their ratio.
judge() {
    pred=$(median <"$tmp/pred") prob=$(median <"$tmp/prob") fix=$(median <"$tmp/fix")
    line=$(awk -v p="$pred" -v a="$prob" -v b="$fix" 'BEGIN {
        real = a > 0 ? 1 - b / a : 0
        printf "%9.6f %9.6f %8.1f%% %8.1f%% %6.2f", a, b, 100 * real, 100 * p, (real > 0 ? p / real : 0) }')
    printf '# %-6s %-10s %s\n' $cc $1 "$line"
    ratio=${line##* }
    ok "$(awk -v r="$ratio" 'BEGIN { print (r >= 0.7 && r <= 1.3) ? "True" : "False" }')" \
        "$cc $1: predicted gain $(echo "$line" | awk '{ print $4 }') of the run against $(echo "$line" | awk '{ print $3 }') real (ratio $ratio, 0.7-1.3)" \
        "$tmp/$cc-$1.txt"
}

# mpi_case: the MPI imbalance built with $cc, or a skip that says why it cannot run.
mpi_case() {
    prog=$tmp/gains-mpi-$cc
    if ! command -v "$mpicc" >/dev/null 2>&1 || ! command -v "$mpirun" >/dev/null 2>&1; then
        skip "no MPI compiler ($mpicc) or launcher ($mpirun) for the MPI imbalance" 1 "$cc: MPI imbalance"
        return
    fi
    # Open MPI's and MPICH's wrappers take the compiler underneath from these.
    if ! OMPI_CC=$cc MPICH_CC=$cc "$mpicc" -fopenmp -g -O1 -fno-omit-frame-pointer -o "$prog" "$mpi_source" \
        2>"$tmp/$cc-mpi.build"; then
        skip "$mpicc with $cc cannot build the MPI imbalance ($(head -1 "$tmp/$cc-mpi.build"))" 1 "$cc: MPI imbalance"
        return
    fi
    if [ -z "$(mpi_per_round "$prog" fixed)" ]; then
        skip "$mpirun -np 2 cannot run the MPI imbalance here: $(head -n 2 "$tmp/$cc-mpi.err" | tr '\n' ' ')" 1 \
            "$cc: MPI imbalance"
        return
    fi
    : >"$tmp/pred" && : >"$tmp/prob" && : >"$tmp/fix"
    for i in 1 2 3; do mpi_predicted "$prog" >>"$tmp/pred"; done
    for i in $(seq "$runs"); do
        mpi_per_round "$prog" problem >>"$tmp/prob"
        mpi_per_round "$prog" fixed >>"$tmp/fix"
    done
    judge mpi
}

n=0
printf '# %-6s %-10s %9s %9s %9s %9s %6s\n' compiler case problem_s fixed_s real predicted ratio
for cc in $compilers; do
    prog=$tmp/gains-$cc
    if ! $cc -fopenmp -g -O1 -fno-omit-frame-pointer -o "$prog" "$source" 2>"$tmp/$cc.build"; then
        skip "$cc cannot build OpenMP programs ($(head -1 "$tmp/$cc.build"))" 6 "$cc: planted problems"
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
        judge $case
    done
    mpi_case
done
