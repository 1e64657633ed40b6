"""Markdown (and plain text) as blocks: headings, paragraphs, list items, pipe tables and HTML
tables (``htmltable``).

Fenced, indented and inline code (and reST ``::`` literal blocks), HTML comments and YAML front
matter are not read: code is what a reader types (commands, configs), not what the results say.
Inline text reads as ``mdinline`` says (links as their text, not their URL), a pipe table's
rows as ``pipetable`` splits them.
A table's caption is the paragraph just above it that reads ``Table…``, introduces it (ends
with a colon) or touches it (no blank line between), or the line just below that reads
``Table…``; in a MyST ``{table}`` directive, its argument.
"""

from __future__ import annotations

import re

from rgt.deliver.inputs import DeliveryError
from rgt.evidence.reconcile.aligned import aligned_tables
from rgt.evidence.reconcile.blocks import Blocks, Paragraph, Table, with_setting_rows
from rgt.evidence.reconcile.grid import GRID_BORDER, grid_table
from rgt.evidence.reconcile.htmltable import html_table
from rgt.evidence.reconcile.latex import latex_blocks
from rgt.evidence.reconcile.mdinline import inline
from rgt.evidence.reconcile.pipetable import (
    BOLD_LINE,
    all_bold,
    header_cells,
    names_only,
    over_its_group,
    spanned,
    stacked_rows,
)
from rgt.evidence.reconcile.text import sentence_spans

FENCE = re.compile(r"^\s*(```|~~~)")
# a MyST directive (Jupyter Book): ```` ```{table} Caption ```` holds Markdown, read as such;
# the ones holding code or math stay code
DIRECTIVE = re.compile(r"^\s*(`{3,}|~{3,})\{([\w:-]+)\}\s*(.*?)\s*$")
CODE_DIRECTIVES = {"code", "code-block", "code-cell", "sourcecode", "literalinclude", "math",
                   "eval-rst", "raw", "mermaid", "glue:figure", "toctree"}
DIRECTIVE_OPTION = re.compile(r"^\s*:[\w-]+:")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
# a delimiter row: one hyphen a cell is enough (GFM), ``| - | - |``, but then it has pipes
RULE = re.compile(r"^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$")
INDENTED = re.compile(r"^(?: {4}|\t)")  # an indented code block (Markdown, reST "::")
# a heading that states a result, a metric's name set to a number (``Replicate "bpc = 1.06"``)
# or a percentage with decimals (``Linear + C&S (15400 params, 70.11% base accuracy)``): read
# as a line of prose too
STATES_A_RESULT = re.compile(r"[^\W\d_][\w\-@]*\s*=\s*[-+\u2212]?\d|\d\.\d+\s*%")
SETEXT = re.compile(r"^ {0,3}(=+|-+)\s*$")  # the line under a heading's text: = level 1, - 2
HORIZONTAL = re.compile(r"^\s*(?:-{3,}|\*{3,}|_{3,})\s*$")
CAPTION = re.compile(r"^\W*(?:table|tab\.)\s*\d*\b", re.IGNORECASE)
# a paragraph left open for what follows it: "… as follows:", "The results (mAP at tIoUs)
# should be", "… are listed below"
INTRODUCES = re.compile(r"(?::|\bshould\s+(?:be|read|look\s+like)|\bas\s+follows|\bbelow)\s*$",
                        re.IGNORECASE)
# a title: one short line that is no sentence (``YOLOv3 mAP@0.5 (darknet-reported mAP@0.5)``)
TITLE = re.compile(r"(?:(?![.!?](?:\s|$))[^\n]){1,120}")
HTML_TABLE = re.compile(r"^\s*<table\b", re.IGNORECASE)
# a <details> block's <summary> titles what it folds away, to its </details>: a heading below
# every Markdown one (``Legacy models``)
SUMMARY = re.compile(r"^\s*(?:<details>\s*)?<summary>(.*?)</summary>\s*$", re.IGNORECASE)
DETAILS_END = re.compile(r"^\s*</details>\s*$", re.IGNORECASE)
DETAILS = 7
# a paragraph of one bold label (``**BM25 retrieval**:``, ``**Hybrid** (combining …):``)
# titles the commands and output under it, to the next such label or heading: a heading
# below every other. One stating a number (``**Mean return: 2225.80 ± 919.45**``) or a
# sentence (``**Average scores are in brackets.**``) is prose.
BOLD_LABEL = re.compile(r"\s*(?:\*\*|__)((?:(?![.!?](?:\s|$|\*|_))[^*_:=\u00b1]){1,60})"
                        r"(?:\*\*|__)\s*(?:\([^()]*\))?\s*:?\s*")
BOLD_LABEL_LEVEL = 8
OUTPUT_INTRO = re.compile(r"\b(?:should\s+(?:give|print|output|show|see)|gives|outputs?|prints|"
                          r"you\s+(?:should|will)\s+see|expected\s+output)\b[^.]*:\s*$"
                          # "Results (10 epochs):"; "… Evaluation results:" ending its paragraph
                          r"|^\W*results?\b[^.]*:\s*$"
                          r"|\b(?:evaluation|eval|test|final|validation)\s+results?\s*:\s*$", re.I)
CODE_COMMENT = re.compile(r"^\s*#+\s?(.*\S)\s*$")  # a shell or Python comment
POINTS_BACK = re.compile(r"\s*(?:this|it|these|that|they)\b", re.IGNORECASE)
# a result of what the code above ran: "It produces …", "We achieve 85.0% accuracy …"
RESULT_OF_CODE = re.compile(r"\s*(?:(?:this|it|these|that|they)\b|we\s+(?:achieve|obtain|get|"
                            r"reach|see)\b)", re.IGNORECASE)
LATEX_TABLE = re.compile(r"\\begin\{tabular")
# a line a program logged: a label and its colon, then named numbers (``eval: split test .
# loss 2.8e-02. error 4.09%. misses: 82``), nothing that reads as code
LOG_LINE_BODY = r"[A-Za-z0-9][\w .@/+-]{0,30}:\s+(?=.*\d)[^(){}=\[\]$<>`\\]*$"
LOG_LINE = re.compile(r"\s*" + LOG_LINE_BODY)
# a line a program logged, maybe after a bracketed tag: "[TIME] Voxelization:   1.45373 ms"
TAGGED_LOG = re.compile(r"\s*(?:\[[A-Za-z]+\]\s*)?" + LOG_LINE_BODY)
REPORT_TITLE = re.compile(r"\s*[A-Za-z][\w .-]{0,30}:\s*$")  # "Perf Report:"
# a command typed at a prompt: "$ python eval.py", ">> ./fasttext test …", ">>> model.test(…)"
PROMPT = re.compile(r"\s*(?:\$|>>>?|%)\s")
# a command's option and its value (``-lr 1.0``, ``--epochs 25``, ``epoch=25``): what tells one
# run apart from another; an option naming a file (``-input cooking.train``) says nothing of it
OPTION = re.compile(r"(?<![\w-])(?:--?[A-Za-z][\w-]*(?:[ =](?!-)[^\s,)]+)?|[A-Za-z]\w*=[^\s,)]+)")
FILE_LIKE = re.compile(r"[^\W\d_]\w*[._/]\w|[\w.]+/")
# a line a program printed as a name and a number apart by spaces: "P@1  0.565"
PRINTED_PAIR = re.compile(r"\s*[A-Za-z][\w@./-]{0,20}\s{2,}[-+\u2212]?\d[\d.]*%?\s*$")


def _comment_title(line: str, title: str) -> str:
    """The title a code block's comment line gives the grid table below it (``#
    gemma3-12b-it``): kept over blank lines, dropped at any other line."""
    comment = CODE_COMMENT.match(line)
    if comment is not None:
        return comment.group(1)
    return title if not line.strip() else ""


def _a_log(lines: list[str]) -> bool:
    """Whether a code block's lines are all a program's log lines (none blank aside)."""
    filled = [line for line in lines if line.strip()]
    return bool(filled) and all(LOG_LINE.match(line) for line in filled)


def _output_line(line: str) -> str:
    """A line of output as prose: a clause of its own (``* cora: ~0.8330`` names its number,
    not the next line's ``citeseer``)."""
    text = inline(LIST_ITEM.sub("", line, count=1)).rstrip()
    return f"{text};" if text and text[-1] not in ".;:," else text


def _captions(text: str) -> bool:
    """Whether a paragraph captions what follows it: it reads ``Table …``, introduces it, or
    says what each cell holds (``The two numbers in each cell denote …``)."""
    return CAPTION.match(text) is not None or INTRODUCES.search(text) is not None or \
        EACH_CELL.search(text) is not None or FOLLOWING_TABLE.search(text) is not None or \
        PRESENTS_TABLE.match(text) is not None


def _pointing_sentence(text: str) -> str:
    """A caption that only points at the table in its last sentence (``We benchmark TransE,
    …, RotatE and QuatE. The training time … of RotatE … are given in the following
    table.``): that sentence, which says what the table holds; else the whole caption."""
    spans = sentence_spans(text, [])
    last = text[spans[-1][0]:].strip() if spans else text
    return last if len(spans) > 1 and FOLLOWING_TABLE.search(last) and not _captions(
        text[:spans[-1][0]]) else text


# a last sentence pointing at the table under it: "… are given in the following table."
FOLLOWING_TABLE = re.compile(r"\b(?:(?:following|next)\s+table|table\s+below)\b[^.!?]*[.:]?\s*$",
                             re.IGNORECASE)


# a paragraph opening on the table it presents: "Following is a table of the Txt2Img
# @10-Recal for …", "Below are the tables of …"
PRESENTS_TABLE = re.compile(r"\W*(?:(?:the\s+)?following|below|here)\s+(?:is|are)\s+(?:a|the)\s+"
                            r"(?:\w+\s+){0,2}tables?\b", re.IGNORECASE)


# what a table's cells hold: "The two numbers in each cell denote …"
EACH_CELL = re.compile(r"\b(?:in|of)\s+(?:each|every)\s+(?:cell|entry)\b", re.IGNORECASE)


class MarkdownReader:
    """Walks the lines of one Markdown document."""

    def __init__(self, text: str):
        self.lines = spans_over_lines_blanked(text.splitlines())
        self.blocks = Blocks()
        self.index = 0
        self.table_line = 0
        self.code_may_follow = True  # after a blank line (not in a list) or an rst "::"
        self.in_list = False
        self.after_code = False  # the last block was code a paragraph introduced
        self.code_above = ""  # the code just read past, until a line of text follows it
        self.fence_end: int | None = None  # the line after the last fenced block's end
        self.directives: list[str] = []  # the closing fences of the MyST directives open
        self.directive_caption = ""  # the argument of the ``{table}`` directive open

    def read(self) -> list[Paragraph | Table]:
        """The document's blocks."""
        self._front_matter()
        while self.index < len(self.lines):
            self._step(self.lines[self.index])
        return self.blocks.done()

    def _front_matter(self) -> None:
        if self.lines and self.lines[0].strip() == "---":
            end = next((i for i in range(1, len(self.lines)) if self.lines[i].strip() == "---"),
                       0)
            self.index = end + 1

    def _skip_until(self, pattern: re.Pattern | str) -> None:
        self.index += 1
        while self.index < len(self.lines) and not re.search(pattern, self.lines[self.index]):
            self.index += 1
        self.index += 1

    def _step(self, line: str) -> None:
        if self.directives and line.strip() == self.directives[-1]:
            self._close_directive()
        elif self._is_directive(line):
            self._directive(DIRECTIVE.match(line))
        elif FENCE.match(line):
            self._fenced(line)
        elif line.lstrip().startswith("<!--"):
            self.blocks.close()
            if "-->" in line:
                self.index += 1
            else:
                self._skip_until("-->")
        elif HTML_TABLE.match(line):
            self._html_table()
        elif SUMMARY.match(line):
            self.blocks.heading(DETAILS, inline(SUMMARY.match(line).group(1)))
            self.index += 1
        elif DETAILS_END.match(line):
            self.blocks.leave(DETAILS)
            self.index += 1
        elif self._is_table(self.index):
            self._table()
        elif INDENTED.match(line) and self._right_under_a_fence():
            self._notebook_output()
        elif self.code_may_follow and INDENTED.match(line):
            self._skip_indented()
        else:
            self._text(line)
            self.index += 1

    @staticmethod
    def _is_directive(line: str) -> bool:
        match = DIRECTIVE.match(line)
        return match is not None and match.group(2) not in CODE_DIRECTIVES

    def _directive(self, match: re.Match) -> None:
        """A MyST directive holding Markdown (``{table}``, ``{note}``, ``{margin}``): its body
        is read as the document's, its options (``:name: table:results``) are not; a table's
        argument is its caption, another's a line of text (an admonition's title)."""
        self.blocks.close()
        self.directives.append(match.group(1))
        name, argument = match.group(2), match.group(3)
        if name == "table":
            self.directive_caption = inline(argument)
        elif argument:
            self.blocks.prose(self.index + 1, inline(argument))
            self.blocks.close()
        self.index += 1
        while self.index < len(self.lines) and DIRECTIVE_OPTION.match(self.lines[self.index]):
            self.index += 1

    def _close_directive(self) -> None:
        self.directives.pop()
        self.directive_caption = ""
        self.blocks.close()
        self.index += 1

    def _fenced(self, line: str) -> None:
        """Code is not read, but a block a line presents as output (``This should give:``)
        is the results it shows, read with that line; a paragraph right after code that
        points back (``This will run …``) continues the one that introduced the code."""
        start = self.index
        intro = self._just_above(start + 1)
        self._skip_until(r"^\s*" + re.escape(FENCE.match(line).group(1)))
        printed = self._printed_tables(start + 1, self.index - 1, intro)
        if printed:
            for table in printed:
                self.blocks.table(table)
        elif OUTPUT_INTRO.search(intro) or (intro and _a_log(self.lines[start + 1:self.index - 1])):
            for number in range(start + 1, self.index - 1):
                self.blocks.prose(number + 1, _output_line(self.lines[number]))
            if self.blocks.current is not None:
                self.blocks.current.intro = intro
        else:
            self._commented_output(start + 1, self.index - 1)
            self._logged_output(start + 1, self.index - 1)
        self.blocks.close()
        self.after_code = INTRODUCES.search(intro) is not None
        self.code_above = self._code_text(start + 1, self.index - 1)
        self.fence_end = self.index

    def _right_under_a_fence(self) -> bool:
        """Whether only blank lines stand between this line and a fenced block's end."""
        return self.fence_end is not None and self.fence_end < self.index and not any(
            line.strip() for line in self.lines[self.fence_end:self.index])

    def _notebook_output(self) -> None:
        """An indented block right under a fenced one: what a notebook exported to Markdown
        prints under its cell (``    MRR: 0.28``), read as output, a clause a line."""
        self.blocks.close()
        while self.index < len(self.lines) and (INDENTED.match(self.lines[self.index])
                                                or not self.lines[self.index].strip()):
            if self.lines[self.index].strip():
                self.blocks.prose(self.index + 1, _output_line(self.lines[self.index]))
            self.index += 1
        self.blocks.close()

    def _printed_tables(self, start: int, end: int, intro: str) -> list[Table]:
        """The tables the code of lines ``start`` to ``end`` shows: grid tables a program
        printed, else LaTeX tables, else columns of aligned numbers."""
        return self._printed_grids(start, end, intro) or self._latex_tables(start, end) or \
            aligned_tables(self.lines[start:end], start + 1, intro if _captions(intro) else "")

    def _printed_grids(self, start: int, end: int, intro: str) -> list[Table]:
        """The grid tables a program printed in the code of lines ``start`` to ``end``
        (``+-------+`` borders), captioned by the paragraph presenting them and titled by a
        comment line right above each (``# gemma3-12b-it``)."""
        caption = intro if _captions(intro) or OUTPUT_INTRO.search(intro) else ""
        tables, index, title = [], start, ""
        while index < end:
            if GRID_BORDER.match(self.lines[index]):
                header, rows, index = grid_table(self.lines[:end], index, inline)
                tables += [Table(header, rows, f"{title} {caption}".strip())] if rows else []
                title = ""
            else:
                title = _comment_title(self.lines[index], title)
                index += 1
        return tables

    def _latex_tables(self, start: int, end: int) -> list[Table]:
        """The tables of LaTeX source a code block holds (a script printing ``\\begin{tabular}``
        for a paper), read as a LaTeX document's; none where the source is not whole."""
        if not any(LATEX_TABLE.search(line) for line in self.lines[start:end]):
            return []
        source = "\n" * start + "\n".join(self.lines[start:end])  # lines stay the document's
        try:
            blocks = latex_blocks(source, "code")
        except DeliveryError:
            return []  # unbalanced braces: a fragment, not a table to read
        return [block for block in blocks if isinstance(block, Table)]

    def _commented_output(self, start: int, end: int) -> None:
        """Comment lines in code under a comment that introduces them (``# UDA accuracy:``
        over ``# 4000: 95.68 +- 0.08``): results the code gives, read as output lines."""
        reading = False
        for number in range(start, end):
            comment = CODE_COMMENT.match(self.lines[number])
            if comment is None:
                reading = False
                self.blocks.close()
            elif reading or comment.group(1).rstrip().endswith(":"):
                self.blocks.prose(number + 1, _output_line(comment.group(1)))
                reading = True

    def _logged_output(self, start: int, end: int) -> None:
        """Runs of two or more lines a program logged among the code (``[TIME] Voxelization:
        1.45373 ms``, ``Voxelization: 1.35808 ms.`` under ``Perf Report:``, ``P@1  0.565``),
        each run read as output lines, with the line naming what it reports when one opens
        it, and presented by the code above it (the commands that printed it)."""
        run: list[int] = []
        for number in range(start, end + 1):
            if number < end and (TAGGED_LOG.match(self.lines[number])
                                 or PRINTED_PAIR.match(self.lines[number])):
                run.append(number)
                continue
            if len(run) >= 2:
                self._log_run(run, start)
            self.blocks.close()
            run = []

    def _log_run(self, run: list[int], start: int) -> None:
        """One run of logged lines read as output, presented by the options of the commands
        typed above it in its block (``>> ./fasttext supervised … -lr 1.0``: ``-lr 1.0``)."""
        opening = run[0] - 1
        if opening >= start and REPORT_TITLE.match(self.lines[opening]):
            run.insert(0, opening)
        for line in run:
            self.blocks.prose(line + 1, _output_line(self.lines[line].strip()))
        options = [option.group(0) for line in self.lines[start:run[0]] if PROMPT.match(line)
                   for option in OPTION.finditer(line) if not FILE_LIKE.search(option.group(0))]
        if self.blocks.current is not None and options:
            self.blocks.current.intro = " ".join(options)

    def _just_above(self, line: int) -> str:
        """The paragraph ending right above document line ``line`` (a blank line between at
        most)."""
        above = self._block_above()
        near = isinstance(above, Paragraph) and above.starts[-1][1] >= line - 2
        return above.text if near else ""

    def _block_above(self) -> Paragraph | Table | None:
        """The block being read, else the last one read."""
        return self.blocks.current or next(iter(self.blocks.items[-1:]), None)

    def _skip_indented(self) -> None:
        self.blocks.close()
        start = self.index
        while self.index < len(self.lines) and (
                INDENTED.match(self.lines[self.index]) or not self.lines[self.index].strip()):
            self.index += 1
        self.code_above = self._code_text(start, self.index)

    def _code_text(self, start: int, end: int) -> str:
        """Lines ``start`` to ``end`` of code as one line (the command a result below names)."""
        return " ".join(line.strip() for line in self.lines[start:end])

    def _note_context(self, line: str) -> None:
        """Whether an indented line after this one is code (after a blank line outside a list,
        or a reST ``::``)."""
        blank = not line.strip()
        self.code_may_follow = line.rstrip().endswith("::") or (blank and not self.in_list)
        if LIST_ITEM.match(line):
            self.in_list = True
        elif not blank and not line.startswith((" ", "\t")):
            self.in_list = False

    def _text(self, line: str) -> None:
        self._note_context(line)
        heading = HEADING.match(line)
        if heading:
            self._heading(len(heading.group(1)), heading.group(2))
        elif self._setext_at(self.index):
            self._heading(1 if "=" in self.lines[self.index + 1] else 2, line.strip())
            self.index += 1
        elif not line.strip() or HORIZONTAL.match(line):
            self.blocks.close()
        elif self._a_bold_label(line):
            self._heading(BOLD_LABEL_LEVEL, BOLD_LABEL.fullmatch(line).group(1))
        else:
            if LIST_ITEM.match(line):
                self.blocks.close()
            text = re.sub(r"^\s*>\s?", "", line)
            reopened = self.after_code and POINTS_BACK.match(text) is not None
            if reopened:  # it continues the paragraph that introduced the code
                self.blocks.reopen()
            self.after_code = False
            self.blocks.prose(self.index + 1, inline(LIST_ITEM.sub("", text, count=1)))
            if self.code_above and not reopened and RESULT_OF_CODE.match(text):
                self.blocks.current.intro = self.blocks.current.intro or self.code_above
            self.code_above = ""

    def _heading(self, level: int, text: str) -> None:
        self.blocks.heading(level, inline(text))
        if STATES_A_RESULT.search(text):
            self.blocks.prose(self.index + 1, inline(text))
            self.blocks.close()

    def _a_bold_label(self, line: str) -> bool:
        """Whether ``line`` is a paragraph of one bold label, a blank line after it."""
        after = self.lines[self.index + 1] if self.index + 1 < len(self.lines) else ""
        return self.blocks.current is None and BOLD_LABEL.fullmatch(line) is not None \
            and not after.strip()

    def _setext_at(self, index: int) -> bool:
        """A line of text over ``===`` or ``---``, starting no paragraph's second line: a
        heading (``Results`` over ``-------``)."""
        following = self.lines[index + 1] if index + 1 < len(self.lines) else ""
        line = self.lines[index]
        return bool(SETEXT.match(following)) and bool(line.strip()) and not LIST_ITEM.match(
            line) and self.blocks.current is None and not line.startswith((" ", "\t", ">"))

    def _is_table(self, index: int) -> bool:
        line = self.lines[index]
        following = self.lines[index + 1] if index + 1 < len(self.lines) else ""
        return "|" in line and RULE.match(following) is not None and (
            "|" in following or "--" in following)

    def _caption(self) -> str:
        """The paragraph just above the table, or the line just below, if it reads ``Table…``
        (not a heading: ``### Table 3 …`` opens the next table's section); in a ``{table}``
        directive, its argument."""
        if self.directive_caption:
            return self.directive_caption
        before = self._just_above(self.table_line)
        below = next((line for line in self.lines[self.index:] if line.strip()), "")
        after = "" if HEADING.match(below) else inline(below)
        if _captions(before) or self._titles(before) or self._touches(self.table_line):
            return _pointing_sentence(before)
        return after if CAPTION.match(after) else ""

    def _touches(self, line: int) -> bool:
        """Whether a paragraph ends on the line right above document line ``line``, no blank
        line between: written as the table's own first line (``The EER results on VoxCeleb,
        CNCeleb and 3D-Speaker datasets …`` over its header)."""
        above = self._block_above()
        return isinstance(above, Paragraph) and above.starts[-1][1] == line - 1

    def _titles(self, before: str) -> bool:
        """Whether the paragraph just above the table is a title: one line, no list item, no
        sentence (``YOLOv3 mAP@0.5 (darknet-reported mAP@0.5)``) or all bold (``**NDCG@10
        Results.**``)."""
        above = self._block_above()
        if not isinstance(above, Paragraph) or len(above.starts) != 1:
            return False
        line = self.lines[above.starts[0][1] - 1]
        return not LIST_ITEM.match(line) and (
            TITLE.fullmatch(before) is not None or BOLD_LINE.fullmatch(line) is not None)

    def _table(self) -> None:
        self.table_line = self.index + 1
        header = spanned(header_cells(self.lines[self.index], self.index + 1, self._body()),
                         self.lines[self.index])
        self.index += 2
        rows, settings = [], []
        while self.index < len(self.lines) and "|" in self.lines[self.index] \
                and self.lines[self.index].strip():
            stacked = stacked_rows(self.lines[self.index], self.index + 1,
                                   self.lines[self.table_line - 1])
            row = stacked[0]
            if len(stacked) > 1:
                rows += stacked
            elif not rows and not settings and names_only(row):
                header = [f"{head} {row[j].text if j < len(row) else ''}".strip()
                          for j, head in enumerate(over_its_group(header))]
            elif not rows and not all(header[1:]) and all_bold(self.lines[self.index]):
                settings.append(row)
            else:
                rows.append(row)
            self.index += 1
        header = with_setting_rows(header, settings) if settings else header
        self.blocks.table(Table(header, rows, self._caption()))

    def _body(self) -> list[str]:
        """The lines of the pipe table whose header is the current line, below its rule."""
        end = self.index + 2
        while end < len(self.lines) and "|" in self.lines[end] and self.lines[end].strip():
            end += 1
        return self.lines[self.index + 2:end]

    def _html_table(self) -> None:
        start = self.index
        while self.index < len(self.lines) and "</table>" not in self.lines[self.index].lower():
            self.index += 1
        self.index = min(self.index + 1, len(self.lines))
        self.table_line = start + 1
        self.blocks.table(html_table(self.lines[start:self.index], start + 1, self._caption()))


TICKS = re.compile(r"`+")


def spans_over_lines_blanked(lines: list[str]) -> list[str]:
    """The lines with each inline code span that runs over a line break blanked out, as one
    on a line is: a command or a quote (`` `the model\\nsets … 85.5%` ``), not prose. A span
    ends at the next run of as many backticks within its paragraph; outside fences."""
    lines, opened, fenced = list(lines), None, False
    for index, line in enumerate(lines):
        if FENCE.match(line) or not line.strip():
            fenced, opened = fenced ^ bool(FENCE.match(line)), None
            continue
        for run in [] if fenced else list(TICKS.finditer(line)):
            if opened is None:
                opened = (index, run.start(), len(run.group(0)))
            elif len(run.group(0)) == opened[2]:
                if opened[0] != index:
                    _blank(lines, opened[:2], (index, run.end()))
                opened = None
    return lines


def _blank(lines: list[str], start: tuple[int, int], end: tuple[int, int]) -> None:
    """Spaces for the text from ``start`` to ``end`` (line, column), lines kept."""
    for index in range(start[0], end[0] + 1):
        low = start[1] if index == start[0] else 0
        high = end[1] if index == end[0] else len(lines[index])
        lines[index] = lines[index][:low] + " " * (high - low) + lines[index][high:]


def markdown_blocks(text: str) -> list[Paragraph | Table]:
    """The blocks of a Markdown or plain-text document."""
    return MarkdownReader(text).read()
