"""The script frames of README's example stack for one script, one per
line, for interp_readme_example (interp_record.sh): README's folded line
after `$ trecord ... SCRIPT` (the first line of the block that is not a
command), split at `;`, keeping the frames `NAME (SCRIPT:LINE)`.
usage: readme_example.py README.md SCRIPT_BASENAME
"""

import re
import sys


def main():
    readme, script = sys.argv[1], sys.argv[2]
    lines = open(readme, encoding="utf-8").read().splitlines()
    for i, line in enumerate(lines):
        if line.startswith("$ trecord ") and re.search(r"[ /]%s( |$)" % re.escape(script), line):
            folded = next(x for x in lines[i + 1:] if not x.startswith("$ "))
            stack = re.sub(r" \d+$", "", folded)  # the count
            frames = [f for f in stack.split(";")
                      if re.fullmatch(r".+ \(%s:\d+\)" % re.escape(script), f)]
            if not frames:
                sys.exit("readme_example.py: README's %s example has no script frames" % script)
            print("\n".join(frames))
            return
    sys.exit("readme_example.py: README has no `$ trecord ... %s` example" % script)


if __name__ == "__main__":
    main()
