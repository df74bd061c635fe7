// SPDX-License-Identifier: MIT
/*
 * Where the recording goes (output.h). As root, rename() and unlink() move
 * or delete device nodes and directories as readily as files, and two
 * trecords given one path would each move the other's file aside. So:
 * nothing but a regular file is replaced; the new file is written unnamed
 * and flock'ed; the old one is moved to .old only while we hold its lock
 * (a lock held by someone else means another trecord is writing it); the
 * new file is linked in only if the name is free, else we look again.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "record/io/output.h"

#define PUBLISH_TRIES 8

static const char *kind_of(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a regular file";
}

static char *old_name(const char *path)
{
	char *old = malloc(strlen(path) + 5);

	if (old)
		sprintf(old, "%s.old", path);
	return old;
}

int trec_output_check(const char *path, bool force, char *msg, size_t msglen)
{
	struct stat st;
	char *old;
	int bad;

	if (!strcmp(path, "-")) {
		if (fstat(STDOUT_FILENO, &st)) {
			snprintf(msg, msglen, "-o -: standard output is closed");
			return -EINVAL;
		}
		if (isatty(STDOUT_FILENO)) {
			snprintf(msg, msglen, "-o -: standard output is a terminal; pipe or redirect it");
			return -EINVAL;
		}
		return 0;
	}
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		snprintf(msg, msglen, "-o %s: %s; trecord writes only regular files%s", path,
			 kind_of(st.st_mode), S_ISDIR(st.st_mode) ? "" : " (-o - streams to stdout)");
		return -EINVAL;
	}
	if (force)
		return 0;
	/* rename() onto FILE.old would replace a device node there too. */
	old = old_name(path);
	if (!old) {
		snprintf(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	bad = !lstat(old, &st) && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode);
	if (bad)
		snprintf(msg, msglen, "-o %s: %s is %s, where the previous recording would be kept "
			 "(use -f, or another name)", path, old, kind_of(st.st_mode));
	free(old);
	return bad ? -EINVAL : 0;
}

int trec_output_file_begin(struct trec_output *o, char *msg, size_t msglen)
{
	struct stat st;
	char *copy;
	int fd;

	if (o->stream) {
		fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
		if (fd < 0) {
			int e = -errno;

			snprintf(msg, msglen, "cannot write to standard output: %s", strerror(-e));
			return e;
		}
		/* The recording owns the real stdout; whatever else would be
		 * printed there, the command's output too, goes to stderr (or
		 * nowhere), never into the stream. */
		if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
			int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

			if (null < 0 || dup2(null, STDOUT_FILENO) < 0) {
				int e = -errno;

				snprintf(msg, msglen, "cannot take standard output over: %s",
					 strerror(-e));
				close(fd);
				if (null >= 0)
					close(null);
				return e;
			}
			close(null);
		}
		return fd;
	}
	copy = strdup(o->path);
	if (!copy) {
		snprintf(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	/* Unnamed until complete enough to show: a failed start leaves nothing. */
	fd = open(dirname(copy), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	free(copy);
	if (fd < 0) {
		/* No O_TMPFILE on this filesystem: a temporary name beside it. */
		o->tmp = malloc(strlen(o->path) + 8);
		if (o->tmp)
			sprintf(o->tmp, "%s.XXXXXX", o->path);
		fd = o->tmp ? mkostemp(o->tmp, O_CLOEXEC) : -1;
		if (fd < 0) {
			int e = o->tmp ? -errno : -ENOMEM;

			free(o->tmp);
			o->tmp = NULL;
			snprintf(msg, msglen, "cannot create %s: %s", o->path, strerror(-e));
			return e;
		}
	}
	/* Ours, uncontended: another trecord's test of this lock fails. */
	flock(fd, LOCK_EX | LOCK_NB);
	if (!fstat(fd, &st)) {
		o->dev = st.st_dev;
		o->ino = st.st_ino;
	}
	return fd;
}

/* Moves the existing file at o->path out of the way (to .old, or away with
 * force) if no other trecord holds it. 0 (also when it vanished meanwhile:
 * the caller looks again), or negative errno with a message. */
static int take_old(struct trec_output *o, const struct stat *lst, bool force, char *msg,
		    size_t msglen)
{
	struct stat st, now;
	char *old = NULL;
	int ofd = -1, e = 0;

	/* A dangling symlink has nothing to lock: just move it. */
	if (!S_ISLNK(lst->st_mode) || !stat(o->path, &st)) {
		ofd = open(o->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
		if (ofd < 0 && errno == ENOENT)
			return 0;
		if (ofd >= 0 && (fstat(ofd, &st) || !S_ISREG(st.st_mode))) {
			snprintf(msg, msglen, "-o %s: %s; trecord writes only regular files", o->path,
				 kind_of(st.st_mode));
			close(ofd);
			return -EINVAL;
		}
		if (ofd >= 0 && flock(ofd, LOCK_EX | LOCK_NB) && errno == EWOULDBLOCK) {
			snprintf(msg, msglen, "%s is being written by another trecord; choose another -o",
				 o->path);
			close(ofd);
			return -EBUSY;
		}
		/* Replaced between open and lock: look again. */
		if (ofd >= 0 && (stat(o->path, &now) || now.st_dev != st.st_dev ||
				 now.st_ino != st.st_ino)) {
			close(ofd);
			return 0;
		}
	}
	if (force) {
		if (unlink(o->path) && errno != ENOENT) {
			e = -errno;
			snprintf(msg, msglen, "cannot replace %s: %s", o->path, strerror(-e));
		}
	} else if (!(old = old_name(o->path))) {
		e = -ENOMEM;
		snprintf(msg, msglen, "out of memory");
	} else if (rename(o->path, old) && errno != ENOENT) {
		e = -errno;
		snprintf(msg, msglen, "cannot move the existing %s to %s: %s", o->path, old,
			 strerror(-e));
	} else {
		o->rotated = true;
	}
	free(old);
	if (ofd >= 0)
		close(ofd);
	return e;
}

/* Gives the new file its name, failing with -EEXIST if the name is taken. */
static int link_new(struct trec_output *o, int fd)
{
	char proc[64];

	if (o->tmp) {
		if (!renameat2(AT_FDCWD, o->tmp, AT_FDCWD, o->path, RENAME_NOREPLACE))
			goto named;
		if (errno != EINVAL && errno != ENOSYS)
			return -errno;
		if (link(o->tmp, o->path)) /* link() never replaces */
			return -errno;
		unlink(o->tmp);
named:
		free(o->tmp);
		o->tmp = NULL;
		return 0;
	}
	if (!linkat(fd, "", AT_FDCWD, o->path, AT_EMPTY_PATH))
		return 0;
	/* AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; /proc does not. */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	return linkat(AT_FDCWD, proc, AT_FDCWD, o->path, AT_SYMLINK_FOLLOW) ? -errno : 0;
}

int trec_output_file_publish(struct trec_output *o, int fd, bool force, char *msg,
			     size_t msglen)
{
	struct stat lst;
	int e;

	if (o->stream)
		return 0;
	for (int i = 0; i < PUBLISH_TRIES; i++) {
		if (lstat(o->path, &lst)) {
			if (errno != ENOENT) {
				e = -errno;
				snprintf(msg, msglen, "cannot create %s: %s", o->path, strerror(-e));
				return e;
			}
		} else if ((e = take_old(o, &lst, force, msg, msglen))) {
			return e;
		}
		e = link_new(o, fd);
		if (!e)
			return 0;
		if (e != -EEXIST) {
			snprintf(msg, msglen, "cannot create %s: %s", o->path, strerror(-e));
			return e;
		}
	}
	snprintf(msg, msglen, "cannot create %s: something keeps creating it", o->path);
	return -EEXIST;
}

void trec_output_file_abandon(struct trec_output *o)
{
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	o->tmp = NULL;
}

void trec_output_file_unpublish(struct trec_output *o)
{
	struct stat st;
	char *old;

	/* Only our own file: the path may hold another one by now. */
	if (o->stream || o->tmp || stat(o->path, &st) || st.st_dev != o->dev ||
	    st.st_ino != o->ino)
		return;
	unlink(o->path);
	if (o->rotated && (old = old_name(o->path))) {
		rename(old, o->path);
		free(old);
	}
	o->rotated = false;
}
