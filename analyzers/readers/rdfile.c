/* rdfile — see rdfile.h. open(O_NONBLOCK) + fstat(S_ISREG) + a pread loop. */
#include "rdfile.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int rdfile_open(const char *path, int *fd_out, uint64_t *size_out, nl_error *err)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return nl_error_set(err, NL_ERR_IO, path, -1, "cannot open: %s", strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return nl_error_set(err, NL_ERR_IO, path, -1, "cannot stat: %s", strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return nl_error_set(err, NL_ERR_FORMAT, path, -1, "not a regular file");
    }
    *fd_out = fd;
    *size_out = (uint64_t)st.st_size;
    return 0;
}

int rdfile_pread(int fd, void *buf, size_t n, uint64_t offset, size_t *got_out, const char *path, nl_error *err)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, (char *)buf + got, n - got, (off_t)(offset + got));
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return nl_error_set(err, NL_ERR_IO, path, (int64_t)(offset + got), "read failed: %s", strerror(errno));
        }
        if (r == 0)
            break;
        got += (size_t)r;
    }
    *got_out = got;
    return 0;
}
