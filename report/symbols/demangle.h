/* SPDX-License-Identifier: MIT */
/*
 * Symbol demangling (C++ Itanium ABI, Rust legacy and v0) with libiberty,
 * the demangler binutils and perf use. Names come out without parameter
 * lists, as perf shows them by default.
 */
#ifndef RP_DEMANGLE_H
#define RP_DEMANGLE_H

#include <stddef.h>

/*
 * Writes the demangled form of name into out (truncated to outlen) and
 * returns 1, or copies name unchanged and returns 0 when it is not mangled.
 */
int rp_demangle(const char *name, char *out, size_t outlen);

#endif /* RP_DEMANGLE_H */
