/* dispatch.c - every output of every reported process through the writer table: the writer each option asks for, the name its pattern gives, and a sink that puts its files in place whole (standard error in one write). */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <config.h>

#include "dispatch.h"
#include "launcher.h"
#include "output.h"
#include "summary.h"
#include "supervise.h"
#include "writer.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * Whether `name` is a device or pipe (/dev/null, /dev/stdout, a FIFO):
 * written as it is, never replaced, and taking every process's output,
 * since a name made from it (/dev/null.0) would be a file beside it.
 */
static int is_device(const char *name)
{
    struct stat existing;
    return stat(name, &existing) == 0 && !S_ISREG(existing.st_mode) && !S_ISDIR(existing.st_mode);
}

/* The file name one report goes to, from the pattern: rank and pid added where the pattern cannot tell processes apart. */
static char *report_name(const struct run *run, const char *pattern, const struct process_report *entry)
{
    char *name = ompc_expand_pattern(pattern, (long)entry->process->pid, run->rank.rank, run->host);
    if (name == NULL)
        die(EXIT_OWN_FAILURE, "out of memory");
    if (is_device(name))
        return name;
    char tag[32];
    if (run->rank.rank >= 0 && run->rank.size != 1 && !ompc_pattern_has(pattern, 'r')) {
        snprintf(tag, sizeof tag, "%d", run->rank.rank);
        char *tagged = ompc_insert_tag(name, tag);
        free(name);
        name = tagged;
    }
    if (!entry->initial && !ompc_pattern_has(pattern, 'p') && name != NULL) {
        snprintf(tag, sizeof tag, "%ld", (long)entry->process->pid);
        char *tagged = ompc_insert_tag(name, tag);
        free(name);
        name = tagged;
    }
    if (name == NULL)
        die(EXIT_OWN_FAILURE, "out of memory");
    return name;
}

/* Whether `name` is among the first `count` of `names`. */
static int name_taken(char **names, size_t count, const char *name)
{
    for (size_t i = 0; i < count; i++)
        if (names[i] != NULL && strcmp(names[i], name) == 0)
            return 1;
    return 0;
}

/* A file being written: a temporary file put in place whole when finished, or a device or pipe written as it is. */
struct placed_file {
    const char *what; /* what messages call it: "report", "timeline", ... */
    const char *name;
    char *temp;       /* NULL: written to `name` itself */
    FILE *out;
};

/* Opens the file an output goes to; NULL after a message. */
static FILE *open_placed(struct placed_file *file, const char *what, const char *name)
{
    file->what = what;
    file->name = name;
    file->temp = NULL;
    /* A device or pipe is written as it is: there is no file to replace. */
    if (is_device(name)) {
        if ((file->out = fopen(name, "w")) == NULL)
            say("writing the %s %s failed: %s", what, name, strerror(errno));
        return file->out;
    }
    if ((file->out = ompc_open_temp(name, &file->temp)) == NULL)
        say("cannot write the %s %s: %s", what, name, strerror(errno));
    return file->out;
}

/*
 * Closes a file whose writer returned `status` and puts it in place; a
 * name another process of the run wrote meanwhile stays, and this file
 * goes beside it with `pid` in its name.  Returns the name it got
 * (malloc'd), or NULL after a message.
 */
static char *close_placed(const struct run *run, struct placed_file *file, int status, long pid)
{
    int failed = status != 0;
    failed |= fclose(file->out) != 0;
    if (failed) {
        say("writing the %s %s failed: %s", file->what, file->name, strerror(errno));
        if (file->temp != NULL)
            unlink(file->temp);
        free(file->temp);
        return NULL;
    }
    if (file->temp == NULL)
        return strdup(file->name);
    char tag[32];
    snprintf(tag, sizeof tag, "%ld", pid);
    char *fallback = ompc_insert_tag(file->name, tag);
    const char *where = ompc_place_file(file->temp, file->name, fallback, &run->start_real);
    char *placed = NULL;
    if (where == NULL) {
        say("cannot put the %s in place at %s: %s", file->what, file->name, strerror(errno));
        unlink(file->temp);
    } else {
        struct stat there;
        if (where != file->name && stat(file->name, &there) == 0 && S_ISDIR(there.st_mode))
            say("%s is a directory (made during the run): this %s went to %s", file->name, file->what, where);
        else if (where != file->name)
            say("%s was written by another process during this run (another rank ompcollect could not "
                "tell apart?): it stays, and this %s went to %s",
                file->name, file->what, where);
        placed = strdup(where);
    }
    free(fallback);
    free(file->temp);
    return placed;
}

/* One output asked for: its writer, the pattern its names come from (the report's NULL: standard error), and what messages call it. */
struct output {
    const struct ompc_writer *writer;
    const char *pattern;
    const char *what;
};

/* The writers of the report's formats (-f, --stacks=folded), by enum ompc_format. */
static const char *const format_writers[] = {
    [OMPC_FORMAT_TEXT] = "text", [OMPC_FORMAT_CSV] = "csv", [OMPC_FORMAT_JSON] = "json",
    [OMPC_FORMAT_FOLDED] = "folded",
};

/* Whether the --task-graph pattern names a JSON file (the DOT graph otherwise). */
static int task_graph_json(const char *pattern)
{
    size_t length = pattern != NULL ? strlen(pattern) : 0;
    return length >= 5 && strcmp(pattern + length - 5, ".json") == 0;
}

/* The outputs asked for, the report first, in the order each process's are written; returns their count. */
static size_t outputs_asked(const struct run *run, struct output *outputs)
{
    const struct output asked[] = {
        {ompc_writer_find(ompc_report_writers, OMPC_VIEW_PROCESS, format_writers[run->format]), run->output, "report"},
        {ompc_writer_find(ompc_report_writers, OMPC_VIEW_PROCESS, "svg"), run->timeline, "timeline"},
        {ompc_writer_find(ompc_report_writers, OMPC_VIEW_PROCESS, "trace-json"), run->trace_json, "trace"},
        {ompc_writer_find(ompc_report_writers, OMPC_VIEW_PROCESS, "csv-dir"), run->csv_dir, "CSV table"},
        {ompc_writer_find(ompc_report_writers, OMPC_VIEW_PROCESS, "gprofng"), run->gprofng, "gprofng experiment"},
        /* NULL without libotf2, where check_trace_directory refused --trace before the run. */
        {ompc_writer_find(ompc_report_writers, OMPC_VIEW_PROCESS, "otf2"), run->trace, "OTF2 trace"},
        {ompc_writer_find(ompc_report_writers, OMPC_VIEW_PROCESS, "folded"), run->folded, "folded stacks"},
        {ompc_writer_find(ompc_report_writers, OMPC_VIEW_PROCESS, task_graph_json(run->task_graph) ? "task-graph-json" : "task-graph-dot"),
         run->task_graph, "task graph"},
    };
    size_t count = 0;
    for (size_t i = 0; i < sizeof asked / sizeof asked[0]; i++)
        if (asked[i].writer != NULL && (i == 0 || asked[i].pattern != NULL))
            outputs[count++] = asked[i];
    return count;
}

/* A process's view, for its writers. */
static struct ompc_view process_view(const struct process_report *entry)
{
    return (struct ompc_view){.kind = OMPC_VIEW_PROCESS, .process = &entry->report};
}

/* A stream output to the file `name`; returns the name it got (malloc'd), or NULL after a message. */
static char *write_stream(const struct run *run, const struct output *output, const char *name,
                          const struct process_report *entry)
{
    struct placed_file file;
    if (open_placed(&file, output->what, name) == NULL)
        return NULL;
    struct ompc_sink sink = {.kind = OMPC_SINK_STREAM, .out = file.out};
    struct ompc_view view = process_view(entry);
    int status = ompc_writer_write(output->writer, &view, &sink);
    return close_placed(run, &file, status, (long)entry->process->pid);
}

/*
 * A report on standard error in one write where the system allows, so the
 * reports of MPI ranks sharing the launcher's stderr do not interleave.
 */
static int write_to_stderr(const struct output *output, const struct process_report *entry, int separate)
{
    char *text = NULL;
    size_t size = 0;
    FILE *memory = open_memstream(&text, &size);
    if (memory == NULL)
        return -1;
    if (separate)
        fputc('\n', memory);
    struct ompc_sink sink = {.kind = OMPC_SINK_STREAM, .out = memory};
    struct ompc_view view = process_view(entry);
    int failed = ompc_writer_write(output->writer, &view, &sink) != 0;
    failed |= fclose(memory) != 0;
    fflush(stderr);
    for (size_t done = 0; !failed && done < size;) {
        ssize_t wrote = write(STDERR_FILENO, text + done, size - done);
        if (wrote < 0 && errno == EINTR)
            continue;
        failed = wrote <= 0;
        done += wrote > 0 ? (size_t)wrote : 0;
    }
    free(text);
    return failed ? -1 : 0;
}

/* A file of a directory output, held in memory until its writer finished. */
struct held_file {
    char *name;
    char *bytes;
    size_t length;
    FILE *out;
};

/* A directory output of one process in the making: the files its writer opened, or the directory it fills. */
struct directory_output {
    const struct run *run;
    const struct output *output;
    const struct process_report *entry;
    struct held_file **files; /* each allocated alone: its stream updates `bytes` and `length` in place */
    size_t count;
    char *path;  /* directory(): where the directory goes (the pattern's name, rank and pid added) */
    char *temp;  /* directory(): the private directory being filled, or NULL */
    int said;    /* a message said why the output failed */
};

/* The sink's open: a file held in memory, so that a writer that fails leaves no table behind. */
static FILE *hold_file(struct ompc_sink *sink, const char *name)
{
    struct directory_output *output = sink->context;
    struct held_file **grown = realloc(output->files, (output->count + 1) * sizeof *grown);
    if (grown == NULL)
        return NULL;
    output->files = grown;
    struct held_file *file = calloc(1, sizeof *file);
    if (file == NULL || (file->name = strdup(name)) == NULL
        || (file->out = open_memstream(&file->bytes, &file->length)) == NULL) {
        free(file != NULL ? file->name : NULL);
        free(file);
        return NULL;
    }
    grown[output->count++] = file;
    return file->out;
}

/*
 * The sink's directory: a private one next to where the output goes,
 * renamed into place once full, so a reader never sees half an archive.
 */
static const char *private_directory(struct ompc_sink *sink)
{
    struct directory_output *output = sink->context;
    if (output->temp != NULL)
        return output->temp;
    if (asprintf(&output->temp, "%s.tmp.XXXXXX", output->path) < 0)
        output->temp = NULL;
    if (output->temp == NULL || mkdtemp(output->temp) == NULL) {
        say("cannot make a directory next to %s for the %s: %s", output->path, output->output->what,
            strerror(errno));
        free(output->temp);
        output->temp = NULL;
        output->said = 1;
    }
    return output->temp;
}

/* Closes the held files; -1 when any ran out of memory. */
static int close_held(struct directory_output *output)
{
    int failed = 0;
    for (size_t i = 0; i < output->count; i++) {
        failed |= ferror(output->files[i]->out) != 0;
        failed |= fclose(output->files[i]->out) != 0;
    }
    return failed ? -1 : 0;
}

/*
 * Puts the held files in place one by one, in the output's directory
 * (made when missing), each named from the pattern as --output's are: a
 * directory the processes of a run share holds each one's files.
 */
static void place_held(struct directory_output *output)
{
    const struct run *run = output->run;
    long pid = (long)output->entry->process->pid;
    char *directory = ompc_expand_pattern(output->output->pattern, pid, run->rank.rank, run->host);
    if (directory == NULL) {
        say("cannot write the %ss: out of memory", output->output->what);
        return;
    }
    if (mkdir(directory, 0777) != 0 && errno != EEXIST)
        say("cannot make the directory %s for the %ss: %s", directory, output->output->what, strerror(errno));
    for (size_t i = 0; i < output->count; i++) {
        const struct held_file *held = output->files[i];
        char *pattern;
        if (asprintf(&pattern, "%s/%s", output->output->pattern, held->name) < 0)
            die(EXIT_OWN_FAILURE, "out of memory");
        char *name = report_name(run, pattern, output->entry);
        struct placed_file file;
        if (open_placed(&file, output->output->what, name) != NULL) {
            fwrite(held->bytes, 1, held->length, file.out);
            free(close_placed(run, &file, ferror(file.out) ? -1 : 0, pid));
        }
        free(name);
        free(pattern);
    }
    free(directory);
}

/*
 * Renames the filled private directory into place; a directory some
 * other process of the run filled meanwhile stays, and this one goes to a
 * name with the pid instead.
 */
static void place_directory(struct directory_output *output)
{
    const char *what = output->output->what, *where = output->path;
    const struct process_report *entry = output->entry;
    char *fallback = NULL;
    if (rename(output->temp, output->path) != 0) {
        char tag[32];
        snprintf(tag, sizeof tag, "%ld", (long)entry->process->pid);
        fallback = ompc_insert_tag(output->path, tag);
        if ((errno != ENOTEMPTY && errno != EEXIST) || fallback == NULL || rename(output->temp, fallback) != 0) {
            say("cannot put the %s in place at %s: %s", what, output->path, strerror(errno));
            ompc_remove_tree(output->temp);
            free(fallback);
            return;
        }
        where = fallback;
        say("%s was filled by another process during this run: it stays, and this %s went to %s", output->path,
            what, where);
    }
    if (output->output->writer->entry != NULL && (output->run->output != NULL || !entry->initial))
        say("%s of pid %ld: %s/%s", what, (long)entry->process->pid, where, output->output->writer->entry);
    free(fallback);
}

/* A directory output (--csv-dir, --trace): written through a sink that makes its files and puts them in place. */
static void write_directory(const struct run *run, const struct output *output, const struct process_report *entry)
{
    struct directory_output made = {run, output, entry, NULL, 0, NULL, NULL, 0};
    made.path = report_name(run, output->pattern, entry);
    struct ompc_sink sink = {
        .kind = OMPC_SINK_DIRECTORY, .open = hold_file, .directory = private_directory, .context = &made};
    struct ompc_view view = process_view(entry);
    int status = ompc_writer_write(output->writer, &view, &sink);
    status |= close_held(&made);
    if (status == 0 && made.temp != NULL) {
        place_directory(&made);
    } else if (status == 0) {
        place_held(&made);
    } else if (made.temp != NULL) {
        say("writing the %s %s failed: %s", output->what, made.path, sink.error);
        ompc_remove_tree(made.temp);
    } else if (!made.said) {
        say("cannot write the %ss: %s", output->what, sink.error[0] ? sink.error : "out of memory");
    }
    for (size_t i = 0; i < made.count; i++) {
        free(made.files[i]->name);
        free(made.files[i]->bytes);
        free(made.files[i]);
    }
    free(made.files);
    free(made.temp);
    free(made.path);
}

/* The report itself, to stderr or its file (a name another process took gets a number). */
static void write_main_report(const struct run *run, const struct output *output, const struct process_report *entry,
                              size_t i, char **names, char **placed, int *rank_said)
{
    if (output->pattern == NULL) {
        if (write_to_stderr(output, entry, i > 0) != 0)
            say("writing the report to standard error failed");
        return;
    }
    names[i] = report_name(run, output->pattern, entry);
    int device = is_device(names[i]);
    for (int n = 2; !device && name_taken(names, i, names[i]); n++) {
        char tag[16];
        snprintf(tag, sizeof tag, "%d", n);
        char *tagged = ompc_insert_tag(names[i], tag);
        free(names[i]);
        names[i] = tagged;
    }
    if (run->rank.rank == 0 && !*rank_said && run->rank.size != 1 && !ompc_pattern_has(output->pattern, 'r')
        && !device) {
        say("%s is set and --output names no %%r: each rank writes its own file (rank 0: %s)", run->rank.from,
            names[i]);
        *rank_said = 1;
    }
    placed[i] = write_stream(run, output, names[i], entry);
}



/* Every output of every chosen process, each through its writer from the table. */
void write_outputs(const struct run *run, const struct process_report *entries, size_t reports)
{
    struct output outputs[10];
    size_t count = outputs_asked(run, outputs);
    char **names = calloc(reports + 1, sizeof *names);
    char **placed = calloc(reports + 1, sizeof *placed);
    if (names == NULL || placed == NULL)
        die(EXIT_OWN_FAILURE, "out of memory");
    int rank_said = 0;
    size_t skipped = 0;
    for (size_t i = 0; i < reports; i++) {
        const struct process_report *entry = &entries[i];
        write_main_report(run, &outputs[0], entry, i, names, placed, &rank_said);
        for (size_t k = 1; k < count; k++) {
            /* Asked to stop: every main report (quick) is still written, the other outputs not begun. */
            if (interrupted()) {
                skipped++;
                continue;
            }
            if (outputs[k].writer->sink == OMPC_SINK_DIRECTORY) {
                write_directory(run, &outputs[k], entry);
                continue;
            }
            char *name = report_name(run, outputs[k].pattern, entry);
            free(write_stream(run, &outputs[k], name, entry));
            free(name);
        }
    }
    if (skipped > 0) {
        char name[32];
        say("interrupted by %s: %zu further outputs (traces, timelines, stacks...) not written; the main "
            "reports are complete", ompc_signal_name(interrupted(), name, sizeof name), skipped);
    }
    if (run->output != NULL && reports > 1) {
        fprintf(stderr, "%s: %zu processes ran OpenMP; reports:", PROGRAM_NAME, reports);
        for (size_t i = 0; i < reports; i++)
            fprintf(stderr, " %s", placed[i] != NULL ? placed[i] : "(not written)");
        fputc('\n', stderr);
    }
    for (size_t i = 0; i < reports; i++) {
        free(names[i]);
        free(placed[i]);
    }
    free(names);
    free(placed);
}
