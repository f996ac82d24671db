/* merge_load.c - merge's and diff's report files: each read whole within its cap, refused with one line that names it, and a file given twice under two names refused (its process would count twice). */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <config.h>

#include "merge_input.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A file merge has read: what makes two names the same file. */
struct file_identity {
    const char *name;
    dev_t device;
    ino_t inode;
};

/* Prints a message prefixed "ompcollect: COMMAND:", on one line whatever a file name holds. */
static void complain(const char *command, const char *fmt, va_list args) __attribute__((format(printf, 2, 0)));
static void complain(const char *command, const char *fmt, va_list args)
{
    char message[1280];
    vsnprintf(message, sizeof message, fmt, args);
    for (char *c = message; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    fprintf(stderr, "ompcollect: %s: %s\n", command, message);
}

void ompc_merge_complain(const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    complain("merge", fmt, args);
    va_end(args);
}

void ompc_reports_complain(const char *command, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    complain(command, fmt, args);
    va_end(args);
}

/* Says why the report at `path` cannot be used; returns -1. */
static int refuse(const char *command, const char *path, const char *reason)
{
    ompc_reports_complain(command, "%s: %s", path, reason);
    return -1;
}

/*
 * The whole of a report, checked against the size cap before anything is
 * read (a file's size from fstat, a pipe's by reading one byte past the cap);
 * NULL with a message.
 */
static char *read_report(const char *command, const char *path, size_t *length, struct file_identity *identity)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat status;
    if (fd < 0 || fstat(fd, &status) != 0) {
        ompc_reports_complain(command, "cannot read %s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    identity->name = path;
    identity->device = status.st_dev;
    identity->inode = status.st_ino;
    char reason[128];
    if (S_ISDIR(status.st_mode) || (S_ISREG(status.st_mode) && (uintmax_t)status.st_size > OMPC_MERGE_MAX_INPUT)) {
        if (S_ISDIR(status.st_mode))
            snprintf(reason, sizeof reason, "is a directory, not a JSON report");
        else
            snprintf(reason, sizeof reason, "is %jd bytes, more than the %zu MiB %s reads of one report",
                     (intmax_t)status.st_size, OMPC_MERGE_MAX_INPUT >> 20, command);
        close(fd);
        refuse(command, path, reason);
        return NULL;
    }
    size_t capacity = S_ISREG(status.st_mode) ? (size_t)status.st_size + 1 : 65536, used = 0;
    char *text = malloc(capacity);
    for (ssize_t got = 1; text != NULL && got != 0 && used <= OMPC_MERGE_MAX_INPUT;) {
        if (used == capacity) {
            capacity = capacity * 2 > OMPC_MERGE_MAX_INPUT + 1 ? OMPC_MERGE_MAX_INPUT + 1 : capacity * 2;
            char *grown = realloc(text, capacity);
            if (grown == NULL)
                free(text);
            text = grown;
            if (text == NULL)
                break;
        }
        got = read(fd, text + used, capacity - used);
        if (got < 0 && errno != EINTR) {
            ompc_reports_complain(command, "cannot read %s: %s", path, strerror(errno));
            free(text);
            close(fd);
            return NULL;
        }
        used += got > 0 ? (size_t)got : 0;
    }
    close(fd);
    if (text == NULL)
        ompc_reports_complain(command, "%s: out of memory", path);
    else if (used > OMPC_MERGE_MAX_INPUT) {
        snprintf(reason, sizeof reason, "is more than the %zu MiB %s reads of one report",
                 OMPC_MERGE_MAX_INPUT >> 20, command);
        refuse(command, path, reason);
        free(text);
        return NULL;
    }
    *length = used;
    return text;
}

/* Compares two files' identities for qsort. */
static int compare_files(const void *a, const void *b)
{
    const struct file_identity *x = a, *y = b;
    if (x->device != y->device)
        return x->device < y->device ? -1 : 1;
    return (x->inode > y->inode) - (x->inode < y->inode);
}

/* Refuses a file given twice, under any names: its process would count twice. */
static int check_files(struct file_identity *files, int count)
{
    qsort(files, (size_t)count, sizeof *files, compare_files);
    for (int i = 1; i < count; i++)
        if (compare_files(&files[i - 1], &files[i]) == 0) {
            ompc_merge_complain("%s and %s are the same file; give each process's report once", files[i - 1].name,
                     files[i].name);
            return -1;
        }
    return 0;
}

/* Reads and checks the report at `path` into `input`; 0, or -1 after a message. */
static int load_one(const char *command, const char *path, struct ompc_merge_input *input,
                    struct file_identity *identity)
{
    size_t length;
    char *text = read_report(command, path, &length, identity);
    char reason[512];
    int status = 0;
    input->file = path;
    if (text == NULL)
        status = -1;
    else if (ompc_merge_parse(text, length, OMPC_MERGE_MAX_MEMORY, input, reason, sizeof reason) != 0)
        status = refuse(command, path, reason);
    free(text);
    return status;
}

int ompc_merge_load(const char *command, const char *path, struct ompc_merge_input *input)
{
    struct file_identity identity;
    return load_one(command, path, input, &identity);
}

int ompc_merge_load_all(char **paths, int count, struct ompc_merge_input *inputs)
{
    struct file_identity *files = calloc((size_t)count, sizeof *files);
    int status = files != NULL ? 0 : -1;
    for (int i = 0; i < count && files != NULL; i++)
        if (load_one("merge", paths[i], &inputs[i], &files[i]) != 0)
            status = -1;
    if (files == NULL)
        ompc_merge_complain("out of memory");
    else if (status == 0)
        status = check_files(files, count);
    free(files);
    return status;
}
