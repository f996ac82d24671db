#!/bin/sh
# ompcollect-save.sh - a run kept with --save and reported later with `ompcollect report` gives the reports the live run wrote, also for a program whose path is not UTF-8.
# SPDX-License-Identifier: BSD-3-Clause
. "${top_srcdir:?}/t/ompcollect-lib.sh"
example=$top_builddir/examples/imbalance

echo "1..6"
n=0

# One live run (text and JSON reports) saved, then both reports again from the saved run.
# $1: the program to run; $2: a name for the files.
save_and_replay() {
    "$oc" --runtime "$LIBOMP" --save="$tmp/$2.ses" -f json -o "$tmp/$2.live.json" "$1" >/dev/null 2>"$tmp/$2.err"
    echo $? >"$tmp/$2.status"
    "$oc" report -f json -o "$tmp/$2.replay.json" "$tmp/$2.ses" >/dev/null 2>>"$tmp/$2.err"
    echo $? >>"$tmp/$2.status"
    "$oc" report -o "$tmp/$2.replay.txt" "$tmp/$2.ses" >/dev/null 2>>"$tmp/$2.err"
}

save_and_replay "$example" plain
[ "$(cat "$tmp/plain.status")" = "0
0" ]
result $? "--save and report both exit 0" "$tmp/plain.err"
cmp "$tmp/plain.live.json" "$tmp/plain.replay.json" >"$tmp/plain.cmp" 2>&1
result $? "the saved run's report is the live run's, byte for byte" "$tmp/plain.cmp" "$tmp/plain.err"

# A path that is not UTF-8 (a Latin-1 file name, say) is kept as it is: the saved run's facts
# are JSON, whose strings must be UTF-8, so the launcher must not lose or refuse it.
odd=$(printf '%s/imb\377alance' "$tmp")
cp "$example" "$odd" || { echo "Bail out! cannot copy the example"; exit 1; }
save_and_replay "$odd" odd
[ "$(cat "$tmp/odd.status")" = "0
0" ] && [ -s "$tmp/odd.ses" ]
result $? "a program whose path is not UTF-8: --save writes the run and report reads it (exit 0)" "$tmp/odd.err"
cmp "$tmp/odd.live.json" "$tmp/odd.replay.json" >"$tmp/odd.cmp" 2>&1
result $? "its saved run's report is the live run's, byte for byte" "$tmp/odd.cmp" "$tmp/odd.err"
grep -q "$(printf 'imb\377alance')" "$tmp/odd.replay.txt"
result $? "the text report names the program by its own bytes" "$tmp/odd.replay.txt"
python3 -c 'import json, sys; r = json.load(open(sys.argv[1], encoding="utf-8")); sys.exit(r["program"].endswith("imb\ufffdalance") is False)' \
    "$tmp/odd.replay.json" >"$tmp/odd.py" 2>&1
result $? "the JSON report names it in UTF-8, the stray byte as U+FFFD" "$tmp/odd.py"
