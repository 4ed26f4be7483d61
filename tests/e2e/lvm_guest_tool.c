/* lvm_guest_tool: the small static helper the e2e LVM guest runs (tests/e2e/lvm_guest.sh builds it with
 * gcc -static). Every line it prints starts with the guest's CLOCK_MONOTONIC in seconds, so the host can put
 * the writer, the pool samples, dmeventd's log and the kernel's messages on one clock.
 *
 *   write DEV BLOCK RATE TOTAL [START]
 *                                write TOTAL bytes to DEV from byte START (default 0) in BLOCK-byte O_DIRECT
 *                                writes, each started on the
 *                                schedule of RATE bytes/s (a write that returns late does not shift the
 *                                schedule: the writer catches up); one line per write:
 *                                "<start> w <offset> <latency_s> <errno>". Every 4 KiB of a block holds its own
 *                                offset on the device in its first 8 bytes, the rest 0x5a
 *   verify DEV BLOCK TOTAL [START]
 *                                read back what write wrote there (O_DIRECT): "<time> verify <bad 4 KiB blocks>
 *                                <read errors>", exit 1 if any
 *   dmstatus INTERVAL_S NAME     every INTERVAL_S seconds until killed, the status of device-mapper device NAME
 *                                without flushing (the DM_TABLE_STATUS ioctl with DM_NOFLUSH_FLAG, as
 *                                `dmsetup status --noflush`, without the fork and exec that take 0.1 to 0.4 s
 *                                under TCG): "<time> s <event_nr> <start> <length> <type> <params>" per target;
 *                                the table, with "t" for "s", when it changed; INTERVAL_S 0: once. Every
 *                                second it also writes "provpol-mark <time>" to /dev/kmsg: the kernel stamps
 *                                its messages with its own clock (local_clock, not CLOCK_MONOTONIC, and under
 *                                TCG they drift apart), and the marks map one onto the other
 *   stamp [FILE]                 copy FILE (default stdin) line by line, each prefixed "<time> "; reads
 *                                /dev/kmsg record by record
 *   now                          print the time
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/dm-ioctl.h>
#include <sys/ioctl.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_until(double t) {
  struct timespec ts;
  ts.tv_sec = (time_t)t;
  ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
  }
}

static int do_write(char **argv) {
  const char *dev = argv[0];
  long long block = atoll(argv[1]);
  double rate = atof(argv[2]);
  long long total = atoll(argv[3]);
  long long first = argv[4] ? atoll(argv[4]) : 0;
  int fd = open(dev, O_WRONLY | O_DIRECT);
  if (fd < 0) {
    fprintf(stderr, "lvm_guest_tool: open %s: %s\n", dev, strerror(errno));
    return 1;
  }
  void *buf;
  if (posix_memalign(&buf, 4096, (size_t)block) != 0) return 1;
  memset(buf, 0x5a, (size_t)block);
  setvbuf(stdout, NULL, _IOLBF, 0);
  double t0 = now();
  printf("%.6f w-start %lld %lld %.0f\n", t0, block, total, rate);
  int failed = 0;
  for (long long off = 0; off < total; off += block) {
    double due = t0 + (double)off / rate;
    if (now() < due) sleep_until(due);
    for (long long k = 0; k < block; k += 4096) {
      const long long at = first + off + k;
      memcpy((char *)buf + k, &at, sizeof at);
    }
    double start = now();
    ssize_t n = pwrite(fd, buf, (size_t)block, first + off);
    int err = n == (ssize_t)block ? 0 : (n < 0 ? errno : EIO);
    double end = now();
    printf("%.6f w %lld %.6f %d\n", start, first + off, end - start, err);
    if (err) failed = 1;
  }
  double s = now();
  int rc = fdatasync(fd);
  printf("%.6f w-end %.6f %d\n", s, now() - s, rc == 0 ? 0 : errno);
  close(fd);
  return failed;
}

static int do_verify(char **argv) {
  const char *dev = argv[0];
  long long block = atoll(argv[1]);
  long long total = atoll(argv[2]);
  long long first = argv[3] ? atoll(argv[3]) : 0;
  int fd = open(dev, O_RDONLY | O_DIRECT);
  if (fd < 0) {
    fprintf(stderr, "lvm_guest_tool: open %s: %s\n", dev, strerror(errno));
    return 1;
  }
  unsigned char *buf;
  if (block <= 0 || block % 4096 != 0 || posix_memalign((void **)&buf, 4096, (size_t)block) != 0) return 1;
  long long bad = 0, errors = 0;
  for (long long off = 0; off < total; off += block) {
    if (pread(fd, buf, (size_t)block, first + off) != (ssize_t)block) {
      ++errors;
      continue;
    }
    for (long long k = 0; k < block; k += 4096) {
      long long at;
      memcpy(&at, buf + k, sizeof at);
      int ok = at == first + off + k;
      for (long long i = (long long)sizeof at; ok && i < 4096; ++i) ok = buf[k + i] == 0x5a;
      if (!ok) ++bad;
    }
  }
  close(fd);
  printf("%.6f verify %lld %lld\n", now(), bad, errors);
  return bad != 0 || errors != 0;
}

/* One DM_TABLE_STATUS ioctl: the targets' lines, "<start> <length> <type> <params>" joined by ";", in out. */
static int dm_query(int ctl, const char *name, unsigned flags, unsigned *event_nr, char *out, size_t outlen) {
  union {
    struct dm_ioctl io;
    char raw[16384];
  } u;
  memset(&u, 0, sizeof u);
  u.io.version[0] = DM_VERSION_MAJOR;
  u.io.version[1] = 0;
  u.io.version[2] = 0;
  u.io.data_size = sizeof u;
  u.io.data_start = sizeof u.io;
  u.io.flags = flags;
  snprintf(u.io.name, sizeof u.io.name, "%s", name);
  if (ioctl(ctl, DM_TABLE_STATUS, &u.io) != 0) return -1;
  if (u.io.flags & DM_BUFFER_FULL_FLAG) return -1;
  *event_nr = u.io.event_nr;
  size_t pos = 0, at = u.io.data_start;
  out[0] = 0;
  for (unsigned i = 0; i < u.io.target_count; i++) {
    const struct dm_target_spec *t = (const struct dm_target_spec *)(u.raw + at);
    pos += (size_t)snprintf(out + pos, outlen - pos, "%s%llu %llu %s %s", i ? ";" : "",
                            (unsigned long long)t->sector_start, (unsigned long long)t->length, t->target_type,
                            (const char *)(t + 1));
    if (pos >= outlen) return -1;
    at = u.io.data_start + t->next; /* next: the offset of the next spec from data_start */
  }
  return 0;
}

static int do_dmstatus(char **argv) {
  double interval = atof(argv[0]);
  const char *name = argv[1];
  int ctl = open("/dev/mapper/control", O_RDWR);
  if (ctl < 0) {
    fprintf(stderr, "lvm_guest_tool: /dev/mapper/control: %s\n", strerror(errno));
    return 1;
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  static char status[8192], table[8192], last_table[8192];
  int kmsg = interval > 0 ? open("/dev/kmsg", O_WRONLY) : -1;
  double next_mark = 0;
  for (double next = now();; next += interval) {
    if (now() < next) sleep_until(next);
    unsigned ev = 0, ev2 = 0;
    double t = now();
    if (dm_query(ctl, name, DM_NOFLUSH_FLAG, &ev, status, sizeof status) == 0) printf("%.6f s %u %s\n", t, ev, status);
    if (dm_query(ctl, name, DM_STATUS_TABLE_FLAG, &ev2, table, sizeof table) == 0 && strcmp(table, last_table) != 0) {
      printf("%.6f t %u %s\n", t, ev2, table);
      strcpy(last_table, table);
    }
    if (interval <= 0) return 0;
    if (kmsg >= 0 && t >= next_mark) {
      char mark[64];
      int len = snprintf(mark, sizeof mark, "provpol-mark %.6f\n", now());
      if (write(kmsg, mark, (size_t)len) != len) kmsg = -1;
      next_mark = t + 1;
    }
  }
}

static int do_stamp(char **argv) {
  int fd = argv[0] ? open(argv[0], O_RDONLY) : 0;
  if (fd < 0) return 1;
  char buf[8192], line[8192];
  size_t len = 0;
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EPIPE) continue; /* /dev/kmsg: records overwritten, keep reading */
    if (n <= 0) break;
    double t = now();
    for (ssize_t i = 0; i < n; i++) {
      if (len < sizeof line - 1) line[len++] = buf[i];
      if (buf[i] == '\n') {
        line[len] = 0;
        printf("%.6f %s", t, line);
        fflush(stdout);
        len = 0;
      }
    }
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc >= 6 && strcmp(argv[1], "write") == 0) return do_write(argv + 2);
  if (argc >= 5 && strcmp(argv[1], "verify") == 0) return do_verify(argv + 2);
  if (argc >= 4 && strcmp(argv[1], "dmstatus") == 0) return do_dmstatus(argv + 2);
  if (argc >= 2 && strcmp(argv[1], "stamp") == 0) return do_stamp(argv + 2);
  if (argc >= 2 && strcmp(argv[1], "now") == 0) {
    printf("%.6f\n", now());
    return 0;
  }
  fprintf(stderr, "usage: lvm_guest_tool write DEV BLOCK RATE TOTAL | dmstatus INTERVAL NAME | stamp [FILE] | now\n");
  return 2;
}
