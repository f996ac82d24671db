#!/usr/bin/env python3
# ompcollect-taskgraph-structure.py - what the structure of fib without a cut-off implies, from a JSON task graph (--task-graph=FILE.json): exact facts and the parallelism at mean costs.
# SPDX-License-Identifier: BSD-3-Clause
"""Usage: ompcollect-taskgraph-structure.py GRAPH.json N ROOT

GRAPH.json is the task graph of fib(N) without a cut-off: every call at or
above 2 makes fib(n - 1) at one task construct and fib(n - 2) at a second,
one depth below, and waits for them.  ROOT is "task" when a task of its
own (depth 0, a third construct) calls fib(N), "none" when the implicit
task does (BOTS fib).  Prints one JSON object:

  groups_match    every (construct, depth) node holds exactly the tasks the
                  call tree puts there (per-task nodes are added up);
  classes, typical_classes
                  the classes (construct, depth, children) of the call tree,
                  and those with ompcollect's minimum of members or more;
  internal_ns, leaf_ns
                  the mean own time of a task that makes two and of a leaf,
                  fitted by least squares to the groups' own times;
  span_ns, parallelism
                  the longest path of the call tree at those costs (and the
                  root task's measured own time): the parallelism the
                  structure implies, work / span, computed here and not by
                  ompcollect.  Each level counts a task's whole cost, its
                  second creation too, which runs beside its first child:
                  an upper bound of the span, so ompcollect's parallelism
                  is at or above this one.
"""
import collections
import json
import sys


def call_tree(n, first_depth):
    """Tasks of the call tree by (0 for the n - 1 construct, 1 for n - 2; depth; makes two), without recursion."""
    shape = collections.Counter()
    pending = [(n - 1, first_depth, 0), (n - 2, first_depth, 1)]
    while pending:
        k, depth, which = pending.pop()
        shape[(which, depth, k >= 2)] += 1
        if k >= 2:
            pending += [(k - 1, depth + 1, 0), (k - 2, depth + 1, 1)]
    return shape


def main():
    path, n, root = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    graph = json.load(open(path))
    first_depth = 1 if root == "task" else 0
    fib_nodes = [x for x in graph["nodes"] if x["depth"] >= first_depth]
    if root == "task":
        fib_nodes = [x for x in fib_nodes if x["depth"] > 0]
    groups = collections.defaultdict(lambda: [0, 0])
    for x in fib_nodes:
        groups[(x["codeptr"], x["depth"])][0] += x["tasks"]
        groups[(x["codeptr"], x["depth"])][1] += x["own_ns"]
    # The n - 1 construct comes first in the source, at the lower address.
    constructs = sorted({int(x["codeptr"], 16) for x in fib_nodes})
    shape = call_tree(n, first_depth)
    rows, match = [], len(constructs) == 2
    for which, depth in sorted({(w, d) for (w, d, _) in shape}):
        internal, leaves = shape[(which, depth, True)], shape[(which, depth, False)]
        tasks, own = groups.get(("0x%x" % constructs[which] if match else None, depth), [0, 0])
        match = match and tasks == internal + leaves
        rows.append((internal, leaves, own))
    match = match and sum(t for t, _ in groups.values()) == sum(shape.values())
    minimum = graph.get("class_min", 3)
    sizes = list(shape.values()) + ([1] if root == "task" else [])
    # Least squares for own = internal * ci + leaves * cl over the groups.
    a = sum(i * i for i, _, _ in rows)
    b = sum(i * l for i, l, _ in rows)
    c = sum(l * l for _, l, _ in rows)
    p = sum(i * o for i, _, o in rows)
    q = sum(l * o for _, l, o in rows)
    det = a * c - b * b or 1
    ci, cl = max((p * c - b * q) / det, 0.0), max((a * q - b * p) / det, 0.0)
    root_ns = sum(x["own_ns"] for x in graph["nodes"] if x["depth"] == 0) if root == "task" else 0
    # The longest path: down the n - 1 side, n - 2 internal tasks and a leaf below the root.
    span = root_ns + (n - 2) * ci + cl
    print(json.dumps({"groups_match": match, "classes": len(sizes),
                      "typical_classes": sum(1 for s in sizes if s >= minimum),
                      "internal_ns": round(ci), "leaf_ns": round(cl), "span_ns": round(span),
                      "parallelism": round(graph["work_ns"] / span, 1) if span > 0 else 0}))


main()
