#!/usr/bin/env python3
# ompcollect-query.py - prints the value of a Python expression over an ompcollect JSON report, for the TAP tests.
# SPDX-License-Identifier: BSD-3-Clause
"""Usage: ompcollect-query.py REPORT.json EXPRESSION
       ompcollect-query.py REPORT.json --each FILE

With --each, FILE holds one test a line, DESCRIPTION<tab>EXPRESSION, and
each expression's value is printed on a line of its own (newlines as
spaces; an expression that raises prints the error instead), so a script's
tests of one report cost one python3.

Names the expression can use:
  r        the whole report        threads, regions, waits, totals
  events   {name: event entry}     initial  the initial thread's entry
  others   non-initial threads     share(thread, "IBAR")  percent of its samples
  cover(thread)  sampled share of its life, the agent's start-up counted (1.0 when too short to tell)
  label(location)  the function a row is shown by: its enclosing function, else its function
"""
import json
import sys


def share(thread, state):
    """Percent of a thread's (or region's) samples spent in `state`."""
    samples = thread["samples"]
    return 100.0 * thread["states"][state] / samples if samples else 0.0


def label(location):
    """The function the text report shows a location by: the function an outlined body was written in, else its own."""
    return location.get("enclosing") or location.get("function") or ""


def cover(thread):
    """The share of the thread's life its samples cover, the agent's start-up (START, which initializes the
    runtime: no sample can be taken before it) counted as covered; short lives count as covered."""
    gaps = thread["cover"]["gaps_ns"] if thread["cover"] else None
    if thread["expected"] < 50 or gaps is None:
        return 1.0
    return (thread["cover"]["sampled_ns"] + gaps["startup"]) / thread["lifetime_ns"]


def main():
    with open(sys.argv[1]) as handle:
        report = json.load(handle)
    threads = report["threads"]
    names = {
        "r": report,
        "threads": threads,
        "regions": report["regions"],
        "waits": report["waits"],
        "totals": report["totals"],
        "events": {event["name"]: event for event in report["events"]},
        "initial": next((t for t in threads if t["initial"]), None),
        "others": [t for t in threads if not t["initial"]],
        "share": share,
        "cover": cover,
        "label": label,
    }
    if sys.argv[2] != "--each":
        print(eval(sys.argv[2], names))
        return
    with open(sys.argv[3]) as tests:
        for line in tests:
            try:
                value = eval(line.rstrip("\n").split("\t", 1)[1], names)
            except Exception as error:  # the test fails, the others still run
                value = "%s: %s" % (type(error).__name__, error)
            print(str(value).replace("\n", " "))


if __name__ == "__main__":
    main()
