/* rdfile — open and read regular files for the readers and the catalog, without surprises.
 *
 * Owns nothing beyond the fd it returns (the caller closes it). Opens with O_NONBLOCK | O_NOCTTY so a FIFO
 * or device swapped in for a file can never block the caller, then refuses anything that is not a regular
 * file. Reads retry on EINTR and short reads. Reentrant. Errors: 0 / -1 plus a nullable nl_error
 * (NL_ERR_IO with errno text, NL_ERR_FORMAT for "not a regular file"). */
#ifndef NL_RDFILE_H
#define NL_RDFILE_H

#include <stddef.h>
#include <stdint.h>

#include "nl_error.h"

/* Open `path` read-only; on success *fd_out is open and *size_out holds the file size. */
__attribute__((warn_unused_result))
int rdfile_open(const char *path, int *fd_out, uint64_t *size_out, nl_error *err);

/* Read up to `n` bytes at `offset`; *got_out receives how many were read (less than n only at EOF). */
__attribute__((warn_unused_result))
int rdfile_pread(int fd, void *buf, size_t n, uint64_t offset, size_t *got_out, const char *path, nl_error *err);

#endif
