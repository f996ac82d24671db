#!/usr/bin/env python3
# make-record-seeds.py - writes t/fuzz/record-corpus seeds from saved runs: process slot 0's non-zero bytes as record-fuzz patches.
# SPDX-License-Identifier: BSD-3-Clause
"""Usage: make-record-seeds.py OUTDIR SAVED-RUN[.gz]...

A saved run (ompcollect --save) is the magic, a version, the facts' length
and the facts (JSON), then runs of the record's pages: a 64-bit offset, a
64-bit length and the bytes.  Each seed is the list of patches
(record-fuzz.c) that rebuilds slot 0 of one saved run, as far as 64 KiB
patches of non-zero 64-byte blocks go.  A saved run of any record version
serves: later versions only append to the slot, so an older run's offsets
are the current layout's.  The corpus holds one of version 8 (an MPI rank,
t/golden/mpi.ses.gz: its MPI call sites and construct kinds) besides the
older runs'.
"""
import gzip
import os
import struct
import sys


def pages(data):
    facts_length = struct.unpack_from("<Q", data, 16)[0]
    at = 24 + facts_length
    while True:
        offset, length = struct.unpack_from("<QQ", data, at)
        at += 16
        if length == 0:
            return
        yield offset, data[at:at + length]
        at += length


def seed(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    record = dict(pages(data))
    header = record[0]
    process_size, process_offset = struct.unpack_from("<IQ", header, 60)
    out = bytearray()
    for offset, chunk in sorted(record.items()):
        for block in range(0, len(chunk), 64):
            at = offset + block - process_offset
            piece = chunk[block:block + 64]
            if 0 <= at < process_size and any(piece):
                out += struct.pack("<IH", at, len(piece)) + piece
    return bytes(out)


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    for path in sys.argv[2:]:
        name = os.path.basename(path).split(".")[0]
        with open(os.path.join(outdir, name), "wb") as f:
            f.write(seed(path))


if __name__ == "__main__":
    main()
