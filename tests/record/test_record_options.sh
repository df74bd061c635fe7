#!/usr/bin/env bash
# Bad command lines and unwritable outputs: one clear message, non-zero exit.
. "$(dirname "$0")/lib.sh"

# bad NAME EXPECTED-MESSAGE-REGEX ARGS... ($AS: a command to run it under)
AS=
bad() {
	local name=$1 re=$2; shift 2
	$AS "$TRECORD" "$@" >"$T/out" 2>"$T/err"
	local rc=$?
	if [ "$rc" != 0 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -Eq "$re" "$T/err"; then
		pass "options: $name"
	else
		fail "options: $name (exit $rc)"; cat "$T/err"
	fi
}

bad "-F 0" "^trecord: -F must be a frequency from 1 to 50000 Hz, not '0'" -F 0 -a
bad "-F 50001" "^trecord: -F must be a frequency from 1 to 50000 Hz, not '50001'" -F 50001 -a
bad "-F abc" "^trecord: -F must be .*'abc'" -F abc -a
bad "-F -5" "^trecord: -F must be .*'-5'" -F -5 -a
bad "-F without value" "^trecord: option '-F' needs an argument" -F
bad "-p abc" "^trecord: -p: not a process id: 'abc'" -p abc
bad "-p 1,,x" "^trecord: -p: not a process id: 'x'" -p 1,,x
bad "-p 0" "^trecord: -p: not a process id: '0'" -p 0
bad "unknown option" "^trecord: unknown option '--bogus'" --bogus -a
bad "unknown option in a bundle" "^trecord: unknown option '-Y'" -qY -a
bad "--freq without value" "^trecord: option '--freq' needs an argument" --freq
bad "nothing to record" "^trecord: nothing to record" -o "$T/x.tr"
bad "-p with a command" "^trecord: give either -p or a command" -p 1 -- /bin/true
bad "-a with -p" "^trecord: -a already records every process" -a -p 1
bad "-p with -t" "^trecord: give -p or -t, not both" -p $$ -t $$
bad "--window without --overwrite" "^trecord: --window is the window of --overwrite" --window 5 -a
bad "--duration -1" "^trecord: --duration must be a positive number" --duration -1 -a
bad "--duration x" "^trecord: --duration must be a positive number" --duration x -a
bad "-o ''" "^trecord: -o needs a file name" -o '' -a
bad "-o in a missing directory" "^trecord: cannot create $T/no/such/dir/x.tr: No such file or directory$" \
	-o "$T/no/such/dir/x.tr" -- /bin/true

"$TRECORD" --help >"$T/out" 2>&1
check "options: --help exits 0" [ "$?" = 0 ]
check "options: --help shows usage" grep -q '^usage: trecord' "$T/out"
"$TRECORD" --version >"$T/out" 2>&1
check "options: --version exits 0" [ "$?" = 0 ]
check "options: --version prints it" grep -Eq '^trecord [0-9]+\.[0-9]+' "$T/out"

# A read-only file system.
mkdir -p "$T/ro"
if mount -t tmpfs -o ro,size=1m tmpfs "$T/ro" 2>/dev/null; then
	bad "-o on a read-only file system" "^trecord: cannot create $T/ro/x.tr: Read-only file system$" \
		-o "$T/ro/x.tr" -- /bin/true
	umount "$T/ro"
else
	echo "SKIP: cannot mount tmpfs"
fi

# A full file system: the write error ends the recording with one message.
mkdir -p "$T/full"
if mount -t tmpfs -o size=12k tmpfs "$T/full" 2>/dev/null; then
	"$TRECORD" -F 2000 -o "$T/full/x.tr" -- "$WORKLOADS/busy" 4 >/dev/null 2>"$T/err"
	rc=$?
	check "options: full disk fails" [ "$rc" != 0 ]
	check "options: ... with one message naming the file and ENOSPC" \
		grep -q "^trecord: writing $T/full/x.tr failed: No space left on device$" "$T/err"
	check "options: ... and no summary" bash -c "! grep -q '^\[ trecord' '$T/err'"
	umount "$T/full"
else
	echo "SKIP: cannot mount tmpfs"
fi

# An existing output is kept as .old; -f overwrites it.
echo old >"$T/o.tr"
"$TRECORD" -q -o "$T/o.tr" -- /bin/true
check "options: existing output kept as FILE.old" [ "$(cat "$T/o.tr.old")" = old ]
check "options: ... and the new recording written" reads_back "$T/o.tr"
rm -f "$T/o.tr.old"
"$TRECORD" -q -f -o "$T/o.tr" -- /bin/true
check "options: -f overwrites without FILE.old" [ ! -e "$T/o.tr.old" ]
check "options: ... with a valid recording" reads_back "$T/o.tr"

# Default output name.
(cd "$T" && "$TRECORD" -q -- /bin/true)
check "options: default output is trec.tr" reads_back "$T/trec.tr"

# Without privileges: one message saying what is needed.
if command -v setpriv >/dev/null; then
	AS="setpriv --reuid=65534 --regid=65534 --clear-groups" bad "unprivileged: says root is needed" \
		"^trecord: needs root \(CAP_BPF and CAP_PERFMON\) to load BPF programs" \
		-o /tmp/never.tr -a
else
	echo "SKIP: no setpriv"
fi
