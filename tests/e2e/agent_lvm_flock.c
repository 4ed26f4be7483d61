/* agent_lvm_flock.so: an LD_PRELOAD shim for the agent-on-LVM e2e guest (agent_lvm_guest.sh builds it). lvm2 takes
 * its volume group lock with flock(2) on <locking_dir>/V_<vg> (file locking, no lvmlockd); this shim times every
 * flock call on a file under a "/lock/lvm/" directory and appends one line per call to the file named by
 * $PROVPOL_FLOCK_LOG (one write(2) of O_APPEND each: the concurrent lvm2 processes' lines do not interleave):
 *
 *   <pid> <before> <after> <operation> <result> <path>
 *
 * before and after: CLOCK_MONOTONIC seconds around the call (for a blocking LOCK_EX, after - before is the time
 * the command queued on the lock); operation: EX, SH or UN, with "+NB" when non-blocking; result: 0 or errno.
 * Everything else passes through unchanged. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int flock(int fd, int operation) {
  static int (*real)(int, int);
  if (!real) real = (int (*)(int, int))dlsym(RTLD_NEXT, "flock");
  if (!real) {
    errno = ENOSYS;
    return -1;
  }
  const double before = now();
  const int r = real(fd, operation);
  const int saved = errno;
  const double after = now();
  const char *log = getenv("PROVPOL_FLOCK_LOG");
  char link[64], path[512];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  const ssize_t n = log ? readlink(link, path, sizeof path - 1) : -1;
  if (n > 0) {
    path[n] = '\0';
    if (strstr(path, "/lock/lvm/")) {
      const int op = operation & ~LOCK_NB;
      const char *name = op == LOCK_EX ? "EX" : op == LOCK_SH ? "SH" : op == LOCK_UN ? "UN" : "?";
      char line[700];
      const int len = snprintf(line, sizeof line, "%d %.6f %.6f %s%s %d %s\n", (int)getpid(), before, after, name,
                               (operation & LOCK_NB) ? "+NB" : "", r == 0 ? 0 : saved, path);
      const int out = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
      if (out >= 0) {
        if (len > 0 && write(out, line, (size_t)len) < 0) {
        }
        close(out);
      }
    }
  }
  errno = saved;
  return r;
}
