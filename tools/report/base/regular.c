/* regular.c - opening a file the record names only if it is a regular file (regular.h). */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "regular.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether `info` is a regular file of at least `least` bytes. */
static int fits(const struct stat *info, long least)
{
    return S_ISREG(info->st_mode) && info->st_size >= (off_t)least;
}

int ompc_open_regular(const char *path, long least)
{
    struct stat info;
    /* stat first, so a device is never opened (opening some acts); fstat after, for a path swapped between. */
    if (path == NULL || stat(path, &info) != 0)
        return -1;
    if (!fits(&info, least)) {
        errno = EINVAL;
        return -1;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return -1;
    int flags = fcntl(fd, F_GETFL);
    if (fstat(fd, &info) != 0 || !fits(&info, least) || flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
        close(fd);
        errno = EINVAL;
        return -1;
    }
    return fd;
}
