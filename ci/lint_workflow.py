"""`snakemake --lint`, failing on every lint except the few this workflow declines, each for a
reason written here. Prints the lints it fails on; exit 1 when there is one."""

from __future__ import annotations

import re
import subprocess
import sys

# lint title (start) -> (rules it is accepted for, or None for every rule; why)
DECLINED = {
    "Shell command directly uses variable RGT from outside of the rule": (
        None, "the interpreter's path is not a parameter of a result: as a param, a new venv "
              "would rerun every job, and Snakemake deletes a rerun job's outputs (sealed runs)"),
    "Shell command directly uses variable CONFIG_FILE from outside of the rule": (
        None, "the config's content is in the run ids; its file name decides nothing"),
    "Shell command directly uses variable RUNS from outside of the rule": (
        None, "paths.runs is not part of a result; the outputs already name it"),
    "Shell command directly uses variable PLANNED_IDS from outside of the rule": (
        None, "the planned ids are the rule's inputs already (one results.json per run)"),
    "Shell command directly uses variable WORK from outside of the rule": (
        None, "where the delivery is built (.rgt/delivery) decides nothing in it"),
    "Shell command directly uses variable UP from outside of the rule": (
        None, "the way back from WORK to the project's logs/ decides nothing"),
    "No log directive defined": (
        ("train",), "training prints one line per epoch to the terminal, on purpose"),
}


def lints(text: str) -> list[tuple[str, str]]:
    """(rule, lint title) pairs of ``snakemake --lint``'s text output."""
    found, rule = [], None
    for line in text.splitlines():
        if match := re.match(r"Lints for (?:rule (\S+)|(snakefile|python function) )", line):
            rule = match.group(1) or match.group(2)
        elif match := re.match(r"    \* (.+?):?$", line):
            found.append((rule, match.group(1)))
    return found


def refused(found: list[tuple[str, str]]) -> list[str]:
    """The lints not declined above, as ``rule: title`` lines."""
    lines = []
    for rule, title in found:
        declined = next((rules for start, (rules, _) in DECLINED.items()
                         if title.startswith(start)), False)
        if declined is False or (declined is not None and rule not in declined):
            lines.append(f"{rule}: {title}")
    return lines


def main() -> int:
    done = subprocess.run([sys.executable, "-m", "snakemake", "--lint", "--cores", "1"],
                          capture_output=True, text=True, timeout=600)
    output = done.stdout + done.stderr
    if done.returncode not in (0, 1) or "Lints for" not in output and done.returncode:
        print(output)
        return 1
    problems = refused(lints(output))
    for line in problems:
        print(f"snakemake --lint: {line}")
    print(f"snakemake --lint: {len(lints(output))} lint(s), {len(problems)} not declined")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
