#!/usr/bin/env bash
# A program run from a memfd (fexecve: its mappings read /memfd:NAME
# (deleted)) has no path to open it by: trecord records it and leaves its
# symbols out without a warning (-a met such mappings of system services).
. "$(dirname "$0")/lib.sh"

cat >"$T/memfd_exec.py" <<'PY'
import os, sys
fd = os.memfd_create("trec-busy", 0)  # no MFD_CLOEXEC: exec goes through it
with open(sys.argv[1], "rb") as f:
    os.write(fd, f.read())
os.execv("/proc/self/fd/%d" % fd, ["busy"] + sys.argv[2:])
PY
"$TRECORD" -F 499 -o "$T/m.tr" -- python3 "$T/memfd_exec.py" "$WORKLOADS/busy" 1 \
	>/dev/null 2>"$T/err"
rc=$?
cat "$T/err"
check "memfd: trecord exits 0" [ "$rc" = 0 ]
check "memfd: the program's mappings were recorded as /memfd:" \
	bash -c "'$TRDUMP' '$T/m.tr' | grep -q '/memfd:trec-busy'"
check "memfd: no warning about its symbols" bash -c "! grep -q 'no embedded symbols' '$T/err'"
check "memfd: the recording reads back with its samples" bash -c "'$TRDUMP' '$T/m.tr' | grep -q '^S '"
