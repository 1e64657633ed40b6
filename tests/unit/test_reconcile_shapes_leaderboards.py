"""Shapes of results the real corpus's sixty-third held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: CogDL's leaderboard, where the
toolkit ran every method itself and each method's name carries a link to its paper, written
as a citation with a venue and year (``NetMF [(Qiu et al, WSDM'18)](…)``). The snippets
follow that shape, with numbers of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim, assert_drifts
from reconcile_helpers import reconcile_text as run
from rgt.evidence.reconcile.exclusions import CITATION

RUNS = [alias_claim(dataset.lower(), method.lower(), "micro_f1", value, [method, dataset])
        for method, dataset, value in (("NetMF", "PPI", 24.86), ("NetMF", "Wikipedia", 58.46),
                                       ("Spectral", "PPI", 23.33))]
BOARD = ("We run all algorithms on several real-world datasets.\n\n"
         "| Rank | Method | PPI | Wikipedia |\n| ---- | ---- | :--: | :--: |\n"
         "| 1 | NetMF [(Qiu et al, WSDM'18)](http://arxiv.org/abs/1710.02971) | NETMF | "
         "**58.46** |\n"
         "| 2 | Spectral [(Tang et al, Data Min Knowl Disc (2011))](https://link.springer.com/"
         "article/10.1007/s10618-010-0210-x) | 23.33 | 50.33 |\n")


@pytest.mark.parametrize("netmf, found", [("24.86", set()), ("24.89", {"24.89"})],
                         ids=["clean", "drifted"])
def test_a_method_named_with_its_paper_s_citation_is_the_project_s_run(tmp_path, netmf, found):
    # before, `(Qiu et al, WSDM'18)` left the words `Qiu` and `WSDM` unknown, so the row read
    # as the cited paper's numbers, and its `et al` as another system's name
    report = run(tmp_path, RUNS, BOARD.replace("NETMF", netmf))
    assert_drifts(report, found, "ppi/netmf/micro_f1/test", 3)


@pytest.mark.parametrize("text", ["(Qiu et al, WSDM'18)", "(Qiu et at, WWW'19)",
                                  "(Tang et al, Data Min Knowl Disc (2011))"])
def test_a_citation_with_a_venue_and_year_is_one_citation(text):
    assert CITATION.fullmatch(text)
