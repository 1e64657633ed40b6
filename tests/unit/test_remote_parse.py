"""Parsers of remote command output, on output captured from the loopback sshd (OpenSSH 9.2,
coreutils 9.1, OpenSSL 3.0) running rgt's own survey command over a small tree: `a.txt`,
`sub dir/-b.bin`, an empty file, a missing file and `out -> /etc` (a symlink escape)."""

from __future__ import annotations

import pytest

from rgt.remote.parse import (
    parse_escapes,
    parse_manifest,
    parse_sha256sum,
    parse_stat_sizes,
    sha256_printed,
    split_sections,
)

NAMES = ["a.txt", "sub dir/-b.bin", "empty", "missing", "out/passwd"]
A_TXT = "b6a98d9ce9a2d9149288fa3df42d377c3e42737afdcdaf714e33c0a100b51060"
B_BIN = "ae4b3280e56e2faf83f414a6e3dabe9d5fbe18976544c05fed121accb85b53fc"
EMPTY = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
PASSWD = "fbb009546a886aff175d5515b702dd415fbc24bdee63f1ddaf7931c922cb3566"
ROOT = "/tmp/tmpig6z00ru/s/disk/proj"

# `stat -L --printf '%s %n\n'`, then `openssl dgst -sha256 -r`, then `realpath -m -- . NAMES`.
SURVEY_OPENSSL = (
    "--size--\n6 a.txt\n3 sub dir/-b.bin\n0 empty\n1267 out/passwd\n--sha256--\n"
    f"{A_TXT} *a.txt\n{B_BIN} *sub dir/-b.bin\n{EMPTY} *empty\n{PASSWD} *out/passwd\n"
    f"--real--\n{ROOT}\n{ROOT}/a.txt\n{ROOT}/sub dir/-b.bin\n{ROOT}/empty\n{ROOT}/missing\n"
    "/etc/passwd\n"
)
# The same survey where openssl is absent and coreutils `sha256sum` hashes (two spaces).
SHA256SUM_SECTION = (
    f"--sha256--\n{A_TXT}  a.txt\n{B_BIN}  sub dir/-b.bin\n{EMPTY}  empty\n{PASSWD}  out/passwd\n"
)
# `find . -type f -printf '%s %P\n'` then `find . -type f -exec openssl dgst -sha256 -r {} +`.
FIND_LISTING = (
    "--size--\n3 sub dir/-b.bin\n0 empty\n6 a.txt\n--sha256--\n"
    f"{B_BIN} *./sub dir/-b.bin\n{EMPTY} *./empty\n{A_TXT} *./a.txt\n"
)


def test_split_sections_groups_lines_under_their_markers():
    sections = split_sections(SURVEY_OPENSSL)
    assert sorted(sections) == ["real", "sha256", "size"]
    assert sections["size"][1] == "3 sub dir/-b.bin"
    assert len(sections["real"]) == len(NAMES) + 1


def test_split_sections_keeps_an_empty_section_and_ignores_preamble():
    assert split_sections("noise\n--size--\n--sha256--\n") == {"size": [], "sha256": []}


def test_parse_stat_sizes_reads_names_with_spaces_and_leading_dashes():
    sizes = parse_stat_sizes(split_sections(SURVEY_OPENSSL)["size"])
    assert sizes == {"a.txt": 6, "sub dir/-b.bin": 3, "empty": 0, "out/passwd": 1267}


def test_parse_stat_sizes_rejects_a_line_without_a_size():
    with pytest.raises(ValueError, match="stat line"):
        parse_stat_sizes(["stat: cannot stat 'missing'"])


@pytest.mark.parametrize("section", [split_sections(SURVEY_OPENSSL)["sha256"],
                                     split_sections(SHA256SUM_SECTION)["sha256"]],
                         ids=["openssl", "sha256sum"])
def test_parse_sha256sum_reads_openssl_and_coreutils_formats(section):
    assert parse_sha256sum(section) == {"a.txt": A_TXT, "sub dir/-b.bin": B_BIN, "empty": EMPTY,
                                        "out/passwd": PASSWD}


def test_parse_sha256sum_rejects_an_escaped_coreutils_line():
    # coreutils prefixes a line with "\" when the name holds a backslash or newline.
    with pytest.raises(ValueError, match="sha256sum line"):
        parse_sha256sum([f"\\{A_TXT}  a\\\\b"])


def test_parse_manifest_joins_sizes_and_hashes_and_drops_missing():
    sections = split_sections(SURVEY_OPENSSL)
    manifest = parse_manifest(sections["size"], sections["sha256"])
    assert manifest["sub dir/-b.bin"] == (3, B_BIN)
    assert "missing" not in manifest


def test_parse_manifest_strips_finds_dot_slash_prefix():
    sections = split_sections(FIND_LISTING)
    manifest = parse_manifest(sections["size"], sections["sha256"], hashed_prefix="./")
    assert manifest == {"a.txt": (6, A_TXT), "sub dir/-b.bin": (3, B_BIN), "empty": (0, EMPTY)}


def test_parse_escapes_finds_the_symlink_leading_outside_the_root():
    assert parse_escapes(NAMES, split_sections(SURVEY_OPENSSL)["real"]) == ["out/passwd"]


def test_parse_escapes_does_not_take_a_sibling_with_a_common_prefix_as_inside():
    assert parse_escapes(["x"], ["/data/run", "/data/run2/x"]) == ["x"]


def test_parse_escapes_rejects_a_listing_of_the_wrong_length():
    with pytest.raises(ValueError, match="realpath printed"):
        parse_escapes(NAMES, [ROOT])


def test_sha256_printed_finds_the_line_for_a_name_among_errors():
    # stderr of `$SHA256 -- a.txt >&2 & cat a.txt; wait`, with a warning a shell might add.
    stderr = f"bash: warning: setlocale: LC_ALL: cannot change locale\n{A_TXT} *a.txt\n"
    assert sha256_printed(stderr, "a.txt") == A_TXT
    assert sha256_printed(stderr, "b.txt") is None
