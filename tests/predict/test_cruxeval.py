"""CruxEval-O (predict/cruxeval.py) on a small checkout of the benchmark's shape written here
(`cruxeval-checkout/data/cruxeval.jsonl`: six functions of ours, with code, input, output
and id as the benchmark's file has them; the real data's check is tests/bench/bench_cruxeval.py):
`harness predict import cruxeval` reads it as a set, `harness predict eval --samples 6
--temperature --top-p` asks a scripted model that is right on a planned number of each
item's samples, every answer evaluated in the Docker sandbox, and `harness report` gives
pass@1 and pass@5 equal to the share of 5-sample draws with a right answer, counted by
brute force. The answer's reading and Python's `==` on values read back are checked alone."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading
from itertools import combinations
from pathlib import Path

import pytest
from rich.console import Console

from harness.predict.breakdown import run_breakdown
from harness.predict.build import read_items
from harness.predict.cruxeval import read_prediction, same_value
from harness.predict.prompt import item_messages
from harness.report import ReportRequest, report as write_report

from tests.scripted_model import Script, ScriptedModel

HARNESS = str(Path(sys.executable).with_name("harness"))
CHECKOUT = Path(__file__).parent / "cruxeval-checkout"
# Right answers among each item's 6 samples, in the file's order.
RIGHT = [0, 1, 2, 6, 3, 1]
SAMPLES = 6


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([HARNESS, *args], capture_output=True, text=True, cwd=cwd, env={**os.environ, "COLUMNS": "200"})


def brute_pass_at(right: int, n: int, k: int) -> float:
    """The share of k-sample draws (without replacement) holding a right answer."""
    draws = list(combinations(range(n), k))
    return sum(any(i < right for i in d) for d in draws) / len(draws)


def test_the_answer_is_the_assertions_right_hand_side_read_by_pythons_parser():
    assert read_prediction("[ANSWER]\nassert f([1]) == [2, 6]\n[/ANSWER]") == "[2, 6]"
    assert read_prediction("Let me think.\n[ANSWER]\nassert f('a') == 'x == y'\n[/ANSWER] done") == "'x == y'"
    assert read_prediction("[ANSWER]\n(3, 1)\n[/ANSWER]") == "(3, 1)"
    assert read_prediction("```python\nassert f(1) == {'a': [1,\n 3]}\n```") == "{'a': [1,\n 3]}"
    for text in ("[ANSWER]\nassert f(1) == \n[/ANSWER]", "I think it is 3.", "[ANSWER]\nx = 3\n[/ANSWER]",
                 "[ANSWER]\nassert f(1) < 3\n[/ANSWER]", "[ANSWER]\n1\n2\n[/ANSWER]", ""):
        assert read_prediction(text) is None, text


def test_values_read_back_compare_as_pythons_eq():
    def rec(v):
        return {"o": [{"v": v}]}

    assert same_value(rec(True), rec(1)) and same_value(rec(2), rec(2.0))            # True == 1, 2 == 2.0
    assert not same_value(rec({"tuple": [1]}), rec([1]))                              # (1,) != [1]
    assert same_value(rec({"dict": [["a", 1], ["b", 2]]}), rec({"dict": [["b", 2], ["a", 1]]}))
    assert same_value(rec({"set": [1, 2]}), rec({"set": [2, 1]}))
    assert not same_value(rec({"float": "nan"}), rec({"float": "nan"}))               # nan != nan
    assert same_value(rec({"int": "1" * 30}), rec({"int": "1" * 30}))
    assert not same_value(rec("x"), rec({"object": ["Yes", "<Yes>"]}))
    assert not same_value(rec("x"), {"o": [{"x": "ValueError"}]}) and not same_value(rec("x"), None)
    assert not same_value(rec({"set": [[1]]}), rec({"set": [[1]]}))                    # no honest encoder writes it


@pytest.mark.slow
@pytest.mark.docker
def test_import_then_sampled_eval_gives_cruxevals_pass_at_1_and_5(tmp_path):
    got = cli("predict", "import", "cruxeval", str(CHECKOUT), "--out", "crux", "--root", "sets", cwd=tmp_path)
    assert got.returncode == 0, got.stderr
    assert "6 CruxEval-O items" in got.stdout
    items = read_items(tmp_path / "sets" / "crux")
    assert [i.id for i in items] == [f"sample_{n}" for n in range(6)] and {i.split for i in items} == {"eval"}
    assert "[ANSWER]" in item_messages(items[0])[-1].content and "assert f([1, 2, 3]) == ??" in item_messages(items[0])[-1].content

    # Each item's first RIGHT[n] requests are answered with its output, the rest wrongly.
    plan = {item_messages(i)[-1].content: (i, RIGHT[n]) for n, i in enumerate(items)}
    seen: dict[str, int] = {}
    lock = threading.Lock()
    bodies = []

    def answer(body):
        key = body["messages"][-1]["content"]
        with lock:
            seen[key] = seen.get(key, 0) + 1
            bodies.append(body)
            item, right = plan[key]
            return f"[ANSWER]\n{item.answer}\n[/ANSWER]" if seen[key] <= right else "[ANSWER]\nassert f() == 'nope'\n[/ANSWER]"

    with ScriptedModel({"m": Script(by_request=answer)}) as server:
        got = cli("predict", "eval", "--model", "openai/m", "--api-base", server.api_base, "--items", "crux",
                  "--root", "sets", "--run-id", "r", "--samples", str(SAMPLES), "--temperature", "0.8",
                  "--top-p", "0.95", "--sandbox", "docker", "--workers", "2", cwd=tmp_path)
    assert got.returncode == 0, got.stderr
    assert f"{sum(RIGHT)} correct, {SAMPLES * 6 - sum(RIGHT)} wrong or malformed" in got.stdout
    assert {(b.get("temperature"), b.get("top_p")) for b in bodies} == {(0.8, 0.95)}
    manifest = json.loads((tmp_path / "runs" / "r" / "manifest.json").read_text())
    assert manifest["trials"] == SAMPLES and manifest["sandbox"].startswith("docker")
    assert manifest["configs"][0]["sampling"] | {} == {"temperature": 0.8, "top_p": 0.95, "max_tokens": None, "seed": None}

    rows = {r.group: r for r in run_breakdown(tmp_path / "runs" / "r")["openai-m"]}
    shown = tmp_path / "r.md"
    write_report(ReportRequest(sources=[("auto", str(tmp_path / "runs" / "r"))], out=shown), Console(file=io.StringIO()))
    for k in (1, 5):
        want = sum(brute_pass_at(c, SAMPLES, k) for c in RIGHT) / len(RIGHT)
        assert rows[f"CruxEval-O pass@{k}"].accuracy == pytest.approx(want)
        assert f"CruxEval-O pass@{k}" in shown.read_text() and f"{want:.1%}" in shown.read_text()
