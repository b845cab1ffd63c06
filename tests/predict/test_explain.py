"""`harness predict explain` on a Python prediction set written here: each item's call is
traced for real in Docker (a long loop cut at the paper's 10,000 line events, and said so;
statements with an observation not traced), a scripted OpenAI-compatible model explains each
trace, right for one item and wrong for the others (one of them judged by CruxEval's rule,
its answer evaluated in the sandbox), and only the right one becomes an SFT row: the
prediction prompt asking for reasoning, without the trace, then the explanation and the answer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from harness.predict.build import write_task
from harness.predict.explain import REASON
from harness.predict.items import PredictItem, PredictManifest, Provenance, PythonAssertion
from harness.predict.prompt import FORMAT_VERSION, prompt_messages
from harness.predict.score import PREDICTION_RULE
from harness.suite import SuiteManifest, render_manifest
from harness.training_files import MANIFEST_FILE, ChatMessage, SftRow

from tests.scripted_model import Script, ScriptedModel

HARNESS = str(Path(sys.executable).with_name("harness"))
CODE = '''def triangle(n):
    total = 0
    for k in range(1, n + 1):
        total += k
    return total


def spin(n):
    while n > 0:
        n -= 1
    return "done"
'''
EXPLANATION = "The loop adds 1, 2, 3 and 4 to a total that starts at 0, so the call returns 10."


def _item(n: int, call: str, value) -> PredictItem:
    return PredictItem(id=f"py-{n}", task="pyset/numbers", split="train", check=call, call=call,
                       files={"numbers.py": CODE}, code_hash="numbers", expected={"o": [{"v": value}]},
                       answer=json.dumps(value), compare=PREDICTION_RULE,
                       sources=[Provenance(task="pyset/numbers", source="reference")])


def _write_set(root: Path, items: list[PredictItem]) -> None:
    folder = root / "py"
    for item in items:
        write_task(folder / item.id, item)
    (folder / "suite.toml").write_text(render_manifest(SuiteManifest(
        name="py", version="answer format 1", language="python", image="harness-python", tasks=[i.id for i in items])))
    (folder / MANIFEST_FILE).write_text(PredictManifest(
        name="py", suite="pyset", suite_hash="-", created="2026-12-06T00:00:00Z", format_version=FORMAT_VERSION,
        content_hash="-", source_tasks=["pyset/numbers"], eval_tasks=[], items={"train": len(items), "eval": 0},
        by_source={"reference": len(items)}, dropped={}).model_dump_json())


def test_only_explanations_whose_answer_is_right_are_kept(tmp_path, docker_sandbox):
    # The third is statements with an observation: no one call to trace, and never asked about.
    # The fourth is judged by CruxEval's rule: the answer's expression is evaluated in the sandbox.
    crux = PredictItem(id="crux-0", task="cruxeval/cruxeval-o", split="train", check="crux-0", call="f([1, 2])",
                       files={"f.py": "def f(xs):\n    return xs + xs\n"}, code_hash="crux", answer=
                       "assert f([1, 2]) == [1, 2, 1, 2]", expected={"o": [{"v": [1, 2, 1, 2]}]},
                       compare=PythonAssertion(), sources=[Provenance(task="cruxeval/cruxeval-o", source="reference")])
    items = [_item(1, "triangle(4)", 10), _item(2, "spin(20000)", "done"), _item(3, "x = triangle(2)\n=> x", 3), crux]
    _write_set(tmp_path / "curricula", items)

    def reply(body: dict) -> str:
        asked = body["messages"][-1]["content"]
        if "triangle(4)" in asked:
            return f"[EXPLANATION]\n{EXPLANATION}\n[/EXPLANATION]\n```\n10\n```"
        if "assert f([1, 2]) == ??" in asked:   # wrong: the list once, not twice
            return "[EXPLANATION]It returns the list.[/EXPLANATION]\n[ANSWER]\nassert f([1, 2]) == [1, 2]\n[/ANSWER]"
        return '[EXPLANATION]It counts n down to zero and never stops.[/EXPLANATION]\n\n```\n"never"\n```'

    with ScriptedModel({"explainer": Script(by_request=reply)}) as server:
        got = subprocess.run([HARNESS, "predict", "explain", "--items", "py", "--model", "openai/explainer",
                              "--api-base", server.api_base, "--sandbox", "docker", "--workers", "1"],
                             capture_output=True, text=True, cwd=tmp_path, env={**os.environ, "COLUMNS": "200"})
        asked = {next(k for k in ("triangle(4)", "spin(", "f([1, 2])") if k in r["messages"][-1]["content"]):
                 r["messages"][-1]["content"] for r in server.requests["explainer"]}
        assert len(server.requests["explainer"]) == 3      # one request per traced item, none for the third
    assert got.returncode == 0, got.stderr
    assert "1 rows (kept 1, not traced 1, wrong 2" in got.stdout, got.stdout
    # The traces the model read, as the sandbox ran the calls.
    assert "line 4: total += k  k=4" in asked["triangle(4)"] and "returns 10" in asked["triangle(4)"]
    assert "(trace cut: over 10000 line events or 1048576 characters)" in asked["spin("]
    assert "returns 'done'" in asked["spin("]   # the call ran on past the cut, to its end
    assert "line 2: return xs + xs  xs=[1, 2]" in asked["f([1, 2])"]

    rows = [SftRow.model_validate_json(line) for line in (tmp_path / "curricula" / "py" / "explain-sft.jsonl")
            .read_text().splitlines()]
    assert len(rows) == 1
    row = rows[0]
    system, user = prompt_messages(items[0].files, items[0].call)
    # The prediction prompt asking for reasoning, no trace in it; the explanation, then the answer.
    assert row.messages[:-1] == [system, ChatMessage(role="user", content=f"{user.content}\n\n{REASON}")]
    assert "trace" not in row.messages[-2].content
    assert row.messages[-1].content == f"{EXPLANATION}\n\n```\n10\n```"
    assert (row.task_id, row.source_task) == ("py/py-1", "pyset/numbers")
    assert row.provenance is not None and row.provenance.model_dump() == {
        "source": "trace-explanation", "item": "py-1", "model": "openai/explainer", "cut": False,
        "events": 11}   # line 2, the for line 5 times (k = 1..4, then the end), line 4 four times, line 5
