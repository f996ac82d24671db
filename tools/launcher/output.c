/* output.c - report file names for ompcollect (patterns, ranks) and placing finished files without ever clobbering one another process wrote during the run. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include "output.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A non-negative decimal integer from the environment, or -1. */
static int environment_number(const char *name)
{
    const char *text = getenv(name);
    if (text == NULL || *text < '0' || *text > '9')
        return -1;
    char *end;
    long value = strtol(text, &end, 10);
    return *end == '\0' && value >= 0 && value < 1L << 30 ? (int)value : -1;
}

/* The first rank variable set, with the matching job size where the same launcher gives one. */
void ompc_detect_rank(struct ompc_rank *rank)
{
    static const struct {
        const char *rank;
        const char *size;
    } sources[] = {
        {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
        {"PMI_RANK", "PMI_SIZE"},
        {"PMIX_RANK", "PMIX_SIZE"},
        {"SLURM_PROCID", "SLURM_NTASKS"},
    };
    rank->rank = -1;
    rank->size = -1;
    rank->from = NULL;
    for (size_t i = 0; i < sizeof sources / sizeof sources[0]; i++) {
        int value = environment_number(sources[i].rank);
        if (value < 0)
            continue;
        rank->rank = value;
        rank->size = environment_number(sources[i].size);
        rank->from = sources[i].rank;
        return;
    }
}

/* Every '%' must start one of the four conversions. */
const char *ompc_check_pattern(const char *pattern, char *message, size_t size)
{
    for (const char *c = pattern; *c; c++) {
        if (*c != '%')
            continue;
        c++;
        if (*c == 'p' || *c == 'r' || *c == 'h' || *c == '%')
            continue;
        snprintf(message, size, "'%%%.1s' is not a pattern (use %%p, %%r, %%h or %%%%)", c);
        return message;
    }
    return NULL;
}

/* Whether the conversion appears (a "%%" is not one). */
int ompc_pattern_has(const char *pattern, char letter)
{
    for (const char *c = pattern; *c; c++) {
        if (*c != '%')
            continue;
        c++;
        if (*c == letter)
            return 1;
        if (*c == '\0')
            break;
    }
    return 0;
}

/* Expands the conversions into a memory stream. */
char *ompc_expand_pattern(const char *pattern, long pid, int rank, const char *host)
{
    char *result = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&result, &size);
    if (out == NULL)
        return NULL;
    for (const char *c = pattern; *c; c++) {
        if (*c != '%' || c[1] == '\0') {
            fputc(*c, out);
            continue;
        }
        switch (*++c) {
        case 'p':
            fprintf(out, "%ld", pid);
            break;
        case 'r':
            if (rank >= 0)
                fprintf(out, "%d", rank);
            else
                fputs("norank", out);
            break;
        case 'h':
            fputs(host, out);
            break;
        default:
            fputc(*c, out);
            break;
        }
    }
    if (fclose(out) != 0) {
        free(result);
        return NULL;
    }
    return result;
}

/* The extension is the last dot of the last component that is neither its first character nor its last. */
char *ompc_insert_tag(const char *name, const char *tag)
{
    const char *base = strrchr(name, '/');
    base = base != NULL ? base + 1 : name;
    const char *dot = strrchr(base, '.');
    if (dot == NULL || dot == base || dot[1] == '\0')
        dot = name + strlen(name);
    char *result;
    if (asprintf(&result, "%.*s.%s%s", (int)(dot - name), name, tag, dot) < 0)
        return NULL;
    return result;
}

/* mkostemp in the target's directory, hidden, so the rename stays within one file system. */
FILE *ompc_open_temp(const char *final, char **temp)
{
    const char *slash = strrchr(final, '/');
    int directory_length = slash != NULL ? (int)(slash - final + 1) : 0;
    const char *base = final + directory_length;
    if (asprintf(temp, "%.*s.%s.ompcollect-XXXXXX", directory_length, final, base) < 0) {
        *temp = NULL;
        return NULL;
    }
    int fd = mkostemp(*temp, O_CLOEXEC);
    if (fd < 0) {
        free(*temp);
        *temp = NULL;
        return NULL;
    }
    /* The file gets the mode a newly created report would have had, not mkostemp's 0600. */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    FILE *file = fdopen(fd, "w");
    if (file == NULL) {
        close(fd);
        unlink(*temp);
        free(*temp);
        *temp = NULL;
    }
    return file;
}

/*
 * Whether `info`'s modification time is at or after `start`.  The kernel
 * stamps a file with its coarse clock, up to a tick behind CLOCK_REALTIME:
 * a start read from the fine clock made a file another process wrote just
 * after it look older (32 of 2000 writes here), and its report replaced.
 * So `start` is read from CLOCK_REALTIME_COARSE (supervise.c).
 */
static int written_since(const struct stat *info, const struct timespec *start)
{
    return info->st_mtim.tv_sec > start->tv_sec
           || (info->st_mtim.tv_sec == start->tv_sec && info->st_mtim.tv_nsec >= start->tv_nsec);
}

/*
 * link() claims a free name atomically.  A name already taken is replaced
 * by rename() only when the file there predates the run; a file written
 * during the run belongs to another process and stays.
 */
const char *ompc_place_file(const char *temp, const char *final, const char *fallback,
                            const struct timespec *run_start)
{
    const char *target = final;
    for (int attempt = 0; attempt < 2; attempt++) {
        if (link(temp, target) == 0) {
            unlink(temp);
            return target;
        }
        if (errno != EEXIST) {
            /* A file system without hard links: rename, after the same check. */
            if (errno != EPERM && errno != ENOTSUP && errno != EOPNOTSUPP)
                return NULL;
            struct stat info;
            if (lstat(target, &info) == 0 && written_since(&info, run_start)) {
                target = fallback;
                continue;
            }
            return rename(temp, target) == 0 ? target : NULL;
        }
        struct stat info;
        if (lstat(target, &info) == 0 && !written_since(&info, run_start) && !S_ISDIR(info.st_mode))
            return rename(temp, target) == 0 ? target : NULL;
        if (target == fallback || fallback == NULL)
            break;
        target = fallback;
    }
    errno = EEXIST;
    return NULL;
}

/* Whether `path` is a directory with nothing in it. */
int ompc_directory_empty(const char *path)
{
    DIR *directory = opendir(path);
    if (directory == NULL)
        return 0;
    int empty = 1;
    struct dirent *entry;
    while (empty && (entry = readdir(directory)) != NULL)
        empty = strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0;
    closedir(directory);
    return empty;
}

/* nftw visitor: removes what it is given (depth first, so directories are empty by then). */
static int remove_entry(const char *path, const struct stat *info, int flag, struct FTW *where)
{
    (void)info, (void)flag, (void)where;
    remove(path);
    return 0;
}

/* Removes a directory the launcher made, with everything in it. */
void ompc_remove_tree(const char *path)
{
    nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}
