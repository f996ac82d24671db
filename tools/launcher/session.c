/* session.c - keeps a finished run in a file (--save) and reads it back for `ompcollect report`: the record's non-zero pages and the launcher's facts as JSON. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <config.h>

#include "session.h"
#include "utf8.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * The file: OMPC_SESSION_MAGIC, a 32-bit version and a 32-bit zero, the
 * facts' length (64-bit) and the facts (JSON), then the record as runs of
 * pages: a 64-bit offset and a 64-bit length, that many bytes, and a run
 * of length 0 to end.  Pages of zeros are left out: a record is mostly
 * reserved and never touched.  Numbers are in the machine's byte order;
 * the record itself is too.
 */
#define SESSION_VERSION 1u
#define PAGE 4096u
#define CHUNK ((size_t)1 << 20)

struct ompc_session {
    char **from, **to;       /* resolved paths, as the run saw them */
    size_t count, capacity;
    json_t *facts;           /* a saved run's facts, whose strings the run points into */
    char *command[2];
};

struct ompc_session *ompc_session_new(void)
{
    return calloc(1, sizeof(struct ompc_session));
}

void ompc_session_free(struct ompc_session *session)
{
    if (session == NULL)
        return;
    for (size_t i = 0; i < session->count; i++) {
        free(session->from[i]);
        free(session->to[i]);
    }
    free(session->from);
    free(session->to);
    json_decref(session->facts);
    free(session);
}

/* Remembers one resolution; returns the stored result, or NULL when memory ran out (it is then only not saved). */
static const char *remember_path(struct ompc_session *session, const char *from, const char *to)
{
    if (session->count == session->capacity) {
        size_t capacity = session->capacity ? 2 * session->capacity : 8;
        char **grown_from = realloc(session->from, capacity * sizeof *grown_from);
        if (grown_from == NULL)
            return NULL;
        session->from = grown_from;
        char **grown_to = realloc(session->to, capacity * sizeof *grown_to);
        if (grown_to == NULL)
            return NULL;
        session->to = grown_to;
        session->capacity = capacity;
    }
    char *from_copy = strdup(from), *to_copy = strdup(to);
    if (from_copy == NULL || to_copy == NULL) {
        free(from_copy);
        free(to_copy);
        return NULL;
    }
    session->from[session->count] = from_copy;
    session->to[session->count++] = to_copy;
    return to_copy;
}

const char *ompc_session_realpath(struct ompc_session *session, const char *path)
{
    if (session == NULL || path == NULL)
        return NULL;
    for (size_t i = 0; i < session->count; i++)
        if (strcmp(session->from[i], path) == 0)
            return session->to[i];
    if (session->facts != NULL)
        return NULL;
    char *resolved = realpath(path, NULL);
    const char *kept = resolved != NULL ? remember_path(session, path, resolved) : NULL;
    free(resolved);
    return kept;
}

/*
 * Byte strings (paths, the host name, environment settings) in the facts.
 * JSON strings are UTF-8 and a path need not be, so one that is not -- or
 * that starts with the mark -- is kept as the mark and its bytes in hex;
 * every other string as it is, as saved runs always kept them.
 */
#define BYTES_MARK '\x01'

/* `text` as the facts keep it (malloc'd); NULL without memory. */
static char *encode_bytes(const char *text)
{
    size_t length = strlen(text);
    if (text[0] != BYTES_MARK && ompc_utf8_valid(text, length))
        return strdup(text);
    char *coded = malloc(2 * length + 2);
    if (coded == NULL)
        return NULL;
    coded[0] = BYTES_MARK;
    for (size_t i = 0; i < length; i++)
        snprintf(coded + 1 + 2 * i, 3, "%02x", (unsigned char)text[i]);
    coded[2 * length + 1] = '\0';
    return coded;
}

/* A byte string as a JSON value: NULL stays NULL (json_pack's "o?" makes it null). */
static json_t *bytes_value(const char *text, int *failed)
{
    if (text == NULL)
        return NULL;
    char *coded = encode_bytes(text);
    json_t *value = coded != NULL ? json_string(coded) : NULL;
    free(coded);
    *failed |= value == NULL;
    return value;
}

/* The saved paths, realpath by path, both as byte strings. */
static json_t *paths_of(const struct ompc_session *session)
{
    json_t *paths = json_object();
    for (size_t i = 0; paths != NULL && session != NULL && i < session->count; i++) {
        char *key = encode_bytes(session->from[i]);
        int failed = 0;
        if (key == NULL || json_object_set_new(paths, key, bytes_value(session->to[i], &failed)) != 0 || failed) {
            json_decref(paths);
            paths = NULL;
        }
        free(key);
    }
    return paths;
}

/* The launcher's facts as a JSON object; NULL without memory. */
static json_t *facts_of(const struct run *run, uint64_t record_size)
{
    json_t *reaped = json_array(), *paths = paths_of(run->session);
    for (size_t i = 0; reaped != NULL && i < run->reaped_count; i++)
        json_array_append_new(reaped, json_pack("[iiI]", (int)run->reaped[i].pid, run->reaped[i].status,
                                                (json_int_t)run->reaped[i].when_ns));
    int failed = 0;
    json_t *program = bytes_value(run->command[0], &failed), *host = bytes_value(run->host, &failed);
    json_t *shim = bytes_value(run->shim, &failed), *agent = bytes_value(run->agent, &failed);
    json_t *substitute = bytes_value(run->substitute, &failed), *private_dir = bytes_value(run->private_dir, &failed);
    json_t *runtime_option = bytes_value(run->runtime_option, &failed), *omp_tool = bytes_value(run->omp_tool, &failed);
    json_t *gomp = bytes_value(run->gomp, &failed);
    if (failed || program == NULL || host == NULL || shim == NULL || agent == NULL) {
        json_t *all[] = {reaped, paths, program, host, shim, agent, substitute, private_dir, runtime_option, omp_tool,
                         gomp};
        for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
            json_decref(all[i]);
        return NULL;
    }
    return json_pack("{s:o, s:i, s:i, s:o, s:i, s:i, s:s?, s:o, s:o, s:o?, s:o?, s:o?, s:o?, s:o?, s:I, s:b, s:o*, "
                     "s:o*, s:I, s:I, s:I, s:I, s:I}",
                     "program", program, "main_pid", (int)run->main_pid, "main_status",
                     run->main_status, "host", host, "rank", run->rank.rank, "rank_size",
                     run->rank.size, "rank_from", run->rank.from, "shim", shim, "agent", agent,
                     "substitute", substitute, "private_dir", private_dir, "gomp", gomp, "runtime_option",
                     runtime_option, "omp_tool", omp_tool, "interval_ns",
                     (json_int_t)run->interval_ns, "sampling", run->sampling, "reaped", reaped, "paths",
                     paths, "record_size", (json_int_t)record_size, "realtime_offset_ns",
                     (json_int_t)run->realtime_offset_ns, "run_start_ns", (json_int_t)run->start_ns, "run_end_ns",
                     (json_int_t)run->end_ns, "record_data", (json_int_t)run->record_data);
}

/* write(2) of all `size` bytes; -1 on an error. */
static int write_all(int fd, const void *data, size_t size)
{
    for (size_t done = 0; done < size;) {
        ssize_t wrote = write(fd, (const char *)data + done, size - done);
        if (wrote < 0 && errno == EINTR)
            continue;
        if (wrote <= 0)
            return -1;
        done += (size_t)wrote;
    }
    return 0;
}

/* Whether a page holds only zeros. */
static int page_is_zero(const unsigned char *page, size_t size)
{
    return page[0] == 0 && memcmp(page, page + 1, size - 1) == 0;
}

/* Writes the runs of non-zero pages in [from, to) of the record; -1 on an error. */
static int save_data(int out, int record, uint64_t from, uint64_t to, unsigned char *chunk)
{
    for (uint64_t at = from; at < to;) {
        size_t want = to - at < CHUNK ? (size_t)(to - at) : CHUNK;
        if (pread(record, chunk, want, (off_t)at) != (ssize_t)want)
            return -1;
        for (size_t page = 0; page < want;) {
            size_t size = want - page < PAGE ? want - page : PAGE;
            if (page_is_zero(chunk + page, size)) {
                page += size;
                continue;
            }
            size_t end = page + size;
            while (end < want && !page_is_zero(chunk + end, want - end < PAGE ? want - end : PAGE))
                end += want - end < PAGE ? want - end : PAGE;
            uint64_t head[2] = {at + page, end - page};
            if (write_all(out, head, sizeof head) != 0 || write_all(out, chunk + page, end - page) != 0)
                return -1;
            page = end;
        }
        at += want;
    }
    return 0;
}

/* The record's data, hole by hole where the file system can tell holes apart. */
static int save_record(int out, int record, uint64_t size)
{
    unsigned char *chunk = malloc(CHUNK);
    if (chunk == NULL)
        return -1;
    int failed = 0;
    for (off_t at = 0; !failed && (uint64_t)at < size;) {
        off_t data = lseek(record, at, SEEK_DATA);
        if (data < 0)
            break; /* ENXIO: only a hole is left */
        off_t hole = lseek(record, data, SEEK_HOLE);
        if (hole < 0 || (uint64_t)hole > size)
            hole = (off_t)size;
        failed = save_data(out, record, (uint64_t)data, (uint64_t)hole, chunk);
        at = hole;
    }
    free(chunk);
    uint64_t end[2] = {0, 0};
    return failed || write_all(out, end, sizeof end) != 0 ? -1 : 0;
}

/*
 * Where a save is written first: a fresh file beside `path` (`temp`
 * holds its name), so a save that fails leaves the one before intact; a
 * path that names no regular file (/dev/null, a FIFO) is written itself.
 * The descriptor, or -1.
 */
static int open_save(const char *path, char **temp)
{
    struct stat info;
    *temp = NULL;
    if (stat(path, &info) == 0 && !S_ISREG(info.st_mode))
        return open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (asprintf(temp, "%s.XXXXXX", path) < 0) {
        *temp = NULL;
        errno = ENOMEM;
        return -1;
    }
    int out = mkostemp(*temp, O_CLOEXEC);
    mode_t mask = umask(0);
    umask(mask);
    /* mkostemp makes it 0600; a save is a file like the others, 0666 less the umask. */
    if (out >= 0 && fchmod(out, 0666 & ~mask) != 0) {
        close(out);
        out = -1;
    }
    if (out < 0) {
        int saved = errno;
        unlink(*temp);
        free(*temp);
        *temp = NULL;
        errno = saved;
    }
    return out;
}

/* Writes the saved run's header, facts and record to `out`; 0, or -1 with errno. */
static int write_save(int out, const struct run *run, const char *text, uint64_t record_size)
{
    /* A file size limit (ulimit -f) must fail the write, not kill ompcollect before it removes its temporary. */
    struct sigaction ignore, before;
    memset(&ignore, 0, sizeof ignore);
    ignore.sa_handler = SIG_IGN;
    sigaction(SIGXFSZ, &ignore, &before);
    uint32_t version[2] = {SESSION_VERSION, 0};
    uint64_t length = strlen(text);
    int failed = write_all(out, OMPC_SESSION_MAGIC, 8) != 0 || write_all(out, version, sizeof version) != 0
              || write_all(out, &length, sizeof length) != 0 || write_all(out, text, length) != 0
              || save_record(out, run->record_fd, record_size) != 0;
    int saved = errno;
    sigaction(SIGXFSZ, &before, NULL);
    errno = saved;
    return failed ? -1 : 0;
}

int ompc_session_save(const struct run *run, const char *path, char *error, size_t error_size)
{
    struct stat info;
    if (fstat(run->record_fd, &info) != 0) {
        snprintf(error, error_size, "cannot read the record: %s", strerror(errno));
        return -1;
    }
    if ((uint64_t)info.st_size > OMPC_SESSION_RECORD_MAX) {
        snprintf(error, error_size, "the record's %llu bytes are over the %llu a saved run may hold",
                 (unsigned long long)info.st_size, (unsigned long long)OMPC_SESSION_RECORD_MAX);
        return -1;
    }
    if (run->record_data > OMPC_SESSION_DATA_MAX) {
        snprintf(error, error_size, "the record's %llu bytes of data are over the %llu a saved run may hold",
                 (unsigned long long)run->record_data, (unsigned long long)OMPC_SESSION_DATA_MAX);
        return -1;
    }
    json_t *facts = facts_of(run, (uint64_t)info.st_size);
    char *text = facts != NULL ? json_dumps(facts, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(facts);
    if (text != NULL && strlen(text) > OMPC_SESSION_FACTS_MAX) {
        snprintf(error, error_size, "the run's facts (%zu bytes) are over the %zu a saved run may hold",
                 strlen(text), OMPC_SESSION_FACTS_MAX);
        free(text);
        return -1;
    }
    char *temp = NULL;
    int out = text != NULL ? open_save(path, &temp) : -1;
    if (out < 0) {
        snprintf(error, error_size, "%s", text == NULL ? "out of memory" : strerror(errno));
        free(text);
        return -1;
    }
    errno = 0;
    int failed = write_save(out, run, text, (uint64_t)info.st_size) != 0;
    free(text);
    failed = close(out) != 0 || failed;
    failed = failed || (temp != NULL && rename(temp, path) != 0);
    if (failed) {
        snprintf(error, error_size, "%s%s", strerror(errno ? errno : EIO),
                 temp != NULL ? " (the file there before, if any, is left as it was)" : "");
        if (temp != NULL)
            unlink(temp);
    }
    free(temp);
    return failed ? -1 : 0;
}

/* Formats a reason and returns -1. */
static int refuse(char *error, size_t error_size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int refuse(char *error, size_t error_size, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vsnprintf(error, error_size, fmt, args);
    va_end(args);
    return -1;
}

/* read(2) of exactly `size` bytes; -1 on an error or a short file. */
static int read_all(int fd, void *data, size_t size)
{
    for (size_t done = 0; done < size;) {
        ssize_t got = read(fd, (char *)data + done, size - done);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return -1;
        done += (size_t)got;
    }
    return 0;
}

/* The header and the facts' JSON; NULL after a reason in `error`. */
static json_t *read_facts(int in, char *error, size_t error_size)
{
    char magic[8];
    uint32_t version[2];
    uint64_t length;
    if (read_all(in, magic, sizeof magic) != 0 || memcmp(magic, OMPC_SESSION_MAGIC, sizeof magic) != 0) {
        refuse(error, error_size, "not a run saved by ompcollect --save");
        return NULL;
    }
    if (read_all(in, version, sizeof version) != 0 || version[0] != SESSION_VERSION) {
        refuse(error, error_size, "saved by another version of ompcollect");
        return NULL;
    }
    if (read_all(in, &length, sizeof length) != 0 || length == 0 || length > OMPC_SESSION_FACTS_MAX) {
        refuse(error, error_size, "damaged: the run's facts are missing or over %zu bytes", OMPC_SESSION_FACTS_MAX);
        return NULL;
    }
    char *text = malloc((size_t)length);
    json_error_t problem;
    json_t *facts = text != NULL && read_all(in, text, (size_t)length) == 0
                        ? json_loadb(text, (size_t)length, JSON_REJECT_DUPLICATES, &problem)
                        : NULL;
    free(text);
    if (facts == NULL || !json_is_object(facts)) {
        json_decref(facts);
        refuse(error, error_size, "damaged: the run's facts are not a JSON object");
    }
    return facts;
}

/* Copies the runs of pages into a new anonymous file of `size` bytes; its descriptor, or -1. */
static int rebuild_record(int in, uint64_t size, char *error, size_t error_size)
{
    int record = memfd_create("ompcollect-saved-record", MFD_CLOEXEC);
    if (record < 0 || ftruncate(record, (off_t)size) != 0) {
        refuse(error, error_size, "cannot make room for the record (%" PRIu64 " bytes): %s", size, strerror(errno));
        if (record >= 0)
            close(record);
        return -1;
    }
    char *chunk = malloc(CHUNK);
    for (uint64_t head[2]; chunk != NULL;) {
        if (read_all(in, head, sizeof head) != 0) {
            refuse(error, error_size, "damaged: the record ends early (truncated file)");
            break;
        }
        if (head[1] == 0) {
            free(chunk);
            return record;
        }
        if (head[0] > size || head[1] > size - head[0]) {
            refuse(error, error_size, "damaged: a page run lies outside the %" PRIu64 "-byte record", size);
            break;
        }
        for (uint64_t done = 0; done < head[1];) {
            size_t want = head[1] - done < CHUNK ? (size_t)(head[1] - done) : CHUNK;
            if (read_all(in, chunk, want) != 0 || pwrite(record, chunk, want, (off_t)(head[0] + done)) != (ssize_t)want) {
                refuse(error, error_size, "damaged: the record ends early (truncated file)");
                free(chunk);
                close(record);
                return -1;
            }
            done += want;
        }
    }
    if (chunk == NULL)
        refuse(error, error_size, "out of memory");
    free(chunk);
    close(record);
    return -1;
}

/* A byte string from the facts (see encode_bytes), malloc'd; `*length` gets its size.  NULL without memory. */
static char *decode_bytes(const char *coded, size_t *length)
{
    size_t size = strlen(coded);
    int hex = coded[0] == BYTES_MARK && size % 2 == 1 && strspn(coded + 1, "0123456789abcdef") == size - 1;
    char *text = malloc(hex ? size / 2 + 1 : size + 1);
    if (text == NULL)
        return NULL;
    if (!hex) {
        memcpy(text, coded, size + 1);
        *length = size;
        return text;
    }
    for (size_t i = 0; i < size / 2; i++) {
        unsigned byte;
        sscanf(coded + 1 + 2 * i, "%2x", &byte);
        text[i] = (char)byte;
    }
    text[size / 2] = '\0';
    *length = size / 2;
    return text;
}

/* Puts every byte string of the facts' top level back as its bytes; -1 without memory. */
static int decode_facts(json_t *facts)
{
    const char *key;
    json_t *value;
    void *scratch;
    json_object_foreach_safe(facts, scratch, key, value)
    {
        const char *coded = json_string_value(value);
        if (coded == NULL || coded[0] != BYTES_MARK)
            continue;
        size_t length;
        char *text = decode_bytes(coded, &length);
        if (text == NULL || json_object_set_new(facts, key, json_stringn_nocheck(text, length)) != 0) {
            free(text);
            return -1;
        }
        free(text);
    }
    return 0;
}

/* Remembers the saved paths, both sides byte strings; -1 without memory. */
static int take_paths(struct ompc_session *session, const json_t *paths)
{
    const char *key;
    json_t *value;
    json_object_foreach((json_t *)paths, key, value)
    {
        if (!json_is_string(value))
            continue;
        size_t length;
        char *from = decode_bytes(key, &length), *to = decode_bytes(json_string_value(value), &length);
        const char *kept = from != NULL && to != NULL ? remember_path(session, from, to) : NULL;
        free(from);
        free(to);
        if (kept == NULL)
            return -1;
    }
    return 0;
}

/* A string member, or NULL when absent or not a string. */
static const char *text_of(const json_t *facts, const char *key)
{
    return json_string_value(json_object_get(facts, key));
}

/* An integer member within [low, high], else `fallback`. */
static json_int_t number_of(const json_t *facts, const char *key, json_int_t low, json_int_t high,
                            json_int_t fallback)
{
    const json_t *value = json_object_get(facts, key);
    json_int_t number = json_is_integer(value) ? json_integer_value(value) : fallback;
    return number >= low && number <= high ? number : fallback;
}

/* The collected processes; entries that are not [pid, status, when] are left out. */
static int take_reaped(struct run *run, const json_t *list)
{
    size_t count = json_is_array(list) ? json_array_size(list) : 0;
    run->reaped = count > 0 ? calloc(count, sizeof *run->reaped) : NULL;
    if (count > 0 && run->reaped == NULL)
        return -1;
    for (size_t i = 0; i < count; i++) {
        json_int_t pid, status, when;
        if (json_unpack(json_array_get(list, i), "[III]", &pid, &status, &when) != 0 || pid <= 0 || pid > INT_MAX
            || status < 0 || status > 0xffff || when < 0)
            continue;
        run->reaped[run->reaped_count++] = (struct reaped){(pid_t)pid, (int)status, (uint64_t)when};
    }
    return 0;
}

/* Fills the run from the facts; -1 with a reason when one it needs is missing. */
static int take_facts(struct run *run, json_t *facts, char *error, size_t error_size)
{
    struct ompc_session *session = run->session;
    session->facts = facts;
    if (decode_facts(facts) != 0)
        return refuse(error, error_size, "out of memory");
    session->command[0] = (char *)text_of(facts, "program");
    if (session->command[0] == NULL || text_of(facts, "host") == NULL)
        return refuse(error, error_size, "damaged: the run's facts name no program or host");
    run->command = session->command;
    snprintf(run->host, sizeof run->host, "%s", text_of(facts, "host"));
    run->main_pid = (pid_t)number_of(facts, "main_pid", 1, INT_MAX, 0);
    run->main_status = (int)number_of(facts, "main_status", 0, 0xffff, 0);
    run->rank.rank = (int)number_of(facts, "rank", -1, INT_MAX, -1);
    run->rank.size = (int)number_of(facts, "rank_size", -1, INT_MAX, -1);
    run->rank.from = text_of(facts, "rank_from");
    run->shim = text_of(facts, "shim") ? text_of(facts, "shim") : "";
    run->agent = text_of(facts, "agent") ? text_of(facts, "agent") : "";
    run->substitute = text_of(facts, "substitute");
    run->private_dir = (char *)text_of(facts, "private_dir");
    run->gomp = text_of(facts, "gomp");
    run->runtime_option = text_of(facts, "runtime_option");
    run->omp_tool = text_of(facts, "omp_tool");
    run->interval_ns = number_of(facts, "interval_ns", 0, INT64_MAX, 0);
    run->sampling = json_is_true(json_object_get(facts, "sampling"));
    run->realtime_offset_ns = number_of(facts, "realtime_offset_ns", INT64_MIN, INT64_MAX, 0);
    run->start_ns = (uint64_t)number_of(facts, "run_start_ns", 0, INT64_MAX, 0);
    run->end_ns = (uint64_t)number_of(facts, "run_end_ns", 0, INT64_MAX, 0);
    /* What the live run's record held; the saved copy leaves out its zero pages. */
    run->record_data = (uint64_t)number_of(facts, "record_data", 0, INT64_MAX, 0);
    if (run->end_ns < run->start_ns)
        run->start_ns = run->end_ns = 0;
    if (take_paths(session, json_object_get(facts, "paths")) != 0)
        return refuse(error, error_size, "out of memory");
    return take_reaped(run, json_object_get(facts, "reaped"));
}

int ompc_session_open(const char *path, struct run *run, char *error, size_t error_size)
{
    int in = open(path, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return refuse(error, error_size, "%s", strerror(errno));
    json_t *facts = read_facts(in, error, error_size);
    json_int_t size = facts != NULL ? number_of(facts, "record_size", 1, (json_int_t)OMPC_SESSION_RECORD_MAX, 0) : 0;
    if (facts != NULL && size == 0)
        refuse(error, error_size, "damaged: the record's size is missing or over %" PRIu64 " bytes",
               OMPC_SESSION_RECORD_MAX);
    run->record_fd = size > 0 ? rebuild_record(in, (uint64_t)size, error, error_size) : -1;
    close(in);
    if (run->record_fd < 0 || take_facts(run, facts, error, error_size) != 0) {
        if (run->session->facts == NULL)
            json_decref(facts);
        return -1;
    }
    if (pread(run->record_fd, &run->header, sizeof run->header, 0) != (ssize_t)sizeof run->header)
        return refuse(error, error_size, "damaged: the record is shorter than its header");
    const char *problem = ompc_record_check(&run->header, (uint64_t)size);
    if (problem != NULL)
        return refuse(error, error_size, "%s", problem);
    return 0;
}
