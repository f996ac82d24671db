#!/bin/sh
# protocol-t.sh - the request protocol on real libomp (legacy buffer layouts, batches, per-entry errors, sequencing, REGISTER answers held against the events that fire), clang and gcc code by every route to libomp.
# SPDX-License-Identifier: BSD-3-Clause
. "$top_srcdir/t/omp/tap-lib.sh"
require_libomp
run_group protocol
tap_finish
