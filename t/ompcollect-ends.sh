#!/bin/sh
# ompcollect-ends.sh - a program that crashes, aborts, is interrupted, terminated, killed or leaves through _exit still gets its report, marked incomplete, with its own exit status; -o files are replaced only by complete reports.
# SPDX-License-Identifier: BSD-3-Clause
. "${top_srcdir:?}/t/ompcollect-lib.sh"
jobs=$top_builddir/t/ompcollect-jobs
runner=$top_srcdir/t/ompcollect-run.py
# A sanitized shim brings AddressSanitizer into the program, whose SIGSEGV
# handler would turn the crash into exit(1): let the signal kill it, as it
# does without ompcollect's test build.
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0
export ASAN_OPTIONS

echo "1..17"
n=0
# A complete text report: its header at the top and its last section at the end.
whole_report() {
    head -n 1 "$1" | grep -q '^ompcollect report: ' && tail -n 1 "$1" | grep -q '^Totals: '
}

# Crashes: the launcher collects the program itself, so it knows the signal.
for crash in segv:11:SIGSEGV abort:6:SIGABRT; do
    mode=${crash%%:*}
    number=${crash#*:}
    name=${number#*:}
    number=${number%%:*}
    "$oc" --runtime "$LIBOMP" -o "$tmp/$mode.txt" "$jobs" "$mode" >"$tmp/$mode.out" 2>"$tmp/$mode.err"
    status=$?
    [ $status -eq $((128 + number)) ] && grep -q "killed by signal $number" "$tmp/$mode.err"
    result $? "$mode: exit status $((128 + number)) passes through, ompcollect says why" "$tmp/$mode.err"
    whole_report "$tmp/$mode.txt" \
        && grep -q "^  incomplete: killed by signal $number ($name, .*) after [0-9.]* s$" "$tmp/$mode.txt"
    result $? "$mode: the report is written and marked incomplete: killed by signal $number ($name)" \
        "$tmp/$mode.txt"
done

# Interrupts, while the program's threads are busy in a region.
# interrupt NAME SIGNAL TARGET: runs the wait mode under ompcollect with a JSON report and interrupts it.
# The > 50 samples expected by the kill come from ~0.1 s of 2 threads: 1 ms, whatever the default.
interrupt() {
    rm -f "$tmp/$1.marker"
    python3 "$runner" "$tmp/$1.marker" "$2" "$3" -- "$oc" --runtime "$LIBOMP" --interval=1ms -f json -o "$tmp/$1.json" \
        "$jobs" wait "$tmp/$1.marker" >"$tmp/$1.status" 2>"$tmp/$1.err"
    status=$(cat "$tmp/$1.status")
}
interrupt int 2 group
[ "$status" = 130 ] && holds "$tmp/int.json" \
    'not r["complete"] and r["end"]["signal"] == 2 and r["end"]["how"] == "signal" and totals["samples"] > 50 and totals["forks"] == 1'
result $? "Ctrl-C (SIGINT to the job): exit 130, report with the samples so far, marked incomplete" \
    "$tmp/int.status" "$tmp/int.err" "$tmp/int.json"

interrupt term 15 launcher
[ "$status" = 143 ] && holds "$tmp/term.json" 'not r["complete"] and r["end"]["signal"] == 15 and totals["samples"] > 50'
result $? "SIGTERM to ompcollect (a batch scheduler's time limit) reaches the program: exit 143, report marked incomplete" \
    "$tmp/term.status" "$tmp/term.err" "$tmp/term.json"

interrupt hup 1 launcher
[ "$status" = 129 ] && holds "$tmp/hup.json" 'not r["complete"] and r["end"]["signal"] == 1'
result $? "SIGHUP to ompcollect reaches the program: exit 129, report marked incomplete" \
    "$tmp/hup.status" "$tmp/hup.err" "$tmp/hup.json"

interrupt kill 9 program
[ "$status" = 137 ] && holds "$tmp/kill.json" \
    'not r["complete"] and r["end"]["signal"] == 9 and totals["samples"] > 50 and len(threads) == 2 and all(t["samples"] > 0 for t in threads)'
result $? "SIGKILL of the program: exit 137, every thread's samples up to the kill are in the report" \
    "$tmp/kill.status" "$tmp/kill.err" "$tmp/kill.json"
holds "$tmp/kill.json" '0.1e9 < r["wall_ns"] < 30e9 and all(not t["exited"] and t["lifetime_ns"] <= r["wall_ns"] for t in threads)'
result $? "SIGKILL: the report's time ends when the program died, not when it would have ended" "$tmp/kill.json"
grep -q "^ompcollect: .* was killed by signal 9" "$tmp/kill.err"
result $? "SIGKILL: ompcollect says the program was killed" "$tmp/kill.err"

# _exit: the exit handlers never run, the record is still there.
"$oc" --runtime "$LIBOMP" -f json -o "$tmp/exit.json" "$top_builddir/t/ompcollect-prog" 4 _exit \
    >/dev/null 2>"$tmp/exit.err"
status=$?
[ $status -eq 4 ] && holds "$tmp/exit.json" \
    'not r["complete"] and r["end"]["how"] == "_exit" and r["end"]["exit_status"] == 4 and totals["forks"] == 1 and totals["samples"] > 0'
result $? "_exit: status 4 passes through, report with its region and samples, marked incomplete" \
    "$tmp/exit.err" "$tmp/exit.json"
"$oc" --runtime "$LIBOMP" -f json -o "$tmp/normal.json" "$top_builddir/t/ompcollect-prog" 0 \
    >/dev/null 2>"$tmp/normal.err"
holds "$tmp/normal.json" 'r["complete"] and r["end"]["how"] == "exit" and r["end"]["exit_status"] == 0'
result $? "a normal exit: the report is complete, with exit status 0" "$tmp/normal.json"

# -o FILE: the previous file stays whole until a complete new report replaces it.
printf 'previous report\n' >"$tmp/keep.txt"
rm -f "$tmp/keep.marker"
status=$(python3 "$runner" "$tmp/keep.marker" 9 program --copy "$tmp/keep.txt" "$tmp/keep.midrun" -- \
    "$oc" --runtime "$LIBOMP" -o "$tmp/keep.txt" "$jobs" wait "$tmp/keep.marker" 2>"$tmp/keep.err")
[ "$status" = 137 ] && [ "$(cat "$tmp/keep.midrun")" = "previous report" ]
result $? "-o FILE: while the program runs, the previous FILE is untouched" "$tmp/keep.midrun" "$tmp/keep.err"
whole_report "$tmp/keep.txt" && grep -q '^  incomplete: killed by signal 9' "$tmp/keep.txt"
result $? "-o FILE: after the program is killed, FILE is a whole new report" "$tmp/keep.txt"
[ -z "$(find "$tmp" -name '.*ompcollect-*')" ]
result $? "-o FILE: no temporary file is left beside it"

printf 'previous report\n' >"$tmp/refused.txt"
OMP_TOOL=disabled "$oc" --runtime "$LIBOMP" -o "$tmp/refused.txt" "$jobs" segv >/dev/null 2>"$tmp/refused.err"
status=$?
[ $status -eq 125 ] && [ "$(cat "$tmp/refused.txt")" = "previous report" ]
result $? "-o FILE: a run that produces no report (cannot attach) leaves the previous FILE as it was" \
    "$tmp/refused.err" "$tmp/refused.txt"

"$oc" --runtime "$LIBOMP" -o "$tmp/no-such-dir/r.txt" "$jobs" segv >"$tmp/nodir.out" 2>"$tmp/nodir.err"
status=$?
[ $status -eq 125 ] && grep -q 'no-such-dir' "$tmp/nodir.err" && [ ! -s "$tmp/nodir.out" ]
result $? "-o into a missing directory: refused before the program runs (exit 125)" "$tmp/nodir.err"
