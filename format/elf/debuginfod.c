// SPDX-License-Identifier: MIT
/*
 * Our debuginfod queries (debuginfod.h). libdebuginfod is loaded with
 * dlopen, as libdwfl loads it: without it (no libdebuginfod1), there is
 * nothing to query and nothing changes.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "format/elf/debuginfod.h"

#define DEFAULT_TIMEOUT_S 30

typedef int (*progress_fn)(debuginfod_client *c, long a, long b);

static struct {
	bool inited, failed;
	const char *prog;
	char *urls;            /* DEBUGINFOD_URLS, taken out of the environment */
	long timeout_s;
	debuginfod_client *client;
	debuginfod_client *(*begin)(void);
	int (*find)(debuginfod_client *c, const unsigned char *id, int len, char **path);
	void (*set_progress)(debuginfod_client *c, progress_fn fn);
	void (*end)(debuginfod_client *c);
	/* the query in progress */
	double last_change;
	long last_a;
	bool cancelled;
} g = { .prog = "trec" };

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void trec_debuginfod_set_prog(const char *prog)
{
	g.prog = prog;
}

static void end_client(void)
{
	if (g.client)
		g.end(g.client);
	g.client = NULL;
	free(g.urls);
	g.urls = NULL;
}

static void init(void)
{
	g.inited = true;
	const char *u = getenv("DEBUGINFOD_URLS");
	if (!u || !*u)
		return;
	g.urls = strdup(u);
	unsetenv("DEBUGINFOD_URLS"); /* libdwfl and libdw ask nobody now */
	const char *t = getenv("DEBUGINFOD_TIMEOUT");
	g.timeout_s = t && atol(t) > 0 ? atol(t) : DEFAULT_TIMEOUT_S;
	void *so = dlopen("libdebuginfod.so.1", RTLD_LAZY);
	if (so) {
		g.begin = (debuginfod_client * (*)(void)) dlsym(so, "debuginfod_begin");
		g.find = (int (*)(debuginfod_client *, const unsigned char *, int, char **))dlsym(
			so, "debuginfod_find_debuginfo");
		g.set_progress = (void (*)(debuginfod_client *, progress_fn))dlsym(
			so, "debuginfod_set_progressfn");
		g.end = (void (*)(debuginfod_client *))dlsym(so, "debuginfod_end");
	}
	if (g.urls && g.begin && g.find && g.set_progress && g.end && (g.client = g.begin())) {
		atexit(end_client);
		return;
	}
	fprintf(stderr, "%s: warning: DEBUGINFOD_URLS is set but libdebuginfod.so.1 %s; "
		"not asking debuginfod servers\n", g.prog, so ? "lacks its functions" : "is missing");
	free(g.urls);
	g.urls = NULL;
}

/* Gives up on a server that sent nothing for timeout_s seconds: the clock
 * restarts whenever a download with a known size advances. */
static int progress(debuginfod_client *c, long a, long b)
{
	(void)c;
	double t = now_s();
	if (b > 0 && a != g.last_a) {
		g.last_a = a;
		g.last_change = t;
	}
	if (t - g.last_change <= (double)g.timeout_s)
		return 0;
	g.cancelled = true;
	return 1;
}

/*
 * libdebuginfod (0.188) caches a query we cancelled as "not found" for
 * cache_miss_s (10 min): an empty <cache>/<build-id>/debuginfo made during
 * the query. The server never said so; remove it, so that the next run
 * asks again.
 */
static void forget_miss(const uint8_t *id, size_t len, time_t since)
{
	char dir[4096], path[4200], hex[129];
	const char *c = getenv("DEBUGINFOD_CACHE_PATH"), *x = getenv("XDG_CACHE_HOME"),
		   *h = getenv("HOME");
	int n = c && *c ? snprintf(dir, sizeof(dir), "%s", c)
		: x && *x ? snprintf(dir, sizeof(dir), "%s/debuginfod_client", x)
		: h && *h ? snprintf(dir, sizeof(dir), "%s/.cache/debuginfod_client", h) : -1;
	struct stat st;
	for (size_t i = 0; i < len; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	if (n > 0 && (size_t)n < sizeof(dir) &&
	    snprintf(path, sizeof(path), "%s/%s/debuginfo", dir, hex) < (int)sizeof(path) &&
	    !stat(path, &st) && S_ISREG(st.st_mode) && st.st_size == 0 && st.st_mtime >= since)
		unlink(path);
}

int trec_debuginfod_find(const uint8_t *build_id, size_t len, char **path)
{
	*path = NULL;
	if (!g.inited)
		init();
	if (!g.client || g.failed || !len || len > 64)
		return -1;
	g.set_progress(g.client, progress);
	g.last_change = now_s();
	g.last_a = -1;
	g.cancelled = false;
	time_t started = time(NULL);
	setenv("DEBUGINFOD_URLS", g.urls, 1);
	int fd = g.find(g.client, build_id, (int)len, path);
	unsetenv("DEBUGINFOD_URLS");
	if (g.cancelled)
		forget_miss(build_id, len, started - 1);
	if (fd >= 0)
		return fd;
	free(*path);
	*path = NULL;
	/* Not there is an answer; no answer or no server ends the asking. */
	if (g.cancelled || fd != -ENOENT) {
		g.failed = true;
		if (g.cancelled)
			fprintf(stderr, "%s: warning: debuginfod (%s): no answer in %ld s; going on "
				"without it (DEBUGINFOD_TIMEOUT sets the wait)\n", g.prog, g.urls,
				g.timeout_s);
		else
			fprintf(stderr, "%s: warning: debuginfod (%s): %s; going on without it\n",
				g.prog, g.urls, strerror(-fd));
	}
	return -1;
}

/* Whether path is absent or a regular file (following links). */
static bool absent_or_regular(const char *path)
{
	struct stat st;

	return stat(path, &st) || S_ISREG(st.st_mode);
}

/*
 * libdwfl's debuglink search opens its candidates with open(): a FIFO in
 * the directory of a binary a process chose (or a link to one) would block
 * the end of a recording, or a report, for good. Its candidates there
 * (DIR/LINK, DIR/.debug/LINK; without a link DIR/NAME.debug; an absolute
 * link itself) must be absent or regular files; the roots under
 * /usr/lib/debug are root's. (A race past this check is left to an
 * attacker swapping the file at the instant between.)
 */
static bool debuglink_places_safe(const char *file_name, const char *link)
{
	char dir[4096], name[512], p[8192];
	const char *slash = file_name ? strrchr(file_name, '/') : NULL;

	if (!slash || (size_t)(slash - file_name) >= sizeof(dir))
		return true; /* no directory: nothing is searched there */
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - file_name), file_name);
	if (!link) {
		snprintf(name, sizeof(name), "%s.debug", slash + 1);
		link = name;
	}
	if (link[0] == '/')
		return absent_or_regular(link);
	snprintf(p, sizeof(p), "%s/%s", dir, link);
	if (!absent_or_regular(p))
		return false;
	snprintf(p, sizeof(p), "%s/.debug/%s", dir, link);
	return absent_or_regular(p);
}

int trec_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	if (!g.inited)
		init(); /* before libdwfl's own lookup, which would ask the servers */
	/* A file read through one of trecord's fds (the vdso's copy, a file
	 * in another mount namespace) has no directory: a debug link would be
	 * looked up among trecord's fds. By build-id only. */
	bool own_fd = file_name && !strncmp(file_name, "/proc/self/fd/", 14);
	/* Nor is one searched where a FIFO or device sits among its places. */
	bool by_id = own_fd || !debuglink_places_safe(file_name, debuglink_file);
	int fd = by_id ? dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name,
						       debuglink_file, debuglink_crc,
						       debuginfo_file_name)
			: dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
						       debuglink_file, debuglink_crc,
						       debuginfo_file_name);
	const unsigned char *bits;
	GElf_Addr vaddr;
	int n;
	if (fd >= 0 || !g.client || (n = dwfl_module_build_id(mod, &bits, &vaddr)) <= 0)
		return fd;
	char *path;
	fd = trec_debuginfod_find(bits, (size_t)n, &path);
	if (fd >= 0) {
		free(*debuginfo_file_name);
		*debuginfo_file_name = path;
	}
	return fd;
}
