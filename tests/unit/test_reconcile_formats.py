"""The document model: each format's reader yields paragraphs and tables with their context,
and a malformed document is an error naming the file, the line and the fix."""

from __future__ import annotations

import pytest

from reconcile_helpers import check, drift
from rgt.deliver.inputs import DeliveryError
from rgt.evidence.reconcile.blocks import Paragraph, Table
from rgt.evidence.reconcile.csvdoc import csv_blocks
from rgt.evidence.reconcile.latex import latex_blocks, plain
from rgt.evidence.reconcile.markdown import markdown_blocks
from rgt.evidence.reconcile.tables import table_sites

LATEX_TABLE = r"""\documentclass{article}
\begin{document}
\section{Results}
\begin{table}
  \caption{Test accuracy (\%), mean $\pm$ std.}
  \begin{tabular}{@{}lcc@{}}
    \toprule
    & \multicolumn{2}{c}{CIFAR-10} \\ \cmidrule(lr){2-3}
    Method & Acc. & ECE \\
    \midrule
    \multirow{2}{*}{ERM} & $95.18 \pm 0.16$ & 2.91 \\
                         & 95.2 & 2.9 \\
    \textbf{Mixup} & \num{96.13} & 1.84 \\
    \bottomrule
  \end{tabular}
\end{table}
\end{document}
"""


def tables(blocks: list) -> list[Table]:
    return [block for block in blocks if isinstance(block, Table)]


def test_latex_tabular_headers_span_multicolumns_and_rows_inherit_multirow_labels():
    (table,) = tables(latex_blocks(LATEX_TABLE, "paper.tex"))
    assert table.header == ["Method", "CIFAR-10 Acc.", "CIFAR-10 ECE"]
    assert table.caption == "Test accuracy (%), mean ± std."
    assert table.scope == "Results"
    assert [[cell.text for cell in row] for row in table.rows] == [
        ["ERM", "95.18 ± 0.16", "2.91"], ["", "95.2", "2.9"], ["Mixup", "96.13", "1.84"]]
    assert [row[1].line for row in table.rows] == [11, 12, 13]
    sites = table_sites(table)
    assert [site.levels[2].text for site in sites][:4] == ["ERM"] * 4
    assert {site.unit for site in sites} == {"%"}


@pytest.mark.parametrize(("source", "text"), [
    (r"\num{0.9467 +- 0.0057}", "0.9467 ± 0.0057"),
    (r"\SI{94.7 \pm 0.6}{\percent}", "94.7 ± 0.6%"),
    (r"\SI{2.5}{\hour} and \SI{16}{\giga\byte}", "2.5 h and 16 GB"),
    (r"$-0.62$~pp \cite{he2016} in Table~\ref{tab:x}", "-0.62 pp [cite] in Table [ref tab:x]"),
    (r"\textbf{96.1}\% \vspace{-2mm} \emph{Mixup}", "96.1% Mixup"),
])
def test_latex_commands_read_as_the_text_they_typeset(source, text):
    assert plain(source) == text


def test_latex_math_displays_comments_preamble_and_bibliography_are_not_read(tmp_path):
    text = ("\\usepackage{x} % 95.12% test accuracy of Mixup on CIFAR-10\n\\begin{document}\n"
            "Mixup reaches 96.13\\% test accuracy on CIFAR-10. % was 95.12\\%\n"
            "\\begin{equation} \\text{Mixup test accuracy on CIFAR-10} = 0.12 \\end{equation}\n"
            "\\begin{thebibliography}{9}\\bibitem{a} Mixup, test accuracy 0.12, CIFAR-10."
            "\\end{thebibliography}\n\\end{document}\n")
    report = check(tmp_path, text, ".tex")
    assert report["drift"] == [] and report["unmapped"] == [] and len(report["matched"]) == 1


@pytest.mark.parametrize(("source", "line", "message"), [
    ("\\section{Results}\nMixup reaches \\num{96.13\\%.\n\nMore text.\n", 2,
     "the '{' opened here is never closed"),
    ("Text.\n\\textbf{a}}\n", 2, "a '}' closes nothing"),
    ("\\begin{tabular}{lc}\na & 1.0 \\\\\n", 1, "\\begin{tabular} is never ended"),
])
def test_latex_with_unbalanced_braces_or_environments_is_an_error_with_its_line(
        source, line, message):
    with pytest.raises(DeliveryError) as caught:
        latex_blocks(source, "paper/main.tex")
    assert f"paper/main.tex:{line}: " in caught.value.message
    assert message in caught.value.message and caught.value.fix


def test_markdown_tables_take_a_caption_and_headings_scope_what_follows():
    text = ("# Results\n\n## CIFAR-100\n\nTable 1: test accuracy (%).\n\n| Method | Acc. |\n"
            "|---|---|\n| **ERM** | 78.31 |\n| [Mixup](https://x.org/2101.12345) | 79.49 |\n")
    (table,) = tables(markdown_blocks(text))
    assert table.caption == "Table 1: test accuracy (%)."
    assert table.scope == "Results / CIFAR-100"
    assert [row[0].text for row in table.rows] == ["ERM", "Mixup"]


def test_markdown_list_items_are_paragraphs_and_front_matter_and_comments_are_skipped():
    text = ("---\nmarp: true\n---\n\n- ERM: 95.18%\n- Mixup: 96.13%\n  still Mixup\n"
            "<!-- 99.99% -->\n")
    paragraphs = [block.text for block in markdown_blocks(text) if isinstance(block, Paragraph)]
    assert paragraphs == ["ERM: 95.18%", "Mixup: 96.13% still Mixup"]


def test_csv_label_columns_name_rows_and_splits_other_than_the_claims_are_left_alone(tmp_path):
    text = ("method,split,acc_mean,acc_std,n_seeds\nMixup,test,0.9631,0.0012,3\n"
            "Mixup,val,0.9640,0.0009,3\nERM+RandAugment,test,0.9602,0.0013,2\n")
    report = check(tmp_path, text.replace("method", "dataset,method").replace(
        "\nMixup", "\nCIFAR-10,Mixup").replace("\nERM", "\nCIFAR-10,ERM"), ".csv")
    assert drift(report) == {("c10/mixup/accuracy", "0.9631")}
    assert [item["line"] for item in report["drift"]] == [2]
    assert report["unmapped"] == []


def test_a_csv_seed_column_marks_per_seed_rows(tmp_path):
    text = "dataset,method,seed,acc\nCIFAR-10,Mixup,0,0.9625\nCIFAR-10,Mixup,mean,0.9613\n"
    report = check(tmp_path, text, ".csv")
    assert report["drift"] == [] and len(report["matched"]) == 1


def test_a_ragged_csv_row_is_an_error_naming_its_line():
    with pytest.raises(DeliveryError) as caught:
        csv_blocks("method,acc\nERM,0.95\nMixup,0.96,0.97\n", "results.csv")
    assert caught.value.message == "results.csv:3: 3 cells, the header has 2"
    assert "one cell per header column" in caught.value.fix


def test_tsv_files_are_read_with_tabs(tmp_path):
    report = check(tmp_path, "dataset\tmethod\tacc\nCIFAR-10\tERM\t0.9512\n", ".tsv")
    assert drift(report) == {("c10/erm/accuracy", "0.9512")}
