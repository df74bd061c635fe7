/* SPDX-License-Identifier: MIT */
/*
 * Where libc keeps a thread's pthread_getspecific() values, relative to
 * the thread pointer (x86-64 fs base). CPython 3.11+ finds the current
 * thread state through a pthread key, and BPF can only follow that key if
 * it knows this layout, so we read it off libc's own pthread_getspecific.
 */
#ifndef TREC_PYTHON_TSD_H
#define TREC_PYTHON_TSD_H

#include <stddef.h>
#include <stdint.h>

/* &value(key) = fsbase + offset + key * multiplier (direct), or
 * *(fsbase + offset) + key * multiplier (indirect). */
struct trec_tsd_info {
	int32_t offset;
	uint8_t multiplier;
	uint8_t indirect;
};

/* Decodes the machine code of pthread_getspecific (x86-64 glibc).
 * 0, or -ENOTSUP for code we do not recognise. */
int trec_tsd_decode(const uint8_t *code, size_t len, struct trec_tsd_info *out);

/* Finds pthread_getspecific in the ELF file at path and decodes it.
 * 0, -ENOENT (no such symbol), -ENOTSUP, or negative errno. */
int trec_tsd_detect_file(const char *path, struct trec_tsd_info *out);

/* Tries the files a process maps (libc first), through /proc/PID/root. */
int trec_tsd_detect_pid(int pid, struct trec_tsd_info *out);

#endif /* TREC_PYTHON_TSD_H */
