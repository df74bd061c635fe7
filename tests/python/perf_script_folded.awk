# treport --perf-script text as folded stacks (root first, ';'-joined,
# count 1 per sample), frame names without address, offset or DSO: the
# input of interp_order.awk.
function flush() { if (n) { s = st[n]; for (i = n - 1; i >= 1; i--) s = s ";" st[i]; print s " 1" } n = 0 }
/^[^ \t]/ { flush(); next }
/^$/ { flush(); next }
{
	line = $0
	sub(/^[ \t]*[0-9a-f]+ /, "", line)
	if (line ~ / \(inlined\)$/) sub(/ \(inlined\)$/, "", line)
	else sub(/ \([^()]*\)$/, "", line)
	sub(/\+0x[0-9a-f]+$/, "", line)
	st[++n] = line
}
END { flush() }
