"""How a report writes numbers: means with two decimals, percents with one."""

from __future__ import annotations


def fmt_mean(mean: float, tasks: int) -> str:
    """`11.25 (43.3%)`: expected tasks solved and its percent of the suite."""
    return f"{mean:.2f} ({100 * mean / tasks:.1f}%)" if tasks else "n/a"


def fmt_ratio(k: int, n: int) -> str:
    """`16/59 (27.1%)`."""
    return f"{k}/{n} ({100 * k / n:.1f}%)" if n else f"{k}/{n} (n/a)"


def fmt_interval(low: float, high: float) -> str:
    return f"[{low:.2f}, {high:.2f}]"


def fmt_signed(x: float) -> str:
    return f"{x:+.2f}"


def fmt_p(p: float) -> str:
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def fmt_percent(x: float) -> str:
    return "n/a" if x != x else f"{100 * x:.1f}%"
