"""Deterministic mode: the cuBLAS workspace setting it needs on CUDA, recorded in run.json."""

from __future__ import annotations

from rgt.train.determinism import configure


def test_cublas_workspace_is_set_when_unset_and_recorded():
    environ: dict = {}
    record = configure(1, environ)
    assert environ["CUBLAS_WORKSPACE_CONFIG"] == ":4096:8"
    assert record["cublas_workspace_config"] == ":4096:8"
    assert record["cublas_workspace_config_set_by"] == "rgt"
    assert record["deterministic_algorithms"] is True


def test_a_workspace_set_by_the_environment_is_kept():
    environ = {"CUBLAS_WORKSPACE_CONFIG": ":16:8"}
    record = configure(1, environ)
    assert environ["CUBLAS_WORKSPACE_CONFIG"] == ":16:8"
    assert (record["cublas_workspace_config"], record["cublas_workspace_config_set_by"]) == (
        ":16:8", "environment")
