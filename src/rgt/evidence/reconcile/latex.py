"""LaTeX as blocks: sections, paragraphs, ``tabular`` tables with their caption.

Commands are rewritten to the plain text a reader sees: ``\\num{0.934}`` → ``0.934``,
``\\SI{93.4}{\\percent}`` → ``93.4%``, ``$0.93 \\pm 0.01$`` → ``0.93 ± 0.01``, ``\\cite{x}`` →
``[cite]``. Math displays, verbatim, code, TikZ and the bibliography are not read; neither is
the preamble. A brace left open (or closed twice) is an error with its line: reading past it
would attribute numbers to the wrong cell or sentence.
"""

from __future__ import annotations

import re

from rgt.deliver.inputs import DeliveryError
from rgt.evidence.reconcile.blocks import Blocks, Paragraph, Table
from rgt.evidence.reconcile.macros import definitions, expand
from rgt.evidence.reconcile.tabular import group_end, parse_tabular, spread_columns

SKIPPED = {"equation", "equation*", "align", "align*", "gather", "gather*", "multline",
           "multline*", "eqnarray", "eqnarray*", "verbatim", "lstlisting", "minted", "comment",
           "tikzpicture", "thebibliography", "algorithmic", "algorithm2e", "displaymath"}
TABULAR = {"tabular", "tabular*", "tabularx", "longtable"}
# the floats of LaTeX and of the packages papers use for side tables (tufte-latex's margin,
# rotating's sideways, wrapfig's wrapped): each holds its tabular and its caption
FLOATS = {"table", "table*", "figure", "figure*", "margintable", "marginfigure",
          "sidewaystable", "sidewaystable*", "wraptable", "wrapfigure"}
SUBFLOATS = ("subtable", "subfigure", "minipage")
BEGIN = re.compile(r"\\begin\s*\{([^}]*)\}")
CELL_SEPARATOR = re.compile(r"(?<!\\)&")
ROW_ENDED = re.compile(r"\\\\\s*$")
RULE_LINE = re.compile(r"\s*\\(?:h?hline(?:\s*\{[^}]*\})?|toprule|midrule|bottomrule|"
                       r"cline\s*\{[^}]*\})\s*$")
SUB_COMMAND = re.compile(r"\\sub(?:figure|float|table)\s*\[([^\]]*)\]\s*\{")
SECTION = re.compile(r"\\(part|chapter|section|subsection|subsubsection|paragraph|frametitle)"
                     r"\*?\s*(?:\[[^\]]*\])?\s*\{")
LEVELS = {"part": 1, "chapter": 1, "section": 2, "subsection": 3, "subsubsection": 4,
          "paragraph": 5, "frametitle": 3}
ONE_ARGUMENT = (r"vspace|hspace|label|includegraphics|cellcolor|rowcolor|color|input|include|"
                r"url|bibliography|bibliographystyle|usepackage|documentclass|scalebox|raisebox|begin|end")
TWO_ARGUMENTS = r"setlength|addtolength|fontsize|resizebox|newcommand|renewcommand|definecolor"
DROPPED = re.compile(
    rf"\\(?:(?:{ONE_ARGUMENT})\*?\s*(?:\[[^\]]*\]\s*)?\{{[^{{}}]*\}}|"
    rf"(?:{TWO_ARGUMENTS})\*?\s*(?:\[[^\]]*\]\s*)?(?:\{{[^{{}}]*\}}\s*){{2}})"
)
# A box's placement and width (``\begin{minipage}[b]{0.42\linewidth}``): layout, no number
BOX = re.compile(r"\\begin\s*\{(?:minipage|subfigure|subtable|wrapfigure|wraptable)\}\s*"
                 r"(?:\[[^\]]*\]\s*)*(?:\{[^{}]*\}\s*){0,2}")
# A length given without braces: \vskip 0.15in, \hspace 2mm.
LENGTH = re.compile(r"\\(?:vskip|hskip|vspace|hspace|kern)\*?\s*-?[\d.]+\s*"
                    r"(?:in|cm|mm|pt|em|ex|bp|pc|sp)\b")
SI_UNITS = {"second": "s", "hour": "h", "minute": "min", "day": "d", "byte": "B", "bit": "b",
            "watt": "W", "metre": "m", "meter": "m", "kilo": "k", "mega": "M", "giga": "G",
            "tera": "T", "milli": "m", "micro": "\u00b5", "percent": "%", "per": "/"}


def _si(match: re.Match) -> str:
    """``\\SI{2.5}{\\hour}`` → ``2.5 h``; ``\\SI{93.4}{\\percent}`` → ``93.4%``."""
    unit = re.sub(r"\\([a-zA-Z]+)\s*", lambda m: SI_UNITS.get(m.group(1), m.group(1)),
                  match.group(2)).strip()
    return f"{match.group(1)}{unit}" if unit == "%" else f"{match.group(1)} {unit}"


DIGITS_AS_LETTERS = str.maketrans("0123456789", "abcdefghij")
SIMPLE = [
    # a colour is no number: ``\textcolor{green!50!black}{…}``, ``\colorbox{gray!20}{…}``
    (re.compile(r"\\(?:textcolor|colorbox)\s*(?:\[[^\]]*\]\s*)?\{[^{}]*\}"), " "),
    # a box's width or a rotation's angle is layout, no number: ``\parbox{3.7em}{Tied}``
    (re.compile(r"\\(?:parbox|rotatebox)\s*(?:\[[^\]]*\]\s*)*\{[^{}]*\}"), " "),
    (re.compile(r"\\(?:SI|qty)\s*(?:\[[^\]]*\])?\s*\{([^{}]*)\}\s*\{([^{}]*)\}"), _si),
    (re.compile(r"\\numrange\s*\{([^{}]*)\}\s*\{([^{}]*)\}"), r"\1 to \2"),
    (re.compile(r"\\num\s*(?:\[[^\]]*\])?\s*\{([^{}]*)\}"), r"\1"),
    (re.compile(r"\\(?:cite\w*|parencite|textcite|autocite)\*?\s*(?:\[[^\]]*\]\s*)*\{[^{}]*\}"),
     " [cite]"),
    # a reference keeps its label, digits spelt as letters (no number to read): a row may be
    # named by one (``\Cref{alg:full}``, an alias as the evidence writes it)
    (re.compile(r"\\(?:ref|eqref|autoref|cref|Cref|pageref|nameref)\s*\{([^{}]*)\}"),
     lambda match: f"[ref {match.group(1).strip().translate(DIGITS_AS_LETTERS)}]"),
    (re.compile(r"\\pm(?![a-zA-Z])|(?<=\d)\s*\+-\s*(?=\d)"), " ± "),
    (re.compile(r"\\%"), "%"),
    (re.compile(r"\\(?:percent)(?![a-zA-Z])"), "%"),
    (re.compile(r"\\(?:times)(?![a-zA-Z])"), "×"),
    (re.compile(r"\\(?:cdot)(?![a-zA-Z])"), "\u00b7"),
    (re.compile(r"\\(?:Delta)(?![a-zA-Z])"), "Δ"),
    (re.compile(r"\\(?:alpha)(?![a-zA-Z])"), "α"),
    (re.compile(r"\\(?:beta)(?![a-zA-Z])"), "β"),
    (re.compile(r"\\(?:textminus|minus)(?![a-zA-Z])"), "\u2212"),
    (re.compile(r"\\(?:approx)(?![a-zA-Z])"), "\u2248"),
    (re.compile(r"\\(?:degree|textdegree)(?![a-zA-Z])|\^\s*\{?\s*\\circ\s*\}?"), "\u00b0"),
    # a function's argument is no result: ``0.51 \approx \log 1.66``
    (re.compile(r"\\(log|ln|exp|sqrt)(?![a-zA-Z])"), r" \1 "),
    (re.compile(r"\\\\"), " "),  # a line break (inside \makecell too), before "\ " below
    (re.compile(r"\\-"), ""),  # a discretionary hyphen: Super\-vised
    (re.compile(r"\\(?:[,;:! ]|quad|qquad)"), " "),
    (re.compile(r"~"), " "),
    (re.compile(r"---"), "\u2014"),
    (re.compile(r"--"), "\u2013"),
    # a macro of the paper's own with empty braces names a thing (``\\ilm{}``, ``\\lmrev{}``):
    # read as its name, as the evidence's alias written the same way is
    (re.compile(r"\\([a-zA-Z]+)\{\}"), r"\1"),
    # and so does one braced alone (``{\\systemname}``, kept from eating the space after it)
    (re.compile(r"\{\\([a-zA-Z]+)\}"), lambda match: "" if match.group(1) in SWITCHES or
     match.group(1) in SYMBOLS else match.group(1)),
    # a switch opening a group eats the spaces after it, as TeX does: ``({\\it location})``
    # typesets ``(location)``, as the evidence's alias writes it
    (re.compile(r"(?<=\{)\\[a-zA-Z@]+\s+"), ""),
    (re.compile(r"\\[a-zA-Z@]+\*?(?:\[[^\]]*\])?"), ""),
    (re.compile(r"[{}$]"), ""),
]


def strip_comment(line: str) -> str:
    """``line`` without its ``%`` comment (``\\%`` is a percent sign; after ``\\\\``, a line
    break, a ``%`` starts a comment again)."""
    for match in re.finditer(r"(\\*)%", line):
        if len(match.group(1)) % 2 == 0:
            return line[:match.start() + len(match.group(1))]
    return line


def check_braces(lines: list[str], source: str) -> None:
    """Every ``{`` closed by a ``}`` (escaped ones aside); else an error naming the line."""
    opened: list[int] = []
    for number, line in enumerate(lines, start=1):
        for match in re.finditer(r"(?<!\\)[{}]", line):
            if match.group(0) == "{":
                opened.append(number)
            elif not opened:
                raise DeliveryError(f"{source}:{number}: a '}}' closes nothing",
                                    fix="remove it or add the '{' it closes")
            else:
                opened.pop()
    if opened:
        raise DeliveryError(f"{source}:{opened[-1]}: the '{{' opened here is never closed",
                            fix="close it with '}' (or escape a literal brace as \\{)")


# math that is one macro of the document's own (``$\xtilde$``, ``$\x$``): its name stands for
# the symbol it typesets to, which names a variant (``fair interpretable $\xtilde$``)
LONE_MACRO = re.compile(r"\$\\([A-Za-z]+)\$")
SYMBOLS = {"uparrow", "downarrow", "Uparrow", "Downarrow", "rightarrow", "leftarrow", "to",
           "dagger", "ddagger", "dag", "ddag", "star", "ast", "checkmark", "times", "cdot",
           "bullet", "circ", "diamond", "triangle", "blacktriangle", "S", "P", "sharp", "flat",
           "infty", "emptyset", "dots", "ldots", "cdots", "quad", "qquad", "nabla", "partial"}


# LaTeX's own commands of no argument, braced alone as a paper's name macro is: no name
SWITCHES = {"bf", "it", "em", "tt", "sc", "rm", "sf", "sl", "bfseries", "itshape", "ttfamily",
            "scshape", "small", "footnotesize", "scriptsize", "tiny", "large", "Large", "LARGE",
            "huge", "normalsize", "centering", "raggedright", "raggedleft", "hline", "relax",
            "noindent", "par", "newline", "linebreak", "hfill", "vfill", "cmark", "xmark",
            "textbar", "null", "strut", "smallskip", "medskip", "bigskip"}


def plain(text: str) -> str:
    """LaTeX source as the plain text it typesets to (near enough to read numbers)."""
    return _typeset(LONE_MACRO.sub(
        lambda match: _typeset(match.group(0)) or (
            "" if match.group(1) in SYMBOLS else match.group(1)), text))


def _typeset(text: str) -> str:
    text = DROPPED.sub(" ", LENGTH.sub(" ", BOX.sub(" ", text)))
    for pattern, replacement in SIMPLE:
        text = pattern.sub(replacement, text)
    return re.sub(r"[ \t]+", " ", text).strip()


A_NUMBER = re.compile(r"[-+\u2212]?(?:\d[\d,]*(?:\.\d+)?|\.\d+)%?")


def _named_values(macros: dict[str, tuple[int, str, int]]) -> dict[int, str]:
    """A macro of no argument that typesets a number (``\\newcommand\\varMFWarm{\\fmt{0.54}}``)
    is a result named by the macro: its definition's line reads as ``varMFWarm: 0.54``, and its
    uses (a table of macros) are left as names, so that each number is checked once, where it
    is written."""
    return {line: f"{name}: {plain(body)}." for name, (count, body, line) in macros.items()
            if count == 0 and A_NUMBER.fullmatch(plain(body))}


class LatexReader:
    """Walks the lines of one LaTeX document (comments removed, braces checked)."""

    def __init__(self, text: str, source: str):
        self.source = source
        self.lines = [strip_comment(line) for line in text.splitlines()]
        check_braces(self.lines, source)
        macros = definitions(self.lines)
        self.named_values = _named_values(macros)
        shown = {name: macro for name, macro in macros.items()
                 if macro[2] not in self.named_values}
        self.lines = [expand(line, shown) for line in self.lines]
        self.blocks = Blocks()
        self.index = next((i + 1 for i, line in enumerate(self.lines)
                           if "\\begin{document}" in line), 0)

    def read(self) -> list[Paragraph | Table]:
        """The document's blocks."""
        while self.index < len(self.lines):
            self._step(self.lines[self.index])
        return self.blocks.done()

    def _step(self, line: str) -> None:
        begin = BEGIN.search(line)
        name = begin.group(1).strip() if begin else ""
        if self.index in self.named_values:
            self.blocks.close()
            self.blocks.prose(self.index + 1, self.named_values[self.index])
            self.blocks.close()
            self.index += 1
        elif name in SKIPPED:
            self.blocks.close()
            self.index = self._end_of(name, self.index) + 1
        elif name in TABULAR:
            end = self._end_of(name, self.index)
            self.blocks.table(self._tabular(self.index, end, name, ""))
            self.index = end + 1
        elif name in FLOATS:
            self._float(name)
        elif "\\end{document}" in line:
            self.index = len(self.lines)
        elif (end := self._bare_body_end(self.index)) is not None:
            self.blocks.table(parse_tabular(
                [(i + 1, self.lines[i]) for i in range(self.index, end + 1)], plain, ""))
            self.index = end + 1
        else:
            self._text(line)
            self.index += 1

    def _end_of(self, name: str, start: int) -> int:
        """The line ending the environment ``name`` opened on line ``start``: for a tabular,
        past any tabular nested in it (a cell's one-cell ``\\begin{tabular}{@{}c@{}}43.74\\\\
        \\end{tabular}``); for any other, at its first end (a float cannot nest in itself,
        and a quoted one may be cut off before its end)."""
        pattern = re.compile(r"\\(begin|end)\s*\{" + re.escape(name) + r"\}")
        depth = 0
        for index in range(start, len(self.lines)):
            for match in pattern.finditer(self.lines[index]):
                if match.group(1) == "end":
                    depth -= 1
                elif name in TABULAR:
                    depth += 1
                if depth <= 0 and match.group(1) == "end":
                    return index
        raise DeliveryError(f"{self.source}:{start + 1}: \\begin{{{name}}} is never ended",
                            fix=f"add \\end{{{name}}} where it ends")

    def _bare_body_end(self, start: int) -> int | None:
        """The last line of a tabular body written without its environment (a generated
        table a paper ``\\input``s inside its own ``tabular``) starting at ``start``: two or
        more lines of ``&``-separated cells, at least one ended by ``\\\\``; else None."""
        end, rows = start, 0
        while end < len(self.lines) and (CELL_SEPARATOR.search(self.lines[end])
                                         or (rows and RULE_LINE.match(self.lines[end]))):
            rows += bool(CELL_SEPARATOR.search(self.lines[end]))
            end += 1
        ended = any(ROW_ENDED.search(line) for line in self.lines[start:end])
        return end - 1 if rows >= 2 and ended else None

    def _text(self, line: str) -> None:
        section = SECTION.search(line)
        if section:
            end = group_end(line, section.end() - 1)
            self.blocks.heading(LEVELS[section.group(1)], plain(line[section.end() - 1:end]))
            line = line[end:]  # a run-in heading's paragraph (``\paragraph{Title.} Text``)
            if not line.strip():
                return
        if not line.strip() or BEGIN.search(line) or "\\end{" in line or "\\item" in line:
            self.blocks.close()
        text = plain(re.sub(r"\\item\s*(?:\[[^\]]*\])?", "", line))
        if text:
            self.blocks.prose(self.index + 1, text)

    def _captions(self, start: int, end: int, listed: list[tuple[str, int, int]]
                  ) -> dict[int | None, tuple[str, int, int]]:
        """Each caption of the float between ``start`` and ``end`` by the ``subtable`` or
        ``minipage`` it sits in (None: the float's own): its text, first and last line."""
        found: dict[int | None, tuple[str, int, int]] = {}
        envs = self._sub_environments(start, end)
        for caption in listed:
            found.setdefault(envs[caption[1]], caption)
        for first, _, caption in self._sub_commands(start, end):
            found.setdefault(first, (plain(caption), first, first))
        return found

    def _caption_list(self, start: int, end: int) -> list[tuple[str, int, int]]:
        """Every ``\\caption`` between ``start`` and ``end``, in order: text, first, last line
        (``\\caption[short]{long}`` reads its long text)."""
        found, index = [], start
        while index <= end:
            at = self.lines[index].find("\\caption")
            if at < 0:
                index += 1
                continue
            text = "\n".join(self.lines[index:end + 1])
            opening = text.find("{", at)
            closing = group_end(text, opening)
            last = index + text[:closing].count("\n")
            found.append((plain(text[opening:closing]), index, last))
            index = last + 1
        return found

    def _caption_lines(self, text: str, first: int, last: int) -> list[tuple[int, str]]:
        """A caption's text line by line, each with its own line (a number on the caption's
        third line is reported there); one written on one line, or read another way, whole."""
        source = "\n".join(self.lines[first:last + 1])
        at = source.find("\\caption")
        opening = source.find("{", at)
        if last == first or at < 0 or opening < 0:
            return [(first, text)]
        inner = source[opening + 1:group_end(source, opening) - 1].split("\n")
        return [(first + offset, typeset) for offset, piece in enumerate(inner)
                if (typeset := plain(piece))]

    @staticmethod
    def _own_caption(listed: list[tuple[str, int, int]], line: int, envs: dict) -> str | None:
        """Of a float holding several tabulars each under a caption of its own (no
        ``subtable`` around them), the one just above the tabular at ``line``."""
        own = [(text, first) for text, first, _ in listed if envs[first] is None]
        above = [text for text, first in own if first < line]
        return above[-1] if len(own) > 1 and above else None

    def _sub_commands(self, start: int, end: int) -> list[tuple[int, int, str]]:
        """Each ``\\subfigure[caption]{…}`` or ``\\subfloat[caption]{…}`` of the float: its
        first and last line and its caption (the optional argument)."""
        found = []
        text = "\n".join(self.lines[start:end + 1])
        for match in SUB_COMMAND.finditer(text):
            closing = group_end(text, match.end() - 1)
            first = start + text[:match.start()].count("\n")
            found.append((first, start + text[:closing].count("\n"), match.group(1)))
        return found

    def _sub_environments(self, start: int, end: int) -> dict[int, int | None]:
        """For each line of a float, the line opening the innermost ``subtable``,
        ``subfigure`` or ``minipage`` around it (None: none)."""
        stack: list[int] = []
        inner = {}
        for index in range(start, end + 1):
            line = self.lines[index]
            begin = BEGIN.search(line)
            if begin and begin.group(1).strip() in SUBFLOATS:
                stack.append(index)
            inner[index] = stack[-1] if stack else None
            if re.search(r"\\end\s*\{(?:" + "|".join(SUBFLOATS) + r")\}", line) and stack:
                stack.pop()
        for first, last, _ in self._sub_commands(start, end):
            for index in range(first, last + 1):
                inner[index] = inner[index] if inner[index] and inner[index] > first else first
        return inner

    def _float(self, name: str) -> None:
        """A table or figure: its captions (as prose), its tabulars — each captioned by its
        own ``subtable``'s or ``minipage``'s caption and the float's — and, as prose, the notes
        around them (``\\small{mean over 5 runs}`` after the tabular)."""
        start, end = self.index, self._end_of(name, self.index)
        listed = self._caption_list(start, end)
        captions = self._captions(start, end, listed)
        envs = self._sub_environments(start, end)
        for text, first, last in sorted(set(captions.values()) | set(listed),
                                        key=lambda item: item[1]):
            self.blocks.close()
            for line, piece in self._caption_lines(text, first, last):
                self.blocks.prose(line + 1, piece)
            self.blocks.close()
        captioned = {line for _, first, last in [*captions.values(), *listed]
                     for line in range(first, last + 1)}
        index = self.index + 1
        while index < end:
            begin = BEGIN.search(self.lines[index])
            if begin and begin.group(1).strip() in TABULAR:
                table_end = self._end_of(begin.group(1).strip(), index)
                nearest = self._own_caption(listed, index, envs)
                caption = " ".join(nearest if env is None and nearest else captions[env][0]
                                   for env in dict.fromkeys((envs[index], None))
                                   if env in captions)
                self.blocks.table(self._tabular(index, table_end, begin.group(1).strip(),
                                                caption))
                index = table_end
            elif index not in captioned:
                self.index = index
                self._text(self.lines[index])
            index += 1
        self.blocks.close()
        self.index = end + 1

    def _tabular(self, start: int, end: int, name: str, caption: str) -> Table:
        line, column = self._after_spec(start, end, name)
        spec_text = "\n".join(self.lines[start:line + 1])
        spec_text = spec_text[:len(spec_text) - len(self.lines[line]) + column]
        closing = re.compile(r"\\end\s*\{" + re.escape(name) + r"\}")
        last = self.lines[end][:[*closing.finditer(self.lines[end])][-1].start()]
        if line == end:
            body = [(line + 1, last[column:])]
        else:
            body = [(line + 1, self.lines[line][column:])]
            body += [(i + 1, self.lines[i]) for i in range(line + 1, end)]
            body.append((end + 1, last))
        return parse_tabular(body, plain, caption, spread_columns(_spec(spec_text)))

    def _after_spec(self, start: int, end: int, name: str) -> tuple[int, int]:
        """The line and column just after a tabular's [width and] column spec, which may run
        over several lines (``\\begin{tabular}{`` then ``l``, ``S[table-format=2.2(1.2)]``,
        ``}``); an unclosed spec ends its first line."""
        text = "\n".join(self.lines[start:end + 1])
        position = BEGIN.search(self.lines[start]).end()
        for _ in range(2 if name in ("tabular*", "tabularx") else 1):
            opening = text.find("{", position)
            position = group_end(text, opening) if opening >= 0 else position
        if position >= len(text) and end > start:
            return start, len(self.lines[start])
        line = start + text.count("\n", 0, position)
        return line, position - (text.rfind("\n", 0, position) + 1)


def _spec(text: str) -> str:
    """The column spec closing ``text`` (``\\begin{tabular}{l@{\\ica}r@{$\\pm$}l}``): its last
    brace group."""
    closing = text.rstrip().rfind("}")
    depth, index = 0, closing
    while index >= 0:
        depth += {"}": 1, "{": -1}.get(text[index], 0) if text[index - 1:index] != "\\" else 0
        if depth == 0:
            return text[index + 1:closing]
        index -= 1
    return ""


def latex_blocks(text: str, source: str) -> list[Paragraph | Table]:
    """The blocks of a LaTeX document."""
    return LatexReader(text, source).read()
