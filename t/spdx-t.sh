#!/bin/sh
# spdx-t.sh - every file we wrote carries "SPDX-License-Identifier: BSD-3-Clause" in its first five lines, and COPYING holds that license.
# SPDX-License-Identifier: BSD-3-Clause
#
# The files are the git checkout's (git ls-files) when the source tree is the
# top of a git work tree, otherwise the distributed files (make writes their
# list to t/spdx-files.list from DISTFILES), so the test runs the same way in
# `make distcheck`.
: "${top_srcdir:?}" "${top_builddir:?}"

# Files that cannot or need not carry the line: sets $why (no subshell per file).
exempt() {
  case $1 in
    COPYING) why="the license text itself" ;;
    ChangeLog) why="a log the lead prepends entries to; COPYING covers it" ;;
    *.json) why="JSON has no comment syntax" ;;
    t/fuzz/record-corpus/*) why="fuzzer input bytes (an empty one among them)" ;;
    t/golden/expected/*) why="a writer's output, compared byte for byte; t/golden/README covers it" ;;
    Makefile.in|configure|aclocal.m4|config.h.in|build-aux/*) why="generated or copied in by autoreconf" ;;
    m4/libtool.m4|m4/ltoptions.m4|m4/ltsugar.m4|m4/ltversion.m4|m4/lt~obsolete.m4) why="copied in by libtoolize" ;;
    *) return 1 ;;
  esac
}

# Binary: it holds a NUL byte or is not UTF-8 text.
is_binary() {
  [ -s "$1" ] || return 1
  tr -d '\000' <"$1" | cmp -s - "$1" || return 0
  ! iconv -f UTF-8 -t UTF-8 "$1" >/dev/null 2>&1
}

list=$(mktemp) || exit 99
trap 'rm -f "$list" "$list.files"' EXIT
src=$(cd "$top_srcdir" && pwd -P)
gittop=$(git -C "$src" rev-parse --show-toplevel 2>/dev/null) && gittop=$(cd "$gittop" && pwd -P)
if [ -n "$gittop" ] && [ "$gittop" = "$src" ] && git -C "$src" ls-files >"$list" 2>/dev/null && [ -s "$list" ]; then
  from="git ls-files"
elif [ -s "$top_builddir/t/spdx-files.list" ]; then
  from="the distributed file list"
  cp "$top_builddir/t/spdx-files.list" "$list"
else
  echo "1..0 # SKIP neither a git checkout nor a distributed file list ($top_builddir/t/spdx-files.list) names the source files"
  exit 0
fi

# A distributed directory (EXTRA_DIST may name one) stands for its files.
while IFS= read -r f; do
  if [ -d "$src/$f" ]; then
    (cd "$src" && find "$f" -type f) | LC_ALL=C sort
  else
    printf '%s\n' "$f"
  fi
done <"$list" >"$list.files" && mv "$list.files" "$list" || exit 99

n=0
missing=0
pass() { n=$((n + 1)); echo "ok $n - $1"; }
fail() { n=$((n + 1)); echo "not ok $n - $1"; }

echo "# files from $from"
if grep -q 'Redistribution and use in source and binary forms' "$src/COPYING" 2>/dev/null &&
   grep -q 'Neither the name of the copyright holder' "$src/COPYING"; then
  pass "COPYING holds the BSD-3-Clause license"
else
  fail "COPYING holds the BSD-3-Clause license"
fi

# The files whose first five lines carry the line, found by one awk over them
# all (a process or four per file made this test one of the suite's slowest);
# only the others are looked at one by one, for exemptions and binary data.
nl='
'
carrying=$nl$(cd "$src" && while IFS= read -r f; do [ -f "$f" ] && printf '%s\n' "$f"; done <"$list" |
  tr '\n' '\0' | xargs -0 awk 'FNR <= 5 && /SPDX-License-Identifier: BSD-3-Clause/ && !(FILENAME in seen) { seen[FILENAME] = 1; print FILENAME }' 2>/dev/null)$nl

while IFS= read -r f; do
  if exempt "$f"; then
    echo "# exempt: $f ($why)"
    continue
  fi
  [ -f "$src/$f" ] || continue    # removed in the work tree, not yet in git
  case $carrying in
    *"$nl$f$nl"*) pass "$f"; continue ;;
  esac
  if is_binary "$src/$f"; then
    echo "# exempt: $f (binary data, e.g. a fuzzer seed, has no comment syntax)"
    continue
  fi
  fail "$f has no 'SPDX-License-Identifier: BSD-3-Clause' in its first 5 lines"
  missing=$((missing + 1))
done <"$list"

[ "$missing" -eq 0 ] || echo "# $missing file(s) lack the SPDX line"
echo "1..$n"
