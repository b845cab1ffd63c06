"""The README's quick start and every example command in it, run as written, and what a
newcomer meets on the way through the real CLI: a model per endpoint (gold and the scripted
mutant model beside a vLLM-like server and a hosted provider, each a local stand-in), the
key a hosted provider is sent, progress and a whole summary outside a terminal, the files
against their schemas, a resume with nothing to do, one writer per run folder, and a run
whose trials never got a round tested (errors shown per trial in the viewer).

The README's commands run in a folder of their own beside a clone's suites/ and docs/: a
`harness run` with --dry-run added (before the real runs, which then use the same command
lines on two tasks), `localhost:8000` pointed at the stand-in server, `view` with --out."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace

import jsonschema
import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.gold import ChatServer, reference_answer
from harness.models import PREFLIGHT_PROMPT
from harness.mutant_model import plan_answers
from harness.store import RunFolder
from harness.suite import find_suite

from tests.conftest import GOLDEN, ROOT, interruptible
from tests.run_support import fast_profile
from tests.standins import AnthropicStandIn
from tests.scripted_model import Script, ScriptedModel

pytestmark = [pytest.mark.slow, pytest.mark.docker]

README = ROOT / "README.md"
HARNESS = Path(sys.executable).parent / "harness"
# Two fixed26 tasks on which mutant:0.3 (seed 0) answers wrongly in some trials, recovers in
# some of those and not in others (harness.mutant_model.plan_answers).
TASKS = ["perfect-numbers", "sublist"]
VLLM = "http://localhost:8000"          # the README's vLLM server
KNOWN = {"run", "report", "compare", "view", "suite", "test", "schema"}
runner = CliRunner()


def readme_commands() -> list[list[str]]:
    """Every `harness ...` command line of the README's code blocks, as arguments."""
    found = []
    for block in re.findall(r"```[a-z]*\n(.*?)```", README.read_text(), re.S):
        for line in block.replace("\\\n", " ").splitlines():
            words = shlex.split(line, comments=True)
            parts, part = [], []
            for word in words + ["&&"]:
                if word in ("&&", ";", "|", "&"):
                    parts.append(part)
                    part = []
                else:
                    part.append(word)
            found += [p[1:] for p in parts if p and p[0] == "harness"]
    return found


def _answer(messages: list[dict]) -> str:
    """A stand-in model's answer: the reference of the task the request names."""
    text = json.dumps(messages)
    if PREFLIGHT_PROMPT in text:
        return "OK"
    suite = find_suite("fixed26")
    named = [t for t in suite.tasks if all(Path(f).name in text for f in t.solution_files)]
    if not named:
        return "OK"
    task = max(named, key=lambda t: sum(len(f) for f in t.solution_files))
    return reference_answer(task, "whole")


@contextmanager
def folder(path: Path):
    before = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


def _cli(args: list[str], env: dict, cwd: Path, timeout: int = 900) -> subprocess.CompletedProcess:
    return subprocess.run([str(HARNESS), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def quickstart(tmp_path_factory, docker_sandbox):
    place = tmp_path_factory.mktemp("quickstart")
    (place / "suites").symlink_to(ROOT / "suites")
    openai = ChatServer(lambda route, body: _answer(body.get("messages") or [])).start()
    anthropic = AnthropicStandIn(lambda messages, body: _answer(messages)).__enter__()
    (place / "docs").mkdir()
    (place / "docs" / "models.yaml").write_text((ROOT / "docs" / "models.yaml").read_text().replace(VLLM, openai.url))
    env = {**os.environ, "ANTHROPIC_API_KEY": "sk-readme", "ANTHROPIC_API_BASE": anthropic.url}

    def rewrite(args: list[str]) -> list[str]:
        return [a.replace(VLLM, openai.url) for a in args]

    commands = [rewrite(c) for c in readme_commands()]
    runs = [c for c in commands if c[0] == "run" and "--resume" not in c]
    with folder(place):
        dry = [(c, runner.invoke(app, c + (["--dry-run"] if "--dry-run" not in c else []), env=env)) for c in runs]
    made = {}
    for run_id, extra in (("demo", []), ("first", ["--trials", "1"])):
        command = next(c for c in runs if c[-2:] == ["--run-id", run_id])
        made[run_id] = _cli([*command, "--tasks", ",".join(TASKS), "--sandbox", "docker", *extra], env, place)
    yield SimpleNamespace(place=place, env=env, commands=commands, dry=dry, made=made, openai=openai,
                          anthropic=anthropic, runs=place / "runs")
    openai.stop()
    anthropic.__exit__()


def test_every_readme_example_runs_as_written(quickstart):
    q = quickstart
    assert {c[0] for c in q.commands} <= KNOWN, "the README holds a command this test cannot check: move it to docs/"
    for command, result in q.dry:
        assert result.exit_code == 0, (command, result.output)
    for run_id, done in q.made.items():
        assert done.returncode == 0, (run_id, done.stderr[-3000:])
    for i, command in enumerate(c for c in q.commands if not (c[0] == "run" and "--resume" not in c)):
        args = command + ["--dry-run"] if command[0] == "run" and "--dry-run" not in command else list(command)
        if command[0] == "view":
            args += ["--out", str(q.place / f"pages-{i}")]
        with folder(q.place):
            result = runner.invoke(app, args, env=q.env)
        # compare with a pre-registered bar exits 1 on FAIL: the verdict, not an error
        allowed = (0, 1) if "--pre-registered-bar" in command else (0,)
        assert result.exit_code in allowed, (command, result.output)
        assert "Traceback" not in result.output
    # every link of the README and of docs/ leads to a file
    for page in [README, *sorted((ROOT / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)#]+)\)", page.read_text()):
            if not target.startswith(("http://", "https://")):
                assert (page.parent / target).exists(), (page.name, target)


def test_each_model_reaches_its_own_endpoint(quickstart):
    q = quickstart
    first = RunFolder(q.runs / "first").read_manifest()
    bases = {c.name: c.api_base for c in first.configs}
    assert bases == {"anthropic-claude-sonnet-4-5": None, "openai-qwen": f"{q.openai.url}/v1"}
    assert q.anthropic.requests and set(q.anthropic.keys) == {"sk-readme"}   # the provider's key variable
    assert all(r["model"] == "claude-sonnet-4-5" for r in q.anthropic.requests)
    for config in bases:
        for task in TASKS:
            result = RunFolder(q.runs / "first").read_result(config, task, 1)
            assert result.passed_round == 1, (config, task, result.infra_error)
    demo = RunFolder(q.runs / "demo").read_manifest()
    assert [(c.name, c.model, c.api_base) for c in demo.configs] == [("gold", "gold", None),
                                                                     ("mutant-0.3", "mutant:0.3", None)]


def test_the_mutant_model_answers_as_seeded(quickstart):
    folder_ = RunFolder(quickstart.runs / "demo")
    suite = find_suite("fixed26")
    outcomes = []
    for task in TASKS:
        for k in (1, 2):
            plan = plan_answers(suite.task(task), "fixed26", 0.3, 0, k, TASKS)
            got = folder_.read_result("mutant-0.3", task, k)
            expected = 1 if not plan.wrong else 2 if plan.later is not plan.first else None
            assert got.passed_round == expected, (task, k, plan.what)
            outcomes.append(expected)
            assert folder_.read_result("gold", task, k).passed_round == 1
    assert set(outcomes) == {1, 2, None}  # the two tasks show every kind of answer


def test_progress_outside_a_terminal_and_the_whole_summary(quickstart):
    demo, first = quickstart.made["demo"], quickstart.made["first"]
    lines = demo.stderr.splitlines()
    assert re.match(r"\[\d\d:\d\d\] preparing: ", lines[0]), lines[:3]
    counts = [int(m.group(1)) for ln in lines if (m := re.search(r": (\d+)/8 trials", ln))]
    assert counts[0] == 0 and counts[-1] == 8 and counts == sorted(counts)
    # the summary at its full width: no name cut short
    assert "…" not in first.stdout and "anthropic-claude-sonnet-4-5" in first.stdout
    assert "anthropic/claude-sonnet-4-5" in first.stdout


def test_the_files_follow_their_schemas(quickstart):
    schemas = {name: json.loads(runner.invoke(app, ["schema", name]).stdout)
               for name in ("result", "manifest", "test-report", "trajectory")}
    run = quickstart.runs / "demo"
    jsonschema.validate(json.loads((run / "manifest.json").read_text()), schemas["manifest"])
    results = sorted(run.glob("*/*/trial-*/result.json"))
    assert len(results) == 8
    for path in results:
        jsonschema.validate(json.loads(path.read_text()), schemas["result"])
    for path in sorted(run.glob("*/*/trial-*/round-*/test_report.json")):
        jsonschema.validate(json.loads(path.read_text()), schemas["test-report"])
    for path in sorted(run.glob("*/*/trial-*/round-*/trajectory.json")):
        jsonschema.validate(json.loads(path.read_text()), schemas["trajectory"])
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**json.loads(results[0].read_text()), "outcome": "maybe"}, schemas["result"])


def _snapshot(root: Path) -> dict[str, tuple[str, int]]:
    return {p.relative_to(root).as_posix(): (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
            for p in sorted(root.rglob("*")) if p.is_file()}


def test_a_resume_with_nothing_to_do_changes_nothing(quickstart):
    run = quickstart.runs / "demo"
    before = _snapshot(run)
    with folder(quickstart.place):
        result = runner.invoke(app, ["run", "--resume", "demo"], env=quickstart.env)
    assert result.exit_code == 0, result.output
    assert "0/0 (n/a)" in result.stdout  # gold's recovery: the summary is printed from what is on disk
    assert _snapshot(run) == before


def test_a_run_folder_has_one_writer_and_a_killed_one_blocks_nothing(quickstart):
    q = quickstart
    with RunFolder(q.runs / "demo").lock():
        for extra in ([], ["--dry-run"]):
            with folder(q.place):
                result = runner.invoke(app, ["run", "--resume", "demo", *extra], env=q.env)
            assert result.exit_code == 2, result.output
            assert result.stderr.strip().splitlines() == [
                f"error: {(q.runs / 'demo').absolute()}: another harness process is writing this run; wait for it to end"]
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time; from harness.store import RunFolder; "
                               f"RunFolder({str(q.runs / 'demo')!r}).lock(); print('locked', flush=True); time.sleep(600)"],
                              stdout=subprocess.PIPE, text=True, preexec_fn=interruptible)
    assert holder.stdout.readline().strip() == "locked"
    holder.send_signal(signal.SIGKILL)
    holder.wait(30)
    with folder(q.place):
        result = runner.invoke(app, ["run", "--resume", "demo", "--dry-run"], env=q.env)
    assert result.exit_code == 0 and "0 trial(s) to run, 8 already done" in result.stdout, result.output


def test_the_viewer_writes_every_comparison_and_follows_the_round(quickstart):
    out = quickstart.place / "pages-compare"
    with folder(quickstart.place):
        assert runner.invoke(app, ["view", "demo", "--out", str(out)]).exit_code == 0
    for pair in ("gold/mutant-0.3", "mutant-0.3/gold"):
        for page in ("index", "round-1", "round-2"):
            assert (out / "compare" / pair / f"{page}.html").is_file(), (pair, page)
    both = (out / "compare" / "gold" / "mutant-0.3" / "index.html").read_text()
    assert "intervals are unreliable below 8 tasks" in both  # compare's warnings, as compare prints them
    assert "in round 1" in both and "within two rounds" in both
    assert 'href="../../../compare/gold/mutant-0.3/round-1.html"' in both  # the round switch
    # a trial page opens on the task: the agent's example chat and file listing fold away
    trial = (out / "trial" / "mutant-0.3" / "perfect-numbers" / "trial-1.html").read_text()
    assert '<details class="context">' in trial and "example conversation" in trial
    assert re.search(r'id="round-1-message">\s*(<details class="fold" open>|<div class="label">|<pre>)', trial)
    grid = (out / "index.html").read_text()
    legend = re.search(r'<p class="legend">(.*?)</p>', grid, re.S).group(1)
    assert not re.search(r'<span class="t [a-z0-9]+ key"[^>]*>[^<]', legend)  # swatches carry no digit


# --- a run of several servers beside gold, with a task that cannot be read --------------


@pytest.fixture(scope="module")
def mixed(tmp_path_factory, docker_sandbox):
    """gold, a server that solves, a server whose every chat fails (after the one-token
    check) and, in a second run, that failing server alone: on a copied suite whose second
    task has instructions that are not UTF-8."""
    tmp = tmp_path_factory.mktemp("mixed")
    suite = tmp / "mini"
    for slug in ("sum-of-squares", "broken-text"):
        shutil.copytree(GOLDEN / "sum-of-squares", suite / slug)
    (suite / "broken-text" / ".docs" / "instructions.md").write_bytes(b"# Sum\n\nCaf\xe9 au lait\n")
    (suite / "suite.toml").write_text('name = "mini"\nversion = "0.1"\nlanguage = "cpp"\nimage = "harness-cpp"\n'
                                      'tasks = ["sum-of-squares", "broken-text"]\n')
    profile = fast_profile(tmp)
    solver = reference_answer(find_suite(str(suite)).task("sum-of-squares"), "whole")
    with ScriptedModel({"solver": Script(then=solver)}) as good, ScriptedModel({"down": Script(then=500)}) as bad:
        base = ["--suite", str(suite), "--agent", str(profile), "--trials", "1", "--sandbox", "docker",
                "--runs-dir", str(tmp / "runs")]
        both = _cli(["run", *base, "--run-id", "mixed", "--model", "gold", "--model", f"openai/solver@{good.api_base}",
                     "--model", f"openai/down@{bad.api_base}"], os.environ.copy(), tmp)
        alone = _cli(["run", *base, "--run-id", "alone", "--model", f"openai/down@{bad.api_base}", "--tasks",
                      "sum-of-squares"], os.environ.copy(), tmp)
        validated = _cli(["suite", "validate", str(suite)], os.environ.copy(), tmp)
    return SimpleNamespace(tmp=tmp, runs=tmp / "runs", both=both, alone=alone, validated=validated,
                           good=good.api_base, bad=bad.api_base)


def test_servers_beside_gold_and_an_unreadable_task_in_one_run(mixed):
    assert mixed.both.returncode == 1, mixed.both.stderr  # trials did not finish: exit 1, not a traceback
    assert "Traceback" not in mixed.both.stderr + mixed.both.stdout
    unreadable = [ln for ln in mixed.both.stderr.splitlines() if "not UTF-8 text" in ln]
    assert len(unreadable) == 1 and "broken-text/.docs/instructions.md" in unreadable[0]
    assert "byte 0xe9 at line 3, column 4" in unreadable[0]
    run = RunFolder(mixed.runs / "mixed")
    manifest = run.read_manifest()
    assert {c.name: c.api_base for c in manifest.configs} == {"gold": None, "openai-solver": mixed.good,
                                                              "openai-down": mixed.bad}
    for config in ("gold", "openai-solver", "openai-down"):
        broken = run.read_result(config, "broken-text", 1)
        assert broken.infra_error.kind == "suite" and not broken.rerun_on_resume()
    assert run.read_result("gold", "sum-of-squares", 1).passed_round == 1
    assert run.read_result("openai-solver", "sum-of-squares", 1).passed_round == 1
    assert run.read_result("openai-down", "sum-of-squares", 1).infra_error.kind == "provider"
    assert re.search(r"openai-down .*no tested round", mixed.both.stdout)
    assert "no round was tested for openai-down" in mixed.both.stdout
    # suite validation names the same file as that task's problem
    assert mixed.validated.returncode == 1 and "not UTF-8 text" in mixed.validated.stdout


def test_a_run_with_no_tested_round_opens_in_the_viewer_with_its_errors(mixed):
    out = mixed.tmp / "alone-pages"
    got = runner.invoke(app, ["view", str(mixed.runs / "alone"), "--out", str(out)])
    assert got.exit_code == 0, got.output
    grid = (out / "index.html").read_text()
    assert 'id="untested"' in grid and 'id="errors"' in grid and "provider" in grid
    assert 'href="trial/openai-down/sum-of-squares/trial-1.html"' in grid
    assert (out / "trial" / "openai-down" / "sum-of-squares" / "trial-1.html").is_file()
    report = runner.invoke(app, ["report", str(mixed.runs / "alone")])
    assert report.exit_code == 2 and "no round of any trial was tested" in report.stderr
    assert "harness view" in report.stderr and len(report.stderr.strip().splitlines()) == 1
    # the mixed run's grid lists the suite errors and the provider error, each linked
    mixed_out = mixed.tmp / "mixed-pages"
    assert runner.invoke(app, ["view", str(mixed.runs / "mixed"), "--out", str(mixed_out)]).exit_code == 0
    listed = (mixed_out / "index.html").read_text()
    assert listed.count("not UTF-8 text") == 3 and "scripted HTTP 500" in listed
