/* names.h - state and event names, and the option parsers the ompcollect launcher and its agent share. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_NAMES_H
#define OMPCOLLECT_NAMES_H 1

#include <stddef.h>
#include <stdint.h>

/* States are 1..11 as in omp_collector_api.h; slot 0 collects answers outside that range. */
#define OMPC_NSTATES 12
/* Events are 1..22 as in omp_collector_api.h. */
#define OMPC_NEVENTS 23
/* BEGIN/END event pairs: BEGIN_IDLE/END_IDLE .. BEGIN_ATWT/END_ATWT. */
#define OMPC_NPAIRS 10
/* The OpenUH task extension's events, 23..35 (BEGIN_CREATE_TASK .. END_FINISH_TASK), counted apart from the 22 above. */
#define OMPC_TASK_EVENT_FIRST 23
#define OMPC_TASK_EVENTS 13

/* Short upper-case name of a state ("WORK"), "?" outside 1..11. */
const char *ompc_state_name(int state);

/* Lower-case name of an event ("begin_ctwt"), "?" outside 1..22. */
const char *ompc_event_name(int event);

/* Lower-case name of a task event ("begin_create_task"), "?" outside 23..35. */
const char *ompc_task_event_name(int event);

/* Which BEGIN/END pair an event belongs to, or -1 for FORK, JOIN and unknown events. */
int ompc_event_pair(int event);

/* Name of a pair ("ctwt"). */
const char *ompc_pair_name(int pair);

/* Name of a REGISTER answer ("ok", "unsupported"; "call-failed" for -1, the call itself failing). */
const char *ompc_register_status_name(int ec);

/*
 * Parses a comma list of event names into a mask with bit e set for event e.
 * Items: an event ("begin_ctwt", "OMP_EVENT_THR_BEGIN_CTWT"), a pair ("ctwt":
 * both halves), "all" or "none".  On a bad item returns -1 and copies the
 * item into `bad`.
 */
int ompc_parse_events(const char *list, uint32_t *mask, char *bad, size_t bad_size);

/*
 * Nanoseconds in one of the time unit that ends an option's value: ns, us,
 * ms or s, ms when `unit` is empty; 0 when it is none of them.  One list,
 * so every option that takes a time reads the same units.
 */
double ompc_time_unit_ns(const char *unit);

/*
 * Parses a sampling interval: a decimal number with an optional unit (ns,
 * us, ms, s; ms when absent).  Returns -1 when malformed or outside 10us..10s.
 */
int ompc_parse_interval(const char *text, long long *nanoseconds);

/*
 * The kernel's scheduler tick in nanoseconds (CLOCK_MONOTONIC_COARSE's
 * resolution), 0 when unknown or finer than 100 us (no usable tick).  The
 * launcher picks the default interval from it, the agent puts timers on it.
 * OMPCOLLECT_TEST_TICK (an interval, e.g. 10ms) stands in for the kernel's,
 * so the suite can run as on a kernel it is not on (an HZ=100 one: README,
 * "Machines the suite runs on").
 */
long long ompc_kernel_tick_ns(void);

/* Report formats. */
enum ompc_format { OMPC_FORMAT_TEXT, OMPC_FORMAT_CSV, OMPC_FORMAT_JSON };
/* The report as folded call stacks (--stacks=folded); not a --format value. */
enum { OMPC_FORMAT_FOLDED = OMPC_FORMAT_JSON + 1 };

/* Parses a format name; -1 when unknown. */
int ompc_parse_format(const char *text);

#endif /* OMPCOLLECT_NAMES_H */
