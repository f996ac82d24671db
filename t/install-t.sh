#!/bin/sh
# install-t.sh - make install into a scratch DESTDIR holds the manual pages (man finds them), the docs and examples, a pkg-config file with the package version, the bash completion under the prefix, and working binaries; make uninstall removes it all.
# SPDX-License-Identifier: BSD-3-Clause
: "${top_srcdir:?}" "${top_builddir:?}"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/install-test.XXXXXX") || exit 99
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
dest=$tmp/dest
n=0
. "$top_srcdir/t/tap.sh"
# On a failure a file's last lines: make's errors come last.
result_lines="tail -n 20"

# The make that runs this test must not hand its jobserver or goals to ours.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
make=${MAKE:-make}
command -v "$make" >/dev/null 2>&1 || { echo "1..0 # SKIP no $make to run make install with"; exit 0; }

# The configured directories, expanded by make itself.
cat >"$tmp/dirs.mk" <<'EOF'
print-install-dirs:
	@echo "prefix=$(prefix)"
	@echo "bindir=$(bindir)"
	@echo "libdir=$(libdir)"
	@echo "pkglibdir=$(pkglibdir)"
	@echo "includedir=$(includedir)"
	@echo "mandir=$(mandir)"
	@echo "docdir=$(docdir)"
	@echo "pkgconfigdir=$(pkgconfigdir)"
	@echo "bashcompletiondir=$(bashcompletiondir)"
	@echo "version=$(PACKAGE_VERSION)"
EOF
"$make" -s -C "$top_builddir" -f Makefile -f "$tmp/dirs.mk" print-install-dirs >"$tmp/dirs" 2>&1 || {
    sed 's/^/# /' "$tmp/dirs"
    echo "1..0 # SKIP cannot read the install directories from $top_builddir/Makefile"
    exit 0
}
# Only the assignments: make may first re-run configure and say so on the same streams.
grep -E '^[a-z]+=' "$tmp/dirs" >"$tmp/dirs.sh"
. "$tmp/dirs.sh"

"$make" -C "$top_builddir" install DESTDIR="$dest" >"$tmp/install.log" 2>&1
result $? "make install DESTDIR=... succeeds" "$tmp/install.log"

# Manual pages: in man1 and man3, and man finds them by name.
for page in man3/omp_collector_api.3 man1/ompcollect.1; do
    test -f "$dest$mandir/$page"
    result $? "$page installed under \$(mandir)"
done
if command -v man >/dev/null 2>&1; then
    for name in omp_collector_api ompcollect; do
        MANWIDTH=80 MANPAGER=cat PAGER=cat man -M "$dest$mandir" "$name" >"$tmp/man.out" 2>"$tmp/man.err"
        status=$?
        [ $status -eq 0 ] && grep -q '^NAME' "$tmp/man.out" && grep -q "$name" "$tmp/man.out"
        result $? "man -M PREFIX/share/man $name shows the page" "$tmp/man.err"
    done
else
    skip "man is not installed (Debian package man-db)"
fi

# Documentation and the examples' sources.
for doc in README NEWS ChangeLog COPYING mapping.md timeline-imbalance.svg timeline-imbalance.png README.ompcollect.md \
    examples/example.h examples/imbalance.c examples/critical.c examples/locks.c \
    examples/ordered.c examples/nested.c examples/solver.c; do
    cmp -s "$dest$docdir/$doc" "$top_srcdir/$(cd "$top_srcdir" && ls -d "$doc" doc/"$doc" tools/"$doc" 2>/dev/null | head -n 1)"
    result $? "\$(docdir)/$doc installed, same as the source"
done

# pkg-config: the package version and the license.
if command -v pkg-config >/dev/null 2>&1; then
    got=$(PKG_CONFIG_PATH="$dest$pkgconfigdir" PKG_CONFIG_LIBDIR="$dest$pkgconfigdir" pkg-config --modversion ompcollector 2>&1)
    [ -n "$version" ] && [ "$got" = "$version" ]
    result $? "pkg-config --modversion ompcollector is $version (got '$got')"
else
    skip "pkg-config is not installed"
fi
grep -q '^License: BSD-3-Clause$' "$dest$pkgconfigdir/ompcollector.pc"
result $? "ompcollector.pc says License: BSD-3-Clause"

# Header, shim and agent.
test -f "$dest$includedir/omp_collector_api.h" && test -e "$dest$libdir/libompcollector.so.0" &&
    test -f "$dest$pkglibdir/libompcollect-agent.so"
result $? "header, libompcollector.so.0 and the agent installed"

# Bash completion: under the prefix (make distcheck installs elsewhere and
# checks nothing escapes), and it registers itself for ompcollect.
if [ -z "$bashcompletiondir" ]; then
    skip "configured --without-bash-completion-dir"
else
    case $bashcompletiondir in
        "$prefix"/*) inside=0 ;;
        *) inside=1 ;;
    esac
    # A directory chosen with --with-bash-completion-dir=DIR may lie anywhere.
    if "$top_builddir/config.status" --config 2>/dev/null | grep -q -e "--with-bash-completion-dir=[^y]"; then
        skip "configured --with-bash-completion-dir=$bashcompletiondir: it need not be under $prefix"
    else
        result $inside "default bash completion directory $bashcompletiondir is under the prefix $prefix"
    fi
    if command -v bash >/dev/null 2>&1; then
        bash -c '. "$1" && complete -p ompcollect' sh "$dest$bashcompletiondir/ompcollect" >"$tmp/complete.out" 2>&1
        status=$?
        [ $status -eq 0 ] && grep -q -e '-F _ompcollect ompcollect$' "$tmp/complete.out"
        result $? "the installed completion registers _ompcollect for ompcollect" "$tmp/complete.out"
    else
        skip "bash is not installed"
    fi
fi

# The installed ompcollect and its agent run a program.  The launcher is
# pointed at the installed libraries explicitly: finding them on its own
# below a DESTDIR is the relocation test's business.
"$dest$bindir/ompcollect" --version >"$tmp/version" 2>&1
[ "$(cat "$tmp/version")" = "ompcollect (ompcollector) $version" ]
result $? "installed ompcollect --version says $version" "$tmp/version"
example=$top_builddir/examples/imbalance
if [ -z "${LIBOMP:-}" ]; then
    skip "LIBOMP is empty: no LLVM libomp to run the installed ompcollect on"
elif [ -n "${SANITIZER_CFLAGS:-}" ]; then
    skip "a sanitized shim needs its sanitizer runtimes preloaded; the ompcollect tests cover that"
elif [ ! -x "$example" ]; then
    skip "$example is not built"
else
    OMPCOLLECT_SHIM="$dest$libdir/libompcollector.so.0" \
        OMPCOLLECT_COLLECTOR="$dest$pkglibdir/libompcollect-agent.so" \
        "$dest$bindir/ompcollect" --runtime="$LIBOMP" -f json -o "$tmp/report.json" "$example" 0.1 \
        >"$tmp/run.out" 2>&1
    status=$?
    [ $status -eq 0 ] && grep -q "\"version\": \"$version\"" "$tmp/report.json" 2>/dev/null
    result $? "installed ompcollect with the installed shim and agent reports on examples/imbalance" "$tmp/run.out"
fi

"$make" -C "$top_builddir" uninstall DESTDIR="$dest" >"$tmp/uninstall.log" 2>&1
status=$?
find "$dest" -type f -o -type l >"$tmp/left"
[ $status -eq 0 ] && [ ! -s "$tmp/left" ]
result $? "make uninstall DESTDIR=... removes every installed file" "$tmp/left"

echo "1..$n"
