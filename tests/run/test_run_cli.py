"""`harness run` refuses bad input before any work, with one line and exit code 2, and
creates no run folder; `--dry-run` says what would run and runs nothing."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import app

from tests.run_support import make_suite
from tests.standins import StatusServer

runner = CliRunner()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def suite(tmp_path) -> Path:
    return make_suite(tmp_path)


def one_line_exit_2(result, runs: Path, expect: str) -> None:
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert expect in lines[0]
    assert "Traceback" not in result.output
    assert not runs.exists() or not any(runs.iterdir())


@pytest.mark.parametrize("args, expect", [
    (["--suite", "no-such-suite", "--model", "gold"], "unknown suite 'no-such-suite'"),
    (["--model", "foo/bar"], "unknown model provider 'foo'"),
    (["--model", "anthropic/claude-3-5-sonnet-20241022"], "ANTHROPIC_API_KEY is not set"),
    (["--model", "openai/served", "--api-base", "http://127.0.0.1:{port}/v1"], "no server answers at"),
    (["--model", "gold", "--tasks", "sum-of-squares,nope"], "no task 'nope'"),
    (["--model", "gold", "--trials", "0"], "--trials"),
    (["--model", "gold", "--top-p", "1.5"], "--top-p"),
    (["--model", "gold", "--agent", "no-such-agent"], "unknown agent profile"),
    (["--model", "gold", "--contract", "no-such-contract"], "unknown prompt contract"),
    (["--model", "gold", "--sandbox", "vm"], "unknown sandbox"),
    (["--resume", "no-such-run"], "no such run"),
    (["--resume", "some-run", "--model", "gold"], "--resume takes models"),
    (["--model", "gold", "--feedback", "imagined"], "--feedback"),
    (["--model", "gold", "--feedback", "simulated"], "the gold model answers with code, not predictions"),
    (["--model", "gold", "--feedback", "simulated", "--contract", "repair"], "repair has no simulated_feedback"),
    (["--resume", "some-run", "--feedback", "simulated"], "--resume takes feedback"),
    (["--model", "gold", "--feedback", "self-rlef"], "needs an agent that asks each step with a fresh prompt"),
    (["--model", "gold", "--feedback", "self-rlef", "--agent", "direct"], "the gold model answers with code, not predictions"),
    (["--model", "gold", "--feedback", "self-rlef-exec", "--kind", "tests", "--agent", "direct"], "is for repair trials"),
    ([], "no --model given"),
    (["--model", "gold", "--kind", "prose"], "--kind"),
    (["--model", "gold", "--fill"], "--fill is for --kind tests"),
    (["--model", "gold", "--kind", "tests", "--contract", "original"], "prompt contract original is for repair trials"),
    (["--model", "gold::tests", "--kind", "repair"], "prompt contract tests is for tests trials"),
    (["--model", "gold::no-such-contract", "--kind", "tests"], "unknown prompt contract"),
    (["--model", "gold", "--kind", "tests", "--mutant-cap", "0"], "--mutant-cap"),
    # an endpoint per model: --api-base is one model's, never several models'
    (["--model", "gold", "--model", "openai/a", "--api-base", "http://127.0.0.1:{port}/v1"], "--api-base is the endpoint of one model"),
    (["--model", "openai/a@http://127.0.0.1:{port}/v1", "--api-base", "http://127.0.0.1:9/v1"], "names its own endpoint"),
    (["--model", "gold@http://127.0.0.1:{port}/v1"], "served by the harness itself"),
    (["--model", "openai/a@http://127.0.0.1:{port}/v1"], "no server answers at http://127.0.0.1:"),
    (["--model", "mutant:1.5"], "mutant:SHARE[:SEED]"),
    (["--model", "mutant:lots"], "mutant:SHARE[:SEED]"),
    (["--model", "mutant:0.3", "--kind", "tests"], "answers repair trials"),
    (["--model", "gemini/gemini-2.5-pro"], "GOOGLE_API_KEY or GEMINI_API_KEY is not set"),
    (["--models-file", "no-such-models.yaml"], "no such models file"),
    # a dry run makes the checks a run makes
    (["--model", "gold", "--sandbox", "podman", "--dry-run"], "unknown sandbox 'podman'"),
    (["--model", "gold", "--tasks", "sum-of-sqares"], "did you mean 'sum-of-squares'?"),
])
def test_bad_input_is_one_line_and_exit_2(args, expect, suite, tmp_path, monkeypatch):
    for key in ("ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    runs = tmp_path / "runs"
    args = [a.replace("{port}", str(free_port())) for a in args]
    if "--suite" not in args and "--resume" not in args:
        args += ["--suite", str(suite)]
    result = runner.invoke(app, ["run", *args, "--runs-dir", str(runs)])
    one_line_exit_2(result, runs, expect)


def test_dry_run_lists_the_trials_and_creates_nothing(suite, tmp_path):
    runs = tmp_path / "runs"
    result = runner.invoke(app, ["run", "--suite", str(suite), "--model", "gold", "--trials", "3",
                                 "--runs-dir", str(runs), "--run-id", "dry", "--dry-run"])
    assert result.exit_code == 0, result.output
    assert "run dry: 3 trial(s) to run, 0 already done" in result.stdout
    assert [ln.strip() for ln in result.stdout.splitlines()[1:]] == [f"gold sum-of-squares trial-{k}" for k in (1, 2, 3)]
    assert not runs.exists()


def test_the_installed_command_prints_one_line(suite, tmp_path):
    harness = Path(sys.executable).parent / "harness"
    done = subprocess.run([str(harness), "run", "--suite", str(suite), "--model", "nosuch/model",
                           "--runs-dir", str(tmp_path / "runs")], capture_output=True, text=True)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("error: unknown model provider 'nosuch'") and done.stderr.count("\n") == 1


# --- before any work: one chat request of one token ------------------------------------


@pytest.mark.parametrize("statuses, posts, expect", [
    ([404], 1, "failed with HTTP 404 (is the endpoint right?"),     # a wrong path: GET /models is 404 as well
    ([501], 1, "failed with HTTP 501"),                            # no chat here; not asked again
    ([401], 1, "failed with HTTP 401 (check OPENAI_API_KEY)"),
    ([503], 3, "failed with HTTP 503 (3 tries)"),                   # busy: asked three times in all
])
def test_a_wrong_endpoint_is_one_line_before_any_work(statuses, posts, expect, suite, tmp_path):
    runs = tmp_path / "runs"
    with StatusServer(statuses) as server:
        started = time.monotonic()
        result = runner.invoke(app, ["run", "--suite", str(suite), "--model", f"openai/served@{server.url}",
                                     "--runs-dir", str(runs)])
        seconds = time.monotonic() - started
    one_line_exit_2(result, runs, expect)
    assert server.posts == posts and seconds < 20
    assert "scripted status" in result.stderr  # the server's own message


def test_a_busy_server_that_recovers_is_asked_again(suite, tmp_path):
    with StatusServer([429, 503, 200]) as server:
        result = runner.invoke(app, ["run", "--suite", str(suite), "--model", f"openai/served@{server.url}",
                                     "--runs-dir", str(tmp_path / "runs"), "--dry-run"])
    assert result.exit_code == 0, result.output
    assert server.posts == 3 and "openai-served sum-of-squares trial-1" in result.stdout


@pytest.mark.parametrize("name, text", [
    ("models.yaml", "model_list:\n  - model_name: small\n    litellm_params:\n      model: openai/served\n"
                    "      api_base: {url}\n      api_key: os.environ/SERVED_KEY\n  - model_name: gold-too\n"
                    "    litellm_params:\n      model: gold\n"),
    ("models.toml", '[[model_list]]\nmodel_name = "small"\n[model_list.litellm_params]\nmodel = "openai/served"\n'
                    'api_base = "{url}"\napi_key = "os.environ/SERVED_KEY"\n[[model_list]]\nmodel_name = "gold-too"\n'
                    '[model_list.litellm_params]\nmodel = "gold"\n'),
])
def test_a_models_file_names_each_models_endpoint_and_key_variable(name, text, suite, tmp_path, monkeypatch):
    with StatusServer([200]) as server:
        models = tmp_path / name
        models.write_text(text.replace("{url}", server.url))
        base = ["run", "--suite", str(suite), "--models-file", str(models), "--runs-dir", str(tmp_path / "runs"),
                "--trials", "1"]
        monkeypatch.delenv("SERVED_KEY", raising=False)
        one_line_exit_2(runner.invoke(app, base), tmp_path / "runs", "small: SERVED_KEY is not set")
        monkeypatch.setenv("SERVED_KEY", "sk-served")
        everything = runner.invoke(app, [*base, "--dry-run"])
        one = runner.invoke(app, [*base, "--model", "small", "--model", "mutant:0.5", "--dry-run"])
    assert everything.exit_code == 0, everything.output
    assert [ln.split()[0] for ln in everything.stdout.splitlines()[1:]] == ["small", "gold-too"]
    assert one.exit_code == 0, one.output
    assert [ln.split()[0] for ln in one.stdout.splitlines()[1:]] == ["small", "mutant-0.5"]
    assert server.keys == ["Bearer sk-served", "Bearer sk-served"]  # the variable's value, one check per run


@pytest.mark.parametrize("text, expect", [
    ("model_list:\n  - model_name: a\n    litellm_params:\n      model: openai/a\n      api_key: sk-123\n",
     "write api_key as os.environ/VARIABLE"),
    ("model_list:\n  - model_name: a\n    litellm_params:\n      model: openai/a\n      rpm: 10\n",
     "model_list.0.litellm_params.rpm: unknown setting"),
    ("model_list: []\n", "model_list"),
    ("model_list:\n  - model_name: a\n    litellm_params:\n      model: nosuch/a\n", "unknown model provider 'nosuch'"),
    ("model_list: [oops\n", "not readable YAML"),
])
def test_a_broken_models_file_is_one_line(text, expect, suite, tmp_path):
    models = tmp_path / "models.yaml"
    models.write_text(text)
    runs = tmp_path / "runs"
    one_line_exit_2(runner.invoke(app, ["run", "--suite", str(suite), "--models-file", str(models), "--runs-dir",
                                        str(runs)]), runs, expect)


def test_runs_dir_that_cannot_be_written_is_one_line_in_a_run_and_a_dry_run(suite, tmp_path):
    (tmp_path / "a-file").write_text("")
    runs = tmp_path / "a-file" / "runs"
    for extra in ([], ["--dry-run"]):
        result = runner.invoke(app, ["run", "--suite", str(suite), "--model", "gold", "--runs-dir", str(runs), *extra])
        one_line_exit_2(result, tmp_path / "nothing", "--runs-dir")
        assert "cannot be written" in result.stderr


def test_a_dry_run_refuses_a_run_id_that_exists(suite, tmp_path):
    (tmp_path / "runs" / "taken").mkdir(parents=True)
    result = runner.invoke(app, ["run", "--suite", str(suite), "--model", "gold", "--runs-dir", str(tmp_path / "runs"),
                                 "--run-id", "taken", "--dry-run"])
    assert result.exit_code == 2 and "a run with this id exists; use --resume taken" in result.stderr
