#!/usr/bin/env python3
# make-session-seeds.py - the saved-run fuzzer's seeds (t/fuzz/session-fuzz.c): the golden saved runs, and copies whose facts hold the values a damaged save can (times at the ends of their range), written to DIR.
# SPDX-License-Identifier: BSD-3-Clause
"""Usage: make-session-seeds.py DIR SAVED.ses.gz...

A saved run is "OMPCSES1", a 32-bit version and a 32-bit zero, the 64-bit
length of the facts' JSON, the JSON, then the record (tools/launcher/session.c).
"""
import gzip
import json
import os
import struct
import sys

FORGED = [
    {"realtime_offset_ns": -2**63},
    {"realtime_offset_ns": 2**63 - 1, "run_start_ns": 0, "run_end_ns": 2**63 - 1},
    {"interval_ns": 2**63 - 1, "main_pid": 2**31 - 1, "rank": 2**31 - 1},
]


def split(data):
    length = struct.unpack_from("<Q", data, 16)[0]
    return data[:16], json.loads(data[24:24 + length]), data[24 + length:]


def join(head, facts, record):
    text = json.dumps(facts, sort_keys=True, separators=(",", ":")).encode()
    return head + struct.pack("<Q", len(text)) + text + record


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for path in sys.argv[2:]:
        name = os.path.basename(path).replace(".ses.gz", "")
        data = gzip.open(path).read()
        with open(os.path.join(out, "seed-" + name), "wb") as seed:
            seed.write(data)
        head, facts, record = split(data)
        for k, forged in enumerate(FORGED):
            changed = dict(facts, **forged)
            with open(os.path.join(out, "seed-%s-forged%d" % (name, k)), "wb") as seed:
                seed.write(join(head, changed, record))


if __name__ == "__main__":
    main()
