#!/bin/sh
# ompcollect-mpi-time.sh - time inside MPI calls (libompcollect-mpi): a known MPI wait on one rank shows in that rank's MPI category and in merge's MPI load balance, both hybrid models and the MPI calls by call and location (and diff's); a program that links libmpi only through a library of its own is measured too; a program without MPI gets no MPI library and MPI counts of zero, and one the MPI program starts loads no libmpi.
# SPDX-License-Identifier: BSD-3-Clause
. "${top_srcdir:?}/t/ompcollect-lib.sh"
program=$top_builddir/t/ompcollect-mpi-wait$EXEEXT
library=$top_builddir/tools/.libs/libompcollect-mpi.so

if [ ! -x "$program" ] || [ ! -f "$library" ]; then
    echo "1..0 # SKIP no MPI library or test program: configure found no usable mpicc (Debian: apt-get install openmpi-bin libopenmpi-dev)"
    exit 0
fi
mpi_launcher "the test program"
# Rank 1 computes this long before the barrier rank 0 waits in.
seconds=0.8
if ! $limit "$mpirun" -np 2 $flags "$program" 0.01 >"$tmp/plain.out" 2>"$tmp/plain.err" \
    || [ "$(grep -c '^mpi-wait: rank' "$tmp/plain.out")" -ne 2 ]; then
    echo "1..0 # SKIP $mpirun -np 2 cannot run the test program here: $(head -n 3 "$tmp/plain.err" | tr '\n' ' ')"
    exit 0
fi

echo "1..17"
n=0
(cd "$tmp" && $limit "$mpirun" -np 2 $flags "$oc" --runtime "$LIBOMP" --interval=2ms -f json -o 'r.%r.json' "$program" "$seconds" \
    >"$tmp/job.out" 2>"$tmp/job.err")
status=$?
[ $status -eq 0 ] && [ -f "$tmp/r.0.json" ] && [ -f "$tmp/r.1.json" ] \
    && holds "$tmp/r.0.json" 'totals["mpi"]["measured"] and totals["mpi"]["calls"] >= 3' \
    && holds "$tmp/r.1.json" 'totals["mpi"]["measured"] and totals["mpi"]["calls"] >= 3'
result $? "mpirun -np 2 ompcollect on a program that links libmpi: both ranks measured MPI_Init_thread, MPI_Barrier and MPI_Finalize" \
    "$tmp/job.err" "$tmp/job.out"

# check RANK EXPRESSION: Python over rank RANK's report r and the program's own clock p (init, barrier, finalize: seconds).
check() {
    python3 - "$tmp/r.$1.json" "$tmp/job.out" "$1" "$2" <<'PY'
import json, re, sys
r = json.load(open(sys.argv[1]))
m = [l.split() for l in open(sys.argv[2]) if l.startswith("mpi-wait: rank %s " % sys.argv[3])][0]
p = {"init": float(m[4]), "barrier": float(m[6]), "finalize": float(m[8])}
initial = [t for t in r["threads"] if t["initial"]][0]
interval = r["interval_ns"] / 1e9
mpi_s = initial["mpi"]["samples"] * interval   # sampled, as the MPI category counts it
mpi_ns = initial["mpi"]["ns"] / 1e9            # the wrappers' clock
other = p["init"] + p["finalize"]              # MPI time that is not the barrier's
print("# rank %s: program's clock %s; ompcollect: %d samples in MPI (%.3f s), %.3f s by the wrappers' clock"
      % (sys.argv[3], p, initial["mpi"]["samples"], mpi_s, mpi_ns))
ok = eval(sys.argv[4])
sys.exit(0 if ok else 1)
PY
}
# The wrappers time each call from inside the program's own clock readings around it (so never
# longer); a descheduled moment between the two readings is the margin below.
check 0 'mpi_ns <= sum(p.values()) + 0.001 and mpi_ns >= 0.75 * sum(p.values())' \
    && check 1 'mpi_ns <= sum(p.values()) + 0.001 and mpi_ns >= 0.75 * sum(p.values())'
result $? "each rank's time inside MPI (the wrappers' clock) is the time its MPI calls took by the program's clock" "$tmp/r.0.json"
# Rank 0 waits the whole of rank 1's computation in the barrier: its samples in MPI, less what
# Init and Finalize took, stand for at least half of it (a margin of 0.4 s from the construction).
check 0 "mpi_s - other >= $seconds / 2 and initial['states']['SERIAL'] + initial['states']['WORK'] < initial['mpi']['samples']"
result $? "rank 0's report: the barrier wait ($seconds s by construction) is in the MPI category, not SERIAL or WORK" "$tmp/r.0.json"
check 1 "mpi_s - other < $seconds / 4 and initial['states']['SERIAL'] * interval >= $seconds / 2"
result $? "rank 1's report: little MPI beyond Init and Finalize; its computation is SERIAL" "$tmp/r.1.json"
# Rank 0's other thread idles all through the barrier: its team waits for MPI, not for serial code
# (serialisation), and the waiting rank's first opportunity is the MPI wait, named by its call and line.
barrier_line=$(grep -n 'MPI_Barrier(MPI_COMM_WORLD);' "$top_srcdir/t/ompcollect-mpi-wait.c" | cut -d: -f1)
check 0 "r['totals']['mpi']['idle_samples'] * interval >= $seconds / 2 and r['efficiency']['lost']['serialisation'] * interval < $seconds / 4 and r['efficiency']['lost']['mpi_idle'] >= r['totals']['mpi']['idle_samples']"
result $? "rank 0's report: its other thread's IDLE during the barrier counts as MPI waiting (totals.mpi.idle_samples), not serialisation" "$tmp/r.0.json"
check 0 "r['opportunities'][0]['kind'] == 'mpi_wait' and r['opportunities'][0]['what'] == 'MPI waiting in MPI_Barrier' and r['opportunities'][0]['location']['line'] == $barrier_line and r['opportunities'][0]['location']['file'].endswith('ompcollect-mpi-wait.c') and r['opportunities'][0]['gain']['seconds'] >= $seconds / 2 and all(o['kind'] != 'serial' for o in r['opportunities'])"
result $? "rank 0's first opportunity: MPI waiting in MPI_Barrier at its line ($barrier_line), and no serial-code finding" "$tmp/r.0.json"
# MPI_Init_thread and MPI_Finalize: apart (totals.mpi.setup_ns), as long as the program's clock says, each a setup site.
check 0 "r['totals']['mpi']['setup_calls'] == 2 and p['init'] + p['finalize'] + 0.001 >= r['totals']['mpi']['setup_ns'] / 1e9 >= 0.75 * (p['init'] + p['finalize']) and sorted(x['call'] for x in r['totals']['mpi']['sites'] if x['setup']) == ['MPI_Finalize', 'MPI_Init_thread'] and [x['call'] for x in r['totals']['mpi']['sites'] if not x['setup']] == ['MPI_Barrier']" \
    && check 1 "r['totals']['mpi']['setup_calls'] == 2 and p['init'] + p['finalize'] + 0.001 >= r['totals']['mpi']['setup_ns'] / 1e9 >= 0.75 * (p['init'] + p['finalize'])"
result $? "MPI_Init_thread and MPI_Finalize are reported apart (totals.mpi.setup_ns, setup sites), as long as the program's clock says" "$tmp/r.0.json"
holds "$tmp/r.0.json" 'totals["samples"] == sum(t["samples"] for t in threads if t["openmp"]) and all(t["samples"] == sum(t["states"].values()) + t["invalid"] + t["mpi"]["samples"] for t in threads)'
result $? "JSON: a thread's samples are its states', its invalid answers' and its MPI samples" "$tmp/r.0.json"

"$oc" merge -f json "$tmp/r.0.json" "$tmp/r.1.json" >"$tmp/merged.json" 2>"$tmp/merge.err" \
    && "$oc" merge "$tmp/r.0.json" "$tmp/r.1.json" >"$tmp/merged.txt" 2>>"$tmp/merge.err"
status=$?
[ $status -eq 0 ] && python3 - "$tmp/merged.json" "$tmp/r.0.json" "$tmp/r.1.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
reports = [json.load(open(p)) for p in sys.argv[2:]]
outside = []
for r in reports:
    initial = [t for t in r["threads"] if t["initial"]][0]
    outside.append(max(0, r["wall_ns"] - initial["mpi"]["ns"]))
h = m["hybrid"]
balance = sum(outside) / len(outside) / max(outside)
# MPI_Init and MPI_Finalize are no communication: the runtime leaves them out.
runtime = max(r["wall_ns"] - r["totals"]["mpi"]["setup_ns"] for r in reports)
useful = sum(r["totals"]["states"]["WORK"] + r["totals"]["states"]["SERIAL"] for r in reports)
# The team idle while its master is in MPI is MPI's waiting, not an OpenMP loss.
samples = sum(sum(r["totals"]["states"].values()) - r["totals"]["mpi"]["idle_samples"] for r in reports)
print("# hybrid: %s; outside MPI per rank (ns): %s" % (h, outside))
ok = (h["mpi_measured_reports"] == 2 and abs(h["mpi_load_balance"] - balance) < 1e-5
      and abs(h["mpi_communication_efficiency"] - max(outside) / runtime) < 1e-5
      and abs(h["openmp_parallel_efficiency"] - useful / samples) < 1e-5
      and abs(h["parallel_efficiency"] - balance * max(outside) / runtime * useful / samples) < 1e-5
      and m["totals"]["mpi_samples"] == sum(r["totals"]["mpi"]["samples"] for r in reports))
sys.exit(0 if ok else 1)
PY
result $? "merge: the POP factors are the ones ompcollect(1) defines, from the ranks' reports" "$tmp/merge.err" "$tmp/merged.json"
# Rank 1 computes all the time it is outside MPI_Init and MPI_Finalize but for a barrier it reaches last:
# with them left out, its time outside MPI is nearly the runtime (with them, about 0.7 here).
python3 -c 'import json, sys; h = json.load(open(sys.argv[1]))["hybrid"]; sys.exit(0 if h["mpi_communication_efficiency"] > 0.9 else 1)' \
    "$tmp/merged.json" && grep -q 'MPI_Init and MPI_Finalize' "$tmp/merged.txt"
result $? "merge: the communication efficiency leaves MPI_Init and MPI_Finalize out (above 0.9 on this job), and says so" "$tmp/merged.txt" "$tmp/merged.json"
python3 -c 'import json, sys; h = json.load(open(sys.argv[1]))["hybrid"]; sys.exit(0 if h["mpi_load_balance"] < 0.9 else 1)' \
    "$tmp/merged.json" && grep -q '^  MPI load balance  *0\.[0-8]' "$tmp/merged.txt" \
    && grep -q '^  rank 0 .* in MPI ' "$tmp/merged.txt" \
    && python3 -c 'import json, sys; c = json.load(open(sys.argv[1]))["constructs"]; sys.exit(0 if c and all(x["slowest"]["rank"] in (0, 1) and x["slowest"]["time_ns"] == x["max_ns"] for x in c) else 1)' "$tmp/merged.json"
result $? "merge: the MPI load balance shows rank 0's wait (below 0.9), each rank's MPI time, and each construct's slowest rank" \
    "$tmp/merged.txt"

# The additive model (POP's: every loss a share of the runtime over every thread), recomputed from the reports.
"$oc" merge -f csv "$tmp/r.0.json" "$tmp/r.1.json" >"$tmp/merged.csv" 2>>"$tmp/merge.err"
python3 - "$tmp/merged.json" "$tmp/merged.csv" "$tmp/r.0.json" "$tmp/r.1.json" >"$tmp/additive.check" 2>&1 <<'PY'
import csv, json, sys
m = json.load(open(sys.argv[1]))
reports = [json.load(open(p)) for p in sys.argv[3:]]
runtime = max(r["wall_ns"] - r["totals"]["mpi"]["setup_ns"] for r in reports)
threads = outside = lost = 0
for r in reports:
    initial = [t for t in r["threads"] if t["initial"]][0]
    out = max(0, r["wall_ns"] - initial["mpi"]["ns"])
    s = r["totals"]["states"]
    useful = (s["WORK"] + s["SERIAL"]) / (sum(s.values()) - r["totals"]["mpi"]["idle_samples"])
    threads += r["totals"]["threads"]
    outside += r["totals"]["threads"] * out
    lost += r["totals"]["threads"] * out * (1 - useful)
most = max(max(0, r["wall_ns"] - [t for t in r["threads"] if t["initial"]][0]["mpi"]["ns"]) for r in reports)
a = m["hybrid"]["additive"]
want = {"mpi_load_balance": 1 - (most - outside / threads) / runtime, "mpi_communication_efficiency": most / runtime,
        "mpi_parallel_efficiency": outside / threads / runtime, "openmp_parallel_efficiency": 1 - lost / threads / runtime}
want["parallel_efficiency"] = want["mpi_parallel_efficiency"] + want["openmp_parallel_efficiency"] - 1
print("# additive: %s; recomputed: %s" % ({k: a[k] for k in want}, want))
assert all(abs(a[k] - v) < 2e-6 for k, v in want.items())
rows = {(row[1], row[2]): row[3] for row in csv.reader(open(sys.argv[2])) if row[0] == "hybrid"}
assert abs(float(rows[("additive", "parallel_efficiency")]) - a["parallel_efficiency"]) < 2e-6, rows
assert abs(float(rows[("multiplicative", "parallel_efficiency")]) - m["hybrid"]["parallel_efficiency"]) < 2e-6, rows
print("ok")
PY
result $? "merge: the additive hybrid model's terms (MPI load balance and communication, OpenMP per rank) are POP's, in JSON and CSV" \
    "$tmp/additive.check" "$tmp/merge.err"
# The MPI calls over the ranks: the barrier rank 0 waited in the first of communication, at its line, its time the ranks' sum.
python3 - "$tmp/merged.json" "$tmp/merged.csv" "$tmp/r.0.json" "$tmp/r.1.json" "$barrier_line" >"$tmp/calls.check" 2>&1 <<'PY'
import csv, json, sys
m = json.load(open(sys.argv[1]))
reports = [json.load(open(p)) for p in sys.argv[3:5]]
# MPI_Init and MPI_Finalize may take longer than the barrier on a loaded machine: the first call of communication.
top = [c for c in m["mpi_calls"]["calls"] if not c["setup"]][0]
sites = [x for r in reports for x in r["totals"]["mpi"]["sites"] if x["call"] == "MPI_Barrier"]
print("# top MPI call: %s" % top)
assert top["call"] == "MPI_Barrier" and top["location"]["line"] == int(sys.argv[5]) and top["processes"] == 2
assert top["ns"] == sum(x["ns"] for x in sites) and top["slowest"]["rank"] == 0 and top["max_ns"] == max(x["ns"] for x in sites)
assert [[x["call"] for x in rank["sites"]] for rank in m["mpi_calls"]["ranks"]] == [[x["call"] for x in r["totals"]["mpi"]["sites"]] for r in reports]
rows = [row for row in csv.reader(open(sys.argv[2])) if row[0] == "mpi_call"]
first = [row for row in rows if row[5] == "0"][0]
assert len(rows) == len(m["mpi_calls"]["calls"]) and first[1] == "MPI_Barrier" and int(first[8]) == top["ns"], rows
# A balanced layout gains the ranks' mean wait at the barrier (rank 0's wait, halved), of the hybrid runtime; start/end none.
assert abs(top["balanced_ns"] - top["ns"] / 2) <= 1 and abs(top["balanced_share"] - top["balanced_ns"] / m["hybrid"]["runtime_ns"]) < 1e-4, top
assert all(c["balanced_ns"] == 0 for c in m["mpi_calls"]["calls"] if c["setup"]) and int(first[-1]) == top["balanced_ns"], rows
print("ok")
PY
[ $? -eq 0 ] && grep -q "^  *[0-9.]* .* rank 0  *MPI_Barrier at main ompcollect-mpi-wait.c:$barrier_line" "$tmp/merged.txt" \
    && grep -q '^  Additive model' "$tmp/merged.txt" && grep -q '^  Multiplicative model' "$tmp/merged.txt" \
    && grep -q "^  MPI waiting in MPI_Barrier at main ompcollect-mpi-wait.c:$barrier_line: a balanced layout of the ranks' work gains up to " "$tmp/merged.txt"
result $? "merge: the MPI calls by call and location over the ranks (MPI_Barrier at line $barrier_line first, rank 0 slowest) and per rank, and the gain of a balanced layout at the barrier, in text, JSON and CSV" \
    "$tmp/calls.check" "$tmp/merged.txt"
"$oc" diff -f json "$tmp/r.0.json" "$tmp/r.1.json" >"$tmp/diff.json" 2>"$tmp/diff.err" \
    && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
a, b = (json.load(open(p)) for p in sys.argv[2:4])
ns = lambda r: [x["ns"] for x in r["totals"]["mpi"]["sites"] if x["call"] == "MPI_Barrier"][0]
row = [x for x in d["mpi_calls"] if x["call"] == "MPI_Barrier"][0]
assert row["call"] == "MPI_Barrier" and row["status"] == "matched" and row["a_ns"] == ns(a) and row["b_ns"] == ns(b)     and row["change_ns"] == ns(b) - ns(a), row' "$tmp/diff.json" "$tmp/r.0.json" "$tmp/r.1.json" >"$tmp/diff.check" 2>&1
result $? "diff: the MPI calls compared by call and location (the barrier: rank 1 less rank 0)" "$tmp/diff.check" "$tmp/diff.err"

# A program without MPI: no MPI library in its preload, and MPI counts of zero.
"$oc" -o /dev/null env >"$tmp/env.out" 2>"$tmp/env.err"
run --runtime "$LIBOMP" -f json -o "$tmp/plain.json" "$top_builddir/t/ompcollect-prog$EXEEXT"
[ $status -eq 0 ] && grep -q '^LD_PRELOAD=.*libompcollect-agent' "$tmp/env.out" \
    && ! grep -q 'libompcollect-mpi' "$tmp/env.out" \
    && holds "$tmp/plain.json" 'not totals["mpi"]["measured"] and totals["mpi"] == {"samples": 0, "ns": 0, "calls": 0, "measured": False, "setup_ns": 0, "setup_calls": 0, "idle_samples": 0, "sites": [], "sites_dropped": 0} and all(t["mpi"] == {"samples": 0, "ns": 0, "calls": 0} for t in threads)'
result $? "a program without MPI: no MPI library preloaded, every MPI count 0" "$tmp/env.out" "$tmp/err"

# What the MPI program starts inherits the MPI library, which does not load libmpi into it.
(cd "$tmp" && $limit "$mpirun" -np 1 $flags "$oc" --runtime "$LIBOMP" -o "$tmp/child.txt" "$program" 0 child \
    >"$tmp/child.out" 2>"$tmp/child.err")
grep -q '^mpi-wait: child: 0 libmpi mappings; preload .*libompcollect-mpi' "$tmp/child.out"
result $? "a program the MPI program starts inherits the MPI library but loads no libmpi" "$tmp/child.out" "$tmp/child.err"

# A program that needs libmpi only through a library of its own is measured as well (the loader's closure).
mpicc=${MPICC:-mpicc}
if command -v "$mpicc" >/dev/null 2>&1; then
    cat >"$tmp/use.c" <<'C'
#include <mpi.h>
int use_mpi(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    MPI_Barrier(MPI_COMM_WORLD);
    return MPI_Finalize();
}
C
    printf 'int use_mpi(int *argc, char ***argv);\nint main(int argc, char **argv)\n{\n#pragma omp parallel num_threads(2)\n    ;\n    return use_mpi(&argc, &argv);\n}\n' >"$tmp/main.c"
    "$mpicc" -shared -fPIC -o "$tmp/libuse.so" "$tmp/use.c" 2>"$tmp/build.err" \
        && ${CC:-cc} -fopenmp -o "$tmp/indirect" "$tmp/main.c" -L"$tmp" -luse -Wl,-rpath,"$tmp" 2>>"$tmp/build.err"
    if [ $? -eq 0 ] && ! readelf -d "$tmp/indirect" | grep NEEDED | grep -q 'libmpi'; then
        (cd "$tmp" && $limit "$mpirun" -np 1 $flags "$oc" --runtime "$LIBOMP" -f json -o "$tmp/indirect.json" \
            "$tmp/indirect" >"$tmp/indirect.out" 2>"$tmp/indirect.err")
        [ $? -eq 0 ] && holds "$tmp/indirect.json" 'totals["mpi"]["measured"] and totals["mpi"]["calls"] == 3'
        result $? "a program that links libmpi only through its own library: its 3 MPI calls are measured" \
            "$tmp/indirect.err"
    else
        skip "cannot build a program that needs libmpi only through a library with $mpicc and ${CC:-cc}: $(head -n 2 "$tmp/build.err" | tr '\n' ' ')"
    fi
else
    skip "no mpicc to build a library that links libmpi"
fi
