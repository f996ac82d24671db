#!/bin/sh
# ompcollect-hostile.sh - a program that damages the record from inside: a planted entry naming a process that is not the run's is neither waited for nor signalled, a record cut short is said to be cut (and what is left reported), a scribbled slot ends in a report that says it is damaged.
# SPDX-License-Identifier: BSD-3-Clause
. "$top_srcdir/t/ompcollect-lib.sh"
prog=$top_builddir/t/ompcollect-hostile
echo "1..8"
n=0

sleep 300 &
bystander=$!
timeout 60 "$oc" -o "$tmp/plant.txt" "$prog" plant "$bystander" >"$tmp/plant.out" 2>"$tmp/plant.err"
status=$?
[ $status -eq 0 ]
result $? "a planted 'still recording' entry naming another process is not waited for (exit $status; 124: hung)" \
    "$tmp/plant.err"
kill -0 "$bystander" 2>/dev/null
result $? "the process the planted entry names was not signalled"
# The forged slot next to the program's this time: where it lies does not matter to the launcher,
# and 62 claimed slots fewer to read make the run seconds shorter.  The program creates the marker
# once the entry is planted and then waits for a signal: the SIGTERM lands while the launcher
# supervises, and the program's own end by it (exit 143) shows the launcher forwarded it there.
status=$(python3 "$top_srcdir/t/ompcollect-run.py" "$tmp/planted" 15 launcher -- \
    "$oc" -o "$tmp/plant2.txt" "$prog" plant-next "$bystander" "$tmp/planted" 2>"$tmp/plant2.err")
[ "$status" = 143 ] && grep -q "was killed by signal 15" "$tmp/plant2.err" && kill -0 "$bystander" 2>/dev/null
result $? "a SIGTERM to ompcollect while it supervises reaches the program (exit $status), not the process a planted entry names" \
    "$tmp/plant2.err"
kill "$bystander" 2>/dev/null

"$oc" -o "$tmp/cut.txt" "$prog" cut >"$tmp/cut.out" 2>"$tmp/cut.err"
status=$?
[ $status -eq 0 ]
result $? "a program that cut the record keeps its exit status (exit $status)" "$tmp/cut.err"
grep -q 'record was cut to [0-9]* of its' "$tmp/cut.err"
result $? "the cut record is said to be cut" "$tmp/cut.err"
! grep -q 'agent never ran' "$tmp/cut.err" && grep -q '^ompcollect report:' "$tmp/cut.txt"
result $? "a cut record is not taken for an agent that never ran: the slot that is left is reported" "$tmp/cut.err"

"$oc" -f json -o "$tmp/scribble.json" "$prog" scribble >"$tmp/scribble.out" 2>"$tmp/scribble.err"
status=$?
[ $status -eq 0 ] && python3 -c '
import json, sys
report = json.load(open(sys.argv[1], encoding="utf-8"))
assert report["record_damage"]["findings"] >= 2, report.get("record_damage")' "$tmp/scribble.json" >"$tmp/scribble.check" 2>&1
result $? "a scribbled slot ends in a valid JSON report that says the record was damaged (exit $status)" \
    "$tmp/scribble.check" "$tmp/scribble.err"
grep -q 'module count of 99999' "$tmp/scribble.err"
result $? "stderr names what did not hold (the forged module count)" "$tmp/scribble.err"
