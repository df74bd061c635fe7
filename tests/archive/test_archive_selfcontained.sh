#!/usr/bin/env bash
# A recording symbolizes without the recorded files: record a workload
# with its own shared library, delete both, and treport gives the same
# folded stacks from the embedded symbols. Without them (--no-archive, or
# --symbol-source=local) the frames of the deleted files stay unresolved.
# --extract-archive writes debug files that nm and treport's own debug
# source read.
source "$(dirname "$0")/workload.sh"
arc_setup   # $d: a fresh directory holding the workload
bid_exe=$(build_id_of "$d/arcdemo")
bid_lib=$(build_id_of "$d/libarcdemo.so")

record "$d/rec.tr" -- "$d/arcdemo" 1 || { fail "record the workload"; exit 1; }
record "$d/none.tr" --no-archive -- "$d/arcdemo" 0.5 || { fail "record with --no-archive"; exit 1; }
sed -n 's/.*\(embedded symbols of [^)]*)\).*/\1/p' "$d/rec.tr.err"
check "trecord reports the embedded symbols in its summary line" \
	grep -q 'embedded symbols of [0-9]* files ([0-9]* bytes' "$d/rec.tr.err"
check "--no-archive embeds nothing" \
	bash -c "! grep -q 'embedded symbols' '$d/none.tr.err'"

"$TREPORT" --folded "$d/rec.tr" > "$d/before.folded" 2> "$d/before.err"
check "treport --folded with the files present" test -s "$d/before.folded"
check "the library's function is named" grep -q 'arcdemo_lib_spin' "$d/before.folded"
check "the executable's function is named" grep -q 'arcdemo_main_loop' "$d/before.folded"
check "the inlined function shows as a frame" grep -q 'arcdemo_lib_spin;arcdemo_inline_step' "$d/before.folded"

# For gdb later: where a function is, and a stripped copy of the executable.
main_loop=$(nm "$d/arcdemo" | awk '$3 == "arcdemo_main_loop" {print "0x" $1}')
strip -o "$d/arcdemo.stripped" "$d/arcdemo"
rm -f "$d/arcdemo" "$d/libarcdemo.so" "$d/arcdemo.c" "$d/libarcdemo.c"
"$TREPORT" --folded "$d/rec.tr" > "$d/after.folded" 2> "$d/after.err"
check "after deleting the binary and library: the same folded stacks" \
	cmp -s "$d/before.folded" "$d/after.folded"
diff "$d/before.folded" "$d/after.folded" | head -5

"$TREPORT" --folded --symbol-source=local "$d/rec.tr" > "$d/local.folded" 2>/dev/null
check "without the embedded source the deleted files' frames are unresolved" \
	bash -c "! grep -q arcdemo_lib_spin '$d/local.folded' && grep -q arcdemo '$d/local.folded'"
"$TREPORT" --folded "$d/none.tr" > "$d/none.folded" 2>/dev/null
check "a --no-archive recording cannot name them either" \
	bash -c "! grep -q 'arcdemo_lib_spin\|arcdemo_main_loop' '$d/none.folded'"

"$TREPORT" --extract-archive "$d/y" "$d/none.tr" 2> "$d/extract-none.err"
rc=$?
check "--extract-archive of a --no-archive recording fails, saying why" \
	bash -c "[ $rc != 0 ] && grep -q 'no embedded symbols' '$d/extract-none.err'"
"$TREPORT" --extract-archive "$d/x" "$d/rec.tr" 2> "$d/extract.err"
check "--extract-archive writes the executable's debug file" \
	test -f "$d/x/.build-id/${bid_exe:0:2}/${bid_exe:2}.debug"
check "--extract-archive writes the library's debug file" \
	test -f "$d/x/.build-id/${bid_lib:0:2}/${bid_lib:2}.debug"
check "nm reads the extracted library's symbols" \
	bash -c "nm '$d/x/.build-id/${bid_lib:0:2}/${bid_lib:2}.debug' | grep -q ' T arcdemo_lib_spin'"
gdb -nx -batch -ex "set debug-file-directory $d/x" -ex "file $d/arcdemo.stripped" \
	-ex "info symbol $main_loop" -ex "info line *$main_loop" > "$d/gdb.out" 2>&1
check "gdb finds the extracted debug file of a stripped copy by build-id: symbol" \
	grep -q "^arcdemo_main_loop in section .text" "$d/gdb.out"
check "gdb: and its line" grep -q "^Line [0-9]* of \"$d/arcdemo.c\"" "$d/gdb.out"
cat "$d/gdb.out"
"$TREPORT" --folded --no-inline "$d/rec.tr" > "$d/emb.noinl" 2>/dev/null
"$TREPORT" --folded --no-inline --symbol-source=debug --debug-dir "$d/x" "$d/rec.tr" \
	> "$d/dbg.noinl" 2>/dev/null
check "treport's debug-file source on the extracted files names frames as the embedded source" \
	cmp -s "$d/emb.noinl" "$d/dbg.noinl"
diff "$d/emb.noinl" "$d/dbg.noinl" | head -5
exit 0
