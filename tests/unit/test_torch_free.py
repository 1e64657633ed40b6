"""The controller side stays light: importing the executor plugin never imports torch."""

from __future__ import annotations

import subprocess
import sys


def test_importing_the_executor_does_not_import_torch():
    code = ("import sys, snakemake_executor_plugin_rgt.executor, "
            "snakemake_executor_plugin_rgt.pool, rgt.pool.station, "
            "rgt.remote.up, rgt.remote.runner\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'torch'))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=True)
    assert done.stdout.strip() == "[]"


def test_the_check_sees_torch_when_it_is_imported():
    done = subprocess.run([sys.executable, "-c", "import sys, rgt.train.trainer\n"
                           "print('torch' in sys.modules)"], capture_output=True, text=True,
                          timeout=120, check=True)
    assert done.stdout.strip() == "True"
