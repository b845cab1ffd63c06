"""`harness predict eval` on items built by `harness predict build` from two fixed26 tasks
(references and faulty controls, observed in Docker), answered by a scripted
OpenAI-compatible server that is right, wrong or out of format per item: the accuracy is
exactly the share it was scripted to get right, whole and per source kind, `harness report`
reads the run, a provider that fails is an infrastructure error and never a wrong answer,
and bad input is one line with exit 2."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from harness.predict.breakdown import run_breakdown
from harness.predict.build import read_items
from harness.predict.config import PredictEvalConfig
from harness.predict.evaluate import evaluate
from harness.predict.prompt import observations, parse_answer, prompt_messages
from harness.records import TrialOutcome
from harness.report import ReportRequest, report as write_report

from tests.scripted_model import Script, ScriptedModel

HARNESS = str(Path(sys.executable).with_name("harness"))
MODEL = "openai/predictor"
MALFORMED = "It prints the number, I believe."


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    # Wide enough that no line of a table or summary wraps.
    return subprocess.run([HARNESS, *args], capture_output=True, text=True, cwd=cwd, env={**os.environ, "COLUMNS": "200"})


@pytest.fixture(scope="module")
def items_root(tmp_path_factory, docker_sandbox):
    root = tmp_path_factory.mktemp("predict-eval") / "curricula"
    got = cli("predict", "build", "--suite", "fixed26", "--out", "two", "--tasks", "phone-number,space-age",
              "--eval-tasks", "space-age", "--mutants", "0", "--root", str(root), "--sandbox", "docker",
              "--workers", "2", cwd=root.parent)
    assert got.returncode == 0, got.stderr
    return root


def _key(messages: list) -> str:
    return next(m["content"] for m in messages if m["role"] == "user")


def plan_answers(items) -> tuple[dict[str, str], dict[str, str]]:
    """Per prompt, what the scripted model answers: every third item right, every third
    wrong but in the format, the rest out of the format; and each item's kind of answer."""
    replies, kinds = {}, {}
    for n, item in enumerate(items):
        kind = ("right", "wrong", "malformed")[n % 3]
        if kind == "right":
            text = f"```\n{item.answer}\n```"
        elif kind == "wrong":
            text = "```\n" + "\n".join(['"no such value"'] * observations(item.call)) + "\n```"
            assert parse_answer(text, item.call) is not None   # well formed, only wrong
        else:
            text = MALFORMED
        replies[_key([m.model_dump() for m in prompt_messages(item.files, item.call, prelude=item.prelude)])] = text
        kinds[item.id] = kind
    return replies, kinds


@pytest.mark.slow
def test_accuracy_is_what_the_model_was_scripted_to_get_right(items_root, tmp_path):
    items = read_items(items_root / "two")
    replies, kinds = plan_answers(items)
    assert {i.split for i in items} == {"train", "eval"} and len(items) >= 9
    with ScriptedModel({"predictor": Script(by_request=lambda body: replies[_key(body["messages"])])}) as server:
        got = cli("predict", "eval", "--model", MODEL, "--api-base", server.api_base, "--items", "two", "--split", "all",
                  "--root", str(items_root), "--runs-dir", str(tmp_path), "--run-id", "p1", "--workers", "3",
                  cwd=tmp_path)
        assert got.returncode == 0, got.stderr
        assert len(server.requests["predictor"]) == len(items)   # one call per item, nothing retried
    right = sum(k == "right" for k in kinds.values())
    wrong = sum(k == "wrong" for k in kinds.values())
    assert f"{right} correct, {len(items) - right} wrong or malformed, 0 provider failures" in got.stdout

    rows = run_breakdown(tmp_path / "p1")["openai-predictor"]
    whole = rows[0]
    assert (whole.group, whole.items, whole.correct) == ("all items", len(items), right)
    assert whole.accuracy == pytest.approx(right / len(items)) and whole.low <= whole.accuracy <= whole.high
    for kind in ("reference", "faulty"):
        mine = [i for i in items if any(p.source == kind for p in i.sources)]
        row = next(r for r in rows if r.group == f"source {kind}")
        assert (row.items, row.correct) == (len(mine), sum(kinds[i.id] == "right" for i in mine))
    by_task = {r.group: r for r in rows if r.group.startswith("task ")}
    assert set(by_task) == {"task fixed26/phone-number", "task fixed26/space-age"}

    results = [p for p in (tmp_path / "p1").rglob("result.json")]
    assert len(results) == len(items)
    malformed = sum(k == "malformed" for k in kinds.values())
    assert malformed and wrong

    report = cli("report", str(tmp_path / "p1"), cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    shown = report.stdout
    assert f"{right}" in shown and f"{right / len(items):.1%}" in shown
    assert "source reference" in shown and "source faulty" in shown and "task fixed26/space-age" in shown
    # The breakdown is part of the report in every format, not only on the terminal.
    for fmt in ("md", "html", "json", "csv"):
        out = tmp_path / f"report.{fmt}"
        write_report(ReportRequest(sources=[("auto", str(tmp_path / "p1"))], out=out), Console(file=io.StringIO()))
        text = out.read_text()
        assert "source reference" in text and "task fixed26/space-age" in text, fmt
        assert (f"{right / len(items):.1%}" if fmt in ("md", "html") else f"{right / len(items)}"[:6]) in text, fmt

    # A model right on every item, twice, compared with the first by `harness compare`.
    answers = {_key([m.model_dump() for m in prompt_messages(i.files, i.call, prelude=i.prelude)]): f"```\n{i.answer}\n```"
               for i in items}
    with ScriptedModel({"oracle": Script(by_request=lambda body: answers[_key(body["messages"])])}) as server:
        got = cli("predict", "eval", "--model", "openai/oracle", "--api-base", server.api_base, "--items", "two",
                  "--split", "all", "--root", str(items_root), "--runs-dir", str(tmp_path), "--run-id", "p2",
                  "--trials", "2", cwd=tmp_path)
    assert got.returncode == 0 and f"{2 * len(items)} correct, 0 wrong" in got.stdout, got.stderr
    oracle = run_breakdown(tmp_path / "p2")["openai-oracle"][0]
    assert (oracle.items, oracle.trials, oracle.accuracy) == (len(items), 2 * len(items), 1.0)
    compared = cli("compare", "p1:openai-predictor", "p2:openai-oracle", "--runs-dir", str(tmp_path), "--round", "1",
                   cwd=tmp_path)
    assert compared.returncode == 0, compared.stderr
    assert f"+{len(items) - right}" in compared.stdout


@pytest.mark.slow
def test_a_failing_provider_is_an_infrastructure_error_never_a_wrong_answer(items_root, tmp_path):
    items = [i for i in read_items(items_root / "two") if i.split == "eval"]
    replies, _ = plan_answers(items)
    tries: dict[str, int] = {}

    def flaky(body):
        # Each prompt's first try fails; the retry gets the scripted answer.
        key = _key(body["messages"])
        tries[key] = tries.get(key, 0) + 1
        return 503 if tries[key] == 1 else replies[key]

    with ScriptedModel({"predictor": Script(by_request=flaky), "down": Script(then=500)}) as server:
        base = dict(items="two", root=items_root, runs_dir=tmp_path, api_base=server.api_base, backoff_s=0, workers=2)
        recovered = evaluate(PredictEvalConfig(model=MODEL, run_id="flaky", retries=2, **base))
        failed = evaluate(PredictEvalConfig(model="openai/down", run_id="down", retries=3, **base))
        assert len(server.requests["down"]) == 3 * len(items)
        failed_base = server.api_base
    assert recovered.count(TrialOutcome.infra_error) == 0
    assert recovered.count(TrialOutcome.passed) == sum(1 for n in range(len(items)) if n % 3 == 0)
    assert failed.count(TrialOutcome.infra_error) == len(items)
    assert all(r.infra_error.kind == "provider" and r.infra_error.attempts == 3 and not r.rounds for r in failed.results)
    assert failed.count(TrialOutcome.failed) == 0
    # No outcome counted: the report has nothing to read rather than a zero accuracy.
    got = cli("report", str(tmp_path / "down"), cwd=tmp_path)
    assert got.returncode == 2 and "no round of any trial was tested" in got.stderr
    with ScriptedModel({"down": Script(then=503)}) as server:
        got = cli("predict", "eval", "--model", "openai/down", "--api-base", server.api_base, "--items", "two",
                  "--root", str(items_root), "--runs-dir", str(tmp_path), "--retries", "1", cwd=tmp_path)
    assert got.returncode == 1 and f"0 correct, 0 wrong or malformed, {len(items)} provider failures" in got.stdout
    assert "the provider kept failing" in got.stderr
    assert "harness predict eval --resume" in got.stderr

    # The provider answers again: --resume runs only the trials with no outcome, on the
    # run's own model, set and split, and keeps the rest.
    kept = {p: p.read_bytes() for p in (tmp_path / "flaky").rglob("result.json")}
    with ScriptedModel({"down": Script(by_request=lambda body: replies[_key(body["messages"])])}) as server:
        manifest = tmp_path / "down" / "manifest.json"
        manifest.write_text(manifest.read_text().replace(failed_base, server.api_base))  # the server's new port
        resumed = evaluate(PredictEvalConfig(resume="down", root=items_root, runs_dir=tmp_path, workers=2))
        assert len(server.requests["down"]) == len(items)
        again = evaluate(PredictEvalConfig(resume="flaky", root=items_root, runs_dir=tmp_path))
    assert resumed.count(TrialOutcome.infra_error) == 0 and len(resumed.results) == len(items)
    assert resumed.count(TrialOutcome.passed) == recovered.count(TrialOutcome.passed)
    assert again.results == [] and {p: p.read_bytes() for p in (tmp_path / "flaky").rglob("result.json")} == kept
    with pytest.raises(ValueError, match="--resume takes model"):
        PredictEvalConfig(resume="down", model=MODEL)


@pytest.mark.parametrize("args, message", [
    (["--model", MODEL, "--items", "nosuch"], "--items nosuch: no set at"),
    (["--model", "gold", "--items", "x"], "answers with code, not predictions"),
    (["--model", MODEL, "--items", "x", "--split", "test"], "--split: "),
    (["--model", MODEL, "--items", "x", "--trials", "0"], "--samples: "),   # one option, two names
    (["--model", "nosuchprovider/m", "--items", "x"], "unknown model provider"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, args, message):
    got = cli("predict", "eval", *args, "--root", str(tmp_path), "--runs-dir", str(tmp_path / "runs"), cwd=tmp_path)
    assert got.returncode == 2, got.stderr
    assert message in got.stderr and len(got.stderr.strip().splitlines()) == 1, got.stderr
    assert not (tmp_path / "runs").exists()
