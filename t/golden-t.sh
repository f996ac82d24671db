#!/bin/sh
# golden-t.sh - every writer, from recorded runs: `ompcollect report` of each saved run in t/golden writes every output, compared byte for byte with t/golden/expected (no OpenMP runtime needed).
# SPDX-License-Identifier: BSD-3-Clause
: "${top_builddir:?}" "${top_srcdir:?}"
. "$top_srcdir/t/tap.sh"
golden=$(cd "$top_srcdir/t/golden" && pwd)
oc=$top_builddir/tools/ompcollect
tmp=$(mktemp -d "${TMPDIR:-/tmp}/golden-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

expected=$(cd "$golden/expected" && find . -type f | sort)
echo "1..$(($(echo "$expected" | wc -l) + $(grep -vc '^#' "$golden/MANIFEST")))"
n=0
have_otf2=yes
if ! command -v otf2-print >/dev/null 2>&1 || "$oc" --help | grep -q 'built without OTF2'; then
    have_otf2=no
fi
grep -v '^#' "$golden/MANIFEST" >"$tmp/manifest"
while read -r name rest; do
    kinds=${rest%%|*}
    [ "$have_otf2" = yes ] || kinds=$(echo "$kinds" | sed 's/otf2//')
    gunzip -c "$golden/$name.ses.gz" >"$tmp/$name.ses"
    # shellcheck disable=SC2086 # the kinds are words
    "$top_srcdir/t/golden/outputs.sh" "$oc" "$tmp/$name.ses" "$tmp/out/$name" $kinds -- --symfs=/nonexistent \
        >"$tmp/$name.log" 2>&1
    extra=$(cd "$tmp/out/$name" && find . -type f | sort | while read -r f; do
        [ -f "$golden/expected/$name/$f" ] || echo "$f"; done)
    [ -z "$extra" ]
    result $? "$name: report writes no output the expected set lacks${extra:+ ($extra)}" "$tmp/$name.log"
done <"$tmp/manifest"
for file in $expected; do
    name=${file#./}
    case $name in
    */otf2-*)
        if [ "$have_otf2" = no ]; then
            skip "this build has no OTF2 (or no otf2-print)" 1 "$name"
            continue
        fi
        ;;
    esac
    diff -u "$golden/expected/$name" "$tmp/out/$name" >"$tmp/diff" 2>&1
    result $? "$name is what the writer wrote when it was last reviewed" "$tmp/diff"
done
