"""rgt.train.platform: the thread settings a run fixes and the fingerprint sealed in run.json."""

from __future__ import annotations

import os

import pytest
import torch

from rgt.train import platform as fp

X86 = """processor\t: 0
vendor_id\t: GenuineIntel
model name\t: Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz
flags\t\t: fpu sse4_2 avx avx2 fma f16c avx512f avx512bw hypervisor constant_tsc
"""
ARM = """processor\t: 0
CPU implementer\t: 0x41
Features\t: fp asimd evtstrm aes crc32 asimddp sve
"""


def test_the_cpu_is_named_with_the_isa_extensions_kernels_dispatch_on():
    intel = fp.cpu_facts(X86)
    assert intel["vendor"] == "GenuineIntel"
    assert intel["model"].startswith("Intel(R) Xeon(R) Gold 6248")
    assert intel["isa"] == ["sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw"]
    assert fp.cpu_facts(ARM)["isa"] == ["asimd", "asimddp", "sve"]  # no VM noise either way


@pytest.fixture
def restore_threads():
    before = torch.get_num_threads(), {k: os.environ.get(k) for k in fp.THREAD_ENV}
    yield
    torch.set_num_threads(before[0])
    for key, value in before[1].items():
        os.environ.pop(key, None) if value is None else os.environ.__setitem__(key, value)


def test_fixing_threads_sets_torch_and_the_environment_children_inherit(restore_threads):
    settings = fp.fix_threads(1)
    assert settings["intra_op"] == 1 and settings["omp"] == 1
    assert {key: os.environ[key] for key in fp.THREAD_ENV} == dict.fromkeys(fp.THREAD_ENV, "1")
    assert fp.thread_environment(3)[fp.THREADS_ENV] == "3"


def test_the_fingerprint_follows_what_decides_the_bits(restore_threads):
    fp.fix_threads(1)
    record = fp.platform_record("cpu")
    assert record == fp.platform_record("cpu")  # stable
    assert record["build"]["torch"] == torch.__version__ and record["build"]["capability"]
    assert record["threads"]["intra_op"] == 1 and record["device"] == "cpu"
    torch.set_num_threads(2)
    assert fp.platform_record("cpu")["fingerprint"] != record["fingerprint"]
