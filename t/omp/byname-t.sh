#!/bin/sh
# byname-t.sh - clients that dlopen the runtime by name (TAU's libopenmp.so, liblibgomp_g_wrap.so) find the shim through the alias directory make install creates, preloaded (one shim) or not (the constructor's dlopen loads it); clang and gcc code.
# SPDX-License-Identifier: BSD-3-Clause
. "$top_srcdir/t/omp/tap-lib.sh"
require_libomp

# The make that runs this test must not hand its jobserver or goals to ours.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
make=${MAKE:-make}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/byname-test.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

# The shim and its aliases, installed the way make install does, into a scratch DESTDIR.
cat >"$tmp/dirs.mk" <<'EOF'
print-dirs:
	@echo "libdir='$(libdir)'"
	@echo "compatnamesdir='$(compatnamesdir)'"
EOF
if ! "$make" -s -C "$top_builddir" -f Makefile -f "$tmp/dirs.mk" print-dirs >"$tmp/dirs" 2>&1; then
    sed 's/^/# /' "$tmp/dirs"
    tap_skip_all "cannot read the install directories from $top_builddir/Makefile"
fi
. "$tmp/dirs"
if "$make" -s -C "$top_builddir" install-compat-names DESTDIR="$tmp/dest" >"$tmp/install.log" 2>&1; then
    tap_result ok "make install-compat-names installs the shim and the alias directory"
else
    sed 's/^/# /' "$tmp/install.log"
    tap_result fail "make install-compat-names installs the shim and the alias directory"
    tap_finish
fi
aliases=$tmp/dest$compatnamesdir
shim=$tmp/dest$libdir/libompcollector.so.0
linked=1
for name in libopenmp.so liblibgomp_g_wrap.so; do
    [ -L "$aliases/$name" ] && [ "$(readlink -f "$aliases/$name")" = "$(readlink -f "$shim")" ] || linked=0
    echo "# $compatnamesdir/$name -> $(readlink "$aliases/$name" 2>/dev/null)"
done
if [ $linked -eq 1 ]; then
    tap_result ok "libopenmp.so and liblibgomp_g_wrap.so in $compatnamesdir are links to the installed shim"
else
    tap_result fail "libopenmp.so and liblibgomp_g_wrap.so in $compatnamesdir are links to the installed shim"
fi
case $compatnamesdir in
    "$libdir" | /lib | /usr/lib | /lib64 | /usr/lib64 | /usr/lib/*-linux-gnu | /lib/*-linux-gnu)
        tap_result fail "the alias directory $compatnamesdir is not a default library directory" ;;
    *) tap_result ok "the alias directory $compatnamesdir is not a default library directory" ;;
esac

for cc in $(workload_compilers); do
    binary=$(build_workload "$cc" byname.c byname) || {
        tap_result fail "$cc: byname workload builds"
        continue
    }
    # libomp preloaded picks the runtime under test for clang code and replaces libgomp for gcc code.
    run_workload "$cc, shim preloaded" env LD_PRELOAD="$LIBOMP $shim" LD_LIBRARY_PATH="$aliases" \
        EXPECT_OPENED=libopenmp.so "$binary"
    run_workload "$cc, shim loaded by the client's dlopen" env LD_PRELOAD="$LIBOMP" \
        LD_LIBRARY_PATH="$aliases" EXPECT_OPENED=libopenmp.so "$binary"
    run_workload "$cc, TAU's second name" env LD_PRELOAD="$LIBOMP" LD_LIBRARY_PATH="$aliases" \
        BYNAME_NAMES=liblibgomp_g_wrap.so EXPECT_OPENED=liblibgomp_g_wrap.so "$binary"
    run_workload "$cc, alias directory not on the path" env LD_PRELOAD="$LIBOMP" EXPECT_OPENED= "$binary"
done
tap_finish
