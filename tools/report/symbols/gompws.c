/* gompws.c - the worksharing construct a GCC-compiled implicit barrier closes, read from the code that jumps to it, so the barrier is named at the construct rather than at the loop body's last line. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "gompws.h"

#ifdef HAVE_LIBDW
#include <string.h>

#include "tailcall.h"

/*
 * GCC closes a worksharing loop with a call of GOMP_barrier (static
 * schedules) or GOMP_loop_end (the others) that it gives no source
 * location: the line table names it by whatever row came before, a line
 * of the loop's body (NPB MG's comm3, CloverLeaf's advec_mom) or, when the
 * schedule's code has no row either, of the statements before the loop.
 * The construct's line is on the code that decides the thread's share:
 * the test that skips the body when the thread has no iterations, and the
 * exit of the loop over its chunks, each a jump to the block holding the
 * barrier's call; for a dynamic schedule, the GOMP_loop_*start call as
 * well.  Those jumps come after the schedule's first runtime call
 * (omp_get_thread_num, or GOMP_loop_*start), so a test of the loop's
 * bounds that GCC put before it in a row of an earlier statement is left
 * out, and the least line among them, in the barrier's file, names the
 * construct; but a static schedule's division of the iterations by the
 * threads, when GCC began a row at it, names it first: the jumps may
 * carry the line of a statement GCC scheduled among them (CloverLeaf's
 * advec_cell: the IF around two loops of equal bounds).  Jumps are found by their bytes, as tailcall.c does: one
 * must land on the call itself or on a row of the line table starting in
 * the few bytes before it, with no call in between, so stray bytes inside
 * other instructions almost never count.
 */

/* How far before the barrier's call a jump may land (reloads of spilled registers), how many bytes of a function are read, and how many jumps are kept. */
enum { LANDING = 16, MAX_SCAN = 1 << 16, MAX_JUMPS = 64 };

/* The code of the function around a barrier call, and what was found in it. */
struct scan {
    Dwfl_Module *module;
    const unsigned char *text;
    GElf_Addr start;   /* the function's first byte, as loaded */
    size_t length;
    GElf_Addr call;    /* the barrier's call or tail jump */
    GElf_Addr anchor;  /* the last schedule call before it; 0: none */
    int entry_line;    /* the line of the function's first row: the region's pragma, which a loop never shares */
    GElf_Addr jumps[MAX_JUMPS];
    int jump_count;
};

/* Whether an entry point waits at a barrier that closes a construct. */
static int barrier_entry(const char *name)
{
    return name != NULL && strncmp(name, "GOMP_", 5) == 0 && strstr(name, "nowait") == NULL
           && (strncmp(name, "GOMP_barrier", 12) == 0 || strncmp(name, "GOMP_loop_end", 13) == 0
               || strncmp(name, "GOMP_loop_ull_end", 17) == 0 || strncmp(name, "GOMP_sections_end", 17) == 0);
}

/* Whether an entry point starts a worksharing construct's schedule: a GOMP_ start, or the static schedule's omp_get_thread_num. */
static int schedule_entry(const char *name)
{
    return name != NULL
           && (((strncmp(name, "GOMP_loop", 9) == 0 || strncmp(name, "GOMP_sections", 13) == 0
                 || strncmp(name, "GOMP_single", 11) == 0)
                && strstr(name, "start") != NULL)
               || strcmp(name, "omp_get_thread_num") == 0);
}

/* The 32-bit displacement at `at`, as a signed offset. */
static GElf_Addr displacement(const unsigned char *at)
{
    int32_t value;
    memcpy(&value, at, sizeof value);
    return (GElf_Addr)(int64_t)value;
}

/*
 * The file and line of the row holding `address`, and whether that row
 * starts there (*own): GCC starts a row at an instruction it gave a
 * location, which a closing barrier's call never has.
 */
static const char *row_at(Dwfl_Module *module, GElf_Addr address, int *line, int *own)
{
    Dwfl_Line *row = dwfl_module_getsrc(module, address);
    Dwarf_Addr row_address = 0;
    *line = 0;
    const char *file = row != NULL ? dwfl_lineinfo(row, &row_address, line, NULL, NULL, NULL) : NULL;
    *own = file != NULL && row_address == address;
    return file;
}

/* Whether a call instruction ends in [from, to]: the block a jump lands in then runs other code before the barrier. */
static int calls_between(const struct scan *scan, GElf_Addr from, GElf_Addr to)
{
    for (GElf_Addr at = from; at + 5 <= to; at++) {
        size_t i = (size_t)(at - scan->start);
        const char *name = NULL;
        if (scan->text[i] == 0xe8 && ompc_code_call(scan->module, at, &name) > 0)
            return 1;
    }
    return 0;
}

/* Notes the calls and jumps at byte `i` of the function: schedule calls before the barrier, jumps landing just before it. */
static void look_at(struct scan *scan, size_t i)
{
    const unsigned char *at = scan->text + i;
    GElf_Addr here = scan->start + i, target = 0;
    const char *name = NULL;
    if (i + 5 <= scan->length && at[0] == 0xe8 && here < scan->call && ompc_code_call(scan->module, here, &name) == 2
        && schedule_entry(name)) {
        scan->anchor = here;
        return;
    }
    if (i + 6 <= scan->length && at[0] == 0x0f && (at[1] & 0xf0) == 0x80) /* jcc rel32 */
        target = here + 6 + displacement(at + 2);
    else if (i + 5 <= scan->length && at[0] == 0xe9) /* jmp rel32 */
        target = here + 5 + displacement(at + 1);
    else if (i + 2 <= scan->length && ((at[0] & 0xf0) == 0x70 || at[0] == 0xeb)) /* jcc, jmp rel8 */
        target = here + 2 + (GElf_Addr)(int64_t)(int8_t)at[1];
    if (target != 0 && target <= scan->call && target + LANDING >= scan->call && scan->jump_count < MAX_JUMPS)
        scan->jumps[scan->jump_count++] = here;
}

/*
 * The line of the static schedule's division of the iterations by the
 * threads (div or idiv of a register, the first within a few bytes after
 * omp_get_thread_num) when its row starts after that call: a row the
 * schedule's code begins has the construct's line, while a row begun
 * before it is an earlier statement's that GCC let run on.  0 otherwise.
 */
static int division_line(const struct scan *scan, const char *file)
{
    enum { REACH = 64 };
    size_t from = scan->anchor != 0 ? (size_t)(scan->anchor - scan->start) + 5 : scan->length;
    for (size_t i = from; i + 2 <= scan->length && i < from + REACH && scan->start + i < scan->call; i++) {
        int line = 0;
        Dwarf_Addr row_start = 0;
        if (scan->text[i] != 0xf7 || (scan->text[i + 1] & 0xf0) != 0xf0)
            continue;
        Dwfl_Line *row = dwfl_module_getsrc(scan->module, scan->start + i);
        const char *row_file = row != NULL ? dwfl_lineinfo(row, &row_start, &line, NULL, NULL, NULL) : NULL;
        return row_file != NULL && strcmp(row_file, file) == 0 && row_start > scan->anchor && line > 0
                       && line != scan->entry_line
                   ? line
                   : 0;
    }
    return 0;
}

/* The division's line, else the least line, in `file`, of the jumps after the schedule's call that land before the barrier with nothing called between; 0 when none. */
static int least_line(struct scan *scan, const char *file)
{
    int least = division_line(scan, file);
    if (least > 0)
        return least;
    for (int j = 0; j < scan->jump_count; j++) {
        GElf_Addr jump = scan->jumps[j], target;
        const unsigned char *at = scan->text + (jump - scan->start);
        int line = 0, own = 0;
        if (jump <= scan->anchor)
            continue;
        target = at[0] == 0x0f ? jump + 6 + displacement(at + 2)
                 : at[0] == 0xe9 ? jump + 5 + displacement(at + 1)
                                 : jump + 2 + (GElf_Addr)(int64_t)(int8_t)at[1];
        const char *jump_file = row_at(scan->module, jump, &line, &own);
        int target_line = 0, target_own = 0;
        /* A jump lands on the call, or on the row GCC starts at the block holding it (reloads before the call). */
        if (target != scan->call
            && (row_at(scan->module, target, &target_line, &target_own) == NULL || !target_own))
            continue;
        if (calls_between(scan, target, scan->call) || jump_file == NULL || strcmp(jump_file, file) != 0 || line <= 0
            || line == scan->entry_line)
            continue;
        if (least == 0 || line < least)
            least = line;
    }
    return least;
}

/* The barrier's call (or tail jump) that `site` names, 0 when it is none. */
static GElf_Addr barrier_call(Dwfl_Module *module, GElf_Addr site, int is_return)
{
    const char *name = NULL;
    if (!is_return)
        return ompc_code_call(module, site, &name) == 2 && barrier_entry(name) ? site : 0;
    if (site >= 5 && ompc_code_call(module, site - 5, &name) == 2 && barrier_entry(name))
        return site - 5;
    if (site >= 6 && ompc_code_call(module, site - 6, &name) == 2 && barrier_entry(name))
        return site - 6;
    return 0;
}

int ompc_gomp_worksharing_line(Dwfl_Module *module, GElf_Addr site, int is_return, const char *file, int *line)
{
    struct scan scan = {.module = module};
    GElf_Off offset = 0;
    GElf_Sym symbol;
    int call_line = 0, own = 0;
    if (file == NULL || (scan.call = barrier_call(module, site, is_return)) == 0
        || dwfl_module_addrinfo(module, scan.call, &offset, &symbol, NULL, NULL, NULL) == NULL
        || symbol.st_size <= offset)
        return 0;
    /*
     * A call GCC gave a line of its own, a row starting at it with a line
     * other than the code's before it, is where the programmer wrote it:
     * an explicit barrier.  GCC may start a row at a closing barrier's
     * call too, repeating the line before.
     */
    int before = 0, before_own = 0;
    if (row_at(module, scan.call, &call_line, &own) == NULL
        || (own && (row_at(module, scan.call - 1, &before, &before_own) == NULL || before != call_line)))
        return 0;
    scan.start = scan.call - offset;
    /* Code of a schedule GCC gave no row runs on in the function's first: that line names the region, not the loop. */
    if (row_at(module, scan.start, &scan.entry_line, &own) == NULL)
        scan.entry_line = 0;
    scan.length = symbol.st_size < MAX_SCAN ? (size_t)symbol.st_size : MAX_SCAN;
    if ((scan.text = ompc_code_bytes(module, scan.start, scan.length)) == NULL)
        return 0;
    for (size_t i = 0; i < scan.length; i++)
        look_at(&scan, i);
    int least = least_line(&scan, file);
    if (least <= 0)
        return 0;
    *line = least;
    return 1;
}
#endif
