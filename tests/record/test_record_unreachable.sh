#!/usr/bin/env bash
# Files trecord's own view of their path does not reach: a program run
# from a tmpfs mounted in a private mount namespace (a container; here the
# same path on the host holds another program), and a program and its
# dlopen'd library deleted while they run (a service after a package
# upgrade). Their stack deltas are read through /proc/PID/map_files; their
# embedded symbols must come from the same inode, not from whatever the
# path gives trecord (nothing, or the other program: build-id mismatch).
. "$(dirname "$0")/lib.sh"

# wait_for PID CMD...: up to 10 s for CMD to succeed while PID lives.
wait_for() {
	local pid=$1
	shift
	for _ in $(seq 100); do
		"$@" && return 0
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# symbolized NAME PROG FUNC...: records pid $pid as NAME.tr for 1 s, then
# checks the recording names PROG's functions FUNC... from its embedded
# symbols alone, leaves none of PROG's frames as raw offsets, and that
# trecord did not warn about PROG's symbols.
symbolized() {
	local name=$1 prog=$2 f
	shift 2
	"$TRECORD" -F 499 -p "$pid" -d 1 -o "$T/$name.tr" >/dev/null 2>"$T/$name.err"
	check "$name: trecord exits 0" [ "$?" = 0 ] || cat "$T/$name.err"
	"$TREPORT" --folded --no-kernel --symbol-source embedded "$T/$name.tr" \
		>"$T/$name.folded" 2>/dev/null
	check "$name: samples of $prog" grep -q "^$prog;" "$T/$name.folded"
	for f in "$@"; do
		check "$name: $f named from the embedded symbols" grep -q ";$f[;. ]" "$T/$name.folded"
	done
	check "$name: no frame of $prog left unnamed" \
		bash -c "! grep -E '\\[$prog\\]|$prog\\+0x' '$T/$name.folded'"
	check "$name: no warning about embedded symbols" \
		bash -c "! grep -q 'no embedded symbols' '$T/$name.err'" || cat "$T/$name.err"
	check "$name: counted in FILES_KEPT_OPEN" [ "$(metric "$T/$name.tr" FILES_KEPT_OPEN)" -ge 1 ]
}

# 1. Deleted while running: the program and the library it dlopens.
mkdir "$T/del"
cp "$WORKLOADS/dlmain" "$WORKLOADS/libdlspin.so" "$T/del/"
"$T/del/dlmain" 30 >/dev/null &
pid=$!
BG_PIDS+=("$pid")
wait_for "$pid" grep -q libdlspin.so "/proc/$pid/maps"
check "deleted: dlmain runs with libdlspin.so mapped" grep -q libdlspin.so "/proc/$pid/maps"
rm "$T/del/dlmain" "$T/del/libdlspin.so"
check "deleted: both files are deleted in its maps" bash -c \
	"grep -q '/del/dlmain (deleted)$' /proc/$pid/maps && grep -q '/del/libdlspin.so (deleted)$' /proc/$pid/maps"
symbolized deleted dlmain main dl_inner
check "deleted: libdlspin.so's frames named too" bash -c "! grep -q 'libdlspin.so' '$T/deleted.folded'"
kill "$pid" 2>/dev/null

# 2. Another mount namespace; the host's file at the same path is another
# program (a container's libc under the host's libc's path).
mkdir "$T/nsbin"
if ! unshare -m --propagation private sh -c 'mount -t tmpfs tmpfs "$1"' sh "$T/nsbin" 2>/dev/null; then
	echo "SKIP: mount namespace part: unshare -m --propagation private (with a tmpfs mount) does not work here"
	exit 0
fi
cp "$WORKLOADS/threads" "$T/nsbin/ctr_app"
# (the mount exists only in the new namespace, and goes with its process)
unshare -m --propagation private sh -c 'mount -t tmpfs tmpfs "$1" && cp "$2" "$1/ctr_app" &&
	exec "$1/ctr_app" 30' sh "$T/nsbin" "$WORKLOADS/busy" >/dev/null &
pid=$!
BG_PIDS+=("$pid")
wait_for "$pid" grep -qx ctr_app "/proc/$pid/comm"
check "namespace: ctr_app runs from its own tmpfs" grep -qx ctr_app "/proc/$pid/comm"
check "namespace: ... which the host's path does not reach" \
	bash -c "! cmp -s '$WORKLOADS/busy' '$T/nsbin/ctr_app'"
symbolized namespace ctr_app main recurse spin cmp_ints
