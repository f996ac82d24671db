#!/bin/sh
# ompcollect-states.sh - runs each example under ompcollect and checks the reported states, waits and regions against what the example does.
# SPDX-License-Identifier: BSD-3-Clause
. "${top_srcdir:?}/t/ompcollect-lib.sh"
examples=$top_builddir/examples
# Long enough for hundreds of samples per thread, short enough for a 2-core machine.
seconds=0.3

echo "1..17"
n=0
# check and checked (t/ompcollect-lib.sh); a failed check shows each thread's states.
threads='"\n".join("thread %d%s: %s" % (t["index"], "*" if t["initial"] else "", ", ".join("%s %.1f%%" % (s, share(t, s)) for s in r["states"] if t["states"][s])) for t in threads)'
# Runs an example under ompcollect with a JSON report; its stdout stays in $tmp/NAME.out.
# The shares checked here need the sample density of 1 ms, whatever the default
# interval (the kernel's tick) is on the machine.
collect() {
    name=$1
    shift
    "$oc" --runtime "$LIBOMP" --interval=1ms -f json -o "$tmp/$name.json" "$@" "$examples/$name" "$seconds" \
        >"$tmp/$name.out" 2>"$tmp/$name.err"
    echo $? >"$tmp/$name.status"
}
# The first number on the example's own output line.
printed() {
    sed -n 's/^[a-z]*: \([0-9][0-9]*\) .*/\1/p' "$tmp/$1.out"
}

collect imbalance
regions=$(printed imbalance)
check imbalance "ran and reported (exit 0, $regions regions)" \
    "$(cat "$tmp/imbalance.status") == 0 and ${regions:-0} > 0"
check imbalance "one FORK and one JOIN per region the program ran" \
    "totals['forks'] == ${regions:-0} and totals['joins'] == ${regions:-0} and len(regions) == ${regions:-0}"
check imbalance "the short-work thread spends >= 40% of its samples in IBAR" \
    "len(others) >= 1 and share(max(others, key=lambda t: t['samples']), 'IBAR') >= 40"
check imbalance "the long-work initial thread spends >= 50% in WORK" \
    "share(initial, 'WORK') >= 50"
check imbalance "every thread got >= 90% of the samples its lifetime allows" \
    "all(cover(t) >= 0.9 for t in threads)"
checked imbalance "$threads"

collect critical
check critical "a waiting thread spends >= 20% of its samples in CTWT" \
    "max(share(t, 'CTWT') for t in threads) >= 20"
check critical "the most waited-on wait id is the critical, waited for by both threads" \
    "len(waits) >= 1 and waits[0]['state'] == 'CTWT' and waits[0]['threads'] == 2"
check critical "no lock waits are reported for a critical" \
    "totals['states']['LKWT'] == 0"
checked critical "$threads"

collect locks
check locks "a waiting thread spends >= 20% of its samples in LKWT" \
    "max(share(t, 'LKWT') for t in threads) >= 20"
check locks "the most waited-on wait id is the lock, waited for by both threads" \
    "len(waits) >= 1 and waits[0]['state'] == 'LKWT' and waits[0]['threads'] == 2"
check locks "no critical waits are reported for a lock" \
    "totals['states']['CTWT'] == 0"
checked locks "$threads"

collect ordered
check ordered "both threads wait for their turn: >= 15% ODWT each" \
    "len(threads) == 2 and all(share(t, 'ODWT') >= 15 for t in threads)"
check ordered "the most waited-on wait id is the ordered construct" \
    "len(waits) >= 1 and waits[0]['state'] == 'ODWT'"
checked ordered "$threads"

collect nested
outer=$(printed nested)
inner=$(sed -n 's/.*, \([0-9][0-9]*\) inner regions$/\1/p' "$tmp/nested.out")
check nested "FORK counted for all $outer outer and $inner inner regions" \
    "$(cat "$tmp/nested.status") == 0 and totals['forks'] == ${outer:-0} + ${inner:-0} and totals['joins'] == totals['forks']"
check nested "every inner region names an outer region as its parent" \
    "len([g for g in regions if g['parent']]) == ${inner:-0} and {g['parent'] for g in regions if g['parent']} <= {g['id'] for g in regions if not g['parent']}"
check nested "four threads are sampled (initial, outer worker, two inner workers)" \
    "len(threads) == 4 and all(t['samples'] > 0 for t in threads)"
check nested "oversubscribed threads still get >= 90% of their samples" \
    "all(cover(t) >= 0.9 for t in threads)"
checked nested "$threads"
