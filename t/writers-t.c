/* writers-t.c - the writer interface (tools/report/write/writer.h): the table, the refusal of a view or sink of another kind, every writer of a process through a test's own sinks, and -f csv and --csv-dir as two sinks of one writer. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <config.h>

#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/tap.h"
#include "load.h"
#include "omp_collector_api.h"
#include "record.h"
#include "report.h"
#include "compare_writers.h"
#include "writer.h"

#define ORIGIN_NS UINT64_C(500000000000)

/* A process that ran 2 s on two threads, as its record would hold it: what the golden runs need a machine for, made here by hand. */
static struct ompc_model_process *load_model(void)
{
    struct ompc_record_header header;
    ompc_record_layout(&header, OMPC_OPT_SAMPLE | OMPC_OPT_TIMELINE | OMPC_OPT_TASKS);
    header.interval_ns = 1000000;
    int fd = memfd_create("writers-t", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, (off_t)header.total_size) != 0
        || pwrite(fd, &header, sizeof header, 0) != (ssize_t)sizeof header)
        tap_bail("cannot make the record");
    static struct ompc_process base; /* too large for a stack */
    memset(&base, 0, offsetof(struct ompc_process, threads));
    base.state = OMPC_PROC_ENDED;
    base.pid = 4242;
    base.parent_slot = base.exec_slot = -1;
    base.origin_ns = ORIGIN_NS;
    base.end_ns = 2000000000;
    base.openmp = 1;
    base.sample_signal = 64;
    base.sampling = OMPC_SAMPLING_ON;
    base.thread_count = 2;
    strcpy(base.program, "writers, \"quoted\"");
    off_t at = (off_t)header.process_offset;
    if (pwrite(fd, &base, offsetof(struct ompc_process, threads), at) < 0)
        tap_bail("cannot write the process");
    for (int i = 0; i < 2; i++) {
        struct ompc_thread thread;
        memset(&thread, 0, sizeof thread);
        thread.tid = 4242 + i;
        thread.initial = i == 0;
        thread.status = OMPC_SLOT_EXITED;
        thread.end_ns = 2000000000;
        thread.signals = thread.ticks = 2000;
        thread.state_ticks[THR_WORK_STATE] = 1500;
        thread.state_ticks[THR_IBAR_STATE] = 500;
        off_t slot = at + (off_t)(offsetof(struct ompc_process, threads) + i * sizeof thread);
        if (pwrite(fd, &thread, sizeof thread, slot) < 0)
            tap_bail("cannot write a thread");
    }
    struct ompc_load_bounds bounds = {ORIGIN_NS, ORIGIN_NS + 10000000000u, NULL};
    struct ompc_model_process *process = ompc_load_process(fd, &header, 0, OMPC_LOAD_TIMELINES, &bounds);
    close(fd);
    if (process == NULL)
        tap_bail("the loader refused the record");
    process->symfs = "/nonexistent"; /* no module is ever opened */
    return process;
}

/* What the launcher adds to a model, as a saved run would give it. */
static struct ompc_report describe(const struct ompc_model_process *process)
{
    struct ompc_report report;
    memset(&report, 0, sizeof report);
    report.process = process;
    report.sampling = 1;
    report.interval_ns = 1000000;
    report.wall_ns = process->end_ns;
    report.program = process->program;
    report.complete = 1;
    report.end_how = "exit";
    report.fate = "exit status 0";
    report.rank = -1;
    report.host = report.relation = report.runtime_path = report.runtime_file = "";
    report.runtime_version = report.runtime_why = report.shim = report.agent = "";
    return report;
}

/* A test's directory sink: the files a writer opens, kept in memory in order; directory() makes a real one. */
struct files {
    int count;
    char *names[32];
    char *bytes[32];
    size_t lengths[32];
    FILE *streams[32];
    char directory[64];
};

static FILE *open_file(struct ompc_sink *sink, const char *name)
{
    struct files *files = sink->context;
    if (files->count == 32)
        return NULL;
    int i = files->count++;
    files->names[i] = strdup(name);
    return files->streams[i] = open_memstream(&files->bytes[i], &files->lengths[i]);
}

static const char *make_directory(struct ompc_sink *sink)
{
    struct files *files = sink->context;
    snprintf(files->directory, sizeof files->directory, "%s/writers-t.XXXXXX",
             getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    return mkdtemp(files->directory);
}

static int remove_entry(const char *path, const struct stat *info, int flag, struct FTW *ftw)
{
    (void)info, (void)flag, (void)ftw;
    return remove(path);
}

/* Closes the files' streams, so that their bytes can be read. */
static void close_files(struct files *files)
{
    for (int i = 0; i < files->count; i++)
        fclose(files->streams[i]);
}

/* Frees the files, and removes the directory made. */
static void free_files(struct files *files)
{
    for (int i = 0; i < files->count; i++) {
        free(files->names[i]);
        free(files->bytes[i]);
    }
    if (files->directory[0] != '\0')
        nftw(files->directory, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Both tables: each entry complete and its name unique among its view's; each holds its own views only. */
static void check_tables(void)
{
    int complete = 1, unique = 1, own = 1;
    const struct ompc_writer *const tables[] = {ompc_report_writers, ompc_compare_writers};
    for (int t = 0; t < 2; t++)
        for (const struct ompc_writer *w = tables[t]; w->name != NULL; w++) {
            complete &= w->write != NULL && (w->sink == OMPC_SINK_STREAM || w->sink == OMPC_SINK_DIRECTORY);
            unique &= ompc_writer_find(tables[t], w->view, w->name) == w;
            own &= (w->view == OMPC_VIEW_PROCESS) == (t == 0);
        }
    tap_ok(complete && unique && own,
           "every writer has a write function and a sink kind, and a name unique among its view's; the report's "
           "table holds a process's writers only, compare's merge's and diff's only");
    static const char *const process[] = {"text", "csv", "json", "folded", "svg", "trace-json", "csv-dir"};
    int found = 1;
    for (size_t i = 0; i < sizeof process / sizeof process[0]; i++)
        found &= ompc_writer_find(ompc_report_writers, OMPC_VIEW_PROCESS, process[i]) != NULL;
    found &= ompc_writer_find(ompc_compare_writers, OMPC_VIEW_MERGE, "text") != NULL
             && ompc_writer_find(ompc_compare_writers, OMPC_VIEW_MERGE, "json") != NULL;
    found &= ompc_writer_find(ompc_compare_writers, OMPC_VIEW_DIFF, "text") != NULL
             && ompc_writer_find(ompc_compare_writers, OMPC_VIEW_DIFF, "json") != NULL
             && ompc_writer_find(ompc_compare_writers, OMPC_VIEW_DIFF, "csv") != NULL;
#ifdef HAVE_OTF2
    found &= ompc_writer_find(ompc_report_writers, OMPC_VIEW_PROCESS, "otf2") != NULL;
#else
    found &= ompc_writer_find(ompc_report_writers, OMPC_VIEW_PROCESS, "otf2") == NULL;
#endif
    tap_ok(found, "the tables have every output: the report's formats, the timeline, both traces, the CSV "
                  "directory, merge's two, diff's three");
}

/* Whether writer `w`, given a view or a sink of another kind, refuses it, says so, and writes nothing. */
static int refuses(const struct ompc_writer *w, const struct ompc_report *report)
{
    char *text = NULL;
    size_t size = 0;
    FILE *memory = open_memstream(&text, &size);
    enum ompc_view_kind other = w->view == OMPC_VIEW_PROCESS ? OMPC_VIEW_MERGE : OMPC_VIEW_PROCESS;
    struct ompc_view wrong_view = {.kind = other};
    struct ompc_view view = {.kind = OMPC_VIEW_PROCESS, .process = report};
    struct ompc_sink stream = {.kind = OMPC_SINK_STREAM, .out = memory};
    struct ompc_sink directory = {.kind = OMPC_SINK_DIRECTORY};
    int refused = ompc_writer_write(w, &wrong_view, &stream) == -1 && stream.error[0] != '\0';
    if (w->view == OMPC_VIEW_PROCESS)
        refused &= ompc_writer_write(w, &view, w->sink == OMPC_SINK_STREAM ? &directory : &stream) == -1;
    fclose(memory);
    refused &= size == 0;
    free(text);
    return refused;
}

/* Each writer of both tables given a view or a sink of another kind refuses it. */
static void check_refusals(const struct ompc_report *report)
{
    int refused = 1;
    const struct ompc_writer *const tables[] = {ompc_report_writers, ompc_compare_writers};
    for (int t = 0; t < 2; t++)
        for (const struct ompc_writer *w = tables[t]; w->name != NULL; w++)
            refused &= refuses(w, report);
    tap_ok(refused, "a writer refuses a view or a sink of another kind, saying why and writing nothing");
}

/* Every writer of a process's view writes the model: stream ones to memory, directory ones through a test's sink. */
static void check_all_write(const struct ompc_report *report)
{
    struct ompc_view view = {.kind = OMPC_VIEW_PROCESS, .process = report};
    for (const struct ompc_writer *w = ompc_report_writers; w->name != NULL; w++) {
        if (w->view != OMPC_VIEW_PROCESS)
            continue;
        char *text = NULL;
        size_t size = 0;
        struct files files = {0};
        FILE *memory = open_memstream(&text, &size);
        struct ompc_sink sink = {.kind = w->sink, .out = memory, .open = open_file, .directory = make_directory,
                                 .context = &files};
        int status = ompc_writer_write(w, &view, &sink);
        fclose(memory);
        close_files(&files);
        /* Without --stacks the folded stacks are empty; everything else writes something (OTF2: its entry file). */
        char entry[128] = "";
        if (w->entry != NULL)
            snprintf(entry, sizeof entry, "%s/%s", files.directory, w->entry);
        int wrote = strcmp(w->name, "folded") == 0 || size > 0 || files.count > 0
                    || (entry[0] != '\0' && access(entry, R_OK) == 0);
        tap_ok(status == 0 && wrote, "%s writes the model (%zu bytes, %d files)%s%s", w->name, size, files.count,
               sink.error[0] ? ": " : "", sink.error);
        free(text);
        free_files(&files);
    }
}

/* The CSV stream with each row's leading table name and each header's "section" column taken off, as one text per table. */
static int split_stream(char *stream, char **names, char **texts, int most)
{
    int count = 0;
    size_t sizes[32] = {0};
    FILE *out = NULL;
    for (char *line = strtok(stream, "\n"); line != NULL; line = strtok(NULL, "\n")) {
        char *comma = strchr(line, ',');
        if (comma == NULL)
            return -1;
        *comma = '\0';
        if (strcmp(line, "section") == 0) {
            if (out != NULL)
                fclose(out);
            if (count == most)
                return -1;
            names[count] = NULL;
            out = open_memstream(&texts[count], &sizes[count]);
            count++;
        } else if (count == 0) {
            return -1;
        } else if (names[count - 1] == NULL) {
            names[count - 1] = strdup(line);
        }
        fprintf(out, "%s\n", comma + 1);
    }
    if (out != NULL)
        fclose(out);
    return count;
}

/* -f csv and --csv-dir: one writer, so the same tables in the same order with the same header and rows. */
static void check_csv_sinks(const struct ompc_report *report)
{
    struct ompc_view view = {.kind = OMPC_VIEW_PROCESS, .process = report};
    char *stream = NULL;
    size_t size = 0;
    FILE *memory = open_memstream(&stream, &size);
    struct ompc_sink sink = {.kind = OMPC_SINK_STREAM, .out = memory};
    int status = ompc_writer_write(ompc_writer_find(ompc_report_writers, OMPC_VIEW_PROCESS, "csv"), &view, &sink);
    fclose(memory);
    struct files files = {0};
    struct ompc_sink directory = {.kind = OMPC_SINK_DIRECTORY, .open = open_file, .directory = make_directory,
                                  .context = &files};
    status |= ompc_writer_write(ompc_writer_find(ompc_report_writers, OMPC_VIEW_PROCESS, "csv-dir"), &view, &directory);
    close_files(&files);
    char *names[32] = {NULL}, *texts[32] = {NULL};
    int count = status == 0 ? split_stream(stream, names, texts, 32) : -1;
    int same = count == files.count && count > 0;
    for (int i = 0; same && i < count; i++) {
        char file[80];
        /* A table without rows is named by its file only: the stream's header row does not say. */
        snprintf(file, sizeof file, "%s.csv", names[i] != NULL ? names[i] : "");
        same = (names[i] == NULL || strcmp(file, files.names[i]) == 0) && strcmp(texts[i], files.bytes[i]) == 0;
        if (!same)
            tap_diag("table %d: stream %s, directory %s", i, names[i] ? names[i] : "(no rows)", files.names[i]);
    }
    tap_ok(same, "-f csv and --csv-dir: %d tables, the same in the same order, header and rows alike", count);
    int quoted = count > 0 && strcmp(files.names[0], "run.csv") == 0
                 && strstr(files.bytes[0], "\"writers, \"\"quoted\"\"\"") != NULL;
    tap_ok(quoted, "--csv-dir's run.csv holds the program's name quoted as in the stream");
    for (int i = 0; i < 32; i++) {
        free(names[i]);
        free(texts[i]);
    }
    free(stream);
    free_files(&files);
}

int main(void)
{
    int process_writers = 0;
    for (const struct ompc_writer *w = ompc_report_writers; w->name != NULL; w++)
        process_writers += w->view == OMPC_VIEW_PROCESS;
    tap_plan(2 + 1 + process_writers + 2);
    check_tables();
    struct ompc_model_process *process = load_model();
    struct ompc_report report = describe(process);
    check_refusals(&report);
    check_all_write(&report);
    check_csv_sinks(&report);
    ompc_model_free(process);
    return tap_done();
}
