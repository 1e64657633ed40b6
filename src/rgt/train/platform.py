"""What decides a run's bits besides its inputs: the thread settings rgt fixes for every run,
and the platform fingerprint sealed into ``run.json``.

The same run id on the same fingerprint gives the same bytes, whatever executes it (the laptop,
a rented host, Slurm, Kubernetes): the thread counts are fixed by the run (``train.threads``,
or ``job.threads`` for your own command: 1 when left out), never inherited from the executor's
environment. Across fingerprints the kernels round differently (another CPU's vector width,
another BLAS build), so bit-identity is not promised there and a reproduction is judged against
the seed spread (``rgt.evidence.check_reference``).

The fingerprint covers the CPU (vendor, model, the ISA extensions kernels dispatch on), torch's
build (version, the CPU capability ATen dispatches to, BLAS and oneDNN), the thread settings
(intra-op, inter-op, OpenMP, MKL) and the device (GPU name, CUDA and cuDNN versions).
"""

from __future__ import annotations

import os
import platform
import re
from contextlib import suppress
from pathlib import Path

from rgt.base.hashing import digest_json

# The environment variables the math libraries read their thread count from at start-up.
THREAD_ENV = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")
THREADS_ENV = "RGT_THREADS"  # what a job's own process is told to use (the plain-loop API)
DEFAULT_JOB_THREADS = 1
# The ISA extensions that change which kernels run (x86 and Arm), as /proc/cpuinfo names them.
ISA_FLAGS = ("sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512dq", "avx512bw",
             "avx512vl", "avx512_vnni", "avx512_bf16", "avx512_fp16", "avx_vnni", "amx_tile",
             "amx_bf16", "amx_int8", "asimd", "asimddp", "sve", "sve2", "bf16", "i8mm")


def thread_environment(threads: int) -> dict[str, str]:
    """The variables that fix a process's math-library threads (set before it starts)."""
    return {**dict.fromkeys(THREAD_ENV, str(threads)), THREADS_ENV: str(threads)}


def fix_threads(threads: int) -> dict:
    """Fix this process's torch threads (intra-op and, when still possible, inter-op) and the
    environment its children inherit; return the settings now in force."""
    import torch  # deferred: the controller imports this module's thread_environment

    os.environ.update(thread_environment(threads))
    torch.set_num_threads(threads)
    # Once parallel work has started the inter-op count is fixed: it is recorded as it is.
    with suppress(RuntimeError):
        torch.set_num_interop_threads(threads)
    return thread_settings()


def thread_settings() -> dict:
    """The thread counts in force: torch intra-op and inter-op, OpenMP's and MKL's maxima."""
    import torch

    info = torch.__config__.parallel_info()
    return {"intra_op": torch.get_num_threads(), "inter_op": torch.get_num_interop_threads(),
            "omp": _parallel_count(info, "omp_get_max_threads"),
            "mkl": _parallel_count(info, "mkl_get_max_threads")}


def _parallel_count(info: str, name: str) -> int | None:
    match = re.search(rf"{name}\(\) : (\d+)", info)
    return int(match.group(1)) if match else None


def cpu_facts(cpuinfo: str | None = None) -> dict:
    """The CPU's vendor, model and ISA extensions (from /proc/cpuinfo where there is one)."""
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text(errors="replace")
        except OSError:
            cpuinfo = ""
    fields = {}
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        fields.setdefault(key.strip(), value.strip())
    flags = set((fields.get("flags") or fields.get("Features") or "").split())
    return {"vendor": fields.get("vendor_id") or fields.get("CPU implementer") or None,
            "model": fields.get("model name") or platform.processor() or platform.machine(),
            "machine": platform.machine(), "isa": [flag for flag in ISA_FLAGS if flag in flags]}


def torch_build() -> dict:
    """torch's version and the libraries its kernels come from."""
    import torch

    shown = torch.__config__.show()
    return {"torch": torch.__version__, "capability": torch.backends.cpu.get_cpu_capability(),
            "blas": _build_setting(shown, "BLAS_INFO"),
            "blas_library": _first_line(shown, ("Math Kernel Library", "OpenBLAS", "BLIS")),
            "onednn": _first_line(shown, ("MKL-DNN", "oneDNN")),
            "cuda": torch.version.cuda, "cudnn": _cudnn_version(torch)}


def _build_setting(shown: str, name: str) -> str | None:
    match = re.search(rf"{name}=([^,\s]+)", shown)
    return match.group(1) if match else None


def _first_line(shown: str, needles: tuple[str, ...]) -> str | None:
    for line in shown.splitlines():
        if any(needle in line for needle in needles):
            return line.strip(" -")
    return None


def _cudnn_version(torch) -> int | None:
    try:
        return torch.backends.cudnn.version() if torch.cuda.is_available() else None
    except RuntimeError:
        return None


def device_facts(device: str) -> dict:
    """The device a run computed on, with the GPU's name when it is one."""
    import torch

    facts = {"device": device}
    if device.startswith("cuda") and torch.cuda.is_available():
        facts["gpu"] = torch.cuda.get_device_name(torch.device(device))
    return facts


def platform_record(device: str) -> dict:
    """The ``platform`` block of ``run.json``: every fact above and their ``fingerprint``."""
    record = {"cpu": cpu_facts(), "build": torch_build(), "threads": thread_settings(),
              **device_facts(device)}
    return {**record, "fingerprint": digest_json(record)[:16]}


def job_device() -> str:
    """The device a job's own loop used: the current CUDA device once CUDA is in use."""
    import torch

    if torch.cuda.is_available() and torch.cuda.is_initialized():
        return f"cuda:{torch.cuda.current_device()}"
    return "cpu"
