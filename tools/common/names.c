/* names.c - state and event names, and parsing of --events, --interval and --format, for launcher and agent alike. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1 /* CLOCK_MONOTONIC_COARSE */
#include "names.h"
#include "mpi_calls.h"
#include "omp_collector_api.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

static const char *const state_names[OMPC_NSTATES] = {
    "?", "OVHD", "WORK", "IBAR", "EBAR", "IDLE", "SERIAL", "REDUC", "LKWT", "CTWT", "ODWT", "ATWT",
};

static const char *const event_names[OMPC_NEVENTS] = {
    "?",           "fork",          "join",        "begin_idle",  "end_idle",
    "begin_ibar",  "end_ibar",      "begin_ebar",  "end_ebar",    "begin_lkwt",
    "end_lkwt",    "begin_ctwt",    "end_ctwt",    "begin_odwt",  "end_odwt",
    "begin_master", "end_master",   "begin_single", "end_single", "begin_ordered",
    "end_ordered", "begin_atwt",    "end_atwt",
};

static const char *const task_event_names[OMPC_TASK_EVENTS] = {
    "begin_create_task", "end_create_task_imm", "end_create_task_del", "begin_schd_task",
    "end_schd_task",     "begin_suspend_task",  "end_suspend_task",    "begin_steal_task",
    "end_steal_task",    "fetched_task",        "begin_exec_task",     "begin_finish_task",
    "end_finish_task",
};

static const char *const pair_names[OMPC_NPAIRS] = {
    "idle", "ibar", "ebar", "lkwt", "ctwt", "odwt", "master", "single", "ordered", "atwt",
};

/* Short upper-case name of a state. */
const char *ompc_state_name(int state)
{
    return state > 0 && state < OMPC_NSTATES ? state_names[state] : state_names[0];
}

/* Name of a REGISTER answer. */
const char *ompc_register_status_name(int ec)
{
    switch (ec) {
    case OMP_ERRCODE_OK:
        return "ok";
    case OMP_ERRCODE_UNSUPPORTED:
        return "unsupported";
    case OMP_ERRCODE_UNKNOWN:
        return "unknown";
    case -1:
        return "call-failed";
    default:
        return "error";
    }
}

/* Lower-case name of an event. */
const char *ompc_event_name(int event)
{
    return event > 0 && event < OMPC_NEVENTS ? event_names[event] : event_names[0];
}

/* Lower-case name of a task event. */
const char *ompc_task_event_name(int event)
{
    int index = event - OMPC_TASK_EVENT_FIRST;
    return index >= 0 && index < OMPC_TASK_EVENTS ? task_event_names[index] : event_names[0];
}

/* The header numbers pairs from 3 (BEGIN_IDLE), BEGIN odd and END even. */
int ompc_event_pair(int event)
{
    return event >= 3 && event < OMPC_NEVENTS ? (event - 3) / 2 : -1;
}

/* Name of a pair. */
const char *ompc_pair_name(int pair)
{
    return pair >= 0 && pair < OMPC_NPAIRS ? pair_names[pair] : "?";
}

/*
 * Mask of the events one list item names, 0 when it names none.  The
 * header's spelling (OMP_EVENT_THR_BEGIN_CTWT) is accepted by dropping its
 * prefixes, so names copied from collector code work.
 */
static uint32_t item_mask(const char *item)
{
    if (strncasecmp(item, "omp_event_", 10) == 0)
        item += 10;
    if (strncasecmp(item, "thr_", 4) == 0)
        item += 4;
    if (strcasecmp(item, "all") == 0)
        return ((UINT32_C(1) << OMPC_NEVENTS) - 1) & ~UINT32_C(1);
    if (strcasecmp(item, "none") == 0)
        return UINT32_C(1) << 31;
    for (int event = 1; event < OMPC_NEVENTS; event++)
        if (strcasecmp(item, event_names[event]) == 0)
            return UINT32_C(1) << event;
    for (int pair = 0; pair < OMPC_NPAIRS; pair++)
        if (strcasecmp(item, pair_names[pair]) == 0)
            return UINT32_C(3) << (3 + 2 * pair);
    return 0;
}

/* Parses an --events list; bit 31 is only a marker that "none" was seen and is cleared. */
int ompc_parse_events(const char *list, uint32_t *mask, char *bad, size_t bad_size)
{
    uint32_t result = 0;
    const char *cursor = list;
    for (;;) {
        const char *comma = strchr(cursor, ',');
        size_t length = comma != NULL ? (size_t)(comma - cursor) : strlen(cursor);
        char item[64];
        while (length > 0 && isspace((unsigned char)*cursor))
            cursor++, length--;
        while (length > 0 && isspace((unsigned char)cursor[length - 1]))
            length--;
        if (length > 0) {
            uint32_t bits = 0;
            if (length < sizeof item) {
                memcpy(item, cursor, length);
                item[length] = '\0';
                bits = item_mask(item);
            }
            if (bits == 0) {
                if (bad != NULL && bad_size > 0) {
                    size_t n = length < bad_size - 1 ? length : bad_size - 1;
                    memcpy(bad, cursor, n);
                    bad[n] = '\0';
                }
                return -1;
            }
            result |= bits;
        }
        if (comma == NULL)
            break;
        cursor = comma + 1;
    }
    *mask = result & ~(UINT32_C(1) << 31);
    return 0;
}

/* The scheduler tick, as CLOCK_MONOTONIC_COARSE advances by it, or as OMPCOLLECT_TEST_TICK says (see names.h). */
long long ompc_kernel_tick_ns(void)
{
    const char *test = getenv("OMPCOLLECT_TEST_TICK");
    long long forced;
    if (test != NULL && *test != '\0' && ompc_parse_interval(test, &forced) == 0)
        return forced >= 100000 && forced < 1000000000 ? forced : 0;
    struct timespec tick;
    if (clock_getres(CLOCK_MONOTONIC_COARSE, &tick) != 0 || tick.tv_sec != 0 || tick.tv_nsec < 100000)
        return 0;
    return tick.tv_nsec;
}

double ompc_time_unit_ns(const char *unit)
{
    if (*unit == '\0' || strcmp(unit, "ms") == 0)
        return 1e6;
    if (strcmp(unit, "us") == 0)
        return 1e3;
    if (strcmp(unit, "ns") == 0)
        return 1;
    if (strcmp(unit, "s") == 0)
        return 1e9;
    return 0;
}

/* Parses an interval; the unit multiplies a decimal fraction so "0.5ms" and "500us" agree. */
int ompc_parse_interval(const char *text, long long *nanoseconds)
{
    char *end;
    double value = strtod(text, &end);
    if (end == text || !(value > 0))
        return -1;
    double scale = ompc_time_unit_ns(end);
    if (scale == 0)
        return -1;
    double ns = value * scale;
    if (ns < 1e4 || ns > 1e10)
        return -1;
    *nanoseconds = (long long)(ns + 0.5);
    return 0;
}

/* Parses a --format value. */
int ompc_parse_format(const char *text)
{
    if (strcmp(text, "text") == 0)
        return OMPC_FORMAT_TEXT;
    if (strcmp(text, "csv") == 0)
        return OMPC_FORMAT_CSV;
    if (strcmp(text, "json") == 0)
        return OMPC_FORMAT_JSON;
    return -1;
}

const char *ompc_mpi_call_name(int call)
{
#define OMPC_MPI_CALL_STRING(name) "MPI_" #name,
    static const char *const names[] = {OMPC_MPI_CALL_LIST(OMPC_MPI_CALL_STRING)};
#undef OMPC_MPI_CALL_STRING
    return call >= 0 && call < OMPC_MPI_CALL_COUNT ? names[call] : NULL;
}
