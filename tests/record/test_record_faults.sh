#!/usr/bin/env bash
# Faults around a recording (issue 19): what -o may replace, a full disk at
# creation, two recordings given one path, -o - (pipe mode), a held command
# whose trecord dies, SIGPIPE, and a SIGKILL in the first second.
. "$(dirname "$0")/lib.sh"

BUSY=$WORKLOADS/busy
cd "$T" # (an old trecord took "-o -" for a file named "-")
# refused NAME PATH [ARGS]: exit 2, one message naming PATH, PATH untouched.
refused() {
	local name=$1 path=$2; shift 2
	local before
	before=$(stat -c '%F %t:%T %i' "$path")
	"$TRECORD" -q "$@" -o "$path" -- /bin/true >"$T/out" 2>"$T/err"
	local rc=$?
	if [ "$rc" = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q "^trecord: -o $path" "$T/err" &&
		[ "$(stat -c '%F %t:%T %i' "$path")" = "$before" ] && [ ! -e "$path.old" ]; then
		pass "-o $name: refused (exit 2, one message), left as it was"
	else
		fail "-o $name: refused (exit $rc), left as it was"; cat "$T/err"; ls -la "$T/o"
	fi
}

# ---- what -o may replace ------------------------------------------------------
mkdir -p "$T/o"
mknod "$T/o/null" c 1 3
mkdir "$T/o/dir"
mkfifo "$T/o/fifo"
python3 -c "import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])" "$T/o/sock"
for x in null dir fifo sock; do
	refused "$x" "$T/o/$x"
	refused "$x with -f" "$T/o/$x" -f
done
ln -s "$T/o/null" "$T/o/link"
refused "symlink to a device" "$T/o/link"
touch "$T/o/r.tr"
mknod "$T/o/r.tr.old" c 1 3
"$TRECORD" -q -o "$T/o/r.tr" -- /bin/true 2>"$T/err"
check "-o FILE whose FILE.old is a device: refused (exit $?), the device kept" \
	test "$?" = 2 -a -c "$T/o/r.tr.old" -a ! -s "$T/o/r.tr"

# ---- a full disk when the file is created: nothing left behind ----------------
mkdir -p "$T/full"
if mount -t tmpfs -o size=64k tmpfs "$T/full" 2>/dev/null; then
	dd if=/dev/zero of="$T/full/fill" bs=4k 2>/dev/null
	"$TRECORD" -q -o "$T/full/x.tr" -- /bin/true 2>"$T/err"
	rc=$?
	check "full disk at creation: one message, exit $rc" \
		grep -q "^trecord: cannot create $T/full/x.tr: No space left on device$" "$T/err"
	check "full disk at creation: no empty file left" test ! -e "$T/full/x.tr"
	check "full disk at creation: no temporary file left" \
		test "$(ls "$T/full")" = fill
	umount "$T/full"
else
	echo "SKIP: cannot mount tmpfs"
fi

# ---- two recordings, one path ---------------------------------------------------
"$TRECORD" -F 999 -q -o "$T/same.tr" -- "$BUSY" 3 >/dev/null 2>"$T/first.err" &
first=$!
BG_PIDS+=("$first")
for i in $(seq 100); do [ -s "$T/same.tr" ] && break; sleep 0.05; done
for f in "" -f; do
	"$TRECORD" -q $f -o "$T/same.tr" -- /bin/true 2>"$T/err"
	rc=$?
	check "a second trecord ${f:+($f) }on the same path fails (exit $rc) with one message" \
		test "$rc" != 0 -a "$(grep -c 'being written by another trecord' "$T/err")" = 1
done
wait "$first"
check "... while the first one's recording is complete" test "$?" = 0
check "... in its own file, not moved to .old" test ! -e "$T/same.tr.old"
samples=$(dump "$T/same.tr" | grep -c '^S ')
check "... with its samples ($samples)" test "$samples" -gt 100
"$TRECORD" -q -o "$T/same.tr" -- /bin/true
check "once it is done, the next one moves it to .old" \
	test "$(dump "$T/same.tr.old" | grep -c '^S ')" = "$samples"

# ---- -o -: the recording streams to stdout ------------------------------------
"$TRECORD" -F 999 -o - -- sh -c "echo from-the-command; $BUSY 1 >/dev/null" \
	2>"$T/pipe.err" | "$TREPORT" - --folded >"$T/pipe.folded" 2>"$T/pipe.rep"
rcs="${PIPESTATUS[*]}"
n=$(awk '{ s += $NF } END { print s + 0 }' "$T/pipe.folded")
check "-o - | treport -: both succeed ($rcs), $n samples" test "$rcs" = "0 0" -a "$n" -gt 100
check "-o -: the command's stdout goes to stderr, not into the recording" \
	grep -q '^from-the-command$' "$T/pipe.err"
check "-o -: the summary names stdout" grep -q 'wrote stdout ([0-9]* bytes)' "$T/pipe.err"
check "-o -: treport has nothing to warn about" test ! -s "$T/pipe.rep"
"$TRECORD" -o - -- "$BUSY" 3 2>"$T/epipe.err" | head -c 100 >/dev/null
rc=${PIPESTATUS[0]}
check "-o - into a pipe closed early: exit 1, one message (exit $rc)" \
	test "$rc" = 1 -a "$(grep -c 'writing stdout failed: Broken pipe' "$T/epipe.err")" = 1
python3 - "$TRECORD" <<'EOF'
import os, pty, subprocess, sys
m, s = pty.openpty()
r = subprocess.run([sys.argv[1], "-o", "-", "--", "/bin/true"], stdout=s, stderr=subprocess.PIPE)
ok = r.returncode == 2 and b"terminal" in r.stderr and len(r.stderr.splitlines()) == 1
print(("PASS" if ok else "FAIL") + ": -o - to a terminal: refused (exit %d)" % r.returncode)
EOF

# ---- the held command when trecord dies -------------------------------------------
# SIGKILL trecord while its command is forked but held (its exe still
# trecord's, and still after trecord is stopped, so trecord did not just
# release it): the command must neither run nor stay behind. Polled from
# Python: the hold lasts only while trecord attaches its programs.
python3 - "$TRECORD" "$T" <<'EOF'
import os, signal, subprocess, sys, time
trecord, tmp = sys.argv[1], sys.argv[2]
me, marker = os.path.realpath(trecord), os.path.join(tmp, "ran")
held = leftover = ran = 0

def state(pid):
    try:
        return [l.split()[1] for l in open("/proc/%d/status" % pid) if l.startswith("State:")][0]
    except OSError:
        return None

def exe(pid):
    try:
        return os.readlink("/proc/%d/exe" % pid)
    except OSError:
        return None

for attempt in range(10):
    if os.path.exists(marker):
        os.unlink(marker)
    p = subprocess.Popen([trecord, "-q", "-o", os.path.join(tmp, "held.tr"), "--",
                          "sh", "-c", "touch " + marker], stderr=subprocess.DEVNULL)
    child, end = None, time.time() + 20
    while child is None and p.poll() is None and time.time() < end:
        try:
            kids = open("/proc/%d/task/%d/children" % (p.pid, p.pid)).read().split()
        except OSError:
            kids = []
        if kids:
            c = int(kids[0])
            child = c if exe(c) == me else -1
    if child and child > 0:
        os.kill(p.pid, signal.SIGSTOP)
        time.sleep(0.2)
        if exe(child) != me:
            child = None  # trecord released it just before the stop
    p.kill()
    p.wait()
    if not child or child < 0:
        continue
    held += 1
    for _ in range(20):
        if state(child) != "S":
            break
        time.sleep(0.1)
    if state(child) == "S":
        leftover += 1
        os.kill(child, signal.SIGKILL)
    time.sleep(0.2)
    ran += os.path.exists(marker)
    if held == 3:
        break

def check(ok, name):
    print(("PASS: " if ok else "FAIL: ") + name)
check(held > 0, "SIGKILL while the command is held: caught it held (%d times)" % held)
check(leftover == 0, "... the held command is gone within 2 s (%d left waiting)" % leftover)
check(ran == 0, "... and never ran unrecorded (%d ran)" % ran)
EOF

# -v into a pipe that closes at once: trecord no longer dies of SIGPIPE in
# the middle of its setup (leaving the command held); it records on.
"$TRECORD" -v -F 999 -o "$T/v.tr" -- sh -c "$BUSY 1 >/dev/null" 2>&1 | head -c 1 >/dev/null
rc=${PIPESTATUS[0]}
check "-v into a closed pipe: the recording completes (exit $rc)" \
	test "$rc" = 0 -a "$(dump "$T/v.tr" | grep -c '^S ')" -gt 10

# ---- SIGKILL in the first second ----------------------------------------------
"$TRECORD" -F 999 -q -o "$T/kill.tr" -- "$BUSY" 5 2>/dev/null &
tp=$!
c=
for i in $(seq 500); do
	c=$(pgrep -P "$tp" | head -1)
	[ -n "$c" ] && [ "$(readlink "/proc/$c/exe")" = "$BUSY" ] && break
	c=
	sleep 0.01
done
sleep 0.5
kill -9 "$tp"
wait "$tp" 2>/dev/null
[ -n "$c" ] && kill -9 "$c" 2>/dev/null
n=$("$TRDUMP" "$T/kill.tr" 2>/dev/null | grep -c '^S ')
check "SIGKILL 0.5 s into the command: the file keeps samples ($n)" test "$n" -gt 20
exit 0
