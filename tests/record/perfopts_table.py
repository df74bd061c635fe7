"""README's table of perf record's options, as lines `SPELLING KIND` for
test_record_perfopts.sh: KIND is `unknown` where the row says trecord
does not take the option ("unknown option", "not yet") and `known`
otherwise (same, accepted, honoured, refused with a reason). The test runs
every spelling, so the table cannot drift from the CLI.
usage: perfopts_table.py README.md
"""

import re
import sys

HEADING = "### perf record's options"


def rows(text):
    start = text.index(HEADING)
    for line in text[start:].splitlines()[1:]:
        if line.startswith("#"):
            return
        if not line.startswith("| `"):
            continue
        cells = [c.strip() for c in line.strip("|").split(" | ", 1)]
        yield cells[0], cells[1]


def spellings(cell):
    for code in re.findall(r"`([^`]+)`", cell):
        for s in code.split(", "):
            # --switch-output[=mode], --call-graph=fp|dwarf...: the name alone
            name = re.split(r"[\[=\s]", s, 1)[0]
            if re.fullmatch(r"-[A-Za-z]|--[a-z][a-z0-9-]+", name):
                yield name


def main():
    text = open(sys.argv[1], encoding="utf-8").read()
    n = 0
    for opts, says in rows(text):
        kind = "unknown" if re.match(r"(unknown option|not yet)", says) else "known"
        for name in spellings(opts):
            print(name, kind)
            n += 1
    if n < 50:
        sys.exit("perfopts_table.py: only %d options in README's table" % n)


if __name__ == "__main__":
    main()
