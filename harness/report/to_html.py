"""A document as one self-contained HTML page."""

from __future__ import annotations

import base64
import html

from .document import Document

_CSS = """body{font-family:system-ui,sans-serif;margin:2em;max-width:80em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em}th,td{border:1px solid #ccc;padding:.25em .6em;text-align:right}
th.text,td.text{text-align:left}th{background:#f0f3f7}caption{caption-side:bottom;font-style:italic;padding:.3em}
.lead{font-weight:bold;font-size:1.1em}p.warn{font-weight:bold;color:#8a5300}.PASS{color:#17692b}.FAIL{color:#a31515}li.warn{color:#8a5300}img{max-width:100%}"""


def _linked(cell: str, links: dict[str, str]) -> str:
    if cell not in links:
        return html.escape(cell)
    return f"<a href='{html.escape(links[cell])}'>{html.escape(cell)}</a>"


def render_html(doc: Document, pngs: dict[str, bytes]) -> str:
    """One self-contained page: the tables, and the plots embedded as base64 PNG."""
    e = html.escape
    out = ["<!doctype html>", "<html><head><meta charset='utf-8'>", f"<title>{e(doc.title)}</title>",
           f"<style>{_CSS}</style></head><body>", f"<h1>{e(doc.title)}</h1>"]
    if doc.pages:
        out.append(f"<p><a href='{e(doc.pages)}'>Every trial behind these numbers</a></p>")
    for line in doc.lead:
        cls = "lead " + line.split(":")[0] if line.startswith(("PASS", "FAIL")) else "lead"
        out.append(f"<p class='{cls}'>{e(line)}</p>")
    for warning in doc.warnings:
        out.append(f"<p class='warn'>{e(warning)}</p>")
    if doc.notes:
        out.append("<ul>" + "".join(
            f"<li{' class=warn' if n.startswith('Not like') else ''}>{e(n)}</li>" for n in doc.notes) + "</ul>")
    for table in doc.tables:
        out.append(f"<h2>{e(table.title)}</h2><table>")
        if table.caption:
            out.append(f"<caption>{e(table.caption)}</caption>")
        text = {i for i in range(len(table.columns)) if not table.numeric(i)}
        out.append("<tr>" + "".join(f"<th{' class=text' if i in text else ''}>{e(c)}</th>"
                                    for i, c in enumerate(table.columns)) + "</tr>")
        out += ["<tr>" + "".join(f"<td{' class=text' if i in text else ''}>{_linked(c, doc.links) if i == 0 else e(c)}</td>"
                                 for i, c in enumerate(row)) + "</tr>" for row in table.rows]
        out.append("</table>")
    for plot in doc.plots:
        if plot.name in pngs:
            data = base64.b64encode(pngs[plot.name]).decode()
            out.append(f"<h2>{e(plot.title)}</h2><img alt='{e(plot.title)}' src='data:image/png;base64,{data}'>")
    out.append("</body></html>")
    return "\n".join(out)
