#!/bin/sh
# json-oom-t.sh - the JSON writers with jansson's allocations failing one at a time (t/json-oom.c), over the saved solver run of t/golden.
# SPDX-License-Identifier: BSD-3-Clause
: "${top_builddir:?}" "${top_srcdir:?}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/json-oom.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
gunzip -c "$top_srcdir/t/golden/solver.ses.gz" >"$tmp/solver.ses" || { echo "Bail out! the saved run did not unpack"; exit 1; }
"$top_builddir/t/json-oom" "$tmp/solver.ses"
