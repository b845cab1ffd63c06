"""A document as Markdown; its plots are PNG files the page links to."""

from __future__ import annotations

from .document import Document


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(doc: Document, images: dict[str, str]) -> str:
    """images: plot name -> the relative path its PNG was written to."""
    out = [f"# {doc.title}", ""]
    for line in doc.lead:
        out += [f"**{line}**", ""]
    for warning in doc.warnings:
        out += [f"> **{warning}**", ""]
    if doc.notes:
        out += [f"- {n}" for n in doc.notes] + [""]
    for table in doc.tables:
        out += [f"## {table.title}", ""]
        if table.caption:
            out += [f"*{table.caption}*", ""]
        out.append("| " + " | ".join(_md_cell(c) for c in table.columns) + " |")
        out.append("|" + "|".join("---:" if table.numeric(i) else "---" for i in range(len(table.columns))) + "|")
        out += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in table.rows]
        out.append("")
    for plot in doc.plots:
        if plot.name in images:
            out += [f"## {plot.title}", "", f"![{plot.title}]({images[plot.name]})", ""]
    return "\n".join(out)
