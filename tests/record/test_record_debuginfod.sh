#!/usr/bin/env bash
# DEBUGINFOD_URLS against a real debuginfod (Debian's package), started on
# 127.0.0.1 here and serving the debug file split off a stripped copy of
# busy (objcopy --only-keep-debug, --strip-all --add-gnu-debuglink; the
# debug file is not next to the binary, as when a distribution's -dbgsym
# package is not installed):
#  - treport names the stripped binary's frames from the server (the
#    binary present, and the binary gone: its debug file by build-id);
#  - trecord embeds the names and lines fetched from the server, and the
#    recording then symbolizes without the server and without the binary;
#  - a server that is down, or that accepts and never answers, gives one
#    warning and the report (and the recording) goes on; the unanswered
#    query is not left in libdebuginfod's cache as "not found".
. "$(dirname "$0")/lib.sh"
command -v debuginfod >/dev/null || skip_all "debuginfod is not installed (make deps)"

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# A server that accepts connections and never answers; its port in $silent_port.
silent_server() {
	python3 -c '
import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(64)
print(s.getsockname()[1], flush=True)
held = []
while True:
    held.append(s.accept()[0])' >"$T/silent.port" 2>/dev/null </dev/null &
	BG_PIDS+=($!)
	disown
	for _ in $(seq 50); do [ -s "$T/silent.port" ] && break; sleep 0.1; done
	silent_port=$(cat "$T/silent.port")
}

mkdir -p "$T/srv" "$T/bin" "$T/gone"
cp "$WORKLOADS/busy" "$T/busy.full"
objcopy --only-keep-debug "$T/busy.full" "$T/busy.debug"
objcopy --strip-all --add-gnu-debuglink="$T/busy.debug" "$T/busy.full" "$T/bin/busy"
mv "$T/busy.debug" "$T/srv/busy.debug"
bid=$(readelf -n "$T/bin/busy" | awk '/Build ID/ { print $3 }')
check "the stripped copy has no symbol table" bash -c "! readelf -S '$T/bin/busy' | grep -q symtab"

port=$(free_port)
debuginfod -F -p "$port" -d "$T/db.sqlite" -t 0 -g 0 "$T/srv" >"$T/debuginfod.log" 2>&1 </dev/null &
BG_PIDS+=($!)
disown
url=http://127.0.0.1:$port
ready=0
for _ in $(seq 100); do
	if python3 -c "import urllib.request, sys; urllib.request.urlopen('$url/buildid/$bid/debuginfo', timeout=2)" 2>/dev/null; then
		ready=1; break
	fi
	sleep 0.2
done
check "debuginfod serves the debug file by build-id on 127.0.0.1" [ "$ready" = 1 ]
[ "$ready" = 1 ] || { tail -5 "$T/debuginfod.log"; exit 1; }

# Every run gets a fresh client cache, so each one really asks the server.
fresh() { rm -rf "$T/cache"; export DEBUGINFOD_CACHE_PATH=$T/cache; }
named() { grep -q ';main;work_unit;' "$1"; }
fresh
"$TRECORD" -q --no-archive -F 499 -o "$T/plain.tr" -- "$T/bin/busy" 1 >/dev/null 2>"$T/rec.err"
check "recording the stripped busy without embedded symbols" [ $? = 0 ]

unset DEBUGINFOD_URLS
"$TREPORT" --folded "$T/plain.tr" >"$T/none.folded" 2>/dev/null
check "treport without DEBUGINFOD_URLS: busy's frames unresolved" \
	bash -c "grep -q ';\[busy\];' '$T/none.folded' && ! grep -q ';work_unit;' '$T/none.folded'"
fresh
DEBUGINFOD_URLS=$url "$TREPORT" --folded "$T/plain.tr" >"$T/local.folded" 2>"$T/local.err"
check "treport with DEBUGINFOD_URLS: the stripped binary's frames named from the server" named "$T/local.folded"
check "and no warning" bash -c "! grep -q debuginfod '$T/local.err'"
mv "$T/bin/busy" "$T/gone/busy"
fresh
DEBUGINFOD_URLS=$url "$TREPORT" --folded "$T/plain.tr" >"$T/gone.folded" 2>"$T/gone.err"
check "binary gone: its debug file fetched by build-id names the frames" named "$T/gone.folded"
mv "$T/gone/busy" "$T/bin/busy"

fresh
DEBUGINFOD_URLS=$url "$TRECORD" -F 499 -o "$T/emb.tr" -- "$T/bin/busy" 1 >/dev/null 2>"$T/emb.err"
check "trecord with DEBUGINFOD_URLS exits 0" [ $? = 0 ]
mv "$T/bin/busy" "$T/gone/busy"
"$TREPORT" --folded "$T/emb.tr" >"$T/emb.folded" 2>/dev/null
check "embedded from the server: names without the server or the binary" named "$T/emb.folded"
main=$(nm "$T/busy.full" | awk '$3 == "main" { print $1 }')
"$TREPORT" --extract-archive "$T/x" "$T/emb.tr" >/dev/null 2>&1
check "and its source lines: addr2line on the extracted archive gives busy.c for main" \
	bash -c "addr2line -e '$T/x/.build-id/${bid:0:2}/${bid:2}.debug' 0x$main | grep -q 'busy.c:[0-9]'"
mv "$T/gone/busy" "$T/bin/busy"

# A server that is down: one warning, the report goes on.
down=http://127.0.0.1:$(free_port)
fresh
start=$(date +%s)
DEBUGINFOD_URLS=$down "$TREPORT" --folded "$T/plain.tr" >"$T/down.folded" 2>"$T/down.err"
rc=$?
cat "$T/down.err"
check "server down: treport exits 0 with its output" [ "$rc" = 0 -a -s "$T/down.folded" ]
check "server down: exactly one warning" [ "$(grep -c 'debuginfod' "$T/down.err")" = 1 ]
check "server down: at once ($(( $(date +%s) - start )) s)" [ $(( $(date +%s) - start )) -le 5 ]

# A server that never answers: one warning after DEBUGINFOD_TIMEOUT, once.
silent_server
silent=http://127.0.0.1:$silent_port
fresh
start=$(date +%s)
DEBUGINFOD_TIMEOUT=2 DEBUGINFOD_URLS=$silent "$TREPORT" --folded "$T/plain.tr" \
	>"$T/slow.folded" 2>"$T/slow.err"
rc=$? secs=$(( $(date +%s) - start ))
cat "$T/slow.err"
check "server silent: treport exits 0 with its output" [ "$rc" = 0 -a -s "$T/slow.folded" ]
check "server silent: exactly one warning" [ "$(grep -c 'debuginfod' "$T/slow.err")" = 1 ]
check "server silent: one wait of DEBUGINFOD_TIMEOUT, not one per lookup ($secs s)" [ "$secs" -le 8 ]
check "server silent: the unanswered query is not cached as a miss" \
	bash -c "! find '$T/cache' -path '*$bid*' -type f -size 0 | grep -q ."
DEBUGINFOD_URLS=$url "$TREPORT" --folded "$T/plain.tr" >"$T/after.folded" 2>/dev/null
check "the same cache then gets the file from a working server" named "$T/after.folded"

fresh
start=$(date +%s)
# (--no-symbol-cache: an entry from the recordings above would answer
# without asking the server)
DEBUGINFOD_TIMEOUT=2 DEBUGINFOD_URLS=$silent "$TRECORD" -F 499 --no-symbol-cache -o "$T/slowrec.tr" -- "$T/bin/busy" 1 \
	>/dev/null 2>"$T/slowrec.err"
rc=$? secs=$(( $(date +%s) - start ))
cat "$T/slowrec.err"
check "trecord, server silent: exits 0, one warning, the recording complete ($secs s)" \
	[ "$rc" = 0 -a "$(grep -c 'debuginfod' "$T/slowrec.err")" = 1 -a "$secs" -le 12 ]
check "trecord, server silent: the recording reads back" reads_back "$T/slowrec.tr"
