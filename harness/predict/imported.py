"""`harness predict import cruxeval PATH`: a user's checkout of CruxEval (cruxeval.py reads
it) written as a prediction set that `harness predict eval --items NAME` reads like a built
one: one output-prediction task per item (build.write_task), `items.jsonl` and the set's
manifest, which names the benchmark and the data file it was read from with its hash. Every
item is in the eval split; a benchmark is for measuring, so no training rows are exported.
The checkout is read, never copied: the set holds the items and the harness ships none."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import BadInput
from ..fs import atomic_write, write_record, written_folder
from ..hashing import sha256_bytes
from ..sandbox.image import image_repo
from ..store import utc_now
from ..suite import MANIFEST as SUITE_MANIFEST, SuiteManifest, render_manifest
from ..training_files import MANIFEST_FILE
from . import cruxeval
from .build import write_task
from .config import PredictImportConfig
from .items import ITEMS_FILE, SOURCE_KINDS, PredictManifest


@dataclass
class Imported:
    path: Path
    manifest: PredictManifest
    source: Path


def import_cruxeval(config: PredictImportConfig) -> Imported:
    out = config.out
    dest = config.out_root() / out
    if dest.exists() and not config.replace:
        raise BadInput(f"{dest} exists (give --replace to overwrite it)")
    data, raw, items = cruxeval.read_checkout(config.path)
    lines = "".join(i.model_dump_json() + "\n" for i in items).encode()
    manifest = PredictManifest(
        name=out, suite="cruxeval", suite_hash=sha256_bytes(raw), created=utc_now(),
        format_version=cruxeval.FORMAT_VERSION, content_hash=sha256_bytes(lines), source_tasks=[],
        eval_tasks=[cruxeval.TASK], items={"train": 0, "eval": len(items)},
        by_source={k: len(items) if k == "reference" else 0 for k in SOURCE_KINDS}, dropped={},
        benchmark=cruxeval.BENCHMARK, source=str(data.resolve()))
    with written_folder(dest) as folder:
        for item in items:
            write_task(folder / item.id, item)
        (folder / SUITE_MANIFEST).write_text(render_manifest(SuiteManifest(
            name=out, version=f"cruxeval answer format {cruxeval.FORMAT_VERSION}", language="python",
            image=image_repo("python"), description=f"CruxEval-O: {len(items)} items read from {data}",
            source=str(data.resolve()), tasks=[i.id for i in items])))
        atomic_write(folder / ITEMS_FILE, lines)
        write_record(folder / MANIFEST_FILE, manifest)
    return Imported(dest, manifest, data)
