"""A table's statements, each with its levels: the cell, its column's header, its row's label
(the cells of the table's label columns, with the group row above), the header over those
labels (``Model(CIFAR-100)``), the caption, the headings.

Label columns are those with no numeric body cell (and seed columns); a spread-only column
(``± s.e.m.``) is read with the column before it; a header, row label or caption may declare a
unit (``%``, ``(M)``, ``params_m``); a header naming a cell's numbers in turn (``(Top1/Top5)``
over ``22.4 / 6.3``) gives each number its name (``cellparts``).
"""

from __future__ import annotations

import re
from dataclasses import replace

from rgt.evidence.reconcile.blocks import Cell, Table
from rgt.evidence.reconcile.cellparts import (
    NEXT_NAMED,
    OTHERS_IN_CELL,
    declared_brackets,
    others_in_parentheses,
    parenthesis_in_turn,
    parenthesized_spreads,
    parts_in_turn,
    row_in_turn,
    spread_in_parentheses,
    whole_and_parts,
)
from rgt.evidence.reconcile.sites import Level, Site
from rgt.evidence.reconcile.statistics import find_statements

NUMBER_TEXT = re.compile(r"[-+\u2212]?\d[\d,]*(?:\.\d+)?(?:[eE][-+\u2212]?\d+\b)?")


NAMED_NUMBER = re.compile(r"^\s*[^\W\d_][\w\-@ ]{0,24}:\s*(?=[-+\u2212]?\d)")  # "Acc: 81.0 %"
# numbers their names set, two or more (one, ``layer=1``, ``lr=0.01``, names a setting)
ASSIGNED = re.compile(r"^\s*[^\W\d_][\w\-@]{0,24}\s*=\s*[-+\u2212]?\d[\d.,]*\s*%?"
                      r"(?:\s+[^\W\d_][\w\-@]{0,24}\s*=\s*[-+\u2212]?\d[\d.,]*\s*%?)+\s*$")


def is_numeric(text: str) -> bool:
    """A cell that holds numbers only (``96.1 ± 0.2``, ``**11.2M**``, ``[0.71, 1.18]``,
    ``0.13s``), or numbers their metrics' names introduce (``Acc: 81.0 %``, ``mae=0.4109 <br>
    mse=0.3924``) or follow in parentheses (``**93.03** (F1)``)."""
    if ASSIGNED.match(text):
        return True
    text = OTHERS_IN_CELL.sub(" ", text)  # another's number beside ours: the cell is ours
    if LEADING_NUMBER.match(text):
        text = ACCELERATOR.sub(" ", text)  # where it ran: ``98.72%, 3.9h (A100)``
        text = METRIC_AFTER.sub(" ", text)  # what it measures: ``**93.03** (F1)``
        text = RATE.sub(" ", text)  # how fast: ``3.54 iter/s``, ``229.26it/s``
    if WORD_FIRST.match(text) and not NAMED_NUMBER.match(text):
        return False  # a name with digits (``K400``): a unit's letter follows its number
    rest = NUMBER_TEXT.sub(" ", NEXT_NAMED.sub(" ", NAMED_NUMBER.sub("", text)))
    words = re.findall(r"[^\W\d_]+", rest)
    has_digit = any(char.isdigit() for char in text)
    # a number first, then words of which point or aggregate it is (``0.82 (best 0.67)``,
    # ``3.87 (1 run)``, ``4.00 (median of 5 runs)``)
    points = AGGREGATE_WORDS if LEADING_NUMBER.match(text) else set()
    return has_digit and all(word in UNIT_WORDS or word.lower() in points for word in words)


WORD_FIRST = re.compile(r"\s*(?:\*\*|__|\*|_)?[^\W\d_]")
UNIT_WORDS = {"pp", "M", "K", "B", "G", "T", "x", "CI", "s", "ms", "h", "min", "mins", "hr", "hrs",
              "sec", "secs", "hours", "minutes", "seconds", "days", "MB", "GB", "MiB", "GiB",
              "fps", "FPS"}
# a rate after a number, its unit a thing per second or step (``iter/s``, ``img/s``)
RATE = re.compile(r"(?<=\d)\s*(?:[^\W\d_]+/)+(?:s|sec|second|step|epoch|gpu)\b", re.I)
AGGREGATE_WORDS = {"best", "worst", "last", "run", "runs", "seed", "seeds", "median", "mean",
                   "average", "avg", "of", "over", "std"}
LEADING_NUMBER = re.compile(r"\s*(?:\*\*)?[~\u2248]?\s*[-+\u2212]?\d")


# one word in parentheses after a cell's number, its metric's name: ``**93.03** (F1)``
METRIC_AFTER = re.compile(r"\(\s*[^\W\d_][\w@.\-]{0,15}\s*\)\s*$")
# the accelerator a result was measured on, in parentheses: ``(A100)``, ``(8x V100)``
ACCELERATOR = re.compile(r"\(\s*(?:\d+\s*[x\u00d7]\s*)?(?:[AHVPTKL]\d{2,3}|RTX\s?\d{4}|"
                         r"TPU\s?v\d\w*)\s*\)")


POINT_HEADER = re.compile(r"^\s*(?:seed|run|fold|trial|attempt)(?:\s*(?:id|#|no\.?))?\s*$", re.I)
# a column of how much data each row had (``n``: ``10K``, ``1M``): a setting naming the rows
SIZE_HEADER = re.compile(r"^\s*(?:n|#\s*(?:samples|examples)|(?:data(?:set)?|train(?:ing)?|"
                         r"sample)\s+size)\s*$", re.I)


def label_columns(table: Table) -> set[int]:
    """Columns none of whose body cells is numeric, seed columns, and a first column most of
    whose cells are words (``3 + 6`` among feature names): they name the rows."""
    width = max([len(table.header)] + [len(row) for row in table.rows])
    return {j for j in range(width) if _names_rows(table, j)}


def _names_rows(table: Table, column: int) -> bool:
    numeric = _numeric_cells(table, column)
    if POINT_HEADER.match(_header(table, column)) or SIZE_HEADER.match(
            _header(table, column)) or numeric == 0 or _training_settings(table, column) \
            or _seed_values(table, column):
        return True
    filled = sum(column < len(row) and row[column].text.strip() != "" for row in table.rows)
    return _settings_only(table, column) or column == 0 and numeric * 2 < filled


SEEDS_HEADER = re.compile(r"^\s*(?:random\s+)?seeds?\s*$", re.I)
SEED_LIST = re.compile(r"\s*\d+(?:\s*,\s*\d+)+\s*")  # ``1337, 1234, 2026``


def _seed_values(table: Table, column: int) -> bool:
    """A ``Seeds`` column listing the seeds themselves (``1337, 1234, 2026`` in one of its
    cells; ``1337`` in another): which runs each row is, no count to check."""
    return bool(SEEDS_HEADER.match(_header(table, column))) and any(
        column < len(row) and SEED_LIST.fullmatch(row[column].text) for row in table.rows)


# a setting, not a result: ``K=3``, ``5 × 5``, ``N/A``
SETTING = re.compile(r"\s*(?:[^\W\d_]\w*\s*=\s*\d+|\d+\s*[\u00d7x]\s*\d+|N/?A|-+)\s*", re.I)


SIZES = re.compile(r"\s*\d+\s*[\u00d7x]\s*\d+\s*")  # ``224x224``, ``5 × 5``


def _settings_only(table: Table, column: int) -> bool:
    """A column of settings (``Filter size``: ``5 × 5``, ``K=3``), at least one an assignment,
    or sizes only (``resolution``: ``224x224``): its cells tell the rows apart."""
    cells = [row[column].text for row in table.rows if column < len(row) and row[column].text]
    return bool(cells) and all(SETTING.fullmatch(text) for text in cells) and (any(
        "=" in text for text in cells) or all(SIZES.fullmatch(text) for text in cells))


# a column of how each row was trained or evaluated (``Epoch``: ``800``, ``1600``; ``Iters``:
# ``40K``; ``#Frame``: ``16x5x3``; ``Image resolution``: ``224``; ``scale factor``: ``2``): a
# setting naming the rows
FACTOR = r"(?:scale|quality|upscaling)\s+factor"
SETTING_WORDS = r"(?:#\s*)?(?:pre-?training\s+|training\s+|total_|warmup_)?(?:epochs?|iters?|" \
          r"iterations|steps|frames?|(?:image|input|crop|img)\s+(?:size|resolution)|" \
          rf"resolution|batch\s+size|{FACTOR})"
FACTOR_HEADER = re.compile(rf"^\s*{FACTOR}\s*$", re.I)
# ``total_steps / warmup_steps`` over ``500 / 50``: two settings a cell
SETTING_HEADER = re.compile(rf"^\s*{SETTING_WORDS}(?:\s*/\s*{SETTING_WORDS})?\s*$", re.I)


def _training_settings(table: Table, column: int) -> bool:
    """A column under a training setting's header (``Epoch``), none of its cells a decimal,
    or one of number formats (``Precision``: ``FP16``, ``FP16/INT8``: not the metric)."""
    cells = [row[column].text for row in table.rows if column < len(row)]
    filled = [text for text in cells if text.strip()]
    return bool(SETTING_HEADER.match(_header(table, column))) and not any(
        DECIMAL.search(text) for text in cells) or bool(filled) and all(
        NUMBER_FORMATS.fullmatch(text) for text in filled)


# how a run computed (``FP16``, ``FP32+FP16``, ``FP16/INT8``, ``MIXED``): a setting
NUMBER_FORMAT = r"(?:(?:fp|bf|tf|u?int)\d{1,2}|mixed|amp)"
NUMBER_FORMATS = re.compile(rf"\s*{NUMBER_FORMAT}(?:\s*[+/]\s*{NUMBER_FORMAT})*\s*", re.I)


def _numeric_cells(table: Table, column: int) -> int:
    return sum(column < len(row) and is_numeric(row[column].text) for row in table.rows)


def _header(table: Table, column: int) -> str:
    return table.header[column] if column < len(table.header) else ""


# a ✓ (or a √, as some tables write it): the row is what its header says
CHECK = re.compile(r"\s*[\u2713\u2714\u2611\u221a]\s*")
# a ✗ (or a ×, or a plain x among ✓ marks): it is not
CROSS = re.compile(r"\s*[\u2717\u2718\u00d7\u2715xX]\s*")


# a cell written as a sentence, a note beside the row (``Although this schedule is better, the
# final self critical results are similar.``): it comments on the row, it does not name it
NOTE = re.compile(r"^(?=(?:\S+\s+){5})[^.!?]*\w.*[.!?]$", re.DOTALL)
# a column of such notes (``Remarks``: ``hidden_size=64, weight_decay=0.0005``, ``1e-4 for
# Citeseer``; ``Hyperparameters``: ``k: 400; epochs: 4000; loss: multiclass_nll``): its
# settings and the datasets it names are no name of the row, unless it says what the row's
# marks mean (``*: w/ guiding  **: w/o guiding``, the marks read as emphasis)
NOTE_HEADER = re.compile(r"^\s*(?:remarks?|notes?|comments?|hyper[-\s]?param(?:eter)?s?)\s*$",
                         re.I)
MARK_LEGEND = re.compile(r"(?:^|\s)[*\u2020\u2021]*:\s")


def _label(table: Table, column: int, text: str) -> str:
    """A label cell as the row's name; a seed column's cell keeps its header (``seed 0``), and
    so does a factor's bare number (``scale factor 3``); a ✓ under ``with registers`` names
    the row by that header, a ✗ by nothing; a note (or a cell under ``Remarks``), nothing."""
    header = _header(table, column)
    if NOTE.match(text.strip()) or NOTE_HEADER.match(header) and not MARK_LEGEND.search(text):
        return ""
    if CHECK.fullmatch(text) and header:
        return header
    if CROSS.fullmatch(text) and header and _marks_only(table, column):
        return ""  # (in a column of ✓ and ✗: elsewhere ``×`` is a name, multiplication's)
    if text and re.fullmatch(r"\d+", text) and FACTOR_HEADER.match(header):
        return f"{header} {text}"  # ``scale factor 3``: the setting, not a bare count
    return f"{header} {text}" if text and POINT_HEADER.match(header) and not AGGREGATE.match(
        text) else text


AGGREGATE = re.compile(r"\s*(?:total|mean|average|avg\.?|overall|all|median)\s*$", re.I)


def _marks_only(table: Table, column: int) -> bool:
    """A column of ✓ and ✗ (``with registers``)."""
    cells = [row[column].text for row in table.rows if column < len(row)]
    return any(CHECK.fullmatch(text) for text in cells) and all(
        CHECK.fullmatch(text) or CROSS.fullmatch(text) or not text.strip() for text in cells)


def _without_mark_definitions(table: Table, marked: set[int]) -> str:
    """The caption without its definitions of the headers of columns of marks (``ALL-F: all
    frames.`` over an ``All-F`` column of ✓): what a mark means names no row, the marks do."""
    caption = table.caption
    for j in marked:
        header = _header(table, j).strip()
        if header:
            caption = re.sub(rf"(?<!\w){re.escape(header)}`?\s*:[^.]*\.?", " ", caption,
                             flags=re.IGNORECASE)
    return caption


def _is_group(row: list[Cell], labels: set[int]) -> bool:
    """A row naming a group of rows below it: only its first cell has text."""
    filled = [cell for cell in row if cell.text.strip()]
    return len(row) > 1 and len(filled) == 1 and row[0].text.strip() != "" and 0 in labels


# a percent sign that follows no number (``Acc. (%)``, not ``(50% data)``), ``(M)``, ``_pct``
# (after a snake_case name: ``params_m``, not ``MNLI_m``, MNLI's matched set, nor a
# quantization scheme's letter, ``q3_k_m``)
UNIT = re.compile(r"(?<![\d.])(?<!\d\s)(%)|\((?:in\s+)?([KMB])\)|\[([KMB])\]"
                  r"|(?<=[a-z\d]{2})_(?:(pct|percent)|([mkb]))$")
UNITS = {"pct": "%", "percent": "%", "m": "M", "k": "K", "b": "B"}


def declared_unit(*texts: str) -> str:
    """The first unit a header, row label or caption declares: ``%`` or ``M``/``K``/``B``."""
    for text in texts:
        match = UNIT.search(text or "")
        if match:
            return _unit_of(match)
    return ""


def _unit_of(match: re.Match) -> str:
    found = next(group for group in match.groups() if group)
    return UNITS.get(found, found)


CLASS_LETTER = re.compile(r"\s*\(([A-Z])\)\s*$")


def _names_a_class(table: Table, header: str) -> bool:
    """A header's ``(M)`` names a class or protocol, no millions, where another header names
    the same thing with another letter: COCO's medium objects beside small and large ones
    (``AP (M)``, ``AR (L)``), the medium protocol beside the hard one (``ROxf (H)``)."""
    match = CLASS_LETTER.search(header)
    if not match or match.group(1) != "M":
        return False
    base = header[:match.start()].strip()
    return any((other := CLASS_LETTER.search(name)) and other.group(1) != "M"
               and name[:other.start()].strip() == base for name in table.header)


def _unit(table: Table, header: str, label: str) -> str:
    """The unit of a cell's numbers, declared by its header, row label or caption."""
    if _names_a_class(table, header):
        return declared_unit(label) or _caption_unit(table, header)
    return declared_unit(header, label) or _caption_unit(table, header)


# the name a caption's unit follows: ``accuracy (acc. in [%])``, ``Acc (%)``
UNIT_OWNER = re.compile(r"([A-Za-z][A-Za-z.]*)\s*(?:in\s*)?[\[(\s]*$")


def _caption_unit(table: Table, header: str) -> str:
    """The caption's unit, unless it ties it to a name that heads other columns and not this
    one: ``accuracy (acc. in [%])`` over ``r`` and ``acc.`` columns is no unit of the radii."""
    match = UNIT.search(table.caption or "")
    if match is None:
        return ""
    owner = UNIT_OWNER.search(table.caption[:match.start()])
    if owner and _heads(owner.group(1), table.header) and not _heads(owner.group(1), [header]):
        return ""
    return _unit_of(match)


def _heads(word: str, names: list[str]) -> bool:
    return any(re.search(rf"(?<!\w){re.escape(word)}(?!\w)", name, re.IGNORECASE)
               for name in names)


SPREAD_ONLY = re.compile(
    r"^[\s(\[]*(?:\u00b1|\+/-)?\s*(?:std|sd|s\.d\.|stdev|sem|s\.e\.m\.|se|s\.e\.|"
    r"standard\s+(?:deviation|error))[\s)\]]*$", re.IGNORECASE)


def headers(table: Table) -> list[str]:
    """Each column's header; a spread-only one (``± s.e.m.``) is read with the one before it
    (``ECE (%) ± s.e.m.``): it qualifies that column's numbers."""
    names = list(table.header)
    for j in range(1, len(names)):
        if SPREAD_ONLY.match(names[j]):
            names[j] = f"{names[j - 1]} {names[j]}"
    return names


DITTO = {".", '"', "''", "\u3003", "\u201d", "\u2033"}  # "the same as above"
# a label cell saying only which way its metric is better (``(lower better)`` under ``L1``):
# the name above goes on
DIRECTION_NOTE = re.compile(r"\s*\(?\s*(?:lower|higher|smaller|larger|bigger)\s+(?:is\s+)?"
                            r"better\s*\)?\s*|\s*[\u2191\u2193]\s*", re.I)


def _same_as_above(text: str) -> bool:
    return text in DITTO or bool(DIRECTION_NOTE.fullmatch(text))


def table_sites(table: Table, named: frozenset[int] = frozenset()) -> list[Site]:
    """One site per statement of every data cell of ``table``; ``named``: columns the caller
    knows name the rows."""
    labels = label_columns(table) | named
    names_of = headers(table)
    matrix = _a_matrix(table, labels)
    first = min((j for j in range(len(table.header)) if j not in labels), default=0)
    marked = {j for j in labels if _marks_only(table, j)}  # its header names ✓ rows only
    table = replace(table, caption=_without_mark_definitions(table, marked))
    # a setting's header (``batch size``) says how the rows ran, not what their numbers are
    settings = {j for j in labels if _training_settings(table, j)}
    corner = " ".join(_header(table, j) for j in sorted(labels - marked - settings)
                      if j < first).strip()
    sites: list[Site] = []
    group, previous, spreads = "", {}, parenthesized_spreads(table)
    nameless = rows_unnamed(table, labels)
    carrying = _naming_groups(table, labels, first)
    for index, row in enumerate(table.rows):
        if _is_group(row, labels):
            group, previous = row[0].text.strip(), {}
            continue
        names = _row_names(table, row, sorted(labels), first, previous)
        label = " ".join([group, *names]).strip()
        own = " ".join(name for j, name in zip(sorted(labels), names, strict=True)
                       if j not in carrying).strip()
        for j, cell in enumerate(row):
            header = names_of[j] if j < len(names_of) else ""
            if j not in labels and not (matrix and header.strip() == label):
                sites += [replace(site, row=index) for site in _cell_sites(
                    table, cell, (label, corner, "" if own == label else own), header, j,
                    spreads)]
    return [replace(site, nameless=True) for site in sites] if nameless else sites


def _a_matrix(table: Table, labels: set[int]) -> bool:
    """A square table whose columns are headed by its rows' own names (``Uncompressed``,
    ``PCA``, ``1bit`` down and across): each cell relates two of them (a correlation), and
    its diagonal (``1.00``, each with itself) states nothing."""
    heads = [table.header[j].strip() for j in range(len(table.header)) if j not in labels]
    first = min(labels, default=0)
    rows = [row[first].text.strip() if first < len(row) else "" for row in table.rows
            if labels and row]  # (a row cut short has no name there)
    return len(heads) >= 2 and all(heads) and sorted(heads) == sorted(rows)


def _row_names(table: Table, row: list[Cell], labels: list[int], first: int,
               previous: dict[int, str]) -> list[str]:
    """The names a row's label cells give it. An empty name cell (or a ditto mark) is the one
    above's (a group of rows), but in a row of totals (``**Total**`` under ``Attempt``, the
    agent's cell empty) and right of the numbers (an empty note) it is only empty."""
    texts = [row[j].text.strip() if j < len(row) else "" for j in labels]
    totals = any(AGGREGATE.match(text) for text in texts)
    names = []
    for j, text in zip(labels, texts, strict=True):
        text = "" if _same_as_above(text) else text
        previous[j] = text or (previous.get(j, "") if j < first and not totals else "")
        names.append(_label(table, j, previous[j]))
    return names


def _naming_groups(table: Table, labels: set[int], first: int) -> set[int]:
    """The label columns that name groups of rows, not rows: left of the numbers, an empty
    cell (or a ditto mark) is the name above's (``Examination`` over ``C-Eval``); or every
    cell opens with one word (a task, ``NER (4-class)`` and ``NER (18-class)``)."""
    def cells(j: int) -> list[str]:
        return [row[j].text.strip() if j < len(row) else "" for row in table.rows]

    def carried(j: int) -> bool:
        return j < first and any(not text or _same_as_above(text) for text in cells(j)[1:])

    def one_word(j: int) -> bool:
        words = {text.split()[0] if text.split() else "" for text in cells(j)}
        return len(table.rows) >= 3 and len(words) == 1 and "" not in words
    return {j for j in labels if carried(j) or one_word(j)}


DECIMAL = re.compile(r"\d\.\d")


def rows_unnamed(table: Table, labels: set[int]) -> bool:
    """Whether nothing names a table's rows: two or more, no label column, no group row and
    no column of distinct cells without a decimal (``history size``: 0, 1, 2, all)."""
    if labels or len(table.rows) < 2 or any(_is_group(row, labels) for row in table.rows):
        return False
    width = max(len(row) for row in table.rows)
    return not any(_tells_rows_apart(table, j) for j in range(width))


def _tells_rows_apart(table: Table, column: int) -> bool:
    """A column of settings, one per row: its cells distinct, none a decimal (a result)."""
    cells = [row[column].text for row in table.rows if column < len(row)]
    return not any(DECIMAL.search(text) for text in cells) and len(set(cells)) == len(cells)


def _cell_sites(table: Table, cell: Cell, row: tuple[str, str, str], header: str,
                column: int, spreads: bool) -> list[Site]:
    # the row's name, the header over the names (``Model(CIFAR-100)``), and the row's own
    # names where a group's are carried down from above
    label, corner, own = row
    unit = _unit(table, header, label)
    where = f"{label} | {header}: {cell.text.strip()}"
    text = others_in_parentheses(f"{header} {table.caption}", spread_in_parentheses(
        header, cell.text, spreads))
    statements = find_statements(text, integers=True)
    header, names, parts = whole_and_parts(header, text, statements) or parenthesis_in_turn(
        header, text, statements) or declared_brackets(table, header, text, statements) or \
        parts_in_turn(header, cell.text, statements, table)
    units = _part_units(table, names, label, unit)
    split = len(set(parts)) == len(parts)  # (each number its part of the cell)
    rows, corners = (row_in_turn(name, len(parts)) if split else [name] * len(parts)
                     for name in (label, corner))
    return [Site(statement, ((0, cell.line), *cell.later), where, (
        Level("cell", f"{cell.text[start:end]} {name}".rstrip(), statement.anchor - start, True),
        Level("column", header, None, True),
        Level("row", rows[i], None, True, own=own if rows[i] == label else ""),
        Level("corner", corners[i], None, True, names_variants=False),
        Level("caption", table.caption, None, False, names_variants=False),
        Level("scope", table.scope, None, False, names_variants=False),
    ), in_table=True, unit=units[i], column=column)
        for i, (statement, (start, end), name) in enumerate(zip(statements, parts, names,
                                                                strict=True))]


def _part_units(table: Table, names: list[str], label: str, unit: str) -> list[str]:
    """Each of a cell's numbers' unit: the cell's, but where the header's parenthesis says
    the bracketed number is a percentage (``R-Precision (% original)`` over ``0.468
    (76%)``), the share's ``%`` and the score's own (none)."""
    if len(names) == 2 and names[1].startswith("%"):
        return [_unit(table, names[0], label), "%"]
    return [unit] * len(names)
