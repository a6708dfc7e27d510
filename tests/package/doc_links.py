# SPDX-License-Identifier: MIT
# doc_links.py DIR: every relative link and image of every Markdown file under DIR leads to a
# file under DIR (anchors aside; web addresses are not followed). Prints each broken link as
# "FILE: TARGET" and exits 1 if there is one. Used on the source tree and on an installed
# copy of the documentation (tests/integration/install.sh, tests/package/deb_install.sh).
import os
import re
import sys

root = os.path.abspath(sys.argv[1])
link = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
bad = 0
files = 0
for top, dirs, names in os.walk(root):
    for name in names:
        if not name.endswith(".md"):
            continue
        path = os.path.join(top, name)
        files += 1
        text = open(path, encoding="utf-8").read()
        # code spans and blocks hold examples, not links
        text = re.sub(r"```.*?```", "", text, flags=re.S)
        text = re.sub(r"`[^`\n]*`", "", text)
        for m in link.finditer(text):
            target = m.group(1)
            if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
                continue
            file = target.split("#", 1)[0]
            dest = os.path.normpath(os.path.join(top, file))
            if not dest.startswith(root + os.sep) or not os.path.exists(dest):
                print(f"{os.path.relpath(path, root)}: {target}")
                bad += 1
if files == 0:
    print(f"no Markdown files under {root}")
    sys.exit(1)
sys.exit(1 if bad else 0)
