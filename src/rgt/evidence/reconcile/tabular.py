"""LaTeX ``tabular`` bodies as tables.

Rows end at ``\\\\``, cells at ``&`` (outside braces). Rows above the first ``\\midrule``,
``\\hline`` or ``\\hhline{|====|}`` are header rows (the first row when there is none); a
header's ``\\multicolumn`` heads every column it spans (``CIFAR-10`` over ``Acc.`` and
``ECE``), a body's names a group of rows when it is the row's only text. ``\\multirow``
labels the rows below it (an empty label cell repeats the label above); so does a
first-column label set alone in the middle of its block of rows between rules (a hand-made
multirow: ``\\textbf{MNIST}`` on the middle of three rows) for the rows above it.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable

from rgt.evidence.reconcile.blocks import Cell, Table

DECIMAL = re.compile(r"[-+\u2212]?\d*\.\d+%?")
ROW_END = re.compile(r"\\\\(?:\s*\[[^\]]*\])?|\\tabularnewline\b")
CELL_END = re.compile(r"&")
# (a multirow's width may be a bare ``*``: ``\\multirow{4}*{Recall}``)
MULTI = re.compile(r"^\s*\\multi(?:column|row)\s*\{(-?\d+)\}\s*(?:\[[^\]]*\])?\s*"
                   r"(?:\{[^{}]*\}|\*)\s*")
UPWARD = re.compile(r"^\s*\\multirow\s*\{-\d+\}")  # a label over the rows above it
PAGE_BREAKS = re.compile(r"^(?:\s*\\(?:no)?pagebreak\b(?:\[\d\])?)+")  # say nothing of the row
RULES = re.compile(r"^\s*(?:\\(?:toprule|midrule|bottomrule|hline|hhline|cline|cmidrule|"
                   r"addlinespace|specialrule|morecmidrules)\b"
                   r"(?:\([^)]*\))?(?:\[[^\]]*\])?(?:\{[^{}]*\})*\s*)+")
Spanned = tuple[str, int, int]  # text, columns spanned, line
OWN_MACRO = re.compile(r"\\([A-Za-z]+)(?![A-Za-z@*{\[])")  # no argument: names a thing
TYPESETTING = {  # what LaTeX's own argument-free commands do in a first cell: name nothing
    "centering", "raggedright", "raggedleft", "hfill", "vfill", "relax", "noalign", "null",
    "bf", "it", "em", "rm", "sf", "tt", "sc", "sl", "bfseries", "itshape", "mdseries",
    "normalfont", "tiny", "scriptsize", "footnotesize", "small", "normalsize", "large",
    "Large", "LARGE", "huge", "Huge", "checkmark", "xmark", "cmark", "ding", "dag", "ddag",
    "dagger", "ddagger", "ldots", "dots", "cdots", "textemdash", "textendash", "times",
    "star", "ast", "bullet", "circ", "quad", "qquad", "hspace", "vspace", "strut",
    "bigstrut", "rule", "empty", "emptyset", "na", "NA", "hline", "midrule", "toprule",
    "bottomrule", "cline", "cmidrule", "addlinespace", "newline", "par", "indent",
    "noindent", "uparrow", "downarrow", "rightarrow", "leftarrow", "to", "infty"}


def group_end(text: str, start: int) -> int:
    """The index just after the ``{...}`` group that opens at ``start``."""
    depth = 0
    for index in range(start, len(text)):
        escaped = index > 0 and text[index - 1] == "\\"
        if text[index] == "{" and not escaped:
            depth += 1
        elif text[index] == "}" and not escaped:
            depth -= 1
            if depth == 0:
                return index + 1
    return len(text)


def top_level_split(text: str, separator: re.Pattern) -> list[tuple[int, str]]:
    """``text`` split at ``separator`` outside braces: ``(offset, piece)`` pairs."""
    pieces, depth, start, index = [], 0, 0, 0
    while index < len(text):
        match = separator.match(text, index) if depth == 0 else None
        if match:
            pieces.append((start, text[start:index]))
            start = index = match.end()
        elif text[index] == "\\":
            index += 2
        else:
            depth += {"{": 1, "}": -1}.get(text[index], 0)
            index += 1
    pieces.append((start, text[start:]))
    return pieces


NESTED = re.compile(r"\\begin\s*\{tabular\}\s*(?:\[[^\]]*\])?\s*(?=\{)")
NESTED_END = re.compile(r"\\end\s*\{tabular\}")


def _blank(text: str, start: int, end: int) -> str:
    return text[:start] + " " * (end - start) + text[end:]


def flatten_nested(text: str) -> str:
    """``text`` with each tabular nested in a cell (``\\begin{tabular}[c]{@{}c@{}}43.74\\\\
    \\end{tabular}``, a cell set on lines of its own) read as its lines joined: its markup and
    row ends blanked, every offset kept."""
    for begin in NESTED.finditer(text):
        spec_end = group_end(text, begin.end())
        end = NESTED_END.search(text, spec_end)
        if end is None:
            break
        inner = ROW_END.sub(lambda match: " " * len(match.group(0)), text[spec_end:end.start()])
        text = _blank(text[:spec_end] + inner + text[end.start():], begin.start(), spec_end)
        text = _blank(text, end.start(), end.end())
    return text


class Body:
    """The joined source of a tabular body, mapping offsets back to lines."""

    def __init__(self, lines: list[tuple[int, str]]):
        self.text, self.starts, self.numbers = "", [], []
        for number, line in lines:
            self.starts.append(len(self.text))
            self.numbers.append(number)
            self.text += line + "\n"
        self.text = flatten_nested(self.text)

    def line_at(self, offset: int) -> int:
        """The source line of character ``offset``."""
        return self.numbers[max(bisect.bisect_right(self.starts, offset) - 1, 0)]


def _cells(segment: str, offset: int, body: Body, plain: Callable[[str], str]) -> list[Spanned]:
    cells = []
    for start, piece in top_level_split(segment, CELL_END):
        multi = MULTI.match(piece)
        span = int(multi.group(1)) if multi and "multicolumn" in piece[:multi.end()] else 1
        content = piece[multi.end():] if multi else piece
        where = offset + start + len(piece) - len(piece.lstrip())
        text = plain(content) if cells else _label(content, plain)
        cells.append((text, span, body.line_at(where)))
    return cells


def _label(content: str, plain: Callable[[str], str]) -> str:
    """A row's first cell as text. A row named only by a macro the quoted part does not
    define (``\\bertseq & 87.09``, ``~~(\\spandetect) & 106.32``) is named by the macro, as
    the evidence's alias ``\\bertseq`` is: typeset, it would vanish and leave the row
    nameless."""
    text = plain(content)
    if re.search(r"\w", text):
        return text
    return plain(OWN_MACRO.sub(
        lambda use: use.group(0) if use.group(1) in TYPESETTING else use.group(1), content))


class Rows:
    """A tabular's rows, how many head it, the first row of each block between rules, and the
    rows whose first cell labels the rows above it (``\\multirow{-3}``)."""

    def __init__(self, body: Body, plain: Callable[[str], str]):
        self.rows: list[list[Spanned]] = []
        self.header_rows, blocks, self.upward = 0, [0], set()
        for offset, segment in top_level_split(body.text, ROW_END):
            rule = RULES.match(segment)
            if rule:
                if not self.header_rows and self.rows and _ends_head(rule.group(0), self.rows):
                    self.header_rows = len(self.rows)
                blocks.append(len(self.rows))
                offset, segment = offset + rule.end(), segment[rule.end():]
            breaks = PAGE_BREAKS.match(segment)
            if breaks:
                offset, segment = offset + breaks.end(), segment[breaks.end():]
            cells = _cells(segment, offset, body, plain)
            if any(text for text, _, _ in cells):
                self.upward |= {len(self.rows)} if UPWARD.match(segment) else set()
                self.rows.append(cells)
        self.header_rows = _head_above_first_result(self.rows, self.header_rows or 1)
        self.blocks = sorted(set(blocks + [len(self.rows)]))


def _ends_head(rule: str, rows: list[list[Spanned]]) -> bool:
    """A mid rule or an hline under the first rows ends the head; so does a second top rule
    under a row of column names (``Model & \\data{BioNLP13CG} & ... \\\\ \\toprule``), not
    one under a title alone (``\\multicolumn{8}{c}{Table I} \\\\ \\toprule``)."""
    if re.search(r"\\(?:midrule|h?hline)\b", rule):
        return True
    return "\\toprule" in rule and any(sum(bool(text) for text, _, _ in row) > 1 for row in rows)


def _head_above_first_result(rows: list[list[Spanned]], header_rows: int) -> int:
    """The head ends above a row that is the first to carry a label and holds a decimal
    result, under head rows whose label cells are empty: a table ruled only below its first
    body row (``& Train & Test \\\\ Separate & 0.61 & 1.34 \\\\ \\hline``)."""
    for index in range(1, header_rows):
        if rows[index] and rows[index][0][0] and any(
                DECIMAL.fullmatch(text.strip()) for text, _, _ in rows[index][1:]):
            if not any(row and row[0][0] for row in rows[:index]):
                return index
            break
    return header_rows


def _titles(table: Rows) -> list[str]:
    """The head rows that are one cell spanning the table (``\\multicolumn{8}{c}{Table II}``),
    taken out of the head: they title the table, they head no column."""
    width = max((sum(span for _, span, _ in row) for row in table.rows), default=0)
    titles = [row for row in table.rows[:table.header_rows]
              if len(row) == 1 and row[0][1] > 1 and row[0][1] >= width - 1]
    if len(titles) == table.header_rows:
        return []  # a head of titles alone heads the columns
    table.rows = [row for row in table.rows if not any(row is title for title in titles)]
    table.header_rows -= len(titles)
    table.blocks = [max(0, block - len(titles)) for block in table.blocks]
    return [row[0][0] for row in titles]


def _label_blocks_above(table: Rows) -> None:
    """Each block of body rows whose first column holds one label alone, below and above empty
    cells (set in the block's middle) or on its last row by ``\\multirow{-n}``, gets that
    label on the rows above it too."""
    rows = table.rows
    for start, end in zip(table.blocks, table.blocks[1:], strict=False):
        start = max(start, table.header_rows)
        labelled = [i for i in range(start, end) if rows[i] and rows[i][0][0]]
        if len(labelled) == 1 and start < labelled[0] and (
                labelled[0] < end - 1 or labelled[0] in table.upward):
            text = rows[labelled[0]][0][0]
            for i in range(start, labelled[0]):
                rows[i][0] = (text, *rows[i][0][1:])


def _expand(row: list[Spanned], repeat: bool) -> list[Cell]:
    cells = []
    for text, span, line in row:
        cells += [Cell(text, line)] + [Cell(text if repeat else "", line)] * (span - 1)
    return cells


def spread_columns(spec: str) -> frozenset[int]:
    """The columns a tabular's spec ends with ``@{$\\pm$}`` (``r@{$\\pm$}l``): each holds a
    value whose spread is the next column's."""
    joined, columns, index = set(), 0, 0
    spec = _repeated(spec)
    while index < len(spec):
        char = spec[index]
        if char in "@!<>pmbwS" and index + 1 < len(spec) and spec[index + 1] in "{[":
            end = _group_after(spec, index + 1)
            if char in "@!" and PLUS_MINUS.search(spec[index + 1:end]) and columns:
                joined.add(columns - 1)
            columns += char in "pmbwS"
            index = end
            continue
        columns += char in "lcrXS"
        index += 1
    return frozenset(joined)


PLUS_MINUS = re.compile(r"\\pm\b|\u00b1")
REPEAT = re.compile(r"\*\{(\d+)\}")


def _repeated(spec: str) -> str:
    """``*{3}{r@{$\\pm$}l}`` written out."""
    match = REPEAT.search(spec)
    while match is not None and match.end() < len(spec) and spec[match.end()] == "{":
        end = group_end(spec, match.end())
        spec = spec[:match.start()] + spec[match.end() + 1:end - 1] * int(match.group(1)) + \
            spec[end:]
        match = REPEAT.search(spec)
    return spec


def _group_after(spec: str, index: int) -> int:
    """The end of the ``{…}`` or ``[…]`` (then ``{…}``) group opening at ``index``."""
    if spec[index] == "[":
        close = spec.find("]", index)
        if close < 0:
            return len(spec)
        index = close + 1
        if index >= len(spec) or spec[index] != "{":
            return index
    return group_end(spec, index)


def _spreads_beside(rows: list[list[Cell]], columns: frozenset[int]) -> list[list[Cell]]:
    """Each row with a value column's cell and the spread column's after it read as one,
    ``2.47 ± 0.08`` (the spread on its own line when it is)."""
    for row in rows:
        for j in sorted(columns, reverse=True):
            if j + 1 < len(row):
                value, spread = row[j], row.pop(j + 1)
                if value.text.strip() and spread.text.strip():
                    gap = len(value.text) + 3
                    later = (*value.later, (gap, spread.line)) if spread.line != value.line \
                        else value.later
                    row[j] = Cell(f"{value.text} \u00b1 {spread.text}", value.line, later)
    return rows


def parse_tabular(lines: list[tuple[int, str]], plain: Callable[[str], str],
                  caption: str = "", spreads: frozenset[int] = frozenset()) -> Table:
    """The table of a tabular body given as ``(line number, source)`` pairs; ``spreads``: the
    columns whose spread is in the column after them (``spread_columns``)."""
    table = Rows(Body(lines), plain)
    _label_blocks_above(table)
    titles = _titles(table)
    caption = " ".join([*titles, caption]).strip()
    rows, header_rows = table.rows, table.header_rows
    headers = _spreads_beside([_expand(row, repeat=False) for row in rows[:header_rows]],
                              spreads) if spreads else [_expand(row, repeat=True)
                                                        for row in rows[:header_rows]]
    width = max([len(row) for row in headers] + [0])
    header = [" ".join(row[j].text for row in headers if j < len(row)).strip()
              for j in range(width)]
    body = _spreads_beside([_expand(row, repeat=False) for row in rows[header_rows:]], spreads)
    return Table(header, _spreads_joined(_labels_continued(body)), caption)


# a label cut short: it ends in a comma, a plus standing alone (``Ours++`` is a name) or a
# word that needs what follows (``NB-weighted-BON +`` over ``DV-ngram``, ``Dot Product with``
# over ``L2 Regularization``)
UNFINISHED = re.compile(r"(?:,|\s[+&]|\b(?:with|using|and|of|for|on|via|by|to|from|plus))\s*$",
                        re.IGNORECASE)
CITED = re.compile(r"\s*\[cite\]\s*")  # ``\\cite{le2014}`` as typeset


def _labels_continued(rows: list[list[Cell]]) -> list[list[Cell]]:
    """A row holding only a label under a row whose label is cut short (``$\\loss{AE}$,
    $\\loss{adv(s)}$,`` beside ``\\multirow{2}`` cells, ``NB-weighted-BON +``), or only a
    citation (``Paragraph Vector & 92.58`` over ``\\cite{le2014} &``): the rest of that
    label, joined to it."""
    joined: list[list[Cell]] = []
    for row in rows:
        above = joined[-1] if joined else []
        if _continues(above, row):
            above[0] = Cell(f"{above[0].text} {row[0].text}", above[0].line, above[0].later)
            continue
        joined.append(row)
    return joined


def _continues(above: list[Cell], row: list[Cell]) -> bool:
    """Whether ``row`` holds only the rest of the label of the row ``above``."""
    if not above or not row or not row[0].text.strip() or any(
            cell.text.strip() for cell in row[1:]):
        return False
    return UNFINISHED.search(above[0].text) is not None or CITED.fullmatch(row[0].text) is not None


def _a_label_among(row: list[Cell], filled: list[int], above: list[Cell]) -> bool:
    """Whether a row's first filled cell is a label (no decimal in it) under a named row."""
    return len(filled) > 1 and filled[0] == 0 and not DECIMAL.search(row[0].text) and \
        bool(above) and bool(above[0].text.strip())


BRACKETED = re.compile(r"\(\s*(?:\u00b1\s*)?\d[\d.,]*\s*%?\s*\)")
ASIDE = re.compile(r"\(.*\)")  # ``(93k parameters)`` under a row's name: its size, no name


def _spreads_joined(rows: list[list[Cell]]) -> list[list[Cell]]:
    """Rows whose filled cells are all a number in brackets (``& (7.36) & (7.82)``, ``&
    (± 0.1)``, a macro's), each under a number of the row above: that row's spreads, joined
    to its cells (``12.50 (7.36)``, the bracket read on its own line); a label they hold
    (``and random forest`` under ``bag-of-features``) is the rest of the row's name, unless
    it is an aside in brackets."""
    joined: list[list[Cell]] = []
    for row in rows:
        above = joined[-1] if joined else []
        filled = [j for j, cell in enumerate(row) if cell.text.strip()]
        named = _a_label_among(row, filled, above)
        spreads = filled[1:] if named else filled
        if not spreads or not all(BRACKETED.fullmatch(row[j].text.strip()) and j < len(above)
                                  and DECIMAL.search(above[j].text) for j in spreads):
            joined.append(row)
            continue
        if named and not ASIDE.fullmatch(row[0].text.strip()):
            above[0] = Cell(f"{above[0].text} {row[0].text}", above[0].line, above[0].later)
        for j in spreads:
            cell, gap = above[j], len(above[j].text) + 1
            above[j] = Cell(f"{cell.text} {row[j].text}", cell.line,
                            (*cell.later, (gap, row[j].line)))
    return joined
