# Folded stacks (treport --folded): samples in which an interpreter frame
# ("name (file:line)" or an unnamed "[python 0x...]") has for its caller a
# native function other than the interpreter loop's: an inlined function
# of the loop's pc put below the interpreter frames it runs for. Prints
# "bad all" (samples), and the first such pair on stderr.
function interp(s) { return s ~ /\([^()]*:[0-9]+\)$/ || s ~ /^\[python 0x/ }
{
	n = split($0, f, ";")
	f[n] = substr(f[n], 1, length(f[n]) - length($NF) - 1)
	wrong = 0
	for (i = 2; i <= n; i++)
		if (interp(f[i]) && !interp(f[i - 1]) && f[i - 1] != "_PyEval_EvalFrameDefault" &&
		    f[i - 1] !~ /^\[(error|unknown)/) {
			wrong = 1
			if (!shown++) print "  " f[i - 1] " -> " f[i] > "/dev/stderr"
		}
	bad += wrong * $NF
	all += $NF
}
END { print bad + 0, all + 0 }
