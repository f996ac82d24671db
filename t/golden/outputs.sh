#!/bin/sh
# outputs.sh - writes every output `ompcollect report` makes of one saved run into a directory, for the golden tests (t/golden-t.sh) and their regeneration.
# SPDX-License-Identifier: BSD-3-Clause
#
# Usage: outputs.sh OMPCOLLECT SAVED-RUN OUTDIR KIND... [-- REPORT-OPTION...]
# KIND: text list csv json csvdir svg tracejson taskgraph otf2 folded gprofng merge (taskgraph: --task-graph
# as DOT and as JSON; gprofng: the experiment's log.xml and map.xml, and its
# binary files one packet a line (t/gprofng-dump.py); otf2: otf2-print's
# first 300 lines and a count of each record kind, and the definitions; merge:
# `ompcollect merge` of the JSON reports json wrote, as text and JSON; diff:OTHER:
# `ompcollect diff` of run OTHER's report.json (written before, in ../OTHER) as A and
# this run's as B, as text and JSON; scaling:A,B: `ompcollect scaling --reports` of runs A's,
# B's and this run's report.json as text, JSON, CSV and SVG).  Options after
# -- go to every report (the golden tests give --symfs=/nonexistent so no
# name depends on the machine's binaries).  Exits non-zero when a report
# fails; the directory then holds what was written.
set -u
ompcollect=$1 saved=$2 out=$3
shift 3
kinds=
while [ $# -gt 0 ] && [ "$1" != -- ]; do kinds="$kinds $1"; shift; done
[ $# -gt 0 ] && shift
mkdir -p "$out" || exit 1
status=0
for kind in $kinds; do
    case $kind in
    text) "$ompcollect" report "$@" -o "$out/report.txt" "$saved" ;;
    list) "$ompcollect" report "$@" --list-regions -o "$out/report-list.txt" "$saved" ;;
    csv) "$ompcollect" report "$@" -f csv -o "$out/report.csv" "$saved" ;;
    json) "$ompcollect" report "$@" -f json -o "$out/report.json" "$saved" ;;
    csvdir) "$ompcollect" report "$@" --csv-dir="$out/tables" -o /dev/null "$saved" ;;
    svg) "$ompcollect" report "$@" --timeline="$out/timeline.svg" -o /dev/null "$saved" ;;
    tracejson) "$ompcollect" report "$@" --trace-json="$out/trace.json" -o /dev/null "$saved" ;;
    taskgraph)
        "$ompcollect" report "$@" --task-graph="$out/task-graph.dot" -o /dev/null "$saved" \
            && "$ompcollect" report "$@" --task-graph="$out/task-graph.json" -o /dev/null "$saved"
        ;;
    otf2)
        # One full otf2-print (about a CPU-second, whatever the archive's size);
        # the properties come from the anchor file alone (-I, where -A reads every event again).
        rm -rf "$out/otf2.tmp"
        "$ompcollect" report "$@" --trace="$out/otf2.tmp" -o /dev/null "$saved" \
            && otf2-print "$out/otf2.tmp/traces.otf2" >"$out/otf2-print.full" \
            && { head -n 300 "$out/otf2-print.full"; echo "lines: $(wc -l <"$out/otf2-print.full")"; \
                 awk '{print $1}' "$out/otf2-print.full" | sort | uniq -c; } >"$out/otf2-print.txt" \
            && otf2-print -G "$out/otf2.tmp/traces.otf2" | grep -v -i "UUID\|creator\|CREATION" >"$out/otf2-defs.txt" \
            && otf2-print -I "$out/otf2.tmp/traces.otf2" | grep -A1 '^Property name' | grep -v '^--' \
                >"$out/otf2-properties.txt"
        ;;
    folded) "$ompcollect" report "$@" --stacks=folded -o "$out/stacks.folded" "$saved" ;;
    gprofng)
        rm -rf "$out/gprofng.er"
        "$ompcollect" report "$@" --gprofng="$out/gprofng.er" -o /dev/null "$saved" \
            && cp "$out/gprofng.er/log.xml" "$out/gprofng-log.xml" && cp "$out/gprofng.er/map.xml" "$out/gprofng-map.xml" \
            && python3 "$(dirname "$0")/../gprofng-dump.py" "$out/gprofng.er" >"$out/gprofng-packets.txt"
        ;;
    merge)
        # Relative names, so the summary names the reports the same wherever it runs.
        case $ompcollect in /*) merger=$ompcollect ;; *) merger=$PWD/$ompcollect ;; esac
        (cd "$out" && "$merger" merge -o merge.txt report*.json && "$merger" merge -f json -o merge.json report*.json)
        ;;
    diff:*)
        # Relative names, as for merge; the other run's outputs sit next to this one's.
        case $ompcollect in /*) differ=$ompcollect ;; *) differ=$PWD/$ompcollect ;; esac
        (cd "$out" && "$differ" diff -o diff.txt "../${kind#diff:}/report.json" report.json \
            && "$differ" diff -f json -o diff.json "../${kind#diff:}/report.json" report.json)
        ;;
    scaling:*)
        # ompcollect scaling of the other runs' report.json (in ../NAME, written before) and this one's, each at
        # its OpenMP thread count on 2 cores, in every format; relative names, as for merge.
        case $ompcollect in /*) scaler=$ompcollect ;; *) scaler=$PWD/$ompcollect ;; esac
        others=$(echo "${kind#scaling:}" | tr ',' ' ' | sed 's|\([^ ]*\)|../\1/report.json|g')
        # shellcheck disable=SC2086 # the other reports are words
        (cd "$out" && "$scaler" scaling --reports --cores=2 -o scaling.txt --svg=scaling.svg $others report.json \
            && "$scaler" scaling --reports --cores=2 -f json -o scaling.json $others report.json \
            && "$scaler" scaling --reports --cores=2 -f csv -o scaling.csv $others report.json)
        ;;
    *) echo "outputs.sh: unknown kind $kind" >&2; false ;;
    esac || { echo "outputs.sh: $kind of $saved failed" >&2; status=1; }
done
rm -rf "$out/otf2.tmp" "$out/otf2-print.full" "$out/gprofng.er"
exit $status
