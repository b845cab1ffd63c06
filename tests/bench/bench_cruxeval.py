"""CruxEval-O on the real benchmark: `harness predict import cruxeval CHECKOUT`, then `harness
predict eval` twice against a scripted model, once answering every item with its recorded
output (must score 100%) and once with another item's output (the next item's whose value
differs: must score 0%), each answer evaluated in the Docker sandbox by CruxEval's rule.
Prints JSON: items, correct per run, pass@1 per run, wall seconds of each eval.

    .venv/bin/python tests/bench/bench_cruxeval.py CHECKOUT [--workers 4]

CHECKOUT is a checkout of facebookresearch/cruxeval (or its data/cruxeval.jsonl); the
harness never ships the data."""

from __future__ import annotations

import argparse
import ast
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from harness.predict.breakdown import run_breakdown  # noqa: E402
from harness.predict.build import read_items  # noqa: E402
from harness.predict.config import PredictEvalConfig, PredictImportConfig  # noqa: E402
from harness.predict.evaluate import evaluate  # noqa: E402
from harness.predict.imported import import_cruxeval  # noqa: E402
from harness.predict.prompt import item_messages  # noqa: E402
from harness.records import TrialOutcome  # noqa: E402
from tests.scripted_model import Script, ScriptedModel  # noqa: E402


def _key(messages: list) -> str:
    return next(m["content"] for m in messages if m["role"] == "user")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("checkout", type=Path)
    parser.add_argument("--workers", type=int, default=4)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="bench-cruxeval-"))
    t0 = time.monotonic()
    imported = import_cruxeval(PredictImportConfig(path=args.checkout, out="cruxeval-o", root=root / "curricula"))
    import_s = time.monotonic() - t0
    items = read_items(imported.path)
    outputs = [i.answer[len(f"assert {i.call} == "):] for i in items]
    wrong = {}
    for n, item in enumerate(items):
        m = (n + 1) % len(items)
        while ast.literal_eval(outputs[m]) == ast.literal_eval(outputs[n]):
            m = (m + 1) % len(items)
        wrong[item.id] = outputs[m]
    out = {"items": len(items), "import_s": round(import_s, 1), "workers": args.workers}
    for label, answer in (("true", lambda i: i.answer),
                          ("wrong", lambda i: f"assert {i.call} == {wrong[i.id]}")):
        replies = {_key([m.model_dump() for m in item_messages(i)]): f"[ANSWER]\n{answer(i)}\n[/ANSWER]" for i in items}
        with ScriptedModel({"m": Script(by_request=lambda body: replies[_key(body["messages"])])}) as server:
            t0 = time.monotonic()
            done = evaluate(PredictEvalConfig(model="openai/m", api_base=server.api_base, items="cruxeval-o",
                                              root=root / "curricula", runs_dir=root / "runs", run_id=label,
                                              workers=args.workers, sandbox="docker"))
            seconds = time.monotonic() - t0
        rows = run_breakdown(done.folder.root)["openai-m"]
        out[label] = {"correct": done.count(TrialOutcome.passed), "wrong": done.count(TrialOutcome.failed),
                      "infra": done.count(TrialOutcome.infra_error), "wall_s": round(seconds, 1),
                      "rows": {r.group: round(r.accuracy * 100, 1) for r in rows if "task" not in r.group}}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
