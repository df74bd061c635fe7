#!/usr/bin/env bash
# A workload whose own code has CFI only in its separate debug file
# (tests/workloads/sepcfi-sepdebug.c: .debug_frame split off into
# sepcfi.debug, found through .gnu_debuglink): trecord unwinds it from
# there; a copy without the debug file cannot be unwound past its leaf.
. "$(dirname "$0")/lib.sh"

# share NAME: "reaching total" of the samples whose leaf is sep_leaf,
# after the process was synced.
# No delta cache: the copy has the same build-id, and the deltas cached
# from the first run (debug file included) would unwind it.
share() {
	"$TRECORD" -q --no-delta-cache -F 499 -o "$T/$1.tr" -- "$2" 2 >/dev/null 2>"$T/$1.err" ||
		{ fail "$1: trecord exits 0 ($(head -c 300 "$T/$1.err"))"; return 1; }
	"$TREPORT" --folded --no-kernel "$T/$1.tr" 2>/dev/null | grep -v NO_PID_INFO |
		awk '{ s = $0; sub(/ [0-9]+$/, "", s) }
			s ~ /;sep_leaf$/ { t += $NF; if (s ~ /;main;sep_outer;sep_middle;sep_leaf$/) r += $NF }
			END { print r + 0, t + 0 }'
}

read -r reach total < <(share split "$WORKLOADS/sepcfi")
check "sepcfi: samples in sep_leaf ($total)" [ "${total:-0}" -ge 100 ]
check "sepcfi: >= 99% of them unwind to main through the debug file's CFI ($reach of $total)" \
	[ $((reach * 100)) -ge $((${total:-1} * 99)) ]

mkdir "$T/alone" && cp "$WORKLOADS/sepcfi" "$T/alone/"
read -r reach total < <(share alone "$T/alone/sepcfi")
check "sepcfi without sepcfi.debug: none of its sep_leaf samples reach main ($reach of $total)" \
	[ "${total:-0}" -ge 100 -a "$reach" = 0 ]
