#!/bin/sh
# protocol-t.sh - the request protocol on real libomp (legacy buffer layouts, batches, per-entry errors, sequencing, REGISTER answers held against the events that fire), clang and gcc code by every route to libomp.
# SPDX-License-Identifier: BSD-3-Clause
. "$top_srcdir/t/omp/tap-lib.sh"
require_libomp
# Sanitized builds: libomp's own allocations for 64 oversubscribed nested
# teams outlive the program; they are libomp's, not the shim's (the
# lifecycle group keeps checking the shim's leaks without this).
LSAN_OPTIONS="suppressions=$top_srcdir/t/lsan-libomp.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS
run_group protocol
tap_finish
