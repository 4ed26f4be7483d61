/* LD_PRELOAD shim for tests/data/capture_logsize_path.sh: makes a loop device report the minimum and optimal I/O
 * sizes given in PROVPOL_SHIM_MIN_IO and PROVPOL_SHIM_OPT_IO (bytes), to libblkid's topology getters (which
 * mkfs.xfs and mke2fs call) and to the BLKIOMIN / BLKIOOPT ioctls (which provpol logsize --path calls), so that
 * the real mkfs can be run on a striped device on a machine that has none. Everything else passes through. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <stdlib.h>

static int shim_value(const char* name, unsigned long* out) {
    const char* v = getenv(name);
    if (v == NULL || *v == '\0') return 0;
    *out = strtoul(v, NULL, 10);
    return 1;
}

unsigned long blkid_topology_get_minimum_io_size(void* tp) {
    unsigned long v;
    if (shim_value("PROVPOL_SHIM_MIN_IO", &v)) return v;
    unsigned long (*next)(void*) = (unsigned long (*)(void*))dlsym(RTLD_NEXT, "blkid_topology_get_minimum_io_size");
    return next(tp);
}

unsigned long blkid_topology_get_optimal_io_size(void* tp) {
    unsigned long v;
    if (shim_value("PROVPOL_SHIM_OPT_IO", &v)) return v;
    unsigned long (*next)(void*) = (unsigned long (*)(void*))dlsym(RTLD_NEXT, "blkid_topology_get_optimal_io_size");
    return next(tp);
}

int ioctl(int fd, unsigned long request, ...) {
    va_list ap;
    va_start(ap, request);
    void* arg = va_arg(ap, void*);
    va_end(ap);
    unsigned long v;
    if (request == BLKIOMIN && shim_value("PROVPOL_SHIM_MIN_IO", &v)) {
        *(unsigned int*)arg = (unsigned int)v;
        return 0;
    }
    if (request == BLKIOOPT && shim_value("PROVPOL_SHIM_OPT_IO", &v)) {
        *(unsigned int*)arg = (unsigned int)v;
        return 0;
    }
    int (*next)(int, unsigned long, void*) = (int (*)(int, unsigned long, void*))dlsym(RTLD_NEXT, "ioctl");
    return next(fd, request, arg);
}
