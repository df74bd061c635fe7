#!/usr/bin/env bash
# The flight recorder (--overwrite, SIGUSR2) and rotating output
# (--switch-output, --switch-max-files): every file written stands alone.
. "$(dirname "$0")/lib.sh"

# samples_of FILE: SAMPLE records in it.
samples_of() { dump "$1" | grep -c '^S '; }
# span_ns FILE: last sample time - first sample time.
span_ns() { dump "$1" | awk '$1 == "S" { if (!n++ || $2 < lo) lo = $2; if ($2 > hi) hi = $2 } END { print hi - lo }'; }
# alone FILE: folded stacks from a copy in an empty directory, with the
# symbols embedded in it only (no local binaries); fails on any warning.
alone() {
	local d; d=$(mktemp -d "$T/alone.XXXX")
	cp "$1" "$d/x.tr"
	(cd "$d" && "$TREPORT" --folded --symbol-source embedded x.tr 2>"$d/err") && ! grep -q . "$d/err"
}

# ---- --overwrite: a SIGUSR2 just after the slow phase ------------------------
# phases: 3 s steady, 1 s stall_phase, then 0.5 s later SIGUSR2 to trecord
# (its parent), then 2.5 s more. The window is 2 s.
mkdir -p "$T/fr"
"$TRECORD" --overwrite --window 2 -o "$T/fr/fr.tr" -- "$WORKLOADS/phases" 3 1 3 -k 0.5 \
	>"$T/fr/out" 2>"$T/fr/err"
rc=$?
check "overwrite: trecord exits 0 (exit $rc)" [ "$rc" = 0 ]
mapfile -t files < <(ls "$T/fr" | grep -E '^fr\.tr\.[0-9]{16}$' | sort)
check "overwrite: two files named like perf's, fr.tr.YYYYMMDDhhmmssCC (${files[*]})" [ "${#files[@]}" = 2 ]
check "overwrite: no fr.tr itself" [ ! -e "$T/fr/fr.tr" ]
check "overwrite: no temporary file left" [ -z "$(ls "$T/fr" | grep partial)" ]
for f in "${files[@]}"; do
	check "overwrite: trecord names $f" grep -q "wrote $T/fr/$f " "$T/fr/err"
done
sig=$T/fr/${files[0]} last=$T/fr/${files[1]}
check "overwrite: the signalled file reads back" reads_back "$sig"
alone "$sig" >"$T/fr/folded"
check "overwrite: it symbolizes alone, from its embedded symbols, without warnings" [ $? = 0 ]
n=$(samples_of "$sig")
stall=$(awk '/stall_phase/ { s += $NF } END { print s + 0 }' "$T/fr/folded")
whole=$(awk '/stall_phase/ && /;main;/ && /^phases;_start;/ { s += $NF } END { print s + 0 }' "$T/fr/folded")
check "overwrite: the file holds the slow phase ($stall of $n samples in stall_phase)" \
	[ "$stall" -gt 0 ]
check "overwrite: with whole stacks, _start to stall_phase ($whole of $stall)" [ "$whole" = "$stall" ]
span=$(span_ns "$sig")
check "overwrite: it covers at most the 2 s window (${span} ns)" [ "$span" -le 2100000000 ]
check "overwrite: and more than half of it (${span} ns)" [ "$span" -ge 1000000000 ]
alone "$last" >"$T/fr/last.folded"
check "overwrite: the last file symbolizes alone" [ $? = 0 ]
check "overwrite: the last file starts after the switch: no stall_phase" \
	bash -c "! grep -q stall_phase '$T/fr/last.folded'"
check "overwrite: the summary counts what left the window" \
	grep -Eq 'older than the 2s window dropped, wrote 2 files' "$T/fr/err"
"$TREPORT" --info "$sig" >"$T/fr/info" 2>&1
check "overwrite: SUMMARY says a switched file" grep -q 'a switched file' "$T/fr/info"

# ---- --switch-output=1s: rotation, every sample in exactly one file -----------
mkdir -p "$T/rot"
"$TRECORD" --switch-output=1s -o "$T/rot/r.tr" -- "$WORKLOADS/busy" 3.5 >/dev/null 2>"$T/rot/err"
check "rotation: trecord exits 0" [ $? = 0 ]
mapfile -t files < <(ls "$T/rot" | grep -E '^r\.tr\.[0-9]{16}' | sort)
check "rotation: at least 3 files over 3.5 s (${#files[@]})" [ "${#files[@]}" -ge 3 ]
sum=0 ok=1
for f in "${files[@]}"; do
	reads_back "$T/rot/$f" && alone "$T/rot/$f" >/dev/null || ok=0
	sum=$((sum + $(samples_of "$T/rot/$f")))
done
total=$(sed -n 's/^\[ trecord: \([0-9]*\) samples.*/\1/p' "$T/rot/err")
check "rotation: every file reads alone" [ "$ok" = 1 ]
check "rotation: their samples add up to the whole ($sum of $total)" [ "$sum" = "$total" ]
check "rotation: the whole is not nothing ($total)" [ "${total:-0}" -gt 50 ]

# ---- --switch-max-files: the newest N stay ---------------------------------------
mkdir -p "$T/max"
"$TRECORD" --switch-output=1s --switch-max-files 2 -o "$T/max/m.tr" -- "$WORKLOADS/busy" 3.5 \
	>/dev/null 2>"$T/max/err"
n=$(ls "$T/max" | grep -cE '^m\.tr\.[0-9]{16}')
written=$(grep -c 'trecord: wrote' "$T/max/err")
check "max-files: at least 3 files written ($written)" [ "$written" -ge 3 ]
check "max-files: 2 of $written files stay ($n)" [ "$n" = 2 ]
newest=$(grep 'trecord: wrote' "$T/max/err" | tail -2 | sed 's/.*wrote \([^ ]*\) .*/\1/' | sort)
check "max-files: the newest two" [ "$newest" = "$(ls "$T/max"/m.tr.* | sort)" ]

# ---- --switch-output=SIZE --------------------------------------------------------
mkdir -p "$T/size"
"$TRECORD" -F 999 --switch-output=2K --no-archive -o "$T/size/s.tr" -- "$WORKLOADS/busy" 3 \
	>/dev/null 2>"$T/size/err"
n=$(ls "$T/size" | grep -cE '^s\.tr\.[0-9]{16}')
check "size: 2K rotates into several files ($n)" [ "$n" -ge 2 ]
ok=1
for f in "$T/size"/s.tr.*; do reads_back "$f" || ok=0; done
check "size: each reads back" [ "$ok" = 1 ]

# ---- SIGUSR2 with --switch-output=signal, from outside --------------------------------
mkdir -p "$T/sig"
"$TRECORD" --switch-output -o "$T/sig/g.tr" -- "$WORKLOADS/busy" 3 >/dev/null 2>"$T/sig/err" &
tp=$!
BG_PIDS+=("$tp")
for _ in $(seq 50); do [ -n "$(ls /proc/$tp/task 2>/dev/null | sed -n 4p)" ] && break; sleep 0.1; done
sleep 1
kill -USR2 "$tp"
wait "$tp"
check "signal: trecord exits 0 after a SIGUSR2" [ $? = 0 ]
n=$(ls "$T/sig" | grep -cE '^g\.tr\.[0-9]{16}')
check "signal: one file per SIGUSR2, and the last ($n)" [ "$n" = 2 ]

# ---- JIT names in a file switched while the JIT process runs --------------------------
mkdir -p "$T/jit"
(cd "$T/jit" && exec "$TRECORD" -F 499 --switch-output -o "$T/jit/j.tr" -- "$WORKLOADS/jitloop" 4 perfmap) \
	>"$T/jit/out" 2>"$T/jit/err" &
tp=$!
BG_PIDS+=("$tp")
sleep 2.5
kill -USR2 "$tp"
wait "$tp"
jpid=$(sed -n 's/^pid \([0-9]*\) .*/\1/p' "$T/jit/out")
rm -f "/tmp/perf-$jpid.map"
first=$(ls "$T/jit" | grep -E '^j\.tr\.[0-9]{16}$' | sort | head -1)
named=$(alone "$T/jit/$first" | awk '/jit_hot_loop/ { s += $NF } END { print s + 0 }')
all=$(samples_of "$T/jit/$first")
check "jit: the file switched mid-run names the live process's JIT code, map gone ($named of $all)" \
	[ "$named" -gt $((all / 2)) ]

# ---- a directory the files cannot go to: one message at the start --------------------------
"$TRECORD" --overwrite -o "$T/no/such/dir/fr.tr" -- /bin/true >/dev/null 2>"$T/nodir.err"
rc=$?
check "no directory: trecord fails at the start (exit $rc)" [ "$rc" = 1 ]
check "no directory: one clear message" \
	[ "$(cat "$T/nodir.err")" = "trecord: cannot create $T/no/such/dir/fr.tr.TIMESTAMP: No such file or directory" ]

# ---- a full disk: one message, exit 1, the files written before stay whole -------------------
mkdir -p "$T/full"
# 20k: each switched file of busy is about 10 KB (most of it libc's sampled
# symbol archive), so the second or third one runs out of space.
if mount -t tmpfs -o size=20k tmpfs "$T/full" 2>/dev/null; then
	"$TRECORD" --switch-output=1s -o "$T/full/f.tr" -- "$WORKLOADS/busy" 4 >/dev/null 2>"$T/full.err"
	rc=$?
	check "full disk: exit 1 ($rc)" [ "$rc" = 1 ]
	# the file being written when the disk filled keeps what it holds
	# (as a plain recording does), under its name, which the message gives
	kept=$(sed -n 's/^trecord: writing \(.*\) failed: No space left on device (it keeps what was written before)$/\1/p' "$T/full.err")
	check "full disk: the message says no space, naming the file kept (${kept##*/})" \
		[ -n "$kept" -a "$(grep -c '^trecord: writing' "$T/full.err")" = 1 ]
	check "full disk: no other message" [ "$(grep -vc '^\[ trecord: wrote' "$T/full.err")" = 1 ]
	check "full disk: ... and the file kept is there" [ -f "$kept" ]
	"$TREPORT" --info "$kept" >/dev/null 2>&1
	check "full disk: ... and reads (a truncated recording)" [ "$?" = 0 ]
	mapfile -t files < <(compgen -G "$T/full/f.tr.*")
	ok=1
	for f in "${files[@]}"; do [ "$f" = "$kept" ] || reads_back "$f" || ok=0; done
	check "full disk: a file was written before ($(grep -c 'trecord: wrote' "$T/full.err") said, ${#files[@]} there)" \
		[ "${#files[@]}" -ge 2 ]
	check "full disk: the files written before read back" [ "$ok" = 1 ]
	check "full disk: no partial file left" [ -z "$(ls "$T/full" | grep partial)" ]
	umount "$T/full"
else
	echo "SKIP: full disk (cannot mount tmpfs)"
fi
