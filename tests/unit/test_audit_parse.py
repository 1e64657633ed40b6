"""Phase-0 audit parsers on captured host output, and the disk/inode budget.

tests/data/captured/: df_*.txt, cgroup_v1_*.txt and probe_*.txt are real output captured on a
cgroup-v1 Linux host (df includes a real tmpfs mounted at "/tmp/rgt mnt/data disk", holding a
20 MiB file and 300 empty files; one sandbox-internal mount line was removed). The probe files
are PROBE_SCRIPT's real output under a CPU-only torch and under a python without torch.
nvidia_smi_*.txt and cgroup_v2_*.txt are synthetic (no GPU, no cgroup v2 there): the documented
formats with realistic values, each file saying so in a '#' header that ``captured`` drops.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rgt.platforms.facts import load_platform, shipped_platforms
from rgt.platforms.host_audit import (
    AuditError,
    BudgetPlan,
    Filesystem,
    disk_budget,
    filesystem_of,
    format_bytes,
    inode_cap_for,
    parse_cpu_max,
    parse_cpu_quota_v1,
    parse_df,
    parse_memory_limit,
    parse_nvidia_smi,
    parse_probe,
    require_fit,
)

CAPTURED = Path(__file__).resolve().parents[1] / "data" / "captured"
SPACED = "/tmp/rgt mnt/data disk"
MIB = 2**20


def captured(name: str) -> str:
    """A captured output without the '#' provenance header of the synthetic files."""
    lines = (CAPTURED / name).read_text().splitlines(keepends=True)
    return "".join(line for line in lines if not line.startswith("#"))


def mount(filesystems: list[Filesystem], path: str) -> Filesystem:
    return next(fs for fs in filesystems if fs.mount == path)


def test_df_in_bytes_keeps_a_mount_point_with_spaces_whole():
    disk = mount(parse_df(captured("df_b1.txt")), SPACED)
    assert (disk.source, disk.total, disk.used, disk.free) == (
        "tmpfs", 64 * MIB, 20 * MIB, 44 * MIB)
    assert disk.exact


def test_df_in_bytes_reads_free_space_not_size_minus_used():
    root = mount(parse_df(captured("df_b1.txt")), "/")
    assert root.free == 82284617728 and root.total - root.used != root.free  # reserved blocks


def test_df_human_readable_sizes_become_approximate_bytes():
    filesystems = parse_df(captured("df_h.txt"))
    disk = mount(filesystems, SPACED)
    assert (disk.total, disk.used, disk.free, disk.exact) == (64 * MIB, 20 * MIB, 44 * MIB, False)
    assert mount(filesystems, "/").total == 252 * 2**30


def test_df_inodes_of_a_mount_point_with_spaces():
    inodes = mount(parse_df(captured("df_i.txt")), SPACED)
    assert (inodes.total, inodes.used, inodes.free, inodes.exact) == (1000, 303, 697, True)


def test_df_kilobyte_blocks_are_scaled_and_dashes_mean_unknown():
    text = ("Filesystem     1024-blocks  Used Available Capacity Mounted on\n"
            "/dev/sdb1               10     4         6      40% /data\n"
            "nfs:/export             -      -         -       -  /mnt/nfs share\n")
    data, share = parse_df(text)
    assert (data.total, data.used, data.free) == (10240, 4096, 6144)
    assert (share.mount, share.total, share.free) == ("/mnt/nfs share", None, None)


@pytest.mark.parametrize("text", ["", "Size Used\n1 2\n", "Filesystem 1-blocks\ngarbage line\n"])
def test_df_without_posix_format_is_refused_with_the_fix(text):
    with pytest.raises(AuditError) as caught:
        parse_df(text)
    assert "-P" in caught.value.fix


@pytest.mark.parametrize("path, expected", [
    (f"{SPACED}/runs/abc", SPACED), (SPACED, SPACED), ("/devices/x", "/"),
    ("/dev/shm/a", "/dev/shm"),
])
def test_filesystem_of_picks_the_longest_mount_on_a_path_boundary(path, expected):
    assert filesystem_of(path, parse_df(captured("df_b1.txt"))).mount == expected


def test_filesystem_of_an_unmounted_path_is_refused():
    with pytest.raises(AuditError, match="no filesystem"):
        filesystem_of("/data", [Filesystem("x", "/mnt", 1, 0, 1, True)])


@pytest.mark.parametrize("name, expected", [
    ("cgroup_v1_memory_limit_in_bytes.txt", None),  # real: LONG_MAX rounded to a page
    ("cgroup_v2_memory_max_unlimited.txt", None),
    ("cgroup_v2_memory_max_limited.txt", 32 * 2**30),
])
def test_cgroup_memory_limit(name, expected):
    assert parse_memory_limit(captured(name)) == expected


def test_cgroup_v1_limit_just_below_the_unlimited_threshold_is_a_limit():
    assert parse_memory_limit(str(2**40)) == 2**40


def test_cgroup_memory_limit_that_is_not_a_number_names_the_value():
    with pytest.raises(AuditError, match="'lots'"):
        parse_memory_limit("lots\n")


@pytest.mark.parametrize("name, expected", [
    ("cgroup_v2_cpu_max_unlimited.txt", None), ("cgroup_v2_cpu_max_limited.txt", 8.0),
])
def test_cgroup_v2_cpu_max(name, expected):
    assert parse_cpu_max(captured(name)) == expected


def test_cgroup_v1_cpu_quota():
    period = captured("cgroup_v1_cpu_cfs_period_us.txt")
    assert parse_cpu_quota_v1(captured("cgroup_v1_cpu_cfs_quota_us.txt"), period) is None  # -1
    assert parse_cpu_quota_v1("250000\n", period) == 2.5


def test_cgroup_cpu_max_with_one_field_is_refused():
    with pytest.raises(AuditError, match="QUOTA PERIOD"):
        parse_cpu_max("100000")


def test_nvidia_smi_lists_every_gpu_in_order():
    gpus = parse_nvidia_smi(captured("nvidia_smi_multi_gpu.txt"))
    assert [gpu.index for gpu in gpus] == [0, 1, 2, 3]
    assert {gpu.name for gpu in gpus} == {"NVIDIA H100 80GB HBM3"}
    busy = gpus[0]
    assert (busy.memory_total_mib, busy.memory_used_mib, busy.utilization_percent) == (
        81559, 40963, 97)
    assert gpus[3].utilization_percent == 0


def test_nvidia_smi_not_available_fields_are_none():
    (gpu,) = parse_nvidia_smi(captured("nvidia_smi_not_available.txt"))
    assert (gpu.name, gpu.memory_total_mib, gpu.utilization_percent) == (
        "GRID A100D-40C", 40960, None)


def test_nvidia_smi_with_other_columns_names_the_query_to_run():
    with pytest.raises(AuditError) as caught:
        parse_nvidia_smi("NVIDIA H100, 81559\n")
    assert "--query-gpu=name,memory.total,memory.used,utilization.gpu" in caught.value.fix


def test_probe_of_a_cpu_only_torch():
    probe = parse_probe(captured("probe_cpu_torch.txt"))
    assert probe.cuda_available is False and probe.device_count == 0
    assert probe.torch.endswith("+cpu") and probe.executable.endswith("python")


def test_probe_without_torch_keeps_the_import_error():
    probe = parse_probe(captured("probe_no_torch.txt"))
    assert probe.torch is None and "No module named 'torch'" in probe.error


def test_probe_reads_the_last_line_after_shell_noise():
    noise = "conda: activating base\n" + captured("probe_cpu_torch.txt")
    assert parse_probe(noise).python == "3.11.7"


@pytest.mark.parametrize("text", ["", "bash: /root/miniconda3/bin/python: No such file", "{}"])
def test_probe_that_printed_no_json_is_refused_showing_what_it_printed(text):
    with pytest.raises(AuditError) as caught:
        parse_probe(text)
    assert text[-20:] in caught.value.message
    assert "rgt up ALIAS --python PATH" in caught.value.fix and "hosts.yaml" in caught.value.fix


# What bash prints for an interpreter path that is not there (exit 127) or not executable (126).
MISSING = "bash: line 1: /root/miniconda3/bin/python: No such file or directory\n"
NOT_EXECUTABLE = "bash: line 1: /opt/py: Permission denied\n"


@pytest.mark.parametrize(("code", "stderr", "said"), [
    (127, MISSING, "/root/miniconda3/bin/python does not exist on the host"),
    (126, NOT_EXECUTABLE, "/opt/py exists on the host but is not executable"),
    (1, "ImportError: bad\n", "exited with status 1: ImportError: bad")])
def test_an_interpreter_that_did_not_run_is_named_with_why(code, stderr, said):
    from rgt.remote.up import interpreter_failure

    python = "/opt/py" if code == 126 else "/root/miniconda3/bin/python"
    why = interpreter_failure(python, code, stderr)
    with pytest.raises(AuditError) as caught:
        parse_probe("", why)
    assert said in caught.value.message and python in caught.value.message
    assert "see the text above" not in caught.value.fix


# --- budget: ~44 MiB free and 697 inodes free on the captured spaced mount ------------------

def spaced_disk(name: str = "df_b1.txt") -> Filesystem:
    return mount(parse_df(captured(name)), SPACED)


def spaced_inodes() -> Filesystem:
    return mount(parse_df(captured("df_i.txt")), SPACED)


def test_budget_accepts_a_plan_that_fits():
    plan = BudgetPlan(checkpoint_bytes=4 * MIB, keep=2, runs=3, scratch_bytes=8 * MIB,
                      files_per_run=100)
    verdict = disk_budget(plan, spaced_disk(), spaced_inodes())
    assert verdict.fits and not verdict.reasons
    assert (verdict.need_bytes, verdict.need_inodes) == (32 * MIB, 300)
    assert "plan fits" in verdict.summary()
    require_fit(verdict)


def test_budget_refuses_a_plan_that_does_not_fit_naming_the_numbers():
    plan = BudgetPlan(checkpoint_bytes=4 * MIB, keep=3, runs=3, scratch_bytes=8 * MIB)
    verdict = disk_budget(plan, spaced_disk())
    assert not verdict.fits
    for words in ("4.0 MiB × keep 3 × 3 runs", "scratch 8.0 MiB", "44.0 MiB needed",
                  "39.6 MiB is usable", SPACED, "44.0 MiB free", "10% margin"):
        assert words in verdict.summary()
    with pytest.raises(AuditError) as caught:
        require_fit(verdict)
    assert "does NOT fit" in caught.value.message and "checkpoint.keep" in caught.value.fix


def test_budget_boundary_is_exact():
    disk = Filesystem("d", "/d", 2000, 1000, 1000, True)
    assert disk_budget(BudgetPlan(100, keep=3, runs=3, margin=0.1), disk).fits  # 900 of 900
    assert not disk_budget(BudgetPlan(100, keep=3, runs=3, scratch_bytes=1, margin=0.1),
                           disk).fits


def test_budget_refuses_when_inodes_run_out_before_bytes():
    plan = BudgetPlan(checkpoint_bytes=1, keep=2, runs=3, files_per_run=300)
    verdict = disk_budget(plan, spaced_disk(), spaced_inodes())
    assert not verdict.fits and len(verdict.reasons) == 1
    assert "300 files × 3 runs" in verdict.reasons[0] and "900 needed" in verdict.reasons[0]
    assert "627 are usable" in verdict.reasons[0]  # 697 free less 10%


def test_budget_applies_a_platform_inode_cap_that_df_does_not_show():
    inodes = Filesystem("nfs", "/root/autodl-fs", 10**8, 150_000, 10**8 - 150_000, True)
    disk = Filesystem("nfs", "/root/autodl-fs", 10**12, 0, 10**12, True)
    plan = BudgetPlan(checkpoint_bytes=1, keep=2, runs=1, files_per_run=60_000)
    assert disk_budget(plan, disk, inodes).fits
    autodl = load_platform("autodl", shipped_platforms())
    cap = inode_cap_for(autodl, "/root/autodl-fs/rgt", disk.mount)
    verdict = disk_budget(plan, disk, inodes, cap)
    assert not verdict.fits and verdict.usable_inodes == 45_000
    assert "(AutoDL's inode cap of 200,000 on /root/autodl-fs, 150,000 in use)" in (
        verdict.reasons[0])


AUTODL_DISKS = ("/root/autodl-fs/rgt", "/root/autodl-fs"), ("/root/autodl-fs/rgt", "/"), (
    "/root/autodl-tmp/rgt", "/root/autodl-tmp"), ("/root/rgt", "/")


@pytest.mark.parametrize(("root", "mount"), AUTODL_DISKS)
def test_the_inode_cap_applies_to_the_mount_the_platform_file_names_only(root, mount):
    autodl = load_platform("autodl", shipped_platforms())
    cap = inode_cap_for(autodl, root, mount)
    assert (cap is not None) is root.startswith("/root/autodl-fs")
    assert inode_cap_for(load_platform("ssh", shipped_platforms()), root, mount) is None


def test_the_cap_does_not_refuse_a_plan_on_root_with_many_inodes_in_use():
    # The audit of the report: `/` holds 563,279 inodes in use; AutoDL's cap is not its cap.
    root_fs = Filesystem("overlay", "/", 16_777_216, 563_279, 16_213_937, True)
    disk = Filesystem("overlay", "/", 10**11, 0, 10**11, True)
    plan = BudgetPlan(checkpoint_bytes=1, keep=2, runs=4, files_per_run=24)
    cap = inode_cap_for(load_platform("autodl", shipped_platforms()), "/root/rgt", "/")
    assert cap is None and disk_budget(plan, disk, root_fs, cap).fits


def test_budget_ignores_inodes_on_a_filesystem_that_does_not_count_them():
    no_inodes = Filesystem("btrfs", SPACED, 0, 0, 0, True)
    verdict = disk_budget(BudgetPlan(1, 2, 1, files_per_run=10**9), spaced_disk(), no_inodes)
    assert verdict.fits and verdict.usable_inodes is None


def test_budget_from_rounded_df_h_says_so():
    verdict = disk_budget(BudgetPlan(64 * MIB, keep=2, runs=1), spaced_disk("df_h.txt"))
    assert "df -h rounds" in verdict.reasons[0]


def test_budget_plan_with_negative_counts_is_refused():
    with pytest.raises(AuditError, match="impossible budget plan"):
        BudgetPlan(checkpoint_bytes=1, keep=-1, runs=1)


@pytest.mark.parametrize("count, text", [(0, "0 B"), (1023, "1023 B"), (1536, "1.5 KiB"),
                                         (3 * 2**30, "3.0 GiB"), (2**50, "1024.0 TiB")])
def test_format_bytes(count, text):
    assert format_bytes(count) == text
