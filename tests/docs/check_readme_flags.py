#!/usr/bin/env python3
"""README.md lists every flag the programs' --help shows (issue 14: a newcomer reads the README,
not the sources). Usage: check_readme_flags.py README.md PROGRAM [PROGRAM...]; each PROGRAM is a
binary path. Subcommands are found from the 'Subcommands:' section of its --help."""
import re
import subprocess
import sys


def help_text(command):
    return subprocess.run(command + ["--help"], capture_output=True, text=True, timeout=30).stdout


def subcommands(text):
    if "Subcommands:" not in text:
        return []
    section = text.split("Subcommands:", 1)[1]
    return [line.split()[0] for line in section.splitlines() if re.match(r"^  \S", line)]


def flags(text):
    return set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", text)) - {"--help"}


def main():
    readme = open(sys.argv[1], encoding="utf-8").read()
    missing = []
    checked = 0
    for program in sys.argv[2:]:
        name = program.rsplit("/", 1)[-1]
        top = help_text([program])
        commands = [([program], name)] + [([program, s], f"{name} {s}") for s in subcommands(top)]
        for command, label in commands:
            for flag in sorted(flags(help_text(command))):
                checked += 1
                if not re.search(re.escape(flag) + r"(?![a-z0-9-])", readme):
                    missing.append(f"{label}: {flag}")
    for m in missing:
        print(f"README.md does not mention {m}")
    print(f"{checked - len(missing)} of {checked} flags are in README.md")
    return 1 if missing or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
