"""What a reproduction says: where both sides were made, each compared number, the summary."""

from __future__ import annotations

import sys


def platform_text(entries: list[dict]) -> str:
    """One platform (or several) of ``made_on`` in words."""
    if not entries:
        return "an unrecorded platform"
    return "; ".join(
        f"{entry.get('cpu') or 'unknown CPU'} [{entry.get('capability') or '?'}], torch "
        f"{entry.get('torch') or '?'} ({entry.get('blas') or 'BLAS ?'}), "
        f"{entry.get('threads') or '?'} thread(s), {entry.get('device') or '?'} "
        f"(fingerprint {str(entry.get('fingerprint'))[:12]})" for entry in entries)


def print_reproduction(result, evidence: str, reference: str, quiet: bool = False) -> int:
    """Say where both were made, each compared number (every one across platforms, the
    mismatches on one), and the summary; 0 when every reference number is reproduced."""
    if not quiet:
        _print_comparisons(result)
    in_reference = [entry for entry in result.compared if entry["expected_claim"]]
    reproduced = sum(entry["ok"] for entry in in_reference)
    print(f"{evidence} vs {reference}: {reproduced} of {len(in_reference)} reference "
          f"claim(s) reproduced, {len(result.mismatches)} mismatch(es)", file=sys.stderr)
    if result.mismatches:
        print("  fix: find what changed (code, data, environment); if the new numbers are "
              "right, commit the regenerated evidence as the reference", file=sys.stderr)
    return 1 if result.mismatches else 0


def _print_comparisons(result) -> None:
    if not result.same_platform:
        print("cross-machine reproduction: the committed evidence was made on "
              f"{platform_text(result.reference_platforms)}; this one on "
              f"{platform_text(result.current_platforms)}. Bit-identity holds on one "
              "platform only, so each number is judged against the reference's seed spread:")
    for entry in result.compared:
        if entry["ok"] and result.same_platform:
            continue
        if entry["ok"]:
            diff = "" if entry["diff"] is None else f", diff {entry['diff']:+.3g}"
            print(f"  ok {entry['claim']}: {entry['found']!r} here, {entry['expected']!r} "
                  f"committed{diff} ({entry['rule']})")
        else:
            print(f"MISMATCH {entry['claim']}: {entry['problem']}")
