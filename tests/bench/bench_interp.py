"""make bench: BPF cost per sample with interpreter frames (rows of
bench.py's BPF cost table).

Each CPython runs tests/python/busy.py (the end-to-end test's chain:
<module> -> Worker.run -> recurse x (depth+1) -> sum() (C) -> gen -> leaf)
under trecord with kernel.bpf_stats_enabled; the row's anchor is the same
script under Debian's CPython 3.11 (3.11+ walks a whole run of Python frames
per program; 3.8-3.10 one frame per eval-loop call, with the native
unwinder run inline between them). An interpreter that is not installed is
left out. PHP (Debian's 8.2 CLI) runs tests/php/chain.php: {main} -> top ->
Walker::run -> usort (C) -> closure -> recurse x 25 -> leaf.
unwinder run inline between them). Perl runs tests/perl/chain.pl (anchor:
the native busy row). An interpreter that is not installed is left out.
"""

import glob
import os

HERE = os.path.dirname(os.path.abspath(__file__))
BUSY = os.path.join(HERE, "..", "python", "busy.py")
CHAIN_PHP = os.path.join(HERE, "..", "php", "chain.php")
CHAIN_PL = os.path.join(HERE, "..", "perl", "chain.pl")
DEPTH = 20


def commands(secs):
    """(row name, command) per interpreter found on the machine."""
    out = []
    pys = ["/usr/bin/python3.11"]
    for minor in (8, 10):
        pys += sorted(glob.glob("/root/.pyenv/versions/3.%d.*/bin/python3.%d" % (minor, minor)))[:1]
    for py in pys:
        if os.access(py, os.X_OK):
            ver = py.split("/")[-1]
            if "/.pyenv/" in py:
                ver = "pyenv " + py.split("/versions/")[1].split("/")[0]
            out.append(("CPython %s, busy.py depth %d" % (ver, DEPTH),
                        [py, BUSY, str(secs), str(DEPTH)]))
    if os.access("/usr/bin/php8.2", os.X_OK):
        out.append(("PHP 8.2, chain.php depth 25", ["/usr/bin/php8.2", CHAIN_PHP, str(secs)]))
    # Perl: tests/perl/chain.pl (<main> -> top -> Worker::run -> sort's C
    # code -> descend x 25 -> leaf); its anchor is the native busy row.
    if os.access("/usr/bin/perl", os.X_OK):
        out.append(("Perl 5, chain.pl depth 25",
                    ["/usr/bin/perl", CHAIN_PL, str(max(1, round(secs)))]))
    return out
