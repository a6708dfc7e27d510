#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# docs_commands.py OUTDIR FILE.md...: the shell commands of the pages' fenced code blocks, as
# scripts docs_commands.sh runs (one OUTDIR/NAME.sh a page, its blocks in order, so that one
# block's files and jobs are the next one's). Exit 1, naming each, on a block that looks like
# commands but is not labelled as such, or on a "not run" mark without its reason.
#
# A block is commands when its fence says sh, bash, shell or console, or when a line of it
# starts with "$ " (a transcript: the "$ " lines and their continuations are run, the rest is
# output). A command in an indented (unfenced) code block is an error: it would not be run. It is
# not run when an HTML comment `<!-- not run: REASON -->` sits on one of the
# comment lines just above its fence.
import os
import re
import subprocess
import sys

SHELL_LANGS = {"sh", "bash", "shell", "console"}
NOT_RUN = re.compile(r"<!--\s*not run:\s*(.*?)\s*-->")


def complete(text):
    """Whether bash reads text as whole commands (a `for` without its `done` is not)."""
    r = subprocess.run(["bash", "-n"], input=text, capture_output=True, text=True)
    return "unexpected end of file" not in r.stderr


def prompt_commands(body):
    """The "$ " lines of a transcript, each with the lines that complete it."""
    out, cur = [], None
    for line in body:
        if cur is not None and not complete(cur):
            cur += "\n" + line
            continue
        if cur is not None:
            out.append(cur)
            cur = None
        if line.startswith("$ "):
            cur = line[2:]
    if cur is not None:
        out.append(cur)
    return out


def looks_like_commands(body):
    """An unlabelled block that starts with a command (not a synopsis, not output)."""
    lines = [l for l in body if l.strip() and not l.lstrip().startswith("#")]
    if not lines:
        return False
    first = lines[0].strip()
    if not re.match(r"(iotape|sudo|tcpdump|mkfs\.\w+|losetup|mount) |fio --|"
                    r"(\./)?scripts/\S+( |$)", first):
        return False
    return not any(c in first for c in "[|") and "..." not in first


INDENTED_CMD = re.compile(r"^(?: {4}|\t)\s*(?:\$ )?(?:(?:\./)?scripts/\S+(?: |$)|"
                          r"(?:iotape|sudo|fio|tcpdump|mkfs\.\w+|losetup|cmake|ctest|truncate) )")


def indented_commands(path):
    """Lines of commands in indented (unfenced) code blocks: they would escape the run."""
    inside = False
    for n, line in enumerate(open(path, encoding="utf-8").read().split("\n"), 1):
        if re.match(r"^\s*```", line):
            inside = not inside
        elif not inside and INDENTED_CMD.match(line):
            yield n


def blocks(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^(\s*)```(\S*)\s*$", lines[i])
        if not m:
            i += 1
            continue
        indent, lang = m.group(1), m.group(2)
        j = i + 1
        while j < len(lines) and lines[j].strip() != "```":
            j += 1
        body = [l[len(indent):] if l.startswith(indent) else l for l in lines[i + 1:j]]
        marks, k = [], i - 1
        while k >= 0 and lines[k].strip().startswith("<!--"):
            marks.append(lines[k].strip())
            k -= 1
        yield i + 1, lang, body, marks
        i = j + 1


def main():
    outdir, files = sys.argv[1], sys.argv[2:]
    errors, summary = [], []
    for path in files:
        name = os.path.basename(path)
        script = []
        for line in indented_commands(path):
            errors.append(f"{path}:{line}: a command in an indented block: fence it (```sh), "
                          "and run it or mark it <!-- not run: REASON -->")
        for line, lang, body, marks in blocks(path):
            where = f"{path}:{line}"
            transcript = any(l.startswith("$ ") for l in body)
            if lang not in SHELL_LANGS and not transcript:
                if not lang and looks_like_commands(body):
                    errors.append(f"{where}: commands in a block without a language: "
                                  "label it ```sh, and run it or mark it "
                                  "<!-- not run: REASON -->")
                continue
            reasons = [NOT_RUN.search(m) for m in marks]
            reasons = [r.group(1) for r in reasons if r]
            if any(m.startswith("<!-- not run") for m in marks) and not all(reasons):
                errors.append(f"{where}: a 'not run' mark without its reason")
                continue
            if reasons:
                summary.append(f"not run: {where}: {reasons[0]}")
                continue
            cmds = prompt_commands(body) if transcript else ["\n".join(body)]
            script.append(f"echo '=== {where}' >&2")
            for c in cmds:
                script.append(c)
            summary.append(f"run: {where} ({len(cmds)} command{'s' if len(cmds) > 1 else ''})")
        if script:
            with open(os.path.join(outdir, name[:-3] + ".sh"), "w") as f:
                f.write("set -e\n" + "\n".join(script) + "\n")
    print("\n".join(summary))
    if errors:
        print("\n".join(errors), file=sys.stderr)
        sys.exit(1)


main()
