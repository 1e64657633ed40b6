"""Markdown's inline text as plain text: links as their text (in a table, a link that names
nothing as its target's file name), inline code not read but a number (with its unit) or a
word on its own, inline math as its plain text, emphasis and HTML tags dropped, HTML
entities read as their characters (``&plusmn;``)."""

from __future__ import annotations

import html
import re

from rgt.evidence.reconcile.latex import plain
from rgt.evidence.reconcile.text import marks

# inline math with a command, as GitHub renders it (``$\\Delta$ Acc (%)``: Δ Acc (%)), or
# a number's (``$84.2\\pm0.3$``, ``$53\\%$``, ``$10$``: MyST, Quarto), not two prices
MATH = re.compile(r"(?<![\\$])\$(?:(?=\\)[^$\n]+?|[-+\u2212]?\d[\d.,]*"
                  r"(?:\s*(?:\\[a-zA-Z]+|\\%|[-+\u2212%^_{}()])\s*[\d.,]*)*)\$(?!\d)")
CODE_SPAN = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)")
# `enwik8`, `wikitext-103`, `vit_base.sbb_in1k`: one word, a name (`dqn_atari.py`, a file,
# is not read)
NAME_SPAN = re.compile(r"\s*[^\W\d_][\w\-]*(?:\.[\w\-]+)*\s*")
FILE_SPAN = re.compile(r".*\.(?:py|sh|ya?ml|json|txt|md|rst|cfg|ini|toml|ipynb|csv|tsv|log|pth?|"
                       r"ckpt|bin|h5|npz|pkl|zip|tar|gz|tgz)\s*", re.IGNORECASE)
# a number on its own, or with its unit of time, size or ratio (`` `-64.08 s` ``, `` `12 GB` ``)
BARE_NUMBER = re.compile(r"\s*[-+\u2212]?\d[\d,]*(?:\.\d+)?\s*"
                         r"(?:%|(?:m|\u00b5|u)?s|h|min|[KMG]i?B|x)?\s*")
LINK = re.compile(r"!?\[([^\]]*)\]\(([^)]*)\)")
SITE_NAME = re.compile(r"\s*(?:[a-z][\w-]*\.)+(?:dev|ai|com|io|org|net|co)\s*")  # a host's name
NUMBER_FIRST = re.compile(r"\s*[-+\u2212]?\d[\d,]*(?:\.\d+)?\s*%?\s*[,;]")  # ``98.72%, …``
# a link's text that says only that it links, to a run's configuration: its target names the
# run (a checkpoint's ``[Download]`` does not: its file's name holds its scores, ``top1_3.52``)
BARE_LINK_TEXT = re.compile(r"\s*(?:link|here|config|cfg|yaml|yml|script)\s*", re.IGNORECASE)
# a file a link downloads (weights, a log, an archive): what it holds, not which run it is
DOWNLOAD = re.compile(r"\.(?:pth?|ckpt|h5|bin|safetensors|npz|pkl|log|txt|zip|tar|gz|tgz)$",
                      re.IGNORECASE)
# a backslash-escaped mark is the mark itself (``pose_hrnet_w48\*``: a starred name, no
# emphasis), held aside as a private-use character while emphasis is removed
ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")
HELD = 0xE000
SINGLE_STAR = re.compile(r"(?<!\*)\*(?!\*)")
STARRED_NAME = re.compile(r"(?<![\w*])([^\s|*]*[^\W\d_][^\s|*]*)\*(?![\w*])")
HELD_BACK = re.compile("[\ue000-\ue07f]")
# an HTML tag or comment; not a placeholder in angle brackets (``<Rank-1 (mAP)>``, a format)
HTML_TAG = re.compile(r"<!--.*?-->|</?[A-Za-z][\w:-]*(?:\s+[\w:-]+(?:\s*=\s*(?:\"[^\"]*\"|"
                      r"'[^']*'|[^\s>]+))?)*\s*/?>")
INLINE = [
    (LINK, r"\1"),  # links and images: their text
    # a reference link, ``[1.39 hrs (CPU parallel)][2]``: its text, the label no citation
    (re.compile(r"\[([^\[\]]+)\]\[[^\[\]]*\]"), r"\1"),
    # LaTeX's text commands in Markdown written for a LaTeX build (``\texttt{PAF} (ours)``)
    (re.compile(r"\\(?:texttt|textbf|textit|textsc|textrm|emph|bf|it)\{([^{}]*)\}"), r"\1"),
    # a venue citation, [CVPR'17], names a paper between a row label's words: not a name
    (re.compile(r"\[\s*[A-Za-z][\w-]*\s*'\d{2}\s*\]"), " "),
    (HTML_TAG, " "),
    # emphasis (``_**0.2697**_`` too; not snake_case's underscores), code marks
    (re.compile(r"\*\*|__|(?<!\w)\*(?!\s)|(?<!\s)\*(?!\w)|(?<!\w)_(?=\S)|(?<=\S)_(?!\w)|`"),
     ""),
]


def _link_name(match: re.Match) -> str:
    """In a table, a link whose text names nothing (``[link](scinet_etth1_l48_h24.yml)``) reads
    as its target's file name, one whose text is a site's name (``tensorboard.dev``) as
    nothing; any other link as its text."""
    text, target = match.groups()
    if SITE_NAME.fullmatch(text):
        return " "  # ``[tensorboard.dev](…)``: the site it links to, no name of the run's
    name = target.strip().rstrip("/").rsplit("/", 1)[-1]
    if not BARE_LINK_TEXT.fullmatch(text) or not name or re.search(r"\d\.\d", name) or \
            DOWNLOAD.search(name):
        return text
    return name


# a command a reader types (``python train.py --lr 0.02 …``): its flags name no metric or split
COMMAND = re.compile(r"^\s*(?:\$\s*)?(?:python3?|bash|sh|torchrun|accelerate|deepspeed)\s|"
                     r"\s--[A-Za-z]")


def _code(match: re.Match, names: bool) -> str:
    """An inline code span: a command in prose (not read), but a number (with its unit) or a
    word on its own is one (`` `60.6` ``, `` `-64.08 s` ``, `` `enwik8` ``), and in a table a
    name (`` `dqn_atari.py` ``, `` `ve/cifar10_ncsnpp/` ``) unless it is a command there too
    (`` `python train.py --lr 0.02` ``)."""
    content = match.group(2)
    named = NAME_SPAN.fullmatch(content) and not FILE_SPAN.fullmatch(content)
    if names and COMMAND.search(content):
        return " "
    return content if names or BARE_NUMBER.fullmatch(content) or named else " "


def inline(text: str, names: bool = False) -> str:
    """A line of Markdown as plain text (``names``: a table's, whose code spans are names)."""
    text = CODE_SPAN.sub(lambda match: _code(match, names), text)
    text = MATH.sub(lambda match: plain(match.group(0)), text)
    text = ESCAPED.sub(lambda match: chr(HELD + ord(match.group(1))), text)
    if len(SINGLE_STAR.findall(text)) == 1:  # no emphasis: a starred name (``ViTPose-B*``)
        text = STARRED_NAME.sub(lambda match: match.group(1) + chr(HELD + ord("*")), text)
    if names:
        # a link after a cell's number points at its logs (``98.72%, [tb.dev](…)``): no name
        text = LINK.sub(" ", text) if NUMBER_FIRST.match(text) \
            else LINK.sub(_link_name, text)
    for pattern, replacement in INLINE:
        text = pattern.sub(replacement, text)
    return marks(html.unescape(HELD_BACK.sub(lambda match: chr(ord(match.group(0)) - HELD), text)))
