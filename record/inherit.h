/* SPDX-License-Identifier: MIT */
/*
 * What the command gets from trecord as trecord got it, as if run without
 * trecord (and as under perf record): the file descriptors trecord
 * inherited open (make's jobserver pipe, a systemd socket, a redirection
 * to fd 7) and the signals it inherited ignored (nohup's SIGHUP). Anything
 * trecord opened itself is closed for the command.
 */
#ifndef TREC_INHERIT_H
#define TREC_INHERIT_H

#include <signal.h>
#include <stdbool.h>

/* Notes them; first thing in main, before trecord opens or catches
 * anything. */
void trec_inherit_note(void);

/* Whether sig was ignored when trecord started. */
bool trec_inherit_ignored(int sig);

/* In the forked command before exec (async-signal-safe): every signal
 * back to SIG_DFL but those inherited ignored, and every fd from 3 on
 * closed at exec but those inherited (still the same file). */
void trec_inherit_restore(void);

#endif /* TREC_INHERIT_H */
