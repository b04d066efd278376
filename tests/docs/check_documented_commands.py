#!/usr/bin/env python3
"""Every flag that README.md and docs/*.md show with one of our programs exists in that program's
(or subcommand's) --help, so that commands in the docs run as written. Usage:
check_documented_commands.py REPO_DIR PROGRAM [PROGRAM...] (binary paths).

Commands are found in code blocks (a line starting with the program, or a path ending in it,
continued by more-indented lines, which may name a subcommand first) and in inline code spans."""
import glob
import os
import re
import subprocess
import sys


def help_text(command):
    return subprocess.run(command + ["--help"], capture_output=True, text=True, timeout=30).stdout


def flags(text):
    return set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", text))


class Program:
    def __init__(self, path):
        self.path = path
        self.name = os.path.basename(path)
        top = help_text([path])
        self.top_flags = flags(top)
        self.sub_flags = {}
        if "Subcommands:" in top:
            for line in top.split("Subcommands:", 1)[1].splitlines():
                if re.match(r"^  \S", line):
                    sub = line.split()[0]
                    self.sub_flags[sub] = flags(help_text([path, sub]))

    def accepts(self, sub, flag):
        if flag in self.top_flags:
            return True
        if sub is not None:
            return flag in self.sub_flags.get(sub, set())
        # No subcommand named: any subcommand's flag (synopses that list several).
        return any(flag in f for f in self.sub_flags.values())


def commands_in(text, programs):
    """(program name, subcommand or None, [flags], line number) for each documented command line."""
    found = []
    names = list(programs)
    program_re = re.compile(r"^\s*(?:\S*/)?(" + "|".join(map(re.escape, names)) + r")\b(.*)$")
    flag_re = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*)")

    def subcommand(name, rest):
        tokens = rest.split()
        if tokens and tokens[0] in programs[name].sub_flags:
            return tokens[0]
        return None

    in_block = False
    current = None  # (name, sub, indent) of the command being continued
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            in_block = not in_block
            current = None
            continue
        if in_block:
            m = program_re.match(line)
            indent = len(line) - len(line.lstrip())
            if m:
                rest = m.group(2)
                # A subcommand may follow the top-level options: its first non-option word.
                words = [w for w in re.sub(r"\[[^\]]*\]", " ", rest).split()]
                sub = next((w for w in words if w in programs[m.group(1)].sub_flags), None)
                current = (m.group(1), sub, indent)
            elif current and line.strip() and indent > current[2]:
                rest = line
                sub = subcommand(current[0], rest) or current[1]
                current = (current[0], sub, current[2])
            else:
                current = None
                continue
            found.append((current[0], current[1], flag_re.findall(rest.split(" # ")[0]), number))
        else:
            for span in re.findall(r"`([^`]+)`", line):
                m = program_re.match(span)
                if m:
                    found.append((m.group(1), subcommand(m.group(1), m.group(2)),
                                  flag_re.findall(m.group(2)), number))
    return found


def main():
    repo = sys.argv[1]
    programs = {p.name: p for p in map(Program, sys.argv[2:])}
    problems, checked = [], 0
    files = [os.path.join(repo, "README.md")] + sorted(glob.glob(os.path.join(repo, "docs", "*.md")))
    for path in files:
        text = open(path, encoding="utf-8").read()
        for name, sub, used, number in commands_in(text, programs):
            program = programs[name]
            for flag in used:
                checked += 1
                if not program.accepts(sub, flag):
                    where = f"{os.path.relpath(path, repo)}:{number}"
                    problems.append(f"{where}: {name}{' ' + sub if sub else ''} has no {flag}")
    for p in problems:
        print(p)
    print(f"{checked - len(problems)} of {checked} documented flags exist")
    return 1 if problems or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
