#!/bin/sh
# ompcollect-cover.sh - cover tells the truth: a thread's samples are held against its whole life, and the part they miss is put down to its cause (the signal blocked, the runtime's initialization before sampling) in every format.
# SPDX-License-Identifier: BSD-3-Clause
. "${top_srcdir:?}/t/ompcollect-lib.sh"
jobs=$top_builddir/t/ompcollect-jobs

echo "1..10"
n=0
# collect NAME FORMAT MODE ARGUMENT: the mode under ompcollect at 1 ms, one report in FORMAT.
collect() {
    "$oc" --runtime "$LIBOMP" --interval=1ms -f "$2" -o "$tmp/$1.$2" "$jobs" "$3" "$4" >"$tmp/$1.out" 2>"$tmp/$1.err"
    status=$?
}

# Thread 1 blocks the sampling signal for the first half of its 0.4 s.  The
# margin comes from the sample count: 10 samples' worth of its life (its
# start and end around the region) plus 5%.  One run, saved, gives the
# three formats, so the text and the CSV must say what the JSON says.
"$oc" --runtime "$LIBOMP" --interval=1ms --save="$tmp/half.ses" -f json -o "$tmp/half.json" "$jobs" halfblock 0.4 \
    >"$tmp/half.out" 2>"$tmp/half.err"
status=$?
tolerance='(0.05 + 10.0 / others[0]["expected"])'
# How long the signal was blocked is the program's to say (a loaded machine
# stretches the 0.2 s: 0.5 s of a 0.7 s life once, which no "half its life"
# holds), between the block's return and the unblock's call at least, and
# from the block's call to the unblock's return at most; the gap is the
# agent's, on its own clock, to within two intervals either way.
blocked=$(sed -n 's/^blocked: thread 1 had SIGRTMAX blocked for \([0-9.]*\) to \([0-9.]*\) s$/(\1, \2)/p' "$tmp/half.out")
gaps='"blocked %d ns for the program'"'"'s %s s, life %d ns, cover %s, %d samples of %d expected" % (others[0]["cover"]["gaps_ns"]["blocked"], '"${blocked:-None}"', others[0]["lifetime_ns"], others[0]["cover"], others[0]["samples"], others[0]["expected"])'
python3 "$query" "$tmp/half.json" "$gaps" >"$tmp/half.values" 2>&1
[ $status -eq 0 ] && [ -n "$blocked" ] && holds "$tmp/half.json" "len(others) == 1 and (lambda inner, outer, gap, slack: inner * 1e9 - slack <= gap <= outer * 1e9 + slack)(*$blocked, others[0]['cover']['gaps_ns']['blocked'], 2 * r['interval_ns'])"
result $? "a thread that blocks the sampling signal for the first half of its work: the time it had it blocked is put down to the signal blocked" \
    "$tmp/half.values" "$tmp/half.out" "$tmp/half.err"
holds "$tmp/half.json" "abs(others[0]['cover']['share'] - (1 - others[0]['cover']['gaps_ns']['blocked'] / others[0]['lifetime_ns'])) <= $tolerance and others[0]['cover']['gaps_ns']['unexplained'] <= $tolerance * others[0]['lifetime_ns']"
result $? "... its cover is its life less that time, and nothing is left unexplained" "$tmp/half.values"

"$oc" report -f text -o "$tmp/half.text" "$tmp/half.ses" 2>>"$tmp/half.err" || status=$?
# The table's row of thread 1: its cover column (the JSON's share, in whole percent), then the line that says why.
share=$(python3 "$query" "$tmp/half.json" "round(100 * others[0]['cover']['share'])" 2>/dev/null)
blocked_s=$(python3 "$query" "$tmp/half.json" "'%.3f' % (others[0]['cover']['gaps_ns']['blocked'] / 1e9)" 2>/dev/null)
[ $status -eq 0 ] && awk -v share="${share:-x}" '$1 == "1" && $4 ~ /%$/ { sub(/%/, "", $4); found = 1; exit !($4 + 0 >= share - 1 && $4 + 0 <= share + 1 && share < 100) } END { if (!found) exit 1 }' "$tmp/half.text" \
    && [ -n "$blocked_s" ] && grep -q "^  thread 1: [0-9.]* s of its [0-9.]* s not sampled: .*$blocked_s s with the sampling signal blocked" "$tmp/half.text"
result $? "text: thread 1's cover column is the JSON's (not 100%), and a line says the signal was blocked for the JSON's time (${blocked_s:-?} s)" \
    "$tmp/half.text"

"$oc" report -f csv -o "$tmp/half.csv" "$tmp/half.ses" 2>>"$tmp/half.err" || status=$?
[ $status -eq 0 ] && python3 - "$tmp/half.csv" "$tmp/half.json" <<'PY'
import csv, json, sys
rows = [r for r in csv.reader(open(sys.argv[1], newline="")) if r and r[0] in ("section", "thread_cover")]
header = next(r for r in rows if r[0] == "section" and "sampled_ns" in r)
data = [dict(zip(header[1:], r[1:])) for r in rows if r[0] == "thread_cover"]
one = next(d for d in data if d["index"] == "1")
report = json.load(open(sys.argv[2]))
mine = [t for t in report["threads"] if t["index"] == 1][0]["cover"]
life = int(one["lifetime_ns"])
gaps = sum(int(one[k]) for k in one if k.endswith("_ns") and k not in ("lifetime_ns", "sampled_ns"))
sys.exit(not (len(data) == 2 and int(one["blocked_ns"]) == mine["gaps_ns"]["blocked"]
              and abs(float(one["cover"]) - mine["share"]) <= 0.001 and int(one["sampled_ns"]) + gaps >= life))
PY
result $? "CSV: the thread_cover table has thread 1's blocked time and cover (the JSON's), and its gaps fill its life" \
    "$tmp/half.csv"

# The initial thread exists before sampling can begin (the agent's start-up:
# START initializes the runtime first): its life counts from the record's
# start all the same, and the time before its first sample is put down to
# the start-up, not hidden.
collect init json serialinit 0.3
[ $status -eq 0 ] && holds "$tmp/init.json" 'initial["lifetime_ns"] == r["wall_ns"] and initial["cover"]["gaps_ns"]["startup"] > 0 and all(t["cover"]["gaps_ns"]["startup"] == 0 for t in others)'
result $? "the initial thread's life begins with the record; the start-up before sampling is its own gap" \
    "$tmp/init.json" "$tmp/init.err"
holds "$tmp/init.json" 'initial["states"]["SERIAL"] * r["interval_ns"] >= 0.25e9 and cover(initial) >= 0.95 and initial["cover"]["gaps_ns"]["unexplained"] + initial["cover"]["gaps_ns"]["unarmed"] <= 0.02 * initial["lifetime_ns"]'
status=$?
# What the check reads, for a failure's diagnostics (the report's first lines say none of it).
python3 "$query" "$tmp/init.json" '"SERIAL %d samples at %d ns; cover(initial) %.4f; life %d ns; gaps %s; samples %d of %d expected" % (initial["states"]["SERIAL"], r["interval_ns"], cover(initial), initial["lifetime_ns"], initial["cover"]["gaps_ns"], initial["samples"], initial["expected"])' >"$tmp/init.values" 2>&1
result $status "0.3 s of serial work before the first region is sampled as SERIAL: nothing of the initial thread's life goes missing" \
    "$tmp/init.values"
# A thread's samples stand for timer expirations, and its timer cannot have
# expired more often than its armed life allows (one more for a handler
# running as the thread ends).  At 100 us an expiration that came while an
# earlier signal was handled was counted twice, hundreds of samples past
# that bound, and on one core under load often enough to take the whole
# start-up gap above.
"$oc" --runtime "$LIBOMP" --interval=100us -f json -o "$tmp/fine.json" "$jobs" serialinit 0.2 >"$tmp/fine.out" 2>"$tmp/fine.err"
[ $? -eq 0 ] && holds "$tmp/fine.json" 'all(t["samples"] <= (t["lifetime_ns"] - t["cover"]["gaps_ns"]["startup"] - t["cover"]["gaps_ns"]["unarmed"]) // r["interval_ns"] + 1 for t in threads)'
result $? "at 100 us, no thread is sampled for longer than its timer was armed" "$tmp/fine.json" "$tmp/fine.err"
# POP's threads are there for the whole run: the worker the runtime starts
# at the first fork, after 0.3 s of serial code, left its core idle that
# long, which serialisation counts (it read 0.97 parallel efficiency for a
# run that was 85% serial on two threads).
holds "$tmp/init.json" 'r["efficiency"]["lost"]["before_threads"] * r["interval_ns"] >= 0.25e9 and r["efficiency"]["parallel_efficiency"] <= 0.75 and r["efficiency"]["samples"] == sum(sum(t["states"].values()) for t in threads if t["openmp"]) + r["efficiency"]["lost"]["before_threads"]'
result $? "POP metrics count the worker's time before the first fork as serialisation" "$tmp/init.json"
collect init text serialinit 0.3
[ $status -eq 0 ] && grep -q "cover = samples x interval / the thread's life, the initial thread's from the record's start" "$tmp/init.text"
result $? "text: the legend says what cover divides by" "$tmp/init.text"

# A handler installed behind sigaction's back stops sampling: what follows is
# put down to that, not left unexplained.
collect raw json rawsig ""
[ $status -eq 0 ] && holds "$tmp/raw.json" 'r["sampling_status"] == "replaced" and initial["cover"]["gaps_ns"]["stopped"] > 0 and all(t["cover"]["gaps_ns"]["stopped"] > 0 and t["cover"]["gaps_ns"]["unexplained"] <= 0.05 * t["lifetime_ns"] for t in threads if t["expected"] >= 50)'
result $? "sampling stopped: each thread's time after it is put down to that, not left unexplained" "$tmp/raw.json" "$tmp/raw.err"
