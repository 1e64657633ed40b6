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

# "<sha256> <path>" lines on stdin, the cache directory as $1. A path that already is the cached
# file is left alone (a running job may be reading it); any other is replaced by a rename.
LINK_SCRIPT = r"""set -e
while IFS= read -r line; do
  digest=${line%% *} path=${line#* }
  [ "$path" -ef "$1/$digest" ] && continue
  mkdir -p -- "$(dirname -- "$path")"
  ln -f -- "$1/$digest" "$path.rgt-link" 2>/dev/null || cp -- "$1/$digest" "$path.rgt-link"
  mv -f -- "$path.rgt-link" "$path"
done"""


def place_data(host: RemoteHost, cache_dir: str, code_dir: str, files: dict[str, Path],
               digests: dict[str, str]) -> TransferStats:
    """Put ``files`` ({path in the code tree: local file}, with their ``digests``) into the
    host's ``cache_dir``, then link each at ``code_dir/<path>``. Returns what the push to the
    cache moved."""
    if not files:
        return TransferStats(0, 0, 0, 0.0)
    stats = push(host, {digests[rel]: path for rel, path in files.items()}, cache_dir)
    lines = "".join(f"{digests[rel]} {code_dir}/{validate_relpath(rel)}\n"
                    for rel in sorted(files))
    host.run(["bash", "-c", LINK_SCRIPT, "link-data", cache_dir], stdin=lines.encode(),
             timeout=300)
    return stats
