/* gprofng_write.c - --gprofng: one process as a GNU gprofng experiment directory (log.xml, map.xml, data.frameinfo, profile, omptrace) whose OpenMP views `gprofng display text` fills: every sample with its OpenMP state, machine and user-model call stack, the threads' entries into the parallel constructs and into the task constructs' tasks, named at their pragma. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <config.h>

#include "bounds.h"
#include "coderanges.h"
#include "report.h"
#include "samples.h"
#include "writer.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The experiment format is gprofng's (binutils gprofng/src/data_pckts.h and
 * Experiment.cc describe it; nothing of them is copied): log.xml declares
 * each packet kind's fields and their offsets, the binary files hold the
 * packets, little-endian, each starting with its size (16 bits) and kind
 * (16 bits), none crossing a 16 KiB block.
 */
#define BLOCK 16384
#define EXPERIMENT_VERSION "12.4"          /* the experiment version gprofng 2.39-2.42 write and read */
enum {
    KIND_CLOCK = 8,               /* a clock-profiling sample (OPROF_PCKT) */
    KIND_FRAME = 11,              /* a sample's frame info: its stack and OpenMP state */
    KIND_REGION_ENTRY = 12,       /* a thread enters a parallel region (OMP2_PCKT) */
    KIND_TASK_ENTRY = 14,         /* a thread's samples from then on run in a task (OMP3_PCKT) */
    KIND_REGION = 15,             /* a parallel region: its id, parent and pragma (OMP4_PCKT) */
    KIND_TASK = 16,               /* a task: its id, parent and pragma (OMP5_PCKT) */
    KIND_UID = 17,                /* a stack by itself, named by a uid (the user-model stacks) */
};
enum { INFO_STACK = 1, INFO_OMP = 3, INFO_OMP_USER = 5 }; /* a frame packet's parts */
/*
 * The microstate every sample gets (user mode): ompcollect does not measure
 * it, and the analyzer counts OpenMP Work only in it.  numstates 1 is
 * Linux's: one metric, Total CPU Time, which here is every sample's
 * wall-clock time.  Solaris's ten (Total Thread Time and the microstates)
 * would name it better, but gp-display-html 2.40 aborts on them.
 */
#define LMS_USER 0
#define LINUX_STATES 1
#define TRUNCATED UINT64_C(0xfffffffffffffffe) /* a stack's last frame: it was cut */
/* Stack uids, one per frame (machine) and one per frame's user model; frame packets are numbered from 1. */
#define MACHINE_UID(i) (UINT64_C(0x100000000) + (i))
#define USER_UID(i) (UINT64_C(0x200000000) + (i))
/* The architecture ompcollect was built for: in practice the one the record was made on, whose modules gprofng reads. */
#if defined(__aarch64__)
#define ARCH "aarch64"
#else
#define ARCH "x86_64"
#endif
/* Times in the experiment: the record's origin is 1 s, so no time is 0 (which the analyzer takes for unknown). */
#define BASE_NS UINT64_C(1000000000)

/* A binary file of packets being written. */
struct packets {
    FILE *out;
    uint64_t offset;
    unsigned char buffer[65536];
    size_t used;
};

static void put32(struct packets *p, uint32_t value)
{
    for (int i = 0; i < 4; i++)
        p->buffer[p->used++] = (unsigned char)(value >> (8 * i));
}

static void put64(struct packets *p, uint64_t value)
{
    put32(p, (uint32_t)value);
    put32(p, (uint32_t)(value >> 32));
}

/* Starts a packet of `size` bytes and `kind`. */
static void begin(struct packets *p, size_t size, int kind)
{
    p->used = 0;
    put32(p, (uint32_t)size | (uint32_t)kind << 16);
}

/* Writes the packet begun, padding the block first when it would cross one (a zero size tells the reader to skip). */
static int end(struct packets *p)
{
    static const unsigned char zeros[BLOCK];
    if (p->offset % BLOCK + p->used > BLOCK) {
        size_t pad = BLOCK - p->offset % BLOCK;
        if (fwrite(zeros, 1, pad, p->out) != pad)
            return -1;
        p->offset += pad;
    }
    p->offset += p->used;
    return fwrite(p->buffer, 1, p->used, p->out) == p->used ? 0 : -1;
}

/* `text` with XML's five characters escaped, for an attribute or an element. */
static void put_xml(FILE *out, const char *text)
{
    for (; *text != '\0'; text++) {
        switch (*text) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&apos;", out); break;
        default:
            /* XML 1.0 has no C0 controls but tab and newlines, not even as references: a name's are shown as codes. */
            if ((unsigned char)*text < 0x20 && *text != '\t' && *text != '\n' && *text != '\r')
                fprintf(out, "\\x%02x", (unsigned char)*text);
            else
                fputc(*text, out);
        }
    }
}

/* A time since the record's origin as the experiment writes it: seconds.nanoseconds since its start. */
static void put_time(FILE *out, uint64_t ns)
{
    fprintf(out, "%" PRIu64 ".%09" PRIu64, ns / BASE_NS, ns % BASE_NS);
}

/* The task packets of log.xml's omptrace: the analyzer's OMP_task, keyed like OMP_preg by thread and time. */
static void put_task_descriptions(FILE *out)
{
    fprintf(out,
            "  <profpckt kind=\"%d\" uname=\"OpenMP task entries\">\n"
            "    <field name=\"THRID\" uname=\"Thread number\" offset=\"8\" type=\"INT64\"/>\n"
            "    <field name=\"TSTAMP\" uname=\"High resolution timestamp\" offset=\"16\" type=\"INT64\"/>\n"
            "    <field name=\"TSKID\" uname=\"OpenMP task id\" offset=\"24\" type=\"UINT64\"/>\n"
            "  </profpckt>\n"
            "  <profpckt kind=\"%d\" uname=\"OpenMP tasks\">\n"
            "    <field name=\"TSKID\" uname=\"OpenMP task id\" offset=\"8\" type=\"UINT64\"/>\n"
            "    <field name=\"PTSKID\" uname=\"OpenMP parent task id\" offset=\"16\" type=\"UINT64\"/>\n"
            "    <field name=\"PRPC\" uname=\"OpenMP task pragma\" offset=\"24\" type=\"UINT64\"/>\n"
            "  </profpckt>\n",
            KIND_TASK_ENTRY, KIND_TASK);
}

/* The packet kinds of log.xml: the samples, and the parallel regions with the threads' entries (and the tasks with theirs, `tasks`). */
static void put_descriptions(FILE *out, long long interval_ns, int tasks)
{
    fprintf(out,
            "<profile name=\"profile\" ptimer=\"%lld\" numstates=\"%d\">\n"
            "  <profdata fname=\"profile\"/>\n"
            "  <profpckt kind=\"%d\" uname=\"Clock profiling data\">\n"
            "    <field name=\"LWPID\" uname=\"Lightweight process id\" offset=\"8\" type=\"INT64\"/>\n"
            "    <field name=\"THRID\" uname=\"Thread number\" offset=\"16\" type=\"INT64\"/>\n"
            "    <field name=\"CPUID\" uname=\"CPU id\" offset=\"24\" type=\"INT32\"/>\n"
            "    <field name=\"TSTAMP\" uname=\"High resolution timestamp\" offset=\"32\" type=\"INT64\"/>\n"
            "    <field name=\"FRINFO\" offset=\"40\" type=\"INT64\"/>\n"
            "    <field name=\"MSTATE\" uname=\"Thread state\" offset=\"48\" type=\"INT32\"/>\n"
            "    <field name=\"NTICK\" uname=\"Duration\" offset=\"52\" type=\"INT32\"/>\n"
            "  </profpckt>\n"
            "</profile>\n"
            "<profile name=\"omptrace\">\n"
            "  <profdata fname=\"omptrace\"/>\n"
            "  <profpckt kind=\"%d\" uname=\"OpenMP parallel region entries\">\n"
            "    <field name=\"THRID\" uname=\"Thread number\" offset=\"8\" type=\"INT64\"/>\n"
            "    <field name=\"TSTAMP\" uname=\"High resolution timestamp\" offset=\"16\" type=\"INT64\"/>\n"
            "    <field name=\"CPRID\" uname=\"OpenMP parallel region\" offset=\"24\" type=\"UINT64\"/>\n"
            "  </profpckt>\n"
            "  <profpckt kind=\"%d\" uname=\"OpenMP parallel regions\">\n"
            "    <field name=\"CPRID\" uname=\"OpenMP parallel region\" offset=\"8\" type=\"UINT64\"/>\n"
            "    <field name=\"PPRID\" uname=\"OpenMP parent parallel region\" offset=\"16\" type=\"UINT64\"/>\n"
            "    <field name=\"PRPC\" uname=\"OpenMP parallel region pragma\" offset=\"24\" type=\"UINT64\"/>\n"
            "  </profpckt>\n",
            (interval_ns + 500) / 1000, LINUX_STATES, KIND_CLOCK, KIND_REGION_ENTRY, KIND_REGION);
    if (tasks)
        put_task_descriptions(out);
    fputs("</profile>\n", out);
}

/*
 * What the run lost and what the loader refused, as the experiment's notes
 * (`gprofng display text -header` prints each as "*** Note: ..."): the
 * same sentences every other output gives.
 */
static void put_notes(const struct ompc_report *report, FILE *out)
{
    struct ompc_limit limits[OMPC_LIMIT_KINDS];
    int count = ompc_limits_reached(report->process, report->event_log_bytes, limits);
    for (int i = 0; i < count; i++) {
        fputs("<event kind=\"comment\" id=\"0\" text=\"ompcollect: limit reached: ", out);
        put_xml(out, limits[i].text);
        fputs("\"/>\n", out);
    }
    const struct ompc_damage *damage = &report->process->damage;
    if (damage->count == 0)
        return;
    fprintf(out, "<event kind=\"comment\" id=\"0\" text=\"ompcollect: record damaged (%lu finding%s): ", damage->count,
            damage->count == 1 ? "" : "s");
    put_xml(out, damage->text);
    fputs("\"/>\n", out);
}

/* log.xml: who wrote it, the process, the run's start and end, and the packet kinds (the tasks' when `tasks`). */
static int write_log(const struct ompc_report *report, FILE *out, int tasks)
{
    const struct ompc_model_process *process = report->process;
    int64_t start = (int64_t)process->origin_ns + report->realtime_offset_ns;
    fprintf(out, "<experiment version=\"" EXPERIMENT_VERSION "\">\n<collector>ompcollect " PACKAGE_VERSION "</collector>\n"
                 "</experiment>\n<system hostname=\"");
    put_xml(out, report->host != NULL ? report->host : "");
    fprintf(out, "\" arch=\"" ARCH "\" os=\"Linux\" pagesz=\"4096\" npages=\"0\"/>\n"
                 "<process pid=\"%ld\"></process>\n<process ppid=\"%ld\"></process>\n"
                 "<process wsize=\"64\"></process>\n<process>",
            (long)process->pid, (long)process->ppid);
    put_xml(out, report->program != NULL ? report->program : process->program);
    fprintf(out, "</process>\n<event kind=\"run\" tstamp=\"");
    put_time(out, BASE_NS);
    fprintf(out, "\" time=\"%lld\" tm_zone=\"0\"/>\n", report->realtime_offset_ns != 0 ? (long long)(start / 1000000000) : 0LL);
    put_notes(report, out);
    put_descriptions(out, report->interval_ns, tasks);
    fprintf(out, "<event kind=\"exit\" tstamp=\"");
    put_time(out, report->wall_ns);
    fprintf(out, "\"/>\n");
    return ferror(out) ? -1 : 0;
}

/* One module's segment in map.xml. */
struct map_context {
    FILE *out;
    const char *name;
};

static int put_segment(void *context, uint64_t low, uint64_t size, uint64_t offset)
{
    struct map_context *map = context;
    fprintf(map->out,
            "<event kind=\"map\" object=\"segment\" tstamp=\"0.000000000\" vaddr=\"0x%016" PRIX64 "\" size=\"%" PRIu64
            "\" pagesz=\"4096\" foffset=\"+0x%08" PRIX64 "\" modes=\"0x005\" chksum=\"0x0\" name=\"",
            low, size, offset);
    put_xml(map->out, map->name);
    fputs("\"/>\n", map->out);
    return 0;
}

/* map.xml: the code segments of every module whose file can be read (the analyzer reads the same files; the vDSO has none). */
static int write_map(const struct ompc_model_process *process, FILE *out)
{
    for (uint32_t m = 0; m < process->module_count; m++) {
        const char *file = ompc_model_module_file(process, process->modules[m].path);
        char *named = NULL;
        if (process->symfs != NULL && asprintf(&named, "%s/%s", process->symfs, file) < 0)
            return -1;
        struct map_context map = {out, named != NULL ? named : file};
        (void)ompc_code_segments(file, process->symfs, process->modules[m].bias, put_segment, &map);
        free(named);
    }
    return ferror(out) ? -1 : 0;
}

/* A stack: its frames, leaf first, and the marker when it was cut. */
static void put_frames(struct packets *p, const uint64_t *pcs, int frames, int cut)
{
    for (int i = 0; i < frames; i++)
        put64(p, pcs[i]);
    if (cut)
        put64(p, TRUNCATED);
}

/* One frame's packets: its user-model stack by uid, then the frame (machine stack and OpenMP state). */
static int write_frame(struct packets *p, const struct ompc_samples *samples, size_t i)
{
    const struct ompc_sample_frame *frame = &samples->frames[i];
    const struct ompc_frames *machine = &frame->machine, *user = &frame->user;
    int users = user->count + user->cut, machines = machine->count + machine->cut;
    if (users > 0) {
        begin(p, 16 + 8 * (size_t)users, KIND_UID);
        put32(p, 0);
        put64(p, USER_UID(i));
        put_frames(p, samples->words + user->at, user->count, user->cut);
        if (end(p) != 0)
            return -1;
    }
    size_t stack = machines > 0 ? 16 + 8 * (size_t)machines : 0;
    size_t omp = users > 0 ? 24 : 16;
    begin(p, 16 + stack + omp, KIND_FRAME);
    put32(p, 16);
    put64(p, i + 1);
    if (stack != 0) {
        put32(p, (uint32_t)stack);
        put32(p, INFO_STACK);
        put64(p, MACHINE_UID(i));
        put_frames(p, samples->words + machine->at, machine->count, machine->cut);
    }
    put32(p, (uint32_t)omp);
    put32(p, users > 0 ? INFO_OMP_USER : INFO_OMP);
    put32(p, (uint32_t)frame->state); /* ompcollect's states are the Collector API's, as are the analyzer's */
    put32(p, 0);
    if (users > 0)
        put64(p, USER_UID(i));
    return end(p);
}

/* profile: one clock packet per sample, of one tick. */
static int write_profile(const struct ompc_model_process *process, const struct ompc_samples *samples,
                         struct packets *p)
{
    for (size_t i = 0; i < samples->sample_count; i++) {
        const struct ompc_sample *sample = &samples->samples[i];
        begin(p, 56, KIND_CLOCK);
        put32(p, 0);
        put64(p, (uint64_t)(int64_t)process->threads[sample->thread].tid);
        put64(p, (uint64_t)sample->thread + 1);
        put32(p, 0);
        put32(p, 0);
        put64(p, BASE_NS + sample->ns);
        put64(p, (uint64_t)sample->frame + 1);
        put32(p, LMS_USER);
        put32(p, 1);
        if (end(p) != 0)
            return -1;
    }
    return 0;
}

/*
 * A construct's description packet (a parallel region's or a task's): its
 * id, no parent, and the call to the runtime less one, inside the call
 * instruction, where the analyzer looks its line up.
 */
static int put_description(struct packets *p, int kind, uint64_t id, uint64_t codeptr)
{
    begin(p, 32, kind);
    put32(p, 0);
    put64(p, id);
    put64(p, 0);
    put64(p, codeptr - (codeptr != 0));
    return end(p);
}

/* An entry packet: from `ns` on, thread `thread` runs in the construct `id` (0: none). */
static int put_entry(struct packets *p, int kind, int thread, uint64_t ns, uint64_t id)
{
    begin(p, 32, kind);
    put32(p, 0);
    put64(p, (uint64_t)thread + 1);
    put64(p, BASE_NS + ns);
    put64(p, id);
    return end(p);
}

/* omptrace: the parallel constructs (named at the call to the runtime, the pragma's line), then the threads' entries. */
static int write_omptrace(const struct ompc_model_process *process, const struct ompc_samples *samples,
                          struct packets *p)
{
    for (uint32_t c = 0; c < process->construct_count; c++)
        if (put_description(p, KIND_REGION, (uint64_t)c + 1, process->constructs[c].codeptr) != 0)
            return -1;
    for (size_t i = 0; i < samples->entry_count; i++) {
        const struct ompc_construct_entry *entry = &samples->entries[i];
        if (put_entry(p, KIND_REGION_ENTRY, entry->thread, entry->ns, entry->construct) != 0)
            return -1;
    }
    return 0;
}

/*
 * omptrace, after the regions: the task constructs (named, as the
 * parallel ones, at the call to the runtime, the pragma's line), then
 * where each thread's samples change task.  A task's id is its construct's:
 * the analyzer names a task by its pragma, so tasks of one construct are
 * one row of OMP_task.
 */
static int write_tasks(const struct ompc_model_process *process, const struct ompc_samples *samples,
                       struct packets *p)
{
    for (uint32_t c = 0; samples->task_entry_count > 0 && c < process->task_construct_count; c++)
        if (put_description(p, KIND_TASK, (uint64_t)c + 1, process->task_constructs[c].codeptr) != 0)
            return -1;
    for (size_t i = 0; i < samples->task_entry_count; i++) {
        const struct ompc_task_entry *entry = &samples->task_entries[i];
        if (put_entry(p, KIND_TASK_ENTRY, entry->thread, entry->ns, entry->task) != 0)
            return -1;
    }
    return 0;
}

/* Opens one file of the experiment through the sink. */
static int open_packets(struct ompc_sink *sink, const char *name, struct packets *p)
{
    memset(p, 0, sizeof *p);
    p->out = sink->open(sink, name);
    return p->out != NULL ? 0 : -1;
}

/* The binary files. */
static int write_packets(const struct ompc_model_process *process, const struct ompc_samples *samples,
                         struct ompc_sink *sink)
{
    struct packets *p = malloc(sizeof *p); /* 64 KiB of buffer: not on the stack */
    int failed = p == NULL || open_packets(sink, "data.frameinfo", p) != 0;
    for (size_t i = 0; !failed && i < samples->frame_count; i++)
        failed = write_frame(p, samples, i) != 0;
    failed = failed || open_packets(sink, "profile", p) != 0 || write_profile(process, samples, p) != 0;
    failed = failed || open_packets(sink, "omptrace", p) != 0 || write_omptrace(process, samples, p) != 0
          || write_tasks(process, samples, p) != 0;
    free(p);
    return failed ? -1 : 0;
}

int ompc_gprofng_writer(const struct ompc_view *view, struct ompc_sink *sink)
{
    const struct ompc_report *report = view->process;
    struct ompc_samples *samples = ompc_samples_build(report);
    if (samples == NULL)
        return -1;
    FILE *log = sink->open(sink, "log.xml");
    FILE *map = sink->open(sink, "map.xml");
    int failed = log == NULL || map == NULL || write_log(report, log, samples->task_entry_count > 0) != 0
              || write_map(report->process, map) != 0
              || write_packets(report->process, samples, sink) != 0;
    ompc_samples_free(samples);
    return failed ? -1 : 0;
}
