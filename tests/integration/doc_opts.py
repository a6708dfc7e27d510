# SPDX-License-Identifier: MIT
# doc_opts.py help|man FILE: the options a command's help (`iotape help CMD`) or its rendered
# man page lists, as "-o --output ...", sorted. Used by the doc_* tests; not a test itself.
#   help: the lines under "options:" or a group heading ("targets:", a line of its own that
#         starts lowercase and ends with ':'), 2 or 6 columns in
#   man:  the OPTIONS section, whose tags are 7 columns in (their text is further in)
import re
import sys

kind, path = sys.argv[1], sys.argv[2]
head = re.compile(r"^(?:(-[A-Za-z0-9])(?:, )?)?(--[a-z0-9][a-z0-9-]*)?")
found, on = set(), False
for line in open(path, encoding="utf-8").read().split("\n"):
    if kind == "help":
        if re.match(r"^[a-z][^:]*:$", line) and line != "exit status:":
            on = line != "commands:"
            continue
        if not line.strip():
            on = False
        m = re.match(r"^(?:  |      )(-.*)$", line) if on else None
    else:
        if re.match(r"^[A-Z]", line):
            on = line.strip() == "OPTIONS"
            continue
        m = re.match(r"^ {7}(-.*)$", line) if on else None
    if m:
        found.update(x for x in head.match(m.group(1)).groups() if x)
print(" ".join(sorted(found)))
