#!/bin/sh
# ompcollect-signals.sh - programs with signals of their own: their handlers see only their own signals, sampling goes on where it can, and the report says what happened; threads OpenMP never reported stay out of the totals.
# SPDX-License-Identifier: BSD-3-Clause
. "${top_srcdir:?}/t/ompcollect-lib.sh"
jobs=$top_builddir/t/ompcollect-jobs

echo "1..14"
n=0
# A failed test's JSON report: the numbers the assertions read, ahead of the report's first lines.
summarize() {
    case $1 in
    *.json)
        python3 "$query" "$1" '[(r["sample_signal_name"], r["sampling_status"], r["signals_passed"], r["interval_ns"], r["wall_ns"])] + [(t["index"], t["openmp"], t["samples"], t["expected"], t["blocked_ns"], t["blocked_samples"], t["states"]) for t in threads]' 2>&1 | sed -e 's|^|# summary: |'
        ;;
    esac
}
result_summary=summarize
# collect [--interval=TIME] NAME MODE [ARGUMENT]: the mode under ompcollect, a JSON and a text report of the same kind of run.
collect() {
    interval=
    case $1 in --interval=*) interval=$1 && shift ;; esac
    name=$1
    shift
    # shellcheck disable=SC2086 # no interval is no word
    "$oc" --runtime "$LIBOMP" $interval -f json -o "$tmp/$name.json" "$jobs" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
    status=$?
}

# cover() judges only threads with >= 50 samples' worth of life: 1 ms makes these 0.25 s runs count.
collect --interval=1ms urg sigurg 200
[ $status -eq 0 ] && grep -q 'handler saw 200, 200 of them' "$tmp/urg.out"
result $? "a program with its own SIGURG handler: the handler sees exactly the program's 200 SIGURGs" \
    "$tmp/urg.out" "$tmp/urg.err"
holds "$tmp/urg.json" 'r["sample_signal_name"] == "SIGRTMAX" and r["sampling_status"] == "on" and r["signals_passed"] == 0 and len(threads) == 2 and all(cover(t) >= 0.9 for t in threads)'
result $? "SIGURG program: sampled with SIGRTMAX, as the report says; every thread fully covered" "$tmp/urg.json"

collect --interval=1ms rt rtsig 200
[ $status -eq 0 ] && grep -q 'handler saw 200, 200 of them' "$tmp/rt.out"
result $? "a program that installs its own SIGRTMAX handler while being sampled with it: the handler sees exactly its 200 signals" \
    "$tmp/rt.out" "$tmp/rt.err"
holds "$tmp/rt.json" 'r["program_handler_ns"] > 0 and r["signals_passed"] == 200 and r["sampling_status"] == "on" and all(cover(t) >= 0.9 for t in threads)'
result $? "SIGRTMAX program: the report records when it installed its handler and the 200 signals passed to it; sampling went on" \
    "$tmp/rt.json"
"$oc" --runtime "$LIBOMP" "$jobs" rtsig 20 >/dev/null 2>"$tmp/rt.txt"
grep -q '^  the program installed its own handler for SIGRTMAX at [0-9.]* s: the 20 signals not from ompcollect.s timers went to it, and sampling went on$' "$tmp/rt.txt"
result $? "SIGRTMAX program: the text report says so in words" "$tmp/rt.txt"

collect raw rawsig
[ $status -eq 0 ] && holds "$tmp/raw.json" 'r["sampling_status"] == "replaced" and 0 < r["sampling_stopped_ns"] < r["wall_ns"] and all(t["samples"] < t["expected"] * 0.6 for t in threads)'
result $? "a handler installed behind sigaction's back: sampling stops within a scan and the report says when" \
    "$tmp/raw.json" "$tmp/raw.err"
"$oc" --runtime "$LIBOMP" "$jobs" rawsig >/dev/null 2>"$tmp/raw.txt"
grep -q "^  sampling stopped at [0-9.]* s: the program replaced ompcollect's handler for SIGRTMAX without sigaction or signal" "$tmp/raw.txt"
result $? "raw handler: the text report says sampling stopped and why, instead of a silent shortfall" "$tmp/raw.txt"

# The blocked thread's samples must come within 10% of 0.2 s's worth: 20 samples of slack at 1 ms, 2 at a 10 ms tick.
collect --interval=1ms block block
[ $status -eq 0 ] && holds "$tmp/block.json" 'len(others) == 1 and others[0]["blocked_ns"] >= 0.1e9 and others[0]["blocked_samples"] * r["interval_ns"] >= 0.05e9 and initial["blocked_ns"] == 0'
result $? "a thread that blocks the sampling signal for 0.15 s: the report has the time and the samples it missed" \
    "$tmp/block.json" "$tmp/block.err"
holds "$tmp/block.json" 'others[0]["samples"] + others[0]["blocked_samples"] >= 0.9 * others[0]["expected"] and others[0]["states"]["WORK"] < 0.6 * others[0]["expected"]'
result $? "blocked thread: the missed samples are not counted as a state" "$tmp/block.json"

# 1.25 s of sleeps at 1 ms: over 1,000 samples' worth, so 0.9 of it leaves 100 samples of slack.
collect --interval=1ms sleep sleep
[ $status -eq 0 ] && grep -q 'sleep: .* 0 sleeps cut short' "$tmp/sleep.out"
result $? "nanosleep, clock_nanosleep, usleep and sleep sleep their whole time while sampled (a handled signal ends them early)" \
    "$tmp/sleep.out" "$tmp/sleep.err"
holds "$tmp/sleep.json" 'len(others) == 1 and others[0]["blocked_ns"] == 0 and others[0]["states"]["WORK"] * r["interval_ns"] >= 0.9 * 1.25e9 and cover(others[0]) >= 0.9'
result $? "the sleeping thread's time is sampled in the state it slept in, none of it counted as blocked" \
    "$tmp/sleep.json" "$tmp/sleep.err"

collect own pthread
# The program's thread works 150 ms on its own (>= 100 ms of samples); a sanitizer runtime may add short-lived helper threads of its own.
[ $status -eq 0 ] && holds "$tmp/own.json" 'len([t for t in threads if not t["openmp"] and t["states"]["SERIAL"] * r["interval_ns"] >= 0.1e9]) == 1 and totals["threads"] == 2 and r["other_threads"]["threads"] >= 1 and r["other_threads"]["samples"] * r["interval_ns"] >= 0.1e9'
result $? "a thread of the program's own (never seen by the OpenMP runtime) is marked as not OpenMP" \
    "$tmp/own.json" "$tmp/own.err"
holds "$tmp/own.json" 'totals["threads"] == 2 and totals["samples"] == sum(t["samples"] for t in threads if t["openmp"]) and all(totals["states"][s] == sum(t["states"][s] for t in threads if t["openmp"]) for s in r["states"])'
result $? "the program's own thread is kept out of the OpenMP totals" "$tmp/own.json"

# Threads that come and go: each gets one slot for its one life, none a second
# one as it exits (the scanner still lists it) or after the process ended.
churned=0
for round in 1 2 3; do
    collect churn churn
    [ $status -eq 0 ] && holds "$tmp/churn.json" 'len(threads) > 3 and len(threads) == len(set(t["tid"] for t in threads)) and all(t["lifetime_ns"] > 0 for t in threads)' \
        || break
    churned=$round
done
[ $churned -eq 3 ]
result $? "short-lived OpenMP threads: one slot per thread, each with a life of its own (3 runs)" \
    "$tmp/churn.json" "$tmp/churn.err"
