#!/usr/bin/env python3
# make-seeds.py - writes t/fuzz/corpus/: the request buffers real collectors send (TAU's and OpenUH's batches, both REGISTER layouts), as collector-fuzz inputs.
# SPDX-License-Identifier: BSD-3-Clause
#
# Each seed is one flags byte (0: called from a plain thread, 1: from the
# master inside a parallel region, 2: from a worker there; see
# collector-fuzz.c) and the buffer, little-endian 32-bit ints.  Callback
# pointers are written as a typical address; the harness replaces every
# nonzero one with a function of its own.  Run from anywhere:
#     python3 t/fuzz/make-seeds.py [DIR]
import os
import struct
import sys

START, REGISTER, UNREGISTER, STATE, CURRENT_PRID, PARENT_PRID, STOP, PAUSE, RESUME = range(9)
CALLBACK = 0x0000_5555_5555_6a40  # what a PIE program's function address looks like
OMPCOLLECTOR_EVENT_BASE = 0x4F43_0000  # include/omp_collector_api.h


def ints(*values):
    return struct.pack("<%di" % len(values), *values)


def simple(request):
    return ints(16, request, 0, 0)


def packed_register(event, callback=CALLBACK):
    """TAU's and OpenUH's entry: 28 bytes, the 8-byte pointer right after the event."""
    return ints(28, REGISTER, 0, 0, event) + struct.pack("<Q", callback)


def aligned_register(event, callback=CALLBACK):
    """A collector written from the header's prose: {int event; int pad; void *cb}."""
    return ints(32, REGISTER, 0, 0, event, 0) + struct.pack("<Q", callback)


def unregister(event):
    return ints(20, UNREGISTER, 0, 0, event)


def state(mem=12):
    return ints(16 + mem, STATE, 0, 0) + bytes(mem)


def prid(request=CURRENT_PRID, mem=8):
    return ints(16 + mem, request, 0, 0) + bytes(mem)


END = ints(0)

SEEDS = {
    # TAU: START alone, then one batched REGISTER of events 1..35 (the
    # OpenUH task events 23..35 included), 28-byte packed entries.
    "tau-start": simple(START) + END,
    "tau-register-35": b"".join(packed_register(e) for e in range(1, 36)) + END,
    # TAU's SIGPROF handler: STATE with room for the state word only.
    "tau-state-20": state(4) + END,
    # TAU's callbacks: CURRENT_PRID with 8 bytes, and with 4 for a task id.
    "tau-current-prid-24": prid(CURRENT_PRID, 8) + END,
    "tau-task-id-20": prid(CURRENT_PRID, 4) + END,
    # OpenUH's validation test: REGISTER with the callback word left NULL.
    "openuh-register-null": packed_register(1, 0) + END,
    # OpenUH's task requests 9 and 10, which this API does not know.
    "openuh-task-id": ints(20, 9, 0, 0, 0) + ints(20, 10, 0, 0, 0) + END,
    # The naturally aligned layout for every event.
    "aligned-register-22": b"".join(aligned_register(e) for e in range(1, 23)) + END,
    # A sampler's batch: STATE with its wait id, then CURRENT_PRID.
    "sample-batch": state(12) + prid(CURRENT_PRID, 8) + END,
    # A whole session in one buffer.
    "session": simple(START) + packed_register(1) + aligned_register(2) + simple(PAUSE)
    + simple(RESUME) + unregister(1) + prid(PARENT_PRID) + simple(STOP) + END,
    "stop-start": simple(STOP) + simple(START) + packed_register(11) + unregister(11) + END,
    # What a FORK callback asks: the region and its parent.
    "fork-questions": prid(CURRENT_PRID) + prid(PARENT_PRID) + END,
    # Malformed: sz below 16, and not a multiple of 4, after a good entry.
    "malformed-short": state(12) + ints(8, STATE, 0, 0) + END,
    "malformed-odd": prid() + ints(18, STATE, 0, 0, 0) + END,
    # ompcollect's agent: START, then ompcollector's own events (the private
    # range OMPCOLLECTOR_EVENT_BASE + 1..3), registered and unregistered.
    "ompcollector-events": simple(START)
    + b"".join(packed_register(OMPCOLLECTOR_EVENT_BASE + e) for e in (1, 2, 3))
    + unregister(OMPCOLLECTOR_EVENT_BASE + 2) + END,
    # Its dependence question (OMPCOLLECTOR_REQ_TASK_DEPENDENCE), with room and with too little.
    "ompcollector-dependence": simple(START) + ints(32, OMPCOLLECTOR_EVENT_BASE + 5, 0, 0) + bytes(16)
    + ints(20, OMPCOLLECTOR_EVENT_BASE + 5, 0, 0) + bytes(4) + END,
}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus")
    os.makedirs(out, exist_ok=True)
    for name, buffer in SEEDS.items():
        # Every seed from a plain thread; the ones a region would change also from inside one.
        contexts = {0: "plain", 1: "master", 2: "worker"}
        if name.startswith(("tau-start", "openuh", "malformed", "aligned", "tau-register")):
            contexts = {0: "plain"}
        for flags, where in contexts.items():
            with open(os.path.join(out, "%s-%s" % (name, where)), "wb") as seed:
                seed.write(bytes([flags]) + buffer)


if __name__ == "__main__":
    main()
