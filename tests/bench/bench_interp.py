"""Interpreter rows of make bench's BPF cost table: each interpreter's
end-to-end test script, recorded like the native workloads, so its
per-sample BPF time (native + interpreter unwinders, tail calls and all)
stands next to the native workloads' of the same run. A row is left out
when its interpreter is not installed. One line per interpreter."""

import os

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

# label -> (interpreter, script under tests/, its argument: run seconds)
ROWS = {
    "perl chain.pl": ("/usr/bin/perl", "perl/chain.pl"),
}


def rows(secs):
    """[(label, argv)] of the installed interpreters, each running ~secs."""
    out = []
    for label, (interp, script) in ROWS.items():
        if os.access(interp, os.X_OK):
            out.append((label, [interp, os.path.join(ROOT, "tests", script), "%d" % max(1, round(secs))]))
    return out
