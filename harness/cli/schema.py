"""`harness schema`: the JSON Schemas of the records the harness writes (the log format)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer

from ..errors import BadInput
from ..fs import atomic_write, check_writable
from ..report.data import REPORT_DATA
from ..schemas import RECORDS, schema
from ..testwriting.pool import POOL_FILE, PoolRecord
from .app import app, console, err, handled


@app.command("schema")
@handled
def schema_cmd(
    name: Optional[str] = typer.Argument(None, help="result, manifest, test-report, trajectory, exercism-results, "
                                                    "report-data, compare-data, lineage-data, plan-data or pool "
                                                    "(default: list them)"),
    out: Optional[Path] = typer.Option(None, "--out", help="write every schema as <name>.schema.json into this folder"),
):
    """Print the JSON Schema of a record on disk, made from the model that writes it; with
    no name, list the records and the files they describe."""
    every = RECORDS | REPORT_DATA | {
        "pool": (f"<suite>/{POOL_FILE}: where a pool's tasks came from, and what was left out (harness pool import)",
                 PoolRecord),
    }

    if out is not None:
        if name is not None:
            raise BadInput("--out writes every schema; drop the name, or print one without --out")
        check_writable(out, "--out")
        out.mkdir(parents=True, exist_ok=True)
        for record in every:
            atomic_write(out / f"{record}.schema.json", (json.dumps(schema(record, every), indent=2) + "\n").encode())
        err.print(f"wrote {len(every)} schemas under {out}", markup=False, highlight=False)
        return
    if name is not None:
        sys.stdout.write(json.dumps(schema(name, every), indent=2) + "\n")
        return
    for record, (where, _) in every.items():
        console.print(f"{record:17} {where}", markup=False, highlight=False, soft_wrap=True)
