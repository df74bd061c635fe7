#!/usr/bin/env bash
# Recording onto a full file system (a 200 KiB tmpfs, 152 KiB of it taken
# by a filler so that even a slow, loaded run fills it): trecord must stop
# with one clear error naming the cause (ENOSPC), exit non-zero, and leave
# a file whose complete chunks still read back.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/stress_lib.sh"
need_tools "$TRECORD" "$TREPORT"
build_workloads
make_test_dir
mkdir "$dir/mnt"
mount -t tmpfs -o size=200k tmpfs "$dir/mnt" || skip_all "cannot mount a tmpfs (needs CAP_SYS_ADMIN)"
cleanup='umount "$dir/mnt"'
head -c 155648 /dev/zero >"$dir/mnt/filler"

timeout 60 "$TRECORD" -F 4000 -q -o "$dir/mnt/full.tr" -- "$WORKLOADS/busy" 10 \
	>/dev/null 2>"$dir/err"
rc=$?
echo "trecord on a full disk: exit $rc, stderr:"; sed 's/^/  /' "$dir/err" | head -5
check "trecord exits non-zero when the disk fills (exit $rc)" test "$rc" != 0
check "trecord ends by itself, no crash (exit $rc)" is_clean_exit "$rc"
check "the error names the cause (No space left on device / ENOSPC)" \
	grep -qiE 'no space left on device|ENOSPC' "$dir/err"
check "one error message, not a flood" test "$(grep -ciE 'no space|ENOSPC' "$dir/err")" -le 2
check "the partial recording exists" test -s "$dir/mnt/full.tr"
"$TREPORT" --info "$dir/mnt/full.tr" >"$dir/info" 2>"$dir/info.err"
rc=$?
echo "treport --info on it: exit $rc, stderr: $(head -2 "$dir/info.err")"
check "treport --info on the partial recording does not crash (exit $rc)" is_clean_exit "$rc"
check "treport reads the file header of the partial recording" \
	grep -qi "$(uname -r)" "$dir/info"
"$TREPORT" --folded "$dir/mnt/full.tr" >/dev/null 2>"$dir/folded.err"
rc=$?
check "treport --folded on the partial recording does not crash (exit $rc)" is_clean_exit "$rc"
exit 0
