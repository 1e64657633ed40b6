"""What kind of number a metric is, from its name: which integrity checks can judge it, and the
unit a reader expects (accuracy in percent).

- **top-1** metrics (accuracy, error rate) are judged from the argmax predictions;
- **probabilistic** metrics (loss, NLL, perplexity, bits per character) from the probability
  given to the true label — never from top-1 predictions, which for a language model
  concentrate on frequent tokens as a matter of course;
- any other metric has no predictions-based check.
"""

from __future__ import annotations

from collections.abc import Iterable

TOP1 = "top-1"
PROBABILISTIC = "probabilistic"
_TOP1_NAMES = {"accuracy", "acc", "top1", "top1_accuracy", "error", "error_rate"}
_PROBABILISTIC_NAMES = {"loss", "nll", "cross_entropy", "xent", "log_loss", "perplexity", "ppl",
                        "bpc", "bits_per_char", "bits_per_byte"}
_PROPORTION_NAMES = {"accuracy", "acc", "top1", "top1_accuracy", "top5", "top5_accuracy",
                     "error", "error_rate", "precision", "recall", "f1", "auc", "auroc"}


def view_of(metric: str) -> str | None:
    """``TOP1``, ``PROBABILISTIC`` or None for a metric name (case-insensitive)."""
    name = metric.lower()
    if name in _TOP1_NAMES:
        return TOP1
    return PROBABILISTIC if name in _PROBABILISTIC_NAMES else None


def group_by_view(names: Iterable[str]) -> dict[str, list[str]]:
    """Metric names (sorted, unique) grouped by their view; names without one are left out."""
    views: dict[str, list[str]] = {}
    for name in sorted(set(names)):
        if view_of(name) is not None:
            views.setdefault(view_of(name), []).append(name)
    return views


def is_proportion(metric: str) -> bool:
    """Whether the metric is a share in [0, 1] that readers expect in percent."""
    return metric.lower() in _PROPORTION_NAMES


def format_value(metric: str, value: float, signed: bool = False) -> str:
    """A value in the reader's unit: ``95.29%`` for proportions, 4 significant digits else."""
    if is_proportion(metric):
        return f"{100 * value:+.2f}%" if signed else f"{100 * value:.2f}%"
    return f"{value:+.4g}" if signed else f"{value:.4g}"


def format_difference(metric: str, value: float, signed: bool = True) -> str:
    """A difference in the reader's unit: percentage points for proportions."""
    sign = "+" if signed else ""
    return f"{100 * value:{sign}.2f} pp" if is_proportion(metric) else f"{value:{sign}.4g}"
