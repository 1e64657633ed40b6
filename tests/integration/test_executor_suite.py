"""Snakemake's own executor-plugin test suite, run for the ``rgt`` executor against a real
OpenSSH server on loopback.

``snakemake.common.tests.TestWorkflowsLocalStorageBase`` runs Snakemake's generic workflows (a
chain of shell rules, and a group job) through the plugin: every job is pushed to the "rented"
host, runs there detached under Snakemake's own job command, and its products come back
sha256-verified. Nothing is shared between the two sides but SSH.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from snakemake.common.tests import TestWorkflowsLocalStorageBase

from snakemake_executor_plugin_rgt import ExecutorSettings
from sshd import ALIAS

pytestmark = [pytest.mark.integration, pytest.mark.ssh, pytest.mark.timeout(300)]


class TestRgtExecutor(TestWorkflowsLocalStorageBase):
    __test__ = True

    @pytest.fixture(autouse=True)
    def _host(self, sshd_server, request):
        """The loopback sshd; each test gets its own project root on the host's disk."""
        self.server = sshd_server
        self.root = sshd_server.disk / f"suite-{request.node.name}"

    def get_executor(self) -> str:
        return "rgt"

    def get_executor_settings(self) -> ExecutorSettings:
        return ExecutorSettings(host=ALIAS, ssh_config=str(self.server.ssh_config),
                                python=sys.executable, remote_root=str(self.root))

    def get_assume_shared_fs(self) -> bool:
        return False

    def run_workflow(self, test_name, tmp_path, deployment_method=frozenset()):
        super().run_workflow(test_name, tmp_path, deployment_method)
        self._check_ran_on_the_host(Path(tmp_path) / test_name)

    def _check_ran_on_the_host(self, workdir: Path) -> None:
        """Every product exists here and was made in a job directory on the host."""
        remote = {path.relative_to(job).as_posix()
                  for job in (self.root / "snakejobs").iterdir()
                  for path in job.rglob("*.out")}
        local = {path.relative_to(workdir).as_posix() for path in workdir.rglob("*.out")}
        assert "test3.out" in local
        assert local <= remote, f"made here, not on the host: {sorted(local - remote)}"
        launched = [int((self.root / "jobs" / job.name / "launches").read_text())
                    for job in (self.root / "snakejobs").iterdir()]
        assert launched and set(launched) == {1}
