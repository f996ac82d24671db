#!/bin/sh
# sampling-bias.sh - `make bench-sampling-bias`: does the sampling interval's alignment with the kernel tick bias the WORK ompcollect reports under CPU contention?  Runs bench/sampling-bias beside CPU hogs at several intervals and prints reported WORK over the program's own measure.
# SPDX-License-Identifier: BSD-3-Clause
#
# Usage: sampling-bias.sh OMPCOLLECT LIBOMP WORKLOAD [REPEATS [SECONDS [HOGS]]]
# Environment: INTERVALS (default "tick 4097us 1ms 1100us"; "default" is
# ompcollect's own), THREADS (2),
# CHUNK_US (3000).  Never fails on a number; prints one line per run and a
# table of the ratios per interval.  The hogs (`yes`) are killed on any exit.
oc=${1:?usage: sampling-bias.sh OMPCOLLECT LIBOMP WORKLOAD [REPEATS [SECONDS [HOGS]]]}
libomp=${2:?}
workload=${3:?}
repeats=${4:-4}
seconds=${5:-3}
hogs=${6:-$(($(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2) * 2))}
intervals=${INTERVALS:-tick 4097us 1ms 1100us}
threads=${THREADS:-2}
chunk=${CHUNK_US:-3000}

pids=
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sampling-bias.XXXXXX") || exit 1
# shellcheck disable=SC2086 # the pid list is meant to split
trap 'if [ -n "$pids" ]; then kill $pids 2>/dev/null; wait $pids 2>/dev/null; fi; rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM HUP

tick=$(python3 -c "import time; print(time.clock_getres(6))" 2>/dev/null)
echo "# kernel tick ${tick}s; $threads threads, ${chunk}us chunks, $seconds s per run, $hogs hogs, $repeats repeats"
i=0
while [ "$i" -lt "$hogs" ]; do
    yes >/dev/null &
    pids="$pids $!"
    i=$((i + 1))
done

# run INTERVAL REPEAT: one run; prints "INTERVAL interval_ns reported_work_s true_work_s cpu_work_s".
run() {
    option=
    [ "$1" = default ] || option=--interval=$1
    # shellcheck disable=SC2086 # no option is no word
    if ! "$oc" --runtime "$libomp" $option -f json -o "$tmp/r.json" "$workload" "$seconds" "$threads" "$chunk" \
        >"$tmp/out" 2>"$tmp/err"; then
        echo "# $1 run $2 failed: $(head -n 2 "$tmp/err" | tr '\n' ' ')"
        return
    fi
    python3 - "$1" "$tmp/r.json" "$tmp/out" <<'EOF'
import json, sys
label, report, measured = sys.argv[1], json.load(open(sys.argv[2])), sys.argv[3]
interval = report["interval_ns"]
by_tid = {t["tid"]: t for t in report["threads"]}
work = truth = cpu = 0
worst = 1.0
for line in open(measured):
    _, tid, wall_ns, cpu_ns, _ = line.split()
    thread = by_tid.get(int(tid))
    if thread is None:
        continue
    mine = thread["states"]["WORK"] * interval
    if int(wall_ns) > 0 and abs(mine / int(wall_ns) - 1) > abs(worst - 1):
        worst = mine / int(wall_ns)
    work += mine
    truth += int(wall_ns)
    cpu += int(cpu_ns)
print("%s %d %.3f %.3f %.3f %.3f" % (label, interval, work / 1e9, truth / 1e9, cpu / 1e9, worst))
EOF
}

for r in $(seq 1 "$repeats"); do
    for interval in $intervals; do
        run "$interval" "$r"
    done
done >"$tmp/runs"
cat "$tmp/runs"
python3 - "$tmp/runs" <<'EOF'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    if line.startswith("#"):
        continue
    label, interval, work, truth, cpu, worst = line.split()
    rows.setdefault((label, int(interval)), []).append((float(work), float(truth), float(cpu), float(worst)))
print()
print("| interval | runs | reported WORK s | measured WORK s (wall) | CPU s | reported/measured: median (min-max) "
      "| worst thread's ratio: min-max |")
print("|---|---|---|---|---|---|---|")
for (label, interval), runs in rows.items():
    ratios = [w / t for w, t, _, _ in runs if t > 0]
    worst = [r[3] for r in runs]
    if not ratios:
        continue
    print("| %s (%.4g ms) | %d | %.2f | %.2f | %.2f | %.3f (%.3f-%.3f) | %.2f-%.2f |" % (
        label, interval / 1e6, len(runs), statistics.median(r[0] for r in runs),
        statistics.median(r[1] for r in runs), statistics.median(r[2] for r in runs),
        statistics.median(ratios), min(ratios), max(ratios), min(worst), max(worst)))
EOF
