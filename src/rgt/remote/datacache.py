"""Declared data on a rented host, sent once per content.

Each data file a training job declares goes to ``<root>/data-cache/<sha256>`` (through
``transfer.push``: resumable, verified by sha256 on the host, skipped when the cache already
holds that content), then is hard-linked into the code tree at its project path (copied where
the disk refuses hard links), so the job reads the same relative paths as here while a new code
tree re-sends no byte of data.
"""

from __future__ import annotations

from pathlib import Path

from rgt.remote.ssh import RemoteHost
from rgt.remote.transfer import TransferStats, push, validate_relpath

CACHE = "data-cache"
# Run in the project root with "<sha256> <path>" lines on stdin. A path that already is the
# cached file is left alone (a running job may be reading it); any other is replaced by rename.
LINK_SCRIPT = r"""set -e
while IFS= read -r line; do
  digest=${line%% *} rel=${line#* }
  [ "$rel" -ef "$1/$digest" ] && continue
  mkdir -p -- "$(dirname -- "$rel")"
  ln -f -- "$1/$digest" "$rel.rgt-link" 2>/dev/null || cp -- "$1/$digest" "$rel.rgt-link"
  mv -f -- "$rel.rgt-link" "$rel"
done"""


def place_data(host: RemoteHost, root: str, code_dir: str, files: dict[str, Path],
               digests: dict[str, str]) -> TransferStats:
    """Put ``files`` ({path in the code tree: local file}, with their ``digests``) into the
    host's cache under ``root``, then link each at ``code_dir/<path>``; ``code_dir`` is relative
    to ``root``. Returns what the push to the cache moved."""
    if not files:
        return TransferStats(0, 0, 0, 0.0)
    by_content = {digests[rel]: path for rel, path in files.items()}
    stats = push(host, by_content, f"{root}/{CACHE}")
    lines = "".join(f"{digests[rel]} {code_dir}/{validate_relpath(rel)}\n"
                    for rel in sorted(files))
    host.run(["bash", "-c", LINK_SCRIPT, "link-data", CACHE], stdin=lines.encode(), cwd=root,
             timeout=300)
    return stats
