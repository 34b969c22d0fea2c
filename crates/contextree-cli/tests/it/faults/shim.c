/* LD_PRELOAD shim of the fault-injection tests (faults/main.rs): makes the disk fail the way
 * a full disk or a failing device does, for the files a trial names, in the real `contextree`
 * process. Compiled by the test at run time (gcc -shared -fPIC); test code, never shipped.
 *
 *   FAULT_MATCH=S          the files concerned: those whose path (/proc/self/fd) contains S
 *   FAULT_WRITE_BUDGET=N   bytes the matching files may still grow by through write, writev,
 *                          copy_file_range and sendfile; a call past it takes what fits, the
 *                          next fails with ENOSPC (as a full disk does). pwrite (overwriting
 *                          in place, as a repair does) is not limited.
 *   FAULT_FSYNC=file|dir|all  fsync and fdatasync fail with EIO: on matching files, on
 *                          directories, or on every descriptor
 *   FAULT_DELAY_US=N       sleep N µs before each write and fsync of a matching file (a slow
 *                          disk: widens the windows other processes can land in)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static long long budget = -1; /* -1: no limit */
static const char *match;
static const char *fsync_mode;
static long delay_us;
static int ready;

static void init(void) {
    if (ready) return;
    match = getenv("FAULT_MATCH");
    const char *b = getenv("FAULT_WRITE_BUDGET");
    if (b && *b) budget = atoll(b);
    fsync_mode = getenv("FAULT_FSYNC");
    const char *d = getenv("FAULT_DELAY_US");
    if (d && *d) delay_us = atol(d);
    ready = 1;
}

static int matches(int fd) {
    if (!match || !*match) return 0;
    char link[64], target[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, target, sizeof target - 1);
    if (n < 0) return 0;
    target[n] = 0;
    return strstr(target, match) != NULL;
}

static void slow(int fd) {
    if (delay_us > 0 && matches(fd)) usleep((useconds_t)delay_us);
}

/* How many of `want` bytes may go to `fd`; -1 (errno ENOSPC) when none may. */
static long long allowed(int fd, long long want) {
    if (budget < 0 || !matches(fd)) return want;
    if (budget == 0 && want > 0) {
        errno = ENOSPC;
        return -1;
    }
    return want < budget ? want : budget;
}

static void spent(int fd, long long n) {
    if (budget >= 0 && n > 0 && matches(fd)) budget -= n;
}

#define REAL(name) static __typeof__(name) *real_##name; if (!real_##name) real_##name = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)

ssize_t write(int fd, const void *buf, size_t count) {
    REAL(write);
    init();
    slow(fd);
    long long n = allowed(fd, (long long)count);
    if (n < 0) return -1;
    ssize_t r = real_write(fd, buf, (size_t)n);
    spent(fd, r);
    return r;
}

ssize_t writev(int fd, const struct iovec *iov, int iovcnt) {
    REAL(writev);
    REAL(write);
    init();
    slow(fd);
    if (budget < 0 || !matches(fd)) return real_writev(fd, iov, iovcnt);
    /* Limited: write the first buffers only, as far as the budget goes. */
    long long total = 0;
    for (int i = 0; i < iovcnt; i++) total += (long long)iov[i].iov_len;
    long long n = allowed(fd, total);
    if (n < 0) return -1;
    ssize_t done = 0;
    for (int i = 0; i < iovcnt && n > 0; i++) {
        size_t take = iov[i].iov_len < (size_t)n ? iov[i].iov_len : (size_t)n;
        ssize_t r = real_write(fd, iov[i].iov_base, take);
        if (r < 0) return done ? done : -1;
        done += r;
        n -= r;
        budget -= r;
        if ((size_t)r < take) break;
    }
    return done;
}

ssize_t copy_file_range(int fd_in, off_t *off_in, int fd_out, off_t *off_out, size_t len, unsigned int flags) {
    REAL(copy_file_range);
    init();
    slow(fd_out);
    long long n = allowed(fd_out, (long long)len);
    if (n < 0) return -1;
    ssize_t r = real_copy_file_range(fd_in, off_in, fd_out, off_out, (size_t)n, flags);
    spent(fd_out, r);
    return r;
}

ssize_t sendfile(int out_fd, int in_fd, off_t *offset, size_t count) {
    REAL(sendfile);
    init();
    slow(out_fd);
    long long n = allowed(out_fd, (long long)count);
    if (n < 0) return -1;
    ssize_t r = real_sendfile(out_fd, in_fd, offset, (size_t)n);
    spent(out_fd, r);
    return r;
}

ssize_t sendfile64(int out_fd, int in_fd, off_t *offset, size_t count) {
    return sendfile(out_fd, in_fd, offset, count);
}

static int sync_fails(int fd) {
    if (!fsync_mode || !*fsync_mode) return 0;
    if (!strcmp(fsync_mode, "all")) return 1;
    if (!strcmp(fsync_mode, "file")) return matches(fd);
    if (!strcmp(fsync_mode, "dir")) {
        struct stat st;
        return fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
    }
    return 0;
}

int fsync(int fd) {
    REAL(fsync);
    init();
    slow(fd);
    if (sync_fails(fd)) {
        errno = EIO;
        return -1;
    }
    return real_fsync(fd);
}

int fdatasync(int fd) {
    REAL(fdatasync);
    init();
    slow(fd);
    if (sync_fails(fd)) {
        errno = EIO;
        return -1;
    }
    return real_fdatasync(fd);
}
