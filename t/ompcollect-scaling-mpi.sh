#!/bin/sh
# ompcollect-scaling-mpi.sh - ompcollect scaling --mpi on an MPI+OpenMP program (t/ompcollect-scaling-mpi.c): one job per count, each rank's report kept, the ranks merged per count with MPI load balance and communication as factors of their own (recomputed here from the ranks' reports), --reports grouping ranks by the counts their names say, and reports edited to a known MPI loss diagnosed exactly; with TIMING_CHECKS=1 the program's 1:2 rank imbalance and the planted losses named as the largest.
# SPDX-License-Identifier: BSD-3-Clause
. "${top_srcdir:?}/t/ompcollect-lib.sh"
prog=$top_builddir/t/ompcollect-scaling-mpi$EXEEXT
timing=${TIMING_CHECKS:-0}

if [ ! -x "$prog" ]; then
    echo "1..0 # SKIP t/ompcollect-scaling-mpi was not built: configure found no usable mpicc (Debian: apt-get install openmpi-bin libopenmpi-dev)"
    exit 0
fi
mpi_launcher t/ompcollect-scaling-mpi
if ! $limit "$mpirun" -np 2 $flags "$prog" 1 1 >"$tmp/plain.out" 2>"$tmp/plain.err" \
    || ! grep -q '^scaling-mpi: 1 steps' "$tmp/plain.out"; then
    echo "1..0 # SKIP $mpirun -np 2 cannot run t/ompcollect-scaling-mpi here: $(head -n 3 "$tmp/plain.err" | tr '\n' ' ')"
    exit 0
fi
echo "1..$((12 + 3 * timing))"
n=0
cores=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)

# sc DIR EXPRESSION [JSON]: the Python expression over j (JSON, default DIR/scaling.json), r[N] (the rank
# reports at N threads, by rank), whole(N) (the whole run's point at N threads) and model(N) (the additive
# hybrid model recomputed from r[N]) prints True when it holds.
sc() {
    python3 - "$@" 2>&1 <<'EOF'
import glob, json, os, re, sys
where, expression = sys.argv[1], sys.argv[2]
j = json.load(open(sys.argv[3] if len(sys.argv) > 3 else os.path.join(where, "scaling.json")))
r = {}
for path in sorted(glob.glob(os.path.join(where, "threads-*.*.json"))):
    m = re.search(r"threads-(\d+)\.(\d+)\.json$", path)
    if m:
        r.setdefault(int(m.group(1)), {})[int(m.group(2))] = json.load(open(path))
def whole(threads):
    return [p for p in j["whole"]["points"] if p["threads"] == threads][0]
def loss(to):
    return [l for l in j["whole"]["losses"] if l["to"] == to][0]
def model(threads):
    # POP's additive hybrid model, as ompcollect(1) MERGE defines it: each rank's threads stand for the
    # runtime R; outside MPI its samples (less the team's idle while its master is in MPI) split the time.
    ranks = r[threads].values()
    initial = lambda d: [t for t in d["threads"] if t["initial"]][0]["mpi"]["ns"]
    R = max(d["wall_ns"] - d["totals"]["mpi"]["setup_ns"] for d in ranks)
    out = {id(d): max(d["wall_ns"] - initial(d), 0) for d in ranks}
    T = sum(d["totals"]["threads"] for d in ranks)
    slowest = max(out.values())
    part = lambda key: sum(d["totals"]["threads"] * out[id(d)] * (d["efficiency"]["lost"][key] if key != "useful" else d["efficiency"]["useful"])
                           / (d["efficiency"]["samples"] - d["efficiency"]["lost"]["mpi_idle"]) for d in ranks) / (T * R)
    return {"parallel_efficiency": part("useful"), "load_balance": 1 - part("load_imbalance"),
            "synchronisation": 1 - part("synchronisation"), "serialisation": 1 - part("serialisation"),
            "mpi_load_balance": 1 - (T * slowest - sum(d["totals"]["threads"] * out[id(d)] for d in ranks)) / (T * R),
            "mpi_communication": 1 - (R - slowest) / R, "useful_s": part("useful") * T * R / 1e9,
            "wall_ns": max(d["wall_ns"] for d in ranks)}
print(eval(expression))
EOF
}

# The program at 1 and 2 threads on 2 ranks, small: what is kept, and its arithmetic.
# 4 steps of 2 and 4 million iterations: some 30 ms of work, enough for the exact checks; the timing judgements
# below compare the factors' losses, which a preemption of a few ms bends in so short a run (CI's check-timing
# once saw another factor lose more than the planted one), so under TIMING_CHECKS the steps are ten times longer.
parts=2
[ "$timing" = 1 ] && parts=20
"$oc" scaling --threads=2,1 --mpi="$limit $mpirun -np 2 $flags" --runtime "$LIBOMP" -i 1ms --dir="$tmp/m" \
    "$prog" 4 $parts >"$tmp/m.txt" 2>"$tmp/m.err"
result $? "scaling --mpi runs the program as a 2-rank job at 1 and 2 threads" "$tmp/m.err" "$tmp/m.txt"
LC_ALL=C ls "$tmp/m" >"$tmp/m.ls"
[ "$(tr '\n' ' ' <"$tmp/m.ls")" = "scaling.csv scaling.json scaling.svg scaling.txt threads-1.0.json threads-1.1.json threads-1.err threads-1.out threads-2.0.json threads-2.1.json threads-2.err threads-2.out " ]
result $? "each rank's report (threads-N.RANK.json), the job's output and errors, and the analysis are kept" "$tmp/m.ls"
# Each count whose threads x ranks pass the cores is said (both of them on one core).
over=
[ 2 -gt "$cores" ] && over="; 1 thread x 2 ranks: oversubscribed"
[ $((2 * 2)) -gt "$cores" ] && over="$over; 2 threads x 2 ranks: oversubscribed"
grep -q "report.* (one per rank) $tmp/m/threads-2.%r.json" "$tmp/m.err" && grep -q "^  thread counts 1, 2 on $cores cores$over\$" "$tmp/m.txt" \
    && grep -q "^  an MPI job of 2 ranks at each count: its ranks' reports merged" "$tmp/m.txt" \
    && grep -q "^    2 threads $tmp/m/threads-2.0.json and 1 more rank\$" "$tmp/m.txt"
result $? "it says the job's ranks, its reports, and threads x ranks against the cores" "$tmp/m.txt" "$tmp/m.err"
ok "$(sc "$tmp/m" "all(d['totals']['threads'] == t and d['rank'] == k for t in (1, 2) for k, d in r[t].items()) and sorted(r) == [1, 2] and all(sorted(r[t]) == [0, 1] for t in r)")" \
    "every rank ran its team at the count (OMP_NUM_THREADS passes through the launcher)" "$tmp/m/threads-2.1.json"
# The figures are the additive hybrid model's over the ranks' reports, to the 3 decimals JSON keeps.
ok "$(sc "$tmp/m" "all(abs(whole(t)[k] - model(t)[k]) < 6e-4 for t in (1, 2) for k in ('parallel_efficiency', 'load_balance', 'synchronisation', 'serialisation', 'mpi_load_balance', 'mpi_communication'))")" \
    "per count, parallel efficiency, its OpenMP factors and MPI load balance and communication are the merged ranks' (additive hybrid model)" "$tmp/m/scaling.json"
ok "$(sc "$tmp/m" "whole(1)['wall_ns'] == model(1)['wall_ns'] and whole(2)['speedup'] == round(model(1)['wall_ns'] / model(2)['wall_ns'], 3) and abs(whole(2)['computation_scalability'] - model(1)['useful_s'] / model(2)['useful_s']) < 6e-4")" \
    "the job's wall time is its slowest rank's; speedup and computation scalability are the merged job's" "$tmp/m/scaling.json"
ok "$(sc "$tmp/m" "abs(sum(loss(2)['lost'].values()) - (whole(1)['global_efficiency'] - whole(2)['global_efficiency'])) < 3e-3 and set(loss(2)['lost']) >= {'mpi_load_balance', 'mpi_communication'}")" \
    "the loss from 1 to 2 threads is split exactly among the factors, MPI's two among them" "$tmp/m/scaling.json"
ok "$(sc "$tmp/m" "len(j['constructs']) == 1 and [p['instances'] for p in j['constructs'][0]['points']] == [8, 8]")" \
    "the ranks' parallel loop is one construct, its 4 instances on each of the 2 ranks summed at each count" "$tmp/m/scaling.json"

# Reports again: grouped by the counts their names say, the same analysis.
"$oc" scaling --reports --cores="$cores" -f json "$tmp"/m/threads-*.json >"$tmp/again.json" 2>"$tmp/again.err"
ok "$(sc "$tmp/m" "[{k: v for k, v in x.items() if k != 'counters'} for x in (j, json.load(open('$tmp/m/scaling.json')))][0] == [{k: v for k, v in x.items() if k != 'counters'} for x in (j, json.load(open('$tmp/m/scaling.json')))][1]" "$tmp/again.json")" \
    "scaling --reports DIR/threads-*.json merges each count's ranks again: the same figures" "$tmp/again.err" "$tmp/again.json"

# A known MPI loss, made by editing the reports: at 2 threads rank 0 spends all but a tenth of rank 1's time
# outside MPI inside it (MPI load imbalance), or both ranks spend half the runtime in MPI (communication).
mkdir -p "$tmp/lb" "$tmp/com"
python3 - "$tmp/m" "$tmp/lb" "$tmp/com" <<'EOF'
import json, os, sys
src, lb, com = sys.argv[1:4]
for name in os.listdir(src):
    if not name.startswith("threads-") or not name.endswith(".json") or name.count(".") != 2:
        continue
    d = json.load(open(os.path.join(src, name)))
    initial = [t for t in d["threads"] if t["initial"]][0]
    json.dump(d, open(os.path.join(lb, name), "w"))
    json.dump(d, open(os.path.join(com, name), "w"))
    if name.startswith("threads-2."):
        outside = d["wall_ns"] - d["totals"]["mpi"]["setup_ns"]
        e = dict(initial["mpi"])
        initial["mpi"] = dict(e, ns=d["totals"]["mpi"]["setup_ns"] + outside // 2)
        json.dump(d, open(os.path.join(com, name), "w"))
        if d["rank"] == 0:
            other = json.load(open(os.path.join(src, "threads-2.1.json")))
            slow = other["wall_ns"] - [t for t in other["threads"] if t["initial"]][0]["mpi"]["ns"]
            initial["mpi"] = dict(e, ns=max(d["wall_ns"] - slow // 10, 0))
        else:
            initial["mpi"] = e
        json.dump(d, open(os.path.join(lb, name), "w"))
EOF
"$oc" scaling --reports -f json "$tmp"/lb/threads-*.json >"$tmp/lb.json" 2>"$tmp/lb.err"
# The planted factor is low and the words name the factor that loses most, whichever it is; that it is the planted
# one needs the live run's OpenMP factors at 2 threads to lose less (a loaded box's barriers can lose 80%): timing.
largest="max((v, k) for k, v in loss(2)['lost'].items() if v is not None)[1] == loss(2)['largest']"
# How low the edit takes MPI load balance depends on the live run's own times (on one core, oversubscribed, rank 0
# was the slowest before the edit: 0.754 became 0.773); the figure is held to the model of the edited reports.
ok "$(sc "$tmp/lb" "(abs(whole(2)['mpi_load_balance'] - model(2)['mpi_load_balance']) < 6e-4 and $largest and 'loses' in loss(2)['text']) or (whole(2)['mpi_load_balance'], model(2)['mpi_load_balance'], loss(2))" "$tmp/lb.json")" \
    "a rank that waits in MPI for the other: MPI load balance as the edited reports give it, and the largest loss named" "$tmp/lb.err" "$tmp/lb.json"
"$oc" scaling --reports -f json "$tmp"/com/threads-*.json >"$tmp/com.json" 2>"$tmp/com.err"
ok "$(sc "$tmp/com" "(abs(whole(2)['mpi_communication'] - model(2)['mpi_communication']) < 6e-4 and whole(2)['mpi_communication'] < 0.6 and $largest) or (whole(2)['mpi_communication'], model(2)['mpi_communication'], loss(2))" "$tmp/com.json")" \
    "every rank half its time in MPI: MPI communication as the edited reports give it, below 0.6, and the largest loss named" "$tmp/com.err" "$tmp/com.json"
# The planted MPI load imbalance costs about 0.2 of the efficiency from 1 to 2 threads (0.75 -> 0.55); where 2
# threads x 2 ranks pass the cores, the oversubscribed ranks' computation scalability rightly loses as much or more
# (CI's 2 cores: 0.175 against 0.146), so which is the largest is judged on a machine with room for the job.
if [ "$timing" = 1 ] && [ $((2 * 2)) -le "$cores" ]; then
    ok "$(sc "$tmp/lb" "(loss(2)['largest'] == 'mpi_load_balance' and 'to MPI load imbalance (MPI load balance' in loss(2)['text']) or loss(2)" "$tmp/lb.json")" \
        "a rank that waits in MPI for the other: the job loses most to MPI load imbalance" "$tmp/lb.err" "$tmp/lb.json"
elif [ "$timing" = 1 ]; then
    skip "2 threads x 2 ranks oversubscribe the $cores cores: computation scalability then rightly competes with the planted loss" 1 \
        "a rank that waits in MPI for the other: the job loses most to MPI load imbalance"
fi
if [ "$timing" = 1 ]; then
    ok "$(sc "$tmp/com" "loss(2)['largest'] == 'mpi_communication' and 'to MPI communication' in loss(2)['text']" "$tmp/com.json")" \
        "every rank half its time in MPI: the job loses most to MPI communication" "$tmp/com.err" "$tmp/com.json"
fi

# Usage: an empty launcher, and a rank given twice at one count.
"$oc" scaling --mpi=' ' "$prog" >/dev/null 2>"$tmp/u1.err"
u1=$?
cp "$tmp/m/threads-1.0.json" "$tmp/copy-threads-1.0.json"
"$oc" scaling --reports "$tmp"/m/threads-1.0.json "$tmp/copy-threads-1.0.json" "$tmp"/m/threads-2.*.json >/dev/null 2>"$tmp/u2.err"
u2=$?
[ $u1 -eq 2 ] && grep -q "mpi takes the MPI launcher and its options" "$tmp/u1.err" && [ $u2 -eq 1 ] \
    && grep -q "are both of rank 0 at 1 threads" "$tmp/u2.err"
result $? "an empty --mpi (status 2) and one rank's report twice at one count (status 1) are refused" "$tmp/u1.err" "$tmp/u2.err"

[ "$timing" = 1 ] || exit 0
# What a machine left alone shows: at 1 thread rank 1 works twice as long as rank 0, which waits for it in
# MPI_Allreduce: MPI load balance about 3/4 (mean over max of their time outside MPI).
# That premise is read off the run itself: rank 1's WORK samples 1.5 to 2.7 times rank 0's (MPI load balance
# 0.69 to 0.83 for the time they work).  A VM whose host slows one vCPU breaks it (seen late in CI's runs and
# here: 0.88 and 0.95, where rank 0's half of the work took 0.7x and 0.9x the time of rank 1's whole), and the
# run then says nothing of the 1:2 split: skipped, with the ratio.  Whether MPI's time is recorded at all is
# t/ompcollect-mpi-time.sh's to judge.
"$oc" scaling --threads=1 --mpi="$limit $mpirun -np 2 $flags" --runtime "$LIBOMP" -i 1ms --dir="$tmp/t" \
    "$prog" 20 20 >"$tmp/t.txt" 2>"$tmp/t.err"
work="(lambda d: [t for t in d['threads'] if t['initial']][0]['states']['WORK'])"
ratio=$(sc "$tmp/t" "round($work(r[1][1]) / max($work(r[1][0]), 1), 2)")
if sc "$tmp/t" "1.5 <= $ratio <= 2.7" 2>/dev/null | grep -q '^True$'; then
    ok "$(sc "$tmp/t" "0.65 <= whole(1)['mpi_load_balance'] <= 0.85")" \
        "timing: ranks working 1:2 show MPI load balance about 0.75 (rank 1's WORK $ratio x rank 0's)" "$tmp/t.txt"
else
    skip "the machine ran the ranks at unequal speeds: rank 1's WORK was $ratio x rank 0's, not about 2 (a timing matter)" 1 \
        "timing: ranks working 1:2 show MPI load balance about 0.75"
fi
