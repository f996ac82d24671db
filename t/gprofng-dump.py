#!/usr/bin/env python3
# gprofng-dump.py - an --gprofng experiment's binary files as text, one packet a line, for the golden tests (t/golden/outputs.sh) and for reading: the packets' kinds and fields as log.xml declares them, the frame packets' stacks and OpenMP states.
# SPDX-License-Identifier: BSD-3-Clause
"""Usage: gprofng-dump.py DIR.er  -- writes DIR.er's packets to standard output."""
import re
import struct
import sys

BLOCK = 16384
INFO = {1: "stack", 3: "omp", 5: "omp-user"}


def packets(data):
    """The (offset, kind, bytes) of every packet; a zero size skips to the next block, as gprofng reads."""
    offset = 0
    while offset + 4 <= len(data):
        head, = struct.unpack_from("<I", data, offset)
        size, kind = head & 0xFFFF, head >> 16
        if size == 0:
            offset = (offset // BLOCK + 1) * BLOCK
            continue
        yield offset, kind, data[offset:offset + size]
        offset += size


def declared(log):
    """Each packet kind's fields from log.xml: kind -> [(name, offset, type)]."""
    kinds, kind = {}, None
    for line in log.splitlines():
        m = re.search(r'<profpckt kind="(\d+)"', line)
        if m:
            kind = int(m.group(1))
            kinds[kind] = []
        m = re.search(r'<field name="(\w+)".* offset="(\d+)" type="(\w+)"', line)
        if m and kind is not None:
            kinds[kind].append((m.group(1), int(m.group(2)), m.group(3)))
    return kinds


def frame(packet):
    """A frame packet: its uid, and each part (a stack, an OpenMP state with or without a user-model stack uid)."""
    hsize, uid = struct.unpack_from("<IQ", packet, 4)
    parts, at = [], hsize
    while at + 8 <= len(packet):
        size, kind = struct.unpack_from("<II", packet, at)
        if size == 0:
            break
        if kind == 1:
            stack_uid, = struct.unpack_from("<Q", packet, at + 8)
            pcs = struct.unpack_from("<%dQ" % ((size - 16) // 8), packet, at + 16)
            parts.append("stack %#x [%s]" % (stack_uid, " ".join("%#x" % pc for pc in pcs)))
        else:
            state, = struct.unpack_from("<I", packet, at + 8)
            user = " user %#x" % struct.unpack_from("<Q", packet, at + 16) if kind == 5 else ""
            parts.append("%s state %d%s" % (INFO.get(kind, kind), state, user))
        at += size
    return "frame %d: %s" % (uid, "; ".join(parts))


def uid_stack(packet):
    """A stack by uid (a user-model stack)."""
    _, uid = struct.unpack_from("<IQ", packet, 4)
    pcs = struct.unpack_from("<%dQ" % ((len(packet) - 16) // 8), packet, 16)
    return "uid %#x: [%s]" % (uid, " ".join("%#x" % pc for pc in pcs))


def fields(packet, layout):
    """A declared packet's fields, name=value."""
    out = []
    for name, offset, kind in layout:
        form = {"INT32": "<i", "UINT32": "<I", "INT64": "<q", "UINT64": "<Q"}[kind]
        out.append("%s=%d" % (name, struct.unpack_from(form, packet, offset)[0]))
    return " ".join(out)


def main():
    directory = sys.argv[1]
    kinds = declared(open(directory + "/log.xml").read())
    for name in ("data.frameinfo", "profile", "omptrace"):
        print("== %s" % name)
        for offset, kind, packet in packets(open("%s/%s" % (directory, name), "rb").read()):
            if kind == 11:
                text = frame(packet)
            elif kind == 17:
                text = uid_stack(packet)
            elif kind in kinds:
                text = "kind %d: %s" % (kind, fields(packet, kinds[kind]))
            else:
                text = "kind %d: %d bytes" % (kind, len(packet))
            print("%d %s" % (offset, text))


if __name__ == "__main__":
    main()
