#!/bin/sh
# man-t.sh - the manual pages lint clean (mandoc -T lint, groff -man -ww), render with man -l, carry the package version, and name every option, request, error, event and state there is.
# SPDX-License-Identifier: BSD-3-Clause
: "${top_srcdir:?}" "${top_builddir:?}"
pages="doc/omp_collector_api.3 doc/ompcollect.1"
header=$top_srcdir/include/omp_collector_api.h
oc=$top_builddir/tools/ompcollect

tmp=$(mktemp -d "${TMPDIR:-/tmp}/man-test.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
n=0
. "$top_srcdir/t/tap.sh"
# On a failure a file's first 20 lines.
result_lines="head -n 20"

version=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' "$top_builddir/config.h" 2>/dev/null)

for page in $pages; do
    file=$top_srcdir/$page
    name=$(basename "$page")

    if command -v mandoc >/dev/null 2>&1; then
        mandoc -T lint -W all "$file" >"$tmp/out" 2>&1
        status=$?
        [ $status -eq 0 ] && [ ! -s "$tmp/out" ]
        result $? "$name: mandoc -T lint reports nothing" "$tmp/out"
    else
        skip "$name: mandoc is not installed (Debian package mandoc)"
    fi

    if command -v groff >/dev/null 2>&1; then
        groff -man -ww -z "$file" >"$tmp/out" 2>&1
        status=$?
        [ $status -eq 0 ] && [ ! -s "$tmp/out" ]
        result $? "$name: groff -man -ww -z reports nothing" "$tmp/out"
    else
        skip "$name: groff is not installed (Debian package groff-base)"
    fi

    if command -v man >/dev/null 2>&1; then
        MANWIDTH=80 MANPAGER=cat PAGER=cat man -l "$file" >"$tmp/rendered" 2>"$tmp/err"
        status=$?
        [ $status -eq 0 ] && [ ! -s "$tmp/err" ] && grep -q '^NAME' "$tmp/rendered" &&
            grep -q '^SEE ALSO' "$tmp/rendered" && [ "$(wc -l <"$tmp/rendered")" -gt 40 ]
        result $? "$name: man -l renders it (MANWIDTH=80), NAME to SEE ALSO, without messages" "$tmp/err"
    else
        skip "$name: man is not installed (Debian package man-db)"
    fi

    if [ -n "$version" ]; then
        grep -q "^\.TH .* \"ompcollector $version\"" "$file"
        result $? "$name: .TH names ompcollector $version (PACKAGE_VERSION)"
    else
        skip "$name: no PACKAGE_VERSION in $top_builddir/config.h"
    fi

    head -n 5 "$file" | grep -q '^\.\\" SPDX-License-Identifier: BSD-3-Clause'
    result $? "$name: carries its SPDX line"
done

# ompcollect(1) describes every option --help lists.
if [ -x "$oc" ]; then
    { "$oc" --help; "$oc" merge --help; "$oc" diff --help; "$oc" scaling --help; } 2>/dev/null | grep -o -e '--[a-z][a-z-]*' \
        | LC_ALL=C sort -u >"$tmp/options"
    : >"$tmp/missing"
    # In the source a '-' is written '\-'.
    while read -r option; do
        escaped=$(printf '%s\n' "$option" | sed 's/-/\\\\-/g')
        grep -q -e "$escaped" "$top_srcdir/doc/ompcollect.1" || echo "$option" >>"$tmp/missing"
    done <"$tmp/options"
    [ -s "$tmp/options" ] && [ ! -s "$tmp/missing" ]
    result $? "ompcollect.1 describes every option of ompcollect --help, merge --help, diff --help and scaling --help ($(wc -l <"$tmp/options") options)" "$tmp/missing"
else
    skip "$oc is not built: cannot compare ompcollect.1 with --help"
fi

# ompcollect(1) has a synopsis line for every command --help lists (report, merge, diff, scaling).
if [ -x "$oc" ]; then
    "$oc" --help 2>/dev/null | sed -n '1,/^[^ U]/s/^ *\(Usage: \)\{0,1\}ompcollect \([a-z][a-z]*\) .*/\2/p' | LC_ALL=C sort -u >"$tmp/commands"
    : >"$tmp/missing"
    while read -r command; do
        grep -A1 -x '\.SY ompcollect' "$top_srcdir/doc/ompcollect.1" | grep -q -x "\.B $command" || echo "$command" >>"$tmp/missing"
    done <"$tmp/commands"
    [ "$(wc -l <"$tmp/commands")" -ge 3 ] && [ ! -s "$tmp/missing" ]
    result $? "ompcollect.1 has a synopsis of every command of ompcollect --help ($(tr '\n' ' ' <"$tmp/commands"))" "$tmp/missing"
else
    skip "$oc is not built: cannot compare ompcollect.1 with --help"
fi

# omp_collector_api(3) names every request, error code, event and state of the header.
grep -o -E '\b(OMP_REQ|OMP_ERRCODE|OMP_EVENT|OMPCOLLECTOR_REQ)_[A-Z_]+|\bTHR_[A-Z]+_STATE\b' "$header" |
    grep -v -e 'LAST' -e '^OMPCOLLECTOR_REQ_BASE$' -e '^OMPCOLLECTOR_REQ_END$' | LC_ALL=C sort -u >"$tmp/names"
: >"$tmp/missing"
while read -r symbol; do
    grep -q -e "$symbol" "$top_srcdir/doc/omp_collector_api.3" || echo "$symbol" >>"$tmp/missing"
done <"$tmp/names"
[ "$(wc -l <"$tmp/names")" -gt 40 ] && [ ! -s "$tmp/missing" ]
result $? "omp_collector_api.3 names every request, error code, event and state of the header ($(wc -l <"$tmp/names") names)" "$tmp/missing"

echo "1..$n"
