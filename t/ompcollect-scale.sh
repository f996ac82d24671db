#!/bin/sh
# ompcollect-scale.sh - a run at the record's scale keeps every figure: a million regions over three constructs, 100 and 10,000 constructs, 256 threads with a trace, millions of uncontended lock acquisitions; the record's memory follows what the run wrote; a bound reached is said on stderr and in the reports.
# SPDX-License-Identifier: BSD-3-Clause
. "${top_srcdir:?}/t/ompcollect-lib.sh"
prog=$top_builddir/t/ompcollect-scale

echo "1..15"
n=0
result_lines="head -n 40"

# A million regions, a third at each of three constructs; one thread keeps
# it quick (a team of one still forks and joins).
OMP_NUM_THREADS=1 run --runtime "$LIBOMP" -f json -o "$tmp/regions.json" "$prog" regions 1000002
result $status "a million regions run to the end under ompcollect (exit $status)" "$tmp/err"
# One python3 reads the report (16384 listed regions) for the three (check, t/ompcollect-lib.sh).
check regions "every instance counts in its construct: 3 rows of 333334, summing to the 1000002 forks and joins" \
    'r["totals"]["forks"] == r["totals"]["joins"] == 1000002 and len(r["constructs"]) == 3 and all(c["instances"] == 333334 for c in r["constructs"])'
check regions "the constructs' times add up to the time inside outermost regions; 16384 instances are listed one by one" \
    'sum(c["total_ns"] for c in r["constructs"]) == r["totals"]["outermost_ns"] > 0 and r["totals"]["regions"] == 16384'
check regions "the one bound reached is the instance list, with its exact count, in the JSON report" \
    '[(l["what"], l["count"], l["bound"]) for l in r["limits"]] == [("regions", 1000002 - 16384, 16384)]'
checked regions
grep -q "^ompcollect: pid [0-9]*: 983618 region instances past the first 16384 are not listed one by one" "$tmp/err"
result $? "stderr says it in one line" "$tmp/err"
OMP_NUM_THREADS=1 run --runtime "$LIBOMP" -o "$tmp/regions.txt" "$prog" regions 30000
grep -q "limit reached: 13616 region instances past the first 16384" "$tmp/regions.txt" \
    && grep -q "total: 30000 forks, 30000 joins" "$tmp/regions.txt"
result $? "the text report says it too, and its totals count every instance" "$tmp/regions.txt"

# Distinct constructs, each forked once: the record keeps each (its code
# address), and the report, which shows the program as written, folds them
# into the one source line their macro puts them all on.
for count in 100 10000; do
    OMP_NUM_THREADS=2 run --runtime "$LIBOMP" -f json -o "$tmp/c$count.json" "$prog" constructs $count
    holds "$tmp/c$count.json" "r['totals']['forks'] == $count and len(r['constructs']) == 1 and r['constructs'][0]['copies'] == $count and r['constructs'][0]['instances'] == $count and all(l['what'] == 'waits' and l['count'] > 0 for l in r['limits'])"
    # Each construct's barrier is a wait of its own: samples in more than a
    # thread's 1024 waits (a loaded machine puts more samples in barriers)
    # reach the wait table's bound, which limits[] must then say.
    result $? "$count constructs at one line: $count copies in one row, every instance kept, no bound reached but the wait table's, said (exit $status)" "$tmp/c$count.json" "$tmp/err"
done

# 256 threads with a trace at the default buffer: every thread keeps its log.
# Sampled every 100 ms: each thread still takes samples (its tables are
# written), without 256 spinning threads' signals at the default interval
# (7.8 CPU-seconds of the suite; the data written differs by 5%).
OMP_NUM_THREADS=256 run --runtime "$LIBOMP" --interval=100ms -f json -o "$tmp/wide.json" --trace-json "$tmp/wide.trace.json" \
    "$prog" wide 20
cp "$tmp/err" "$tmp/wide.err"
check wide "256 threads traced: every thread followed, no event dropped, no bound reached (exit $status)" \
    "$status == 0 and "'len(r["threads"]) == 256 and r["totals"]["forks"] == 20 and r["event_log"]["dropped"] == 0 and r["limits"] == []'
check wide "the logs hold every event of the 256 threads but the uncontended lock waits taken out" \
    'r["event_log"]["recorded"] == sum(sum(t["events"].values()) for t in threads) - 2 * r["event_log"]["short_waits"] and all(t["events"]["begin_ibar"] >= 20 for t in threads)'
check wide "the record holds only what the run wrote: data under 64 MiB and under 1% of the reservation" \
    'r["record"]["data_bytes"] < 64 << 20 and r["record"]["data_bytes"] * 100 < r["record"]["reserved_bytes"]'
checked wide

# Uncontended locks: 4 million acquisitions, which would fill the 8 MiB
# (262144-event) logs 15 times over were each one logged.
OMP_NUM_THREADS=2 run --runtime "$LIBOMP" -f json -o "$tmp/locks.json" --trace-json "$tmp/locks.trace.json" \
    "$prog" locks 2000000
holds "$tmp/locks.json" 'r["event_log"]["dropped"] == 0 and r["event_log"]["short_waits"] >= 2000000 and r["limits"] == []'
result $? "4 million uncontended acquisitions: counted, not logged, and the trace holds the whole run (exit $status)" "$tmp/locks.json" "$tmp/err"
holds "$tmp/locks.json" 'r["event_log"]["short_waits"] <= 4000000 and r["event_log"]["short_wait_ns"] < r["event_log"]["short_waits"] * 1000'
result $? "each wait taken out lasted under a microsecond" "$tmp/locks.json"

# A bound reached by a small buffer: stderr names the cause and the count, the JSON the same count.
OMP_NUM_THREADS=2 run --runtime "$LIBOMP" -f json -o "$tmp/small.json" --trace-buffer=4096 --trace-json "$tmp/small.trace.json" \
    "$prog" wide 200
holds "$tmp/small.json" '[l["count"] for l in r["limits"] if l["what"] == "event_log"] == [r["event_log"]["dropped"]] != [0]'
result $? "a full event log is one entry of limits[] with the exact count of events dropped" "$tmp/small.json"
count=$(python3 "$query" "$tmp/small.json" 'r["event_log"]["dropped"]')
grep -q "^ompcollect: pid [0-9]*: $count events of 2 threads did not fit their 4096-byte event logs (--trace-buffer)" "$tmp/err"
result $? "stderr says how many events of which threads did not fit, and why" "$tmp/err"
