"""A document's plots as PNG: grouped bars, the successes heatmap, a lineage's lines."""

from __future__ import annotations

import io
import textwrap

import numpy as np

from .document import Bars, Heatmap, Lines


def _lines_figure(plot: Lines):
    """Each task's line is offset a little so that tasks with equal counts stay visible."""
    # matplotlib takes half a second to import: only a report with plots pays for it.
    from matplotlib.figure import Figure

    n_tasks, n_points = plot.successes.shape
    fig = Figure(figsize=(max(5.5, 1.1 * n_points + 3.5), 4.6), dpi=100)
    ax = fig.add_subplot()
    x = np.arange(n_points)
    offsets = np.linspace(-0.12, 0.12, n_tasks) if n_tasks > 1 else np.zeros(1)
    for i, task in enumerate(plot.tasks):
        y = np.where(plot.trials[i] > 0, plot.successes[i], np.nan).astype(float)
        ax.plot(x, y + offsets[i], marker="o", markersize=3, linewidth=1.2, label=task)
    top = int(plot.trials.max()) if plot.trials.size else 1
    ax.set_ylim(-0.5, top + 0.5)
    ax.set_yticks(np.arange(top + 1))
    ax.set_xticks(x, plot.checkpoints, rotation=30 if n_points > 3 else 0, ha="right" if n_points > 3 else "center",
                  fontsize=8)
    ax.set_ylabel(plot.ylabel)
    ax.set_title(textwrap.fill(plot.title, 70), fontsize=9)
    if n_tasks <= 30:
        ax.legend(fontsize=6, loc="center left", bbox_to_anchor=(1.01, 0.5), ncol=1 if n_tasks <= 15 else 2)
    return fig


def render_png(plot: Bars | Heatmap | Lines) -> bytes:
    """One plot as PNG bytes, drawn on matplotlib's Agg canvas (no display, no pyplot)."""
    # matplotlib takes half a second to import: only a report with plots pays for it.
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    if isinstance(plot, Lines):
        fig = _lines_figure(plot)
    elif isinstance(plot, Bars):
        fig = Figure(figsize=(max(5.0, 1.2 * len(plot.configs) + 2), 4.2), dpi=100)
        ax = fig.add_subplot()
        x = np.arange(len(plot.configs))
        width = 0.38
        for j, (label, color) in enumerate((("round 1", "#7aa6d6"), ("two rounds", "#2b5d95"))):
            means = np.array([m[j] for m in plot.means])
            lows = np.array([iv[j][0] for iv in plot.intervals])
            highs = np.array([iv[j][1] for iv in plot.intervals])
            ax.bar(x + (j - 0.5) * width, means, width, label=label, color=color,
                   yerr=np.vstack([means - lows, highs - means]), capsize=3, ecolor="#333333")
        ax.set_xticks(x, plot.configs, rotation=30 if len(plot.configs) > 4 else 0, ha="right" if len(plot.configs) > 4 else "center")
        ax.set_ylabel("mean tasks solved")
        ax.set_ylim(0, max(plot.tasks) * 1.05 if plot.tasks else 1)
        ax.set_title(textwrap.fill(plot.title, 70), fontsize=9)
        ax.legend(fontsize=8)
    else:
        n_tasks, n_configs = plot.successes.shape
        height = min(16.0, max(3.0, 0.22 * n_tasks + 1.5))
        fig = Figure(figsize=(max(4.5, 1.3 * n_configs + 3), height), dpi=100)
        ax = fig.add_subplot()
        with np.errstate(invalid="ignore", divide="ignore"):
            share = np.where(plot.trials > 0, plot.successes / np.maximum(plot.trials, 1), np.nan)
        image = ax.imshow(share, aspect="auto", cmap="RdYlGn", vmin=0, vmax=1, interpolation="nearest")
        ax.set_xticks(np.arange(n_configs), plot.configs, rotation=30 if n_configs > 3 else 0)
        if n_tasks <= 120:
            ax.set_yticks(np.arange(n_tasks), plot.tasks, fontsize=7)
        else:
            ax.set_yticks([])
            ax.set_ylabel(f"{n_tasks} tasks")
        if n_tasks * n_configs <= 600:
            for i in range(n_tasks):
                for j in range(n_configs):
                    if plot.trials[i, j] > 0:
                        ax.text(j, i, f"{plot.successes[i, j]}/{plot.trials[i, j]}", ha="center", va="center", fontsize=7)
        fig.colorbar(image, ax=ax, fraction=0.04, label="share of trials solved")
        ax.set_title(textwrap.fill(plot.title, 60), fontsize=9)
    fig.tight_layout()
    buffer = io.BytesIO()
    FigureCanvasAgg(fig).print_png(buffer)
    return buffer.getvalue()
