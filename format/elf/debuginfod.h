/* SPDX-License-Identifier: MIT */
/*
 * debuginfod, deliberately: with DEBUGINFOD_URLS set, a separate debug file
 * that is not on this machine is fetched by build-id, by trecord when it
 * embeds symbols and by treport when it reads a local binary or a missing
 * one's debug file. libdwfl would ask the servers by itself, silently and
 * with libdebuginfod's 90 s timeout for each of its several lookups of a
 * file; here the asking is ours: a server that does not answer within
 * DEBUGINFOD_TIMEOUT (default 30 s), or cannot be reached, gives one
 * warning and is not asked again during the run.
 *
 * The first call takes DEBUGINFOD_URLS out of the environment so libdwfl
 * and libdw never query on their own, and puts it back only around our
 * own queries: call it after any child process has been started, from
 * the one thread that uses libdwfl.
 */
#ifndef TREC_DEBUGINFOD_H
#define TREC_DEBUGINFOD_H

#include <stddef.h>
#include <stdint.h>
#include <elfutils/libdwfl.h>

/* The program name for the warning ("trecord", "treport"). */
void trec_debuginfod_set_prog(const char *prog);

/* A Dwfl_Callbacks.find_debuginfo: dwfl_standard_find_debuginfo (local
 * files), then the debuginfod servers by the module's build-id. */
int trec_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			GElf_Word debuglink_crc, char **debuginfo_file_name);

/* The debug file of a build-id from the servers: an open fd and its path
 * in *path (malloc'd), or -1. */
int trec_debuginfod_find(const uint8_t *build_id, size_t len, char **path);

#endif /* TREC_DEBUGINFOD_H */
