#!/bin/sh
# man-formats-t.sh - ompcollect(1)'s OUTPUT FORMATS names every text section, CSV table and JSON member the writers print for the golden runs (t/golden/expected), and the record-damage ones, so the manual cannot drift from the outputs.
# SPDX-License-Identifier: BSD-3-Clause
: "${top_srcdir:?}"
. "$top_srcdir/t/tap.sh"
if ! command -v python3 >/dev/null 2>&1; then
    echo "1..0 # SKIP python3 is needed to read the expected outputs"
    exit 0
fi
python3 - "$top_srcdir/doc/ompcollect.1" "$top_srcdir/t/golden/expected" <<'PY'
import glob, json, os, re, sys

man, expected = sys.argv[1], sys.argv[2]
text = open(man, encoding="utf-8").read()
section = text[text.index(".SH OUTPUT FORMATS"):text.index(".SH EXIT STATUS")]
# The words as a reader sees them: troff's font requests and escapes gone.
plain = re.sub(r"^\.(B|BR|RB|BI|IR|I|TP|PP)\b ?", "", section, flags=re.M)
plain = re.sub(r"\\f[BIRP]|\\-", lambda m: "-" if m.group(0) == "\\-" else "", plain)
plain = " ".join(plain.split())

names = []
for path in sorted(glob.glob(os.path.join(expected, "*", "report*.json"))):
    names += [("JSON member", key) for key in json.load(open(path, encoding="utf-8"))]
for path in sorted(glob.glob(os.path.join(expected, "*", "report.csv"))):
    names += [("CSV table", line.split(",")[0]) for line in open(path, encoding="utf-8") if line.strip()]
for path in sorted(glob.glob(os.path.join(expected, "*", "tables", "*.csv"))):
    names.append(("CSV table", os.path.basename(path)[:-4]))
for path in sorted(glob.glob(os.path.join(expected, "*", "report*.txt"))):
    for line in open(path, encoding="utf-8"):
        if line[:1] not in (" ", "\n", "") and not line.startswith("ompcollect report:"):
            names.append(("text section", re.split(r" \(|:", line.strip())[0]))
# What only a damaged record shows (t/record-damage-t.sh writes them).
names += [("JSON member", "record_damage"), ("CSV table", "record_damage"), ("text header", "record damaged")]
names = sorted(set(n for n in names if n[1] != "section"))
print("1..%d" % len(names))
for n, (kind, name) in enumerate(names, 1):
    found = re.search(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])", plain) is not None
    print("%s %d - ompcollect(1) OUTPUT FORMATS names the %s %s" % ("ok" if found else "not ok", n, kind, name))
PY
