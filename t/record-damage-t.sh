#!/bin/sh
# record-damage-t.sh - a record the observed program damaged (scribbled strings, forged counts and table sizes, absurd times, logs that claim more than they hold, forged task events) ends in reports (and OTF2 archives whose regions and teams still balance) that say so, in bounded time and memory; a damaged or foreign saved run is refused with a message.
# SPDX-License-Identifier: BSD-3-Clause
: "${top_builddir:?}" "${top_srcdir:?}"
. "$top_srcdir/t/tap.sh"
oc=$top_builddir/tools/ompcollect
damage=$top_builddir/t/record-damage
# Built when configure found libotf2; the sanitizer runtimes a preload names would clash with its own.
reader=$top_builddir/t/otf2-read
cases="strings threads-negative threads-huge counts-huge stack-size times logs waits tables tasks"
echo "1..$((7 * 10 + 3))"
n=0
if ! command -v python3 >/dev/null 2>&1; then
    skip "python3 is needed to read the reports" $((7 * 10 + 3))
    exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/record-damage.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
gunzip -c "$top_srcdir/t/golden/solver.ses.gz" >"$tmp/solver.ses"
# Task events are damaged in a run that traced tasks.
gunzip -c "$top_srcdir/t/golden/tasktrace.ses.gz" >"$tmp/tasktrace.ses"

# The reports run with at most 2 GiB of address space and 60 s.
report() {
    (ulimit -v 2097152 2>/dev/null; exec timeout 60 "$oc" report "$@")
}
for case in $cases; do
    source=$tmp/solver.ses stacks=--stacks-file="$tmp/$case.folded"
    [ "$case" = tasks ] && source=$tmp/tasktrace.ses stacks= # a run without --stacks
    "$damage" "$source" "$tmp/$case.ses" "$case" >"$tmp/$case.log" 2>&1
    result $? "$case: the damaged copy is written" "$tmp/$case.log"
    # shellcheck disable=SC2086 # $stacks is one word or none
    report -f json -o "$tmp/$case.json" --timeline="$tmp/$case.svg" --trace-json="$tmp/$case.trace.json" \
        $stacks "$tmp/$case.ses" >"$tmp/$case.err" 2>&1
    status=$?
    [ $status -eq 0 ]
    result $? "$case: every output is written (exit $status, within 60 s and 2 GiB)" "$tmp/$case.err"
    python3 - "$tmp/$case.json" >"$tmp/$case.check" 2>&1 <<'PY'
import json, sys
def refuse(constant):
    raise ValueError("not JSON: " + constant)
report = json.load(open(sys.argv[1], encoding="utf-8"), parse_constant=refuse)
damage = report.get("record_damage")
assert damage and damage["findings"] >= 1, "no record_damage member: %r" % (damage,)
print(damage["text"])
PY
    result $? "$case: the JSON report is valid JSON and says the record was damaged" "$tmp/$case.check" "$tmp/$case.err"
    grep -q "record of pid [0-9]* is damaged" "$tmp/$case.err"
    result $? "$case: stderr says which process's record was damaged" "$tmp/$case.err"
    python3 -c 'import json,sys; json.load(open(sys.argv[1], encoding="utf-8"))' "$tmp/$case.trace.json" \
        >"$tmp/$case.trace.check" 2>&1 && grep -q 'record damaged' "$tmp/$case.trace.json"
    result $? "$case: the trace is valid JSON and says the record was damaged" "$tmp/$case.trace.check"
    size=$(wc -c <"$tmp/$case.svg" 2>/dev/null || echo 0)
    [ "$size" -gt 0 ] && [ "$size" -lt 4000000 ] && grep -q 'record damaged' "$tmp/$case.svg"
    result $? "$case: the SVG says the record was damaged and stays small ($size bytes)" "$tmp/$case.err"
    if [ ! -x "$reader" ]; then
        skip "$case: no OTF2 (t/otf2-read is not built)"
        continue
    fi
    report -o /dev/null --trace="$tmp/$case.otf2" "$tmp/$case.ses" >"$tmp/$case.otf2.err" 2>&1 \
        && env -u LD_PRELOAD "$reader" "$tmp/$case.otf2/traces.otf2" >"$tmp/$case.otf2.read" 2>&1
    result $? "$case: the OTF2 archive is written, its regions, teams and lock orders balanced" \
        "$tmp/$case.otf2.err" "$tmp/$case.otf2.read"
done

head -c 20000 "$tmp/solver.ses" >"$tmp/cut.ses"
report "$tmp/cut.ses" >"$tmp/cut.err" 2>&1
status=$?
[ $status -eq 125 ] && grep -q 'truncated' "$tmp/cut.err"
result $? "a truncated saved run is refused with exit 125, saying so (exit $status)" "$tmp/cut.err"
report "$top_srcdir/t/golden/MANIFEST" >"$tmp/foreign.err" 2>&1
status=$?
[ $status -eq 125 ] && grep -q 'not a run saved' "$tmp/foreign.err"
result $? "a file that is no saved run is refused with exit 125 (exit $status)" "$tmp/foreign.err"
printf 'OMPCSES1\001\000\000\000\000\000\000\000\377\377\377\377\377\377\377\377' >"$tmp/huge.ses"
report "$tmp/huge.ses" >"$tmp/huge.err" 2>&1
status=$?
[ $status -eq 125 ] && grep -q 'facts' "$tmp/huge.err"
result $? "a saved run claiming an enormous header is refused before reading it (exit $status)" "$tmp/huge.err"
