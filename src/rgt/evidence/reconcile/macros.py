"""A LaTeX document's own macros, expanded where they are used.

A paper often builds its table rows with a macro of its own (``\\newcommand{\\row}[1]{#1 & 0 &
1}``): read unexpanded, each row has fewer cells than its header and every number sits under
the wrong column. A macro is expanded only where its arguments are all on the line of the use;
a lone ``$\\macro$`` is left for the reader to take as a name (``fair $\\xtilde$``).
"""

from __future__ import annotations

import re

from rgt.evidence.reconcile.tabular import group_end

DEFINITION = re.compile(r"\\(?:re|provide)?newcommand\*?\s*\{?\s*\\([A-Za-z]+)\s*\}?\s*"
                        r"(?:\[(\d)\])?\s*(?=\{)")
USE = re.compile(r"\\([A-Za-z]+)(?![A-Za-z])")
DEPTH = 4  # a macro may use another; a self-referring one stops here


def definitions(lines: list[str]) -> dict[str, tuple[int, str, int]]:
    """Each macro the document defines: its name → (argument count, body on one line, the
    index of the line defining it)."""
    text = "\n".join(lines)
    found = {}
    for match in DEFINITION.finditer(text):
        closing = group_end(text, match.end())
        body = text[match.end() + 1:closing - 1].replace("\n", " ")
        found[match.group(1)] = (int(match.group(2) or 0), body, text.count("\n", 0, match.start()))
    return found


def expand(line: str, macros: dict[str, tuple[int, str, int]]) -> str:
    """``line`` with each use of the document's macros replaced by its body, arguments put
    in; a definition line is left as it is (its body is not text of the document)."""
    if not macros or DEFINITION.search(line):
        return line
    for _ in range(DEPTH):
        expanded = _expand_once(line, macros)
        if expanded == line:
            break
        line = expanded
    return line


def _expand_once(line: str, macros: dict[str, tuple[int, str, int]]) -> str:
    out, position = [], 0
    for use in USE.finditer(line):
        if use.start() < position or use.group(1) not in macros or _lone_math(line, use):
            continue
        count, body, _ = macros[use.group(1)]
        arguments, end = _arguments(line, use.end(), count)
        if arguments is None:
            continue
        for number, argument in enumerate(arguments, start=1):
            body = body.replace(f"#{number}", argument)
        out += [line[position:use.start()], body]
        position = end
    return "".join(out) + line[position:]


def _arguments(line: str, start: int, count: int) -> tuple[list[str] | None, int]:
    """The ``count`` brace groups after ``start`` and where they end; None when one is not
    on this line."""
    arguments, position = [], start
    for _ in range(count):
        while position < len(line) and line[position] == " ":
            position += 1
        if position >= len(line) or line[position] != "{":
            return None, start
        end = group_end(line, position)
        if end > len(line) or line[end - 1] != "}":
            return None, start
        arguments.append(line[position + 1:end - 1])
        position = end
    return arguments, position


def _lone_math(line: str, use: re.Match) -> bool:
    return line[use.start() - 1:use.start()] == "$" and line[use.end():use.end() + 1] == "$"
