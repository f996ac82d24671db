#!/bin/sh
# ompcollect-merge.sh - merge refuses what it cannot use (not JSON, not a report, wrong types, numbers out of range, sums that overflow, one process twice, files and memory beyond its cap) with one line naming the file, and what it accepts comes out as strict JSON in UTF-8.
# SPDX-License-Identifier: BSD-3-Clause
. "${top_srcdir:?}/t/ompcollect-lib.sh"
example=$top_builddir/examples/imbalance

echo "1..41"
n=0

# Two real reports of two processes; the crafted inputs are edits of the first.
# 0.3 s each: dozens of samples, the barrier waits among them (the merge's
# checks need one construct and its wait in each, not the default 1 s).
"$oc" --runtime "$LIBOMP" --interval=2ms --format=json -o "$tmp/r1.json" "$example" 0.3 >/dev/null 2>"$tmp/run.err" \
    && "$oc" --runtime "$LIBOMP" --interval=2ms --format=json -o "$tmp/r2.json" "$example" 0.3 >/dev/null 2>>"$tmp/run.err"
status=$?
if [ $status -eq 77 ] || ! [ -s "$tmp/r2.json" ]; then
    echo "Bail out! examples/imbalance gave no JSON report to merge (status $status): $(head -n 3 "$tmp/run.err" | tr '\n' ' ')"
    exit 1
fi

# The crafted inputs, all at once (python3 starts slowly): edits of r1.json and made-up documents.
python3 - "$tmp" <<'EOF' || { echo "Bail out! the crafted inputs could not be written"; exit 1; }
import re, sys
tmp = sys.argv[1]
r1 = open(tmp + "/r1.json", "rb").read()
# The patterns read through the layout's white space (jansson's two-space indent).
totals = rb'("totals": \{\s*"threads": [0-9]+,\s*"samples": )[0-9]+'
edits = {
    "inf": (rb'"wall_ns": [0-9]+', b'"wall_ns": inf'),
    "huge": (rb'"wall_ns": [0-9]+', b'"wall_ns": 1e999'),
    "real": (rb'"wall_ns": [0-9]+', b'"wall_ns": 1.5'),
    "big": (totals, rb'\g<1>9223372036854775808'),
    "most": (totals, rb'\g<1>9223372036854775807'),
    "negative": (totals, rb'\g<1>-5'),
    "negstate": (rb'("regions": \[\s*\{[^\]]*?"states": \{\s*"OVHD": )[0-9]+', rb'\g<1>-1'),
    "pidstring": (rb'"pid": ([0-9]+)', rb'"pid": "\g<1>"'),
    "rank": (rb'"rank": null', b'"rank": -2'),
    "states": (rb'("totals": \{[^}]*?"states": )\{[^}]*\}', rb'\g<1>[]'),
    "surrogate": (rb'"host": "', rb'"host": "\\ud800x'),
    "pair": (rb'"host": "', rb'"host": "\\ud83d\\ude00\\udc00'),
    "byte": (rb'"program": "', b'"program": "\xff\xc0\xaf'),
    "nul": (rb'"host": "', rb'"host": "\\u0000x'),
    "offset": (rb'"module_offset": "0x[0-9a-f]+"', b'"module_offset": "0xZZ"'),
    "constructs": (rb'"constructs": \[', b'"constructs": "x", "unused": ['),
    "waitstate": (rb'"state": "IBAR"', b'"state": "NAP"'),
    "limitnumber": (rb'"limits": \[\]', b'"limits": [7]'),
    "limits": (rb'"limits": \[\]', b'"limits": [{"what": "waits", "count": 12, "bound": 1024, "text": "12 samples\\\\nlost"}], '
               b'"record_damage": {"findings": 2, "text": "a\\\\rb"}'),
}
for name, (pattern, replacement) in edits.items():
    text, count = re.subn(pattern, replacement, r1, count=1)
    assert count == 1, name
    open("%s/%s.json" % (tmp, name), "wb").write(text)
open(tmp + "/deep.json", "w").write("[" * 100000 + "]" * 100000)
open(tmp + "/wide.json", "w").write('{"tool": "ompcollect", "totals": {"states": {}}, "x": ['
                                    + ",".join(["[]"] * 4000000) + "]}")
EOF

# strict FILE EXPRESSION: true when FILE is one JSON document in UTF-8 with no NaN or infinity, no
# lone surrogate in any string, and integers within 64 bits, and the Python EXPRESSION over it (m) holds.
strict() {
    python3 - "$1" "$2" <<'EOF'
import json, math, sys
def refuse(constant):
    raise ValueError("non-standard constant " + constant)
m = json.loads(open(sys.argv[1], "rb").read().decode("utf-8"), parse_constant=refuse)
def walk(v):
    if isinstance(v, dict):
        for k, x in v.items():
            k.encode("utf-8")
            walk(x)
    elif isinstance(v, list):
        for x in v:
            walk(x)
    elif isinstance(v, str):
        v.encode("utf-8")  # a lone surrogate from \ud800 fails here
    elif isinstance(v, bool) or v is None:
        pass
    elif isinstance(v, int):
        assert -2**63 <= v < 2**63, v
    else:
        assert math.isfinite(v), v
walk(m)
sys.exit(0 if eval(sys.argv[2]) else "the check does not hold: " + sys.argv[2])
EOF
}

# refused PATTERN DESCRIPTION FILE...: merge of the FILEs exits 1 with one line on stderr that
# names the last FILE and matches the extended regular expression PATTERN, and writes nothing.
refused() {
    pattern=$1 description=$2
    shift 2
    last=
    for last in "$@"; do :; done
    "$oc" merge -f json "$@" >"$tmp/out" 2>"$tmp/err"
    status=$?
    [ $status -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -qF -- "$last" "$tmp/err" \
        && grep -qE -- "$pattern" "$tmp/err" && ! [ -s "$tmp/out" ]
    result $? "$description (exit $status)" "$tmp/err"
}

# accepted DESCRIPTION PYTHON FILE...: merge -f json of the FILEs exits 0, writes strict JSON, and
# the Python expression over it (m) holds.
accepted() {
    description=$1 check=$2
    shift 2
    "$oc" merge -f json "$@" >"$tmp/merged.json" 2>"$tmp/err"
    status=$?
    [ $status -eq 0 ] && strict "$tmp/merged.json" "$check" >>"$tmp/err" 2>&1
    result $? "$description (exit $status)" "$tmp/err" "$tmp/merged.json"
}

accepted "two real reports: strict JSON, the sum of their samples" \
    "m['totals']['reports'] == 2 and m['totals']['samples'] == sum(r['samples'] for r in m['reports'])" \
    "$tmp/r1.json" "$tmp/r2.json"
"$oc" merge "$tmp/r1.json" "$tmp/r2.json" >"$tmp/merged.txt" 2>"$tmp/err"
[ $? -eq 0 ] && grep -q '^ompcollect merge: 2 reports of ' "$tmp/merged.txt" && grep -q '^Totals: ' "$tmp/merged.txt"
result $? "the text summary of the two" "$tmp/err" "$tmp/merged.txt"

# Two processes of one binary: each construct and wait is one row named by its code location, its
# time the sum of the processes', though ASLR loads the binary at another address in each.  The
# line is the one the rank reports name (clang and gcc put the construct's address on different lines).
line=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["constructs"][0]["location"]["line"])' "$tmp/r1.json")
accepted "two reports of one construct: ONE merged construct, main imbalance.c:$line, whose time is the sum of the reports'" \
    "len(m['constructs']) == 1 and m['constructs'][0]['location']['name'] == 'main imbalance.c:$line' \
     and m['constructs'][0]['processes'] == 2 \
     and m['constructs'][0]['time_ns'] == sum(json.load(open(f))['constructs'][0]['total_ns'] for f in ['$tmp/r1.json', '$tmp/r2.json']) \
     and m['constructs'][0]['min_ns'] <= m['constructs'][0]['mean_ns'] <= m['constructs'][0]['max_ns']" \
    "$tmp/r1.json" "$tmp/r2.json"
accepted "... and its implicit-barrier wait is one row at the same location, its samples the sum of the reports'" \
    "[(w['state'], w['location']['name'], w['processes']) for w in m['wait_locations']] == [('IBAR', 'main imbalance.c:$line', 2)] \
     and m['wait_locations'][0]['samples'] == sum(w['samples'] for f in ['$tmp/r1.json', '$tmp/r2.json'] for w in json.load(open(f))['wait_locations'])" \
    "$tmp/r1.json" "$tmp/r2.json"
sed -n '/^Top parallel constructs/,/^$/p' "$tmp/merged.txt" >"$tmp/constructs.txt"
[ "$(grep -c "imbalance\\.c:$line" "$tmp/constructs.txt")" -eq 1 ] && ! grep -q '^Top regions' "$tmp/merged.txt" \
    && grep -q '^ *[0-9.]* *[0-9.]* *[0-9.]* *[0-9.]* *[0-9.]*% *2 .*main imbalance\.c:'"$line"' (' "$tmp/constructs.txt"
result $? "the text summary: one construct row, main imbalance.c:$line in both processes, no bare region ids" \
    "$tmp/merged.txt"
# A construct one process never ran: its min over the processes is 0.
python3 - "$tmp" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1] + "/r2.json"))
r["pid"] += 1000000
r["constructs"][0]["location"]["module_offset"] = "0x7"
# Constructs match by their source line: another construct is at another line.
if r["constructs"][0]["location"].get("line") is not None:
    r["constructs"][0]["location"]["line"] += 1000
json.dump(r, open(sys.argv[1] + "/moved.json", "w"))
EOF
accepted "a construct at another line and offset is another row; each has min 0 (the other process never ran it)" \
    "len(m['constructs']) == 2 and all(c['processes'] == 1 and c['min_ns'] == 0 < c['max_ns'] for c in m['constructs'])" \
    "$tmp/r1.json" "$tmp/moved.json"

# Not JSON at all, or not whole.
printf 'hello\n' >"$tmp/hello.json"
refused 'hello\.json: not valid JSON: .* at byte [0-9]+' "text that is not JSON" "$tmp/hello.json"
head -c 3000 "$tmp/r1.json" >"$tmp/cut.json"
refused 'cut\.json: not valid JSON: .* at byte 3000 ' "a report cut short" "$tmp/cut.json"
printf '{"tool": "ompcollect", "tool": "ompcollect", "totals": {"states": {}}}' >"$tmp/twice.json"
refused 'twice\.json: not valid JSON: duplicate object key' "a member given twice" "$tmp/twice.json"
refused 'deep\.json: not valid JSON: .*depth' "nesting 100000 deep" "$tmp/deep.json"
printf '{"tool": "something else", "totals": {"states": {}}}' >"$tmp/other.json"
refused 'other\.json: not an ompcollect JSON report' "JSON that is not an ompcollect report" "$tmp/other.json"
printf '[1, 2]' >"$tmp/array.json"
refused 'array\.json: not an ompcollect JSON report' "a JSON array" "$tmp/array.json"

# Numbers JSON cannot hold, or merge must not take.
refused 'inf\.json: not valid JSON: .*inf' "wall_ns: inf" "$tmp/inf.json"
refused 'huge\.json: not valid JSON: real number overflow' "wall_ns: 1e999" "$tmp/huge.json"
refused 'big\.json: not valid JSON: too big integer' "totals.samples: 2^63, above any 64-bit count" "$tmp/big.json"
refused 'negative\.json: "totals\.samples" is -5, out of its range 0 to 9223372036854775807' \
    "a negative sample count" "$tmp/negative.json"
refused 'negstate\.json: "regions\[0\]\.states\.OVHD" is -1, out of its range' \
    "a negative state count in a region" "$tmp/negstate.json"
refused 'real\.json: "wall_ns" is a real number, not an integer' "wall_ns: 1.5" "$tmp/real.json"
refused 'pidstring\.json: "pid" is a string, not an integer' "pid as a string" "$tmp/pidstring.json"
refused 'rank\.json: "rank" is -2, out of its range 0 to 2147483647' "rank -2" "$tmp/rank.json"
refused 'states\.json: "totals\.states" is an array, not an object' "totals.states as an array" "$tmp/states.json"
refused 'offset\.json: "constructs\[0\]\.location\.module_offset" is not an address' \
    "a construct's module_offset that is not hexadecimal" "$tmp/offset.json"
refused 'constructs\.json: "constructs" is a string, not an array' "constructs as a string" "$tmp/constructs.json"
refused 'waitstate\.json: "wait_locations\[0\]\.state" is not the name of a thread state' \
    "a wait in a state that does not exist" "$tmp/waitstate.json"
refused 'limitnumber\.json: "limits\[0\]" is an integer, not an object' "a limit that is a number" \
    "$tmp/limitnumber.json"
accepted "a report's limits and record damage: kept in its entry of reports, as it gave them" \
    "m['reports'][0]['limits'] == [{'what': 'waits', 'count': 12, 'bound': 1024, 'text': '12 samples\\nlost'}, \
                                   {'what': 'record_damage', 'count': 2, 'bound': 0, 'text': 'a\\rb'}]" "$tmp/limits.json"
"$oc" merge "$tmp/limits.json" >"$tmp/merged.txt" 2>"$tmp/err"
[ $? -eq 0 ] && grep -q '^  pid [0-9]*: limit reached: 12 samples lost$' "$tmp/merged.txt" \
    && grep -q '^  pid [0-9]*: record damaged (2 findings): a b$' "$tmp/merged.txt"
result $? "... and said in the text summary, each on one line" "$tmp/err" "$tmp/merged.txt"
accepted "totals.samples of 2^63-1 alone: in range, kept exactly" \
    "m['totals']['samples'] == 2**63 - 1" "$tmp/most.json"
refused 'r2\.json: the sum of totals\.samples over the reports would pass 9223372036854775807' \
    "2^63-1 samples and a real report: the sum would overflow, refused naming the report it overflowed at" \
    "$tmp/most.json" "$tmp/r2.json"

# Strings: what is not UTF-8 comes out as U+FFFD.
accepted "a lone surrogate \\ud800 in the host: accepted, U+FFFD in the output" \
    "m['reports'][0]['host'].startswith('\\ufffdx')" "$tmp/surrogate.json"
accepted "a surrogate pair is kept, a lone low surrogate after it is U+FFFD" \
    "m['reports'][0]['host'].startswith('\\U0001F600\\ufffd')" "$tmp/pair.json"
accepted "raw bytes 0xff and an overlong C0 AF in the program: accepted, U+FFFD in the output" \
    "m['reports'][0]['program'].startswith('\\ufffd' * 3)" "$tmp/byte.json"
accepted "\\u0000 in the host (merge-fuzz's first run): accepted, written back as \\u0000" \
    "m['reports'][0]['host'].startswith('\\x00x')" "$tmp/nul.json"
cp "$tmp/r1.json" "$tmp/name$(printf '\377').json"
accepted "a file name that is not UTF-8: U+FFFD in the output's file" \
    "m['reports'][0]['file'].endswith('name\\ufffd.json')" "$tmp/name$(printf '\377').json"

# End to end: a program whose name is not UTF-8 gets a report, a Chrome trace and an SVG timeline
# that are all UTF-8 (U+FFFD for the byte), and merge takes the report.
cp "$example" "$tmp/imbalance$(printf '\377')"
"$oc" --runtime "$LIBOMP" --format=json -o "$tmp/ff.json" --trace-json="$tmp/ff-trace.json" \
    --timeline="$tmp/ff.svg" "$tmp/imbalance$(printf '\377')" >/dev/null 2>"$tmp/err" \
    && python3 - "$tmp/ff.json" "$tmp/ff-trace.json" "$tmp/ff.svg" <<'EOF' >>"$tmp/err" 2>&1 \
    && "$oc" merge "$tmp/ff.json" "$tmp/r2.json" >/dev/null 2>>"$tmp/err"
import json, sys, xml.dom.minidom
report = json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))
json.loads(open(sys.argv[2], "rb").read().decode("utf-8"))
open(sys.argv[3], "rb").read().decode("utf-8")
xml.dom.minidom.parse(sys.argv[3])
assert report["program"].endswith("imbalance\ufffd"), report["program"]
EOF
result $? "a program named with a 0xff byte: its JSON report, trace and SVG are UTF-8 with U+FFFD, and merge takes the report" "$tmp/err"

# One process twice.
refused 'r1\.json and .*r1\.json are the same file' "the same file twice" "$tmp/r1.json" "$tmp/r2.json" "$tmp/r1.json"
ln "$tmp/r1.json" "$tmp/link.json"
refused 'r1\.json and .*link\.json are the same file|link\.json and .*r1\.json are the same file' \
    "one file under two names" "$tmp/r1.json" "$tmp/link.json"
cp "$tmp/r1.json" "$tmp/copy.json"
refused 'r1\.json and .*copy\.json are reports of the same process|copy\.json and .*r1\.json are reports of the same process' \
    "two files of the same process (host, pid and rank)" "$tmp/r1.json" "$tmp/copy.json"

# Size: a file over 64 MiB is refused before it is read, a pipe after 64 MiB, and a small file
# whose parsed form would pass 256 MiB while being built.
truncate -s 65M "$tmp/sparse.json"
refused 'sparse\.json: is 68157440 bytes, more than the 64 MiB merge reads of one report' \
    "a sparse 65 MiB file: refused by its size" "$tmp/sparse.json"
head -c 67108865 /dev/zero | "$oc" merge /dev/stdin >"$tmp/out" 2>"$tmp/err"
status=$?
[ $status -eq 1 ] && grep -q '^ompcollect: merge: /dev/stdin: is more than the 64 MiB merge reads of one report$' "$tmp/err"
result $? "64 MiB and a byte through a pipe: refused after the cap (exit $status)" "$tmp/err"
refused 'wide\.json: reading it would take more than 256 MiB of memory' \
    "12 MiB of empty arrays, more than 256 MiB parsed: refused while parsing" "$tmp/wide.json"
