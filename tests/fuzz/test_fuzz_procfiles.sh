#!/usr/bin/env bash
# A short run (PROC_FUZZ_SECONDS, default 5) of the /proc parsers' fuzz
# target (tests/fuzz/fuzz_procfiles.c) on seeds taken from this machine:
# its own /proc/self/maps and /proc/self/stat, maps holding a deleted file
# whose name has spaces and " (deleted)" in it, and lines of /proc/kallsyms
# (core and modules).
# Any crash, leak, sanitizer report, broken order or timeout fails.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/../lib/fuzz.sh"

fuzz_prepare fuzz_procfiles "/proc maps and kallsyms parser"
{ printf '\0'; cat /proc/self/maps; } >"$tmp/seeds/maps-self"
odd="$tmp/a file (deleted) x"
cp /bin/true "$odd"
python3 - "$odd" "$tmp/seeds/maps-odd" <<'PY'
import mmap, os, sys
f = open(sys.argv[1], "rb")
m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
os.unlink(sys.argv[1])
open(sys.argv[2], "wb").write(b"\0" + open("/proc/self/maps", "rb").read())
PY
# An empty mapping (start = end), which the kernel never shows: rejected,
# not parsed into a mapping (found by this target in CI).
{ printf '\0'; echo '7f4d8c03d000-7f4d8c03d000 rw-p 00033000 fe:00 332383   /usr/lib/x.so'; } \
	>"$tmp/seeds/maps-empty"
# /proc/PID/stat: this shell's, and one whose comm holds ") " and digits.
{ printf '\2'; cat /proc/self/stat; } >"$tmp/seeds/stat-self"
{ printf '\2'; sed 's/(\([^)]*\))/(a) 1 2 (b)/' /proc/self/stat; } >"$tmp/seeds/stat-comm"
{ printf '\1'; head -300 /proc/kallsyms; grep ' \[' /proc/kallsyms | head -50; } >"$tmp/seeds/kallsyms"
grep -q 'a file (deleted) x (deleted)' "$tmp/seeds/maps-odd" &&
	pass "seed maps hold a deleted file named with spaces" ||
	fail "seed maps hold a deleted file named with spaces"
fuzz_seeds_then_run "/proc maps and kallsyms parser" "${PROC_FUZZ_SECONDS:-5}" 65536
exit 0
