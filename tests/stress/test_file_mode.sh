#!/usr/bin/env bash
# Recordings hold stacks, command lines and paths: they are created 0600
# whatever the umask, and also when -f replaces an existing file.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/stress_lib.sh"
need_tools "$TRECORD"
make_test_dir

(umask 000; "$TRECORD" -q -o "$dir/new.tr" -- /bin/true 2>"$dir/err")
check "trecord records /bin/true (exit $?)" test -s "$dir/new.tr"
mode=$(stat -c %a "$dir/new.tr")
check "a new recording is mode 0600 under umask 000 (got $mode)" test "$mode" = 600

install -m 0666 /dev/null "$dir/old.tr"
(umask 000; "$TRECORD" -q -f -o "$dir/old.tr" -- /bin/true 2>>"$dir/err")
mode=$(stat -c %a "$dir/old.tr")
check "a recording written over a 0666 file with -f is mode 0600 (got $mode)" test "$mode" = 600
exit 0
