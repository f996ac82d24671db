#!/bin/sh
# ompcollect-trace.sh - the pictures and traces ompcollect writes: an SVG timeline true at any zoom and window, and Chrome trace-event JSON.
# SPDX-License-Identifier: BSD-3-Clause
. "${top_srcdir:?}/t/ompcollect-lib.sh"
locks=$top_builddir/examples/locks

echo "1..13"
n=0
# A failed test shows the first 40 lines of each file it names.
result_lines="head -n 40"

# The lock example alternates 0.5 ms of WORK with 2 ms waits; 200 pixels
# for the run put several state changes in every column.
run --runtime "$LIBOMP" -f json -o "$tmp/locks.json" --timeline "$tmp/locks.svg" \
    --timeline-width=200 --trace-json "$tmp/locks.trace.json" "$locks" 0.4
ran=$status

if command -v xmllint >/dev/null 2>&1; then
    [ $ran -eq 0 ] && xmllint --noout "$tmp/locks.svg" 2>"$tmp/xmllint.err"
    result $? "xmllint finds the SVG timeline well-formed" "$tmp/err" "$tmp/xmllint.err"
else
    echo "ok $((n += 1)) # SKIP xmllint (libxml2-utils) is not installed"
fi

# No state's colour lies within 32 (of 255, sRGB) of any blend of two
# others, or of one with the white background: a viewer's scaling that
# mixes neighbouring columns cannot draw a state that was not there.
python3 - "$tmp/locks.svg" >"$tmp/palette.out" 2>&1 <<'EOF'
import itertools, math, sys
import xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
legend = [g for g in root.iter(ns + "g") if g.get("id") == "legend"][0]
colours = [r.get("fill") for r in legend.iter(ns + "rect")]
names = [t.text for t in legend.iter(ns + "text")]
rgb = [tuple(int(c[i:i + 2], 16) for i in (1, 3, 5)) for c in colours]
def distance(c, a, b):
    ab = [b[i] - a[i] for i in range(3)]
    ac = [c[i] - a[i] for i in range(3)]
    length = sum(x * x for x in ab)
    t = max(0.0, min(1.0, sum(ab[i] * ac[i] for i in range(3)) / length)) if length else 0.0
    return math.dist(c, [a[i] + t * ab[i] for i in range(3)])
bad = 0
if len(set(colours)) != 11:
    print("legend colours:", colours); bad = 1
for i, c in enumerate(rgb):
    others = [x for j, x in enumerate(rgb) if j != i] + [(255, 255, 255)]
    for a, b in itertools.combinations(others, 2):
        if distance(c, a, b) < 32:
            print(names[i], colours[i], "is a blend of", a, b); bad = 1
sys.exit(bad)
EOF
result $? "no state's legend colour is a blend of two others' or of one with the background" "$tmp/palette.out"

# Every drawn span and wait mark is painted in the colour of a state the
# report counted; none in the colour of a state that did not occur.
[ $ran -eq 0 ] && python3 - "$tmp/locks.svg" "$tmp/locks.json" >"$tmp/occur.out" 2>&1 <<'EOF'
import json, sys
import xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
report = json.load(open(sys.argv[2]))
legend = [g for g in root.iter(ns + "g") if g.get("id") == "legend"][0]
colour = dict(zip([t.text for t in legend.iter(ns + "text")],
                  [r.get("fill") for r in legend.iter(ns + "rect")]))
occurred = {s for t in report["threads"] for s, count in t["states"].items() if count > 0}
allowed = {colour[s] for s in occurred}
drawn = [r for r in root.iter(ns + "rect") if r.get("class") in ("span", "mark")]
wrong = {r.get("fill") for r in drawn} - allowed
print("occurred:", sorted(occurred), "drawn:", len(drawn), "wrong:", sorted(wrong))
sys.exit(0 if drawn and not wrong and "LKWT" in occurred else 1)
EOF
result $? "the lock example's picture has no colour of a state that did not occur" "$tmp/occur.out" "$tmp/err"

# Tooltips name the state, the region and the time; waits keep a visible
# width; the parallel region's boundaries are marked.
[ $ran -eq 0 ] && python3 - "$tmp/locks.svg" >"$tmp/tips.out" 2>&1 <<'EOF'
import re, sys
import xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
drawn = [r for r in root.iter(ns + "rect") if r.get("class") in ("span", "mark")]
# The construct follows the state when the runtime answers OMPCOLLECTOR_REQ_SAMPLE ("WORK in the construct at f x.c:3").
region = (r"(parallel region (at [^,]+( \(id \d+\))?, instance \d+ of \d+|\d+ of \d+( \(id \d+\))?)"
          r"|\d+ parallel region instances \(the run's \d+ to \d+ of \d+\)|serial part|region unknown \(the event log was full\))")
pattern = re.compile(r"^[A-Z]+( (in the construct|waiting) at [^,]+)?, (sampled just after )?" + region + r": [0-9.]+ ms .* over [0-9.]+-[0-9.]+ ms$")
bad = [r.find(ns + "title").text for r in drawn
       if r.find(ns + "title") is None or not pattern.match(r.find(ns + "title").text)]
narrow = [r for r in drawn if int(r.get("width")) < 1]
regions = [l for l in root.iter(ns + "line") if l.get("class") == "region"]
print("untitled or malformed:", bad[:5], "narrow:", len(narrow), "region lines:", len(regions))
sys.exit(0 if drawn and not bad and not narrow and len(regions) >= 2 else 1)
EOF
result $? "every span has a tooltip with state, region and duration; region boundaries are drawn" "$tmp/tips.out"

# A time window: only that part of the run is drawn, at the width asked.  The
# window is 50 ms of the last 200 ms of the saved run, where the program is
# at work whatever its start-up took on a loaded machine.
run --runtime "$LIBOMP" -f json -o "$tmp/window.json" --timeline=/dev/null --save="$tmp/window.ses" "$locks" 0.3
from=$(python3 "$query" "$tmp/window.json" 'r["wall_ns"] // 1000000 - 200' 2>/dev/null)
[ $status -eq 0 ] && [ "${from:-0}" -gt 0 ] \
    && "$oc" report -o "$tmp/window.txt" --timeline "$tmp/window.svg" --timeline-width=400 \
        --from="${from}ms" --to="$((from + 50))ms" "$tmp/window.ses" 2>"$tmp/err" \
    && python3 - "$tmp/window.svg" "$from" >"$tmp/window.out" 2>&1 <<'EOF'
import sys
import xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
texts = " ".join(t.text or "" for t in root.iter(ns + "text"))
drawn = [r for r in root.iter(ns + "rect") if r.get("class") == "span"]
right = max(int(r.get("x")) + int(r.get("width")) for r in drawn)
ticks = [float(t.text.split()[0]) for t in root.iter(ns + "text")
         if (t.text or "").endswith(" ms") and t.get("text-anchor") == "middle"]
print("right edge:", right, "ticks:", ticks)
low = int(sys.argv[2])
sys.exit(0 if "drawn from %d.000 to %d.000 ms" % (low, low + 50) in texts and right <= 120 + 400
          and ticks and min(ticks) >= low and max(ticks) <= low + 50 else 1)
EOF
result $? "--from/--to draw only that window, --timeline-width sets the plot's pixels" "$tmp/window.out" "$tmp/err"

# Bad values are refused before the program runs.
bad=0
for args in "--timeline-width=10" "--timeline-width=wide" "--from=soon" "--to=3parsecs" \
    "--from=20ms --to=10ms"; do
    # shellcheck disable=SC2086
    run --timeline "$tmp/x.svg" $args "$locks" 0.01
    if [ $status -ne 125 ] || [ ! -s "$tmp/err" ]; then
        echo "$args: status $status" >>"$tmp/bad.out"
        bad=1
    fi
done
run --from=10ms "$locks" 0.01
[ $status -eq 125 ] || { echo "--from without --timeline: status $status" >>"$tmp/bad.out"; bad=1; }
result $bad "bad --timeline-width, --from and --to values are refused with status 125" "$tmp/bad.out"

# The Chrome trace: complete events with both ends, in time order per
# thread, names for the process and every thread, the program and runtime.
[ $ran -eq 0 ] && python3 - "$tmp/locks.trace.json" "$tmp/locks.json" >"$tmp/trace.out" 2>&1 <<'EOF'
import json, sys
trace = json.load(open(sys.argv[1]))
report = json.load(open(sys.argv[2]))
events = trace["traceEvents"]
ok = True
def fail(*what):
    global ok
    print(*what); ok = False
begins = {}
for e in events:
    if e["ph"] == "B":
        begins.setdefault((e["pid"], e["tid"]), []).append(e)
    elif e["ph"] == "E":
        if not begins.get((e["pid"], e["tid"])):
            fail("end without begin", e)
        else:
            begins[(e["pid"], e["tid"])].pop()
    elif e["ph"] == "X":
        if not isinstance(e.get("dur"), (int, float)) or e["dur"] < 0:
            fail("complete event without an end", e)
    elif e["ph"] != "M":
        fail("unexpected phase", e)
if any(begins.values()):
    fail("begins without an end", begins)
last = {}
for e in events:
    if e["ph"] in "XBE":
        key = (e["pid"], e["tid"])
        if e["ts"] < last.get(key, 0):
            fail("time goes back on", key, e)
        last[key] = e["ts"]
names = {(e["pid"], e["tid"]) for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
if not last or set(last) - names:
    fail("threads without a name:", set(last) - names)
if not any(e["ph"] == "M" and e["name"] == "process_name" for e in events):
    fail("no process name")
meta = trace["otherData"]
if not meta.get("program", "").endswith("locks") or not meta.get("runtime"):
    fail("metadata:", meta)
states = [e for e in events if e.get("cat") == "state"]
regions = [e for e in events if e.get("cat") == "region"]
# A state is in the trace because samples saw it, or because its BEGIN event arrived.
pairs = {"IDLE": "begin_idle", "IBAR": "begin_ibar", "EBAR": "begin_ebar", "LKWT": "begin_lkwt",
         "CTWT": "begin_ctwt", "ODWT": "begin_odwt", "ATWT": "begin_atwt"}
counted = {s for t in report["threads"] for s, c in t["states"].items() if c}
counted |= {s for s, e in pairs.items() if any(t["events"].get(e) for t in report["threads"])}
if {e["name"] for e in states} - counted:
    fail("a state the report never counted:", {e["name"] for e in states} - counted)
if not regions or any(r["tid"] != (1 << 30) + report["pid"] for r in regions):
    fail("no region on the process's region track", regions[:2])
if len({e["tid"] for e in states}) < 2 or not any(e["name"] == "LKWT" for e in states):
    fail("expected LKWT states on two threads")
print(len(events), "events;", len(states), "states;", len(regions), "regions")
sys.exit(0 if ok else 1)
EOF
result $? "--trace-json: complete events, in time order per thread, named threads, program and runtime" "$tmp/trace.out" "$tmp/err"

# The trace alone (no --timeline) records what it needs.
run --runtime "$LIBOMP" -o "$tmp/alone.txt" --trace-json "$tmp/alone.json" "$locks" 0.05
[ $status -eq 0 ] && python3 -c '
import json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
sys.exit(0 if any(e.get("cat") == "state" for e in events) else 1)' "$tmp/alone.json"
result $? "--trace-json without --timeline still has the state spans" "$tmp/err"

# %p patterns name the trace as they name the report.
run --runtime "$LIBOMP" -o "$tmp/p.txt" --trace-json "$tmp/trace.%p.json" "$locks" 0.02
set -- "$tmp"/trace.[0-9]*.json
[ $status -eq 0 ] && [ -f "$1" ] && python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$1"
result $? "--trace-json takes the --output patterns (%p)" "$tmp/err"

# Back-to-back instances of one region (imbalance: 20 ms each, thread 1
# waits in IBAR at each end): every tooltip names the instance it lies in,
# each instance of the N the program ran is named, no barrier wait is
# called serial (one sampled after the JOIN names the region it lags), a strip of alternating shades tells the instances apart, and
# the Chrome trace numbers its regions k of N.  The program runs at least
# the four regions the check needs, however long a loaded machine takes.
imbalance=$top_builddir/examples/imbalance
run --runtime "$LIBOMP" -o "$tmp/imb.txt" --timeline "$tmp/imb.svg" --trace-json "$tmp/imb.json" "$imbalance" 0.16 4
[ $status -eq 0 ] && python3 - "$tmp/imb.svg" "$tmp/imb.json" "$tmp/out" >"$tmp/imb.out" 2>&1 <<'EOF'
import json, re, sys
import xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
ran = int(re.search(r"imbalance: (\d+) regions", open(sys.argv[3]).read()).group(1))
tips = [r.find(ns + "title").text for r in root.iter(ns + "rect") if r.get("class") in ("span", "mark")]
named = {(int(k), int(n)) for k, n in re.findall(r"instance (\d+) of (\d+)", " ".join(tips))}
serial_waits = [t for t in tips if t.startswith(("IBAR", "EBAR")) and "serial part" in t]
strip = [r for r in root.iter(ns + "rect") if r.get("class") == "instance"]
shades = [r.get("fill") for r in strip]
alternate = all(a != b for a, b in zip(shades, shades[1:]))
regions = [e for e in json.load(open(sys.argv[2]))["traceEvents"] if e.get("cat") == "region"]
numbered = sorted(e["args"].get("instance", 0) for e in regions)
print("ran", ran, "named", sorted(named), "waits called serial", serial_waits[:3], "strip", len(strip),
      "alternate", alternate, "trace instances", numbered)
ok = named == {(k, ran) for k in range(1, ran + 1)} and not serial_waits
ok = ok and len(strip) == ran and alternate and numbered == list(range(1, ran + 1))
ok = ok and all(e["args"].get("of") == ran for e in regions)
sys.exit(0 if ok and ran >= 4 else 1)
EOF
result $? "tooltips name each region instance (k of N), no wait is serial, instances have alternating bands" "$tmp/imb.out" "$tmp/err"
cp "$tmp/err" "$tmp/imb.err"

# A trace written from a full event log: one line on stderr says why and
# how much (the threads, the events dropped, the --trace-buffer size, as
# the trace's metadata counts them); the Chrome trace has an instant event
# on each such thread where its log ran full, the SVG a cut mark there.
# A trace from a whole log (the imbalance run) says nothing of the kind.
critical=$top_builddir/examples/critical
run --runtime "$LIBOMP" -o "$tmp/cut.txt" --timeline "$tmp/cut.svg" --trace-json "$tmp/cut.json" --trace-buffer=64 \
    "$critical" 0.05
[ $status -eq 0 ] && python3 - "$tmp/cut.json" "$tmp/cut.svg" "$tmp/err" >"$tmp/cut.out" 2>&1 <<'EOF'
import json, re, sys
import xml.etree.ElementTree as ET
trace = json.load(open(sys.argv[1]))
meta, events = trace["otherData"], trace["traceEvents"]
lines = [l for l in open(sys.argv[3]) if "did not fit their" in l]
print("stderr:", lines)
said = re.search(r"(\d+) events of (\d+) threads did not fit their 64-byte event logs \(--trace-buffer\)", lines[0]) \
    if len(lines) == 1 else None
marks = [e for e in events if e["ph"] == "i" and e["name"].startswith("event log full")]
marked = sum(int(re.search(r"(\d+) events dropped", e["name"]).group(1)) for e in marks)
full_threads = {e["tid"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"
                and "(event log full)" in e["args"]["name"]}
ns = "{http://www.w3.org/2000/svg}"
cuts = [g for g in ET.parse(sys.argv[2]).getroot().iter(ns + "g") if g.get("class") == "cut"
        and g.find(ns + "title").text.startswith("event log full")]
print("metadata:", meta["events_dropped"], meta["threads_event_log_full"], "said:", said and said.groups(),
      "marks:", len(marks), marked, "on", sorted(e["tid"] for e in marks), "full threads", sorted(full_threads),
      "svg cuts:", len(cuts))
ok = said is not None and meta["events_dropped"] > 0
ok = ok and int(said.group(1)) == meta["events_dropped"] and int(said.group(2)) == meta["threads_event_log_full"]
ok = ok and len(marks) == meta["threads_event_log_full"] == len(cuts) and {e["tid"] for e in marks} == full_threads
ok = ok and 0 < marked <= meta["events_dropped"]
sys.exit(0 if ok else 1)
EOF
[ $? -eq 0 ] && ! grep -q "did not fit their" "$tmp/imb.err"
result $? "a trace from a full event log says so on stderr with its counts, and marks the cut in JSON and SVG" \
    "$tmp/cut.out" "$tmp/err"


# Instances narrower than a column (3000 regions in a 200-pixel-wide
# timeline) share one band of the strip, which counts them: no two bands
# overlap and together they name every instance once.
OMP_NUM_THREADS=2 run --runtime "$LIBOMP" --timeline="$tmp/narrow.svg" --timeline-width=200 --trace-json=/dev/null \
    -f json -o "$tmp/narrow.json" "$top_builddir/t/ompcollect-scale" regions 3000
[ $status -eq 0 ] && python3 - "$tmp/narrow.svg" "$tmp/narrow.json" >"$tmp/narrow.out" 2>&1 <<'EOF'
import re, sys
import xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
bands = [r for r in ET.parse(sys.argv[1]).getroot().iter(ns + "rect") if r.get("class") == "instance"]
spans = [(int(r.get("x")), int(r.get("x")) + int(r.get("width"))) for r in bands]
counts = [int(m.group(1)) if m else 1 for m in
          (re.match(r"(\d+) parallel region instances", r.find(ns + "title").text) for r in bands)]
overlaps = [(a, b) for a, b in zip(spans, spans[1:]) if b[0] < a[1]]
import json
forks = json.load(open(sys.argv[2], encoding="utf-8"))["totals"]["forks"]
print("bands", len(bands), "instances", sum(counts), "of", forks, "overlaps", overlaps[:3])
sys.exit(0 if bands and not overlaps and sum(counts) == forks and len(bands) < forks else 1)
EOF
result $? "region instances that share a column are one band that counts them" "$tmp/narrow.out" "$tmp/err"

# What a browser shows: headless Chromium renders the lock example's SVG;
# the screenshot holds the spans in the colours of the states that occurred
# (far more than their legend swatches), and of any other state no more
# than its swatch.
chromium=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$chromium" ]; then
    echo "ok $((n += 1)) # SKIP no chromium to render the SVG with"
elif [ $ran -ne 0 ]; then
    result 1 "headless Chromium renders the SVG timeline with the states' colours" "$tmp/err"
else
    # A hung browser must not hang the suite; it has minutes for a second's work.
    HOME=$tmp timeout 300 env -u LD_PRELOAD -u ASAN_OPTIONS "$chromium" --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --window-size=1200,400 --screenshot="$tmp/shot.png" "file://$tmp/locks.svg" >"$tmp/chromium.out" 2>&1
    [ -s "$tmp/shot.png" ] && python3 - "$tmp/shot.png" "$tmp/locks.svg" "$tmp/locks.json" >"$tmp/shot.out" 2>&1 <<'EOF2'
import json, struct, sys, zlib
import xml.etree.ElementTree as ET
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, chunks = 8, []
while pos < len(data):
    length, kind = struct.unpack(">I4s", data[pos:pos + 8])
    chunks.append((kind, data[pos + 8:pos + 8 + length]))
    pos += 12 + length
header = dict(chunks)[b"IHDR"]
width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
assert depth == 8 and colour in (2, 6) and interlace == 0, (depth, colour, interlace)
channels = 4 if colour == 6 else 3
raw = zlib.decompress(b"".join(c for k, c in chunks if k == b"IDAT"))
stride = width * channels
pixels, previous = {}, bytearray(stride)
for y in range(height):
    kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - channels] if i >= channels else 0
        b = previous[i]
        c = previous[i - channels] if i >= channels else 0
        if kind == 1: line[i] = (line[i] + a) & 255
        elif kind == 2: line[i] = (line[i] + b) & 255
        elif kind == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif kind == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for x in range(width):
        rgb = "#%02x%02x%02x" % tuple(line[x * channels:x * channels + 3])
        pixels[rgb] = pixels.get(rgb, 0) + 1
    previous = line
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[2]).getroot()
legend = [g for g in root.iter(ns + "g") if g.get("id") == "legend"][0]
colour = dict(zip([t.text for t in legend.iter(ns + "text")], [r.get("fill") for r in legend.iter(ns + "rect")]))
swatch = max(int(float(r.get("width"))) * int(float(r.get("height"))) for r in legend.iter(ns + "rect"))
report = json.load(open(sys.argv[3]))
occurred = {s for t in report["threads"] for s, c in t["states"].items() if c}
counts = {s: pixels.get(c, 0) for s, c in colour.items()}
print(width, "x", height, "swatch", swatch, "pixels per state colour:", counts, "occurred:", sorted(occurred))
big = {s for s, c in counts.items() if c > 2 * swatch}
sys.exit(0 if {"WORK", "LKWT"} <= big and big <= occurred else 1)
EOF2
    result $? "headless Chromium renders the SVG timeline with the states' colours" "$tmp/shot.out" "$tmp/chromium.out"
fi
