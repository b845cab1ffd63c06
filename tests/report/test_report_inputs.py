"""Every input of `harness report` becomes the same frame: run folders written the way the
runner writes them, outcomes files (CSV, Parquet), Aider benchmark folders; bad input ends
with one line and exit 2."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness import result_facts, stats
from harness.cli import app
from harness.errors import BadInput
from harness.outcomes import ROW_CACHE, load, load_pair
from harness.report import build_report
from harness.records import AgentCounters
from tests.report_support import marginal_table, outcomes_table, write_run

runner = CliRunner()


def _summary(outcomes, config):
    return stats.summarize(config, stats.task_counts(outcomes.frame).loc[config])


def test_run_folder_rows_statuses_and_health(tmp_path):
    counters = AgentCounters(malformed_responses=1, prompt_tokens=100, completion_tokens=20, cost=0.5)
    run = write_run(tmp_path, "r1", {"base": {"a": [1, 2, None], "b": ["infra", "skip", 1]}}, counters=counters)
    out = load([("auto", str(run))])
    frame = out.frame.set_index(["task", "trial"]).sort_index()
    assert list(frame["status"]) == ["passed", "passed", "failed", "infra_error", "missing", "passed"]
    assert list(frame["round1"]) == [True, False, False, False, False, True]
    assert list(frame["round2"]) == [True, True, False, False, False, True]
    # a trial that needed two rounds counts each round's counters
    assert frame.loc[("a", 2), "malformed_responses"] == 2
    assert frame.loc[("a", 2), "cost"] == pytest.approx(1.0)
    health = stats.health(out.frame)
    assert (health.trials, health.finished, health.infra_errors, health.missing) == (6, 4, 1, 1)
    # per recorded trial (5: the missing one has no record): 1+2+2+0+1 rounds of 120 tokens
    assert health.tokens_per_trial == pytest.approx(6 * 120 / 5)
    table = next(t for t in build_report(out).tables if t.title.startswith("Agent health"))
    assert table.rows[0][table.columns.index("tokens/trial")] == "144"  # tokens are whole: 720 / 5
    info = out.configs["base"]
    assert info.contract == "original" and info.trials == 3 and info.tasks == ["a", "b"]


def test_a_rerun_report_reads_only_what_changed_and_sees_every_change(tmp_path):
    """The row cache beside a run's results: the second report parses nothing, a trial
    rewritten by --resume is read again, a removed one is gone, a broken cache is ignored."""
    outcomes = {"base": {"a": [1, None], "b": ["infra", 2]}}
    run = write_run(tmp_path, "r1", outcomes)
    first = load([("auto", str(run))]).frame
    assert (run / ROW_CACHE).is_file()

    # Unchanged size and time: the cached row is used, so even unreadable bytes go unread.
    target = run / "base" / "a" / "trial-2" / "result.json"
    original, st = target.read_bytes(), os.stat(target)
    target.write_bytes(b" " * len(original))
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert load([("auto", str(run))]).frame.equals(first)
    target.write_bytes(original)

    # --resume rewrote b/trial-1: an infrastructure error that now passed in round 1.
    redo = write_run(tmp_path / "resumed", "r1", {"base": {"a": [1, None], "b": [1, 2]}})
    (run / "base" / "b" / "trial-1" / "result.json").write_bytes((redo / "base" / "b" / "trial-1" / "result.json").read_bytes())
    frame = load([("auto", str(run))]).frame.set_index(["task", "trial"])
    assert frame.loc[("b", 1), "status"] == "passed" and bool(frame.loc[("b", 1), "round1"])

    (run / "base" / "a" / "trial-1" / "result.json").unlink()
    frame = load([("auto", str(run))]).frame.set_index(["task", "trial"]).sort_index()
    assert frame.loc[("a", 1), "status"] == "missing"

    (run / ROW_CACHE).write_bytes(b"garbage")
    assert load([("auto", str(run))]).frame.set_index(["task", "trial"]).sort_index().equals(frame)


def test_many_results_are_read_by_worker_processes_with_the_same_rows(tmp_path, monkeypatch):
    """A large run's results are parsed by spawned processes: same frame as one process,
    and a broken file still ends in one line that names it."""
    run = write_run(tmp_path, "r1", {"base": {"a": [1, 2, None], "b": ["infra", 1, 2]}, "new": {"a": [None, 1, 1], "b": [2, 2, None]}})
    alone = load([("auto", str(run))]).frame
    (run / ROW_CACHE).unlink()
    monkeypatch.setattr(result_facts, "PARALLEL_FROM", 2)
    spread = load([("auto", str(run))]).frame
    key = ["config", "task", "trial"]
    assert spread.sort_values(key).reset_index(drop=True).equals(alone.sort_values(key).reset_index(drop=True))

    (run / ROW_CACHE).unlink()
    broken = run / "new" / "b" / "trial-2" / "result.json"
    broken.write_text("{}")
    with pytest.raises(BadInput, match=f"{broken}: not a trial result"):
        load([("auto", str(run))])


def test_run_id_is_found_under_the_runs_dir(tmp_path):
    write_run(tmp_path, "r1", {"base": {"a": [1]}})
    assert list(load([("auto", "r1")], runs_dir=tmp_path).configs) == ["base"]


def test_csv_and_parquet_give_what_the_run_gives(tmp_path):
    table = {"base": marginal_table()}
    run = write_run(tmp_path, "r1", table)
    outcomes_table(table).to_csv(tmp_path / "o.csv", index=False)
    outcomes_table(table).to_parquet(tmp_path / "o.parquet")
    expected = _summary(load([("auto", str(run))]), "base")
    for name in ("o.csv", "o.parquet"):
        got = _summary(load([("outcomes", str(tmp_path / name))]), "base")
        assert got.mean == expected.mean and got.recovery == expected.recovery


def test_csv_with_words_and_optional_columns(tmp_path):
    path = tmp_path / "o.csv"
    path.write_text("config,task,trial,round1,round2,contract,suite,agent\n"
                    "m,a,1,yes,yes,orig,s1,whole\nm,a,2,False,TRUE,orig,s1,whole\nm,b,1,0,0,orig,s1,whole\n")
    out = load([("auto", str(path))])
    assert out.frame["round2"].tolist() == [True, True, False]
    info = out.configs["m"]
    assert (info.contract, info.suite, info.agent_profile, info.trials) == ("orig", "s1", "whole", 2)


def _aider_result(folder: Path, **fields) -> None:
    folder.mkdir(parents=True)
    (folder / ".aider.results.json").write_text(json.dumps(fields))


def test_aider_benchmark_folder(tmp_path):
    common = dict(model="openai/qwen", edit_format="whole", commit_hash="abc1234", cost=0.25,
                  num_malformed_responses=1, num_exhausted_context_windows=0, test_timeouts=1)
    for stamp, outcomes in (("2025-01-01-10-00-00", {"bob": [True], "leap": [False, True], "yacht": [False, False]}),
                            ("2025-01-02-10-00-00", {"bob": [False, False], "leap": [True], "yacht": None})):
        for task, tries in outcomes.items():
            folder = tmp_path / f"{stamp}--qwen-whole" / "cpp" / "exercises" / "practice" / task
            if tries is None:
                _aider_result(folder, exception="litellm.APIConnectionError")
            else:
                _aider_result(folder, testcase=task, tests_outcomes=tries, **common)
    _aider_result(tmp_path / "2025-01-03-10-00-00--other" / "bob", testcase="bob", tests_outcomes=[True], **common)

    out = load([("aider", str(tmp_path))])
    assert sorted(out.configs) == ["other", "qwen-whole"]
    frame = out.frame[out.frame["config"] == "qwen-whole"].set_index(["trial", "task"]).sort_index()
    assert frame.loc[(1, "leap"), ["round1", "round2"]].tolist() == [False, True]
    assert frame.loc[(2, "yacht"), "status"] == "infra_error"
    assert frame.loc[(2, "bob"), "status"] == "failed"
    info = out.configs["qwen-whole"]
    assert (info.model, info.aider_version, info.trials) == ("openai/qwen", "abc1234", 2)
    summary = _summary(out.only(["qwen-whole"]), "qwen-whole")
    # bob 1/2, leap 1/2 in round 1; within two: bob 1/2, leap 2/2, yacht 0/1
    assert summary.mean == pytest.approx((1.0, 1.5))
    assert (summary.recovery.k, summary.recovery.n) == (1, 3)
    assert stats.health(frame.reset_index()).timeouts == 5


def test_same_config_name_in_two_runs_is_qualified(tmp_path):
    write_run(tmp_path, "r1", {"base": {"a": [1]}})
    write_run(tmp_path, "r2", {"base": {"a": [None]}, "new": {"a": [2]}})
    out = load([("auto", "r1"), ("auto", "r2")], runs_dir=tmp_path)
    assert list(out.configs) == ["r1:base", "r2:base", "new"]


def test_compare_resolves_its_two_names(tmp_path):
    write_run(tmp_path, "r1", {"base": {"a": [1]}})
    write_run(tmp_path, "r2", {"base": {"a": [None]}, "new": {"a": [2]}})
    _, b, n = load_pair("r1", "r2:new", [], tmp_path)
    assert (b, n) == ("base", "new")
    _, b, n = load_pair("r1", "r2:base", [], tmp_path)
    assert (b, n) == ("r1:base", "r2:base")
    _, b, n = load_pair("base", "new", [("auto", "r2")], tmp_path)
    assert (b, n) == ("base", "new")
    with pytest.raises(BadInput, match="name one as"):
        load_pair("r2", "r1", [], tmp_path)
    with pytest.raises(BadInput, match="same configuration"):
        load_pair("r1", "r1", [], tmp_path)


# --- bad input: one line, exit 2 ---------------------------------------------------------


def _one_line_exit_2(result):
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "Traceback" not in result.output
    return lines[0]


def test_outcomes_file_missing_a_column(tmp_path):
    path = tmp_path / "o.csv"
    path.write_text("config,task,trial,round1\nm,a,1,1\n")
    line = _one_line_exit_2(runner.invoke(app, ["report", "--outcomes", str(path)]))
    assert "missing column round2" in line


@pytest.mark.parametrize("content, message", [
    ("config,task,trial,round1,round2\nm,a,1,maybe,1\n", "must be true/false"),
    ("config,task,trial,round1,round2\nm,a,1,1,0\n", "round2 must include round1"),
    ("config,task,trial,round1,round2\nm,a,1,1,1\nm,a,1,0,0\n", "appears twice"),
    ("config,task,trial,round1,round2\nm,a,x,1,1\n", "whole number"),
])
def test_outcomes_file_with_bad_values(tmp_path, content, message):
    path = tmp_path / "o.csv"
    path.write_text(content)
    assert message in _one_line_exit_2(runner.invoke(app, ["report", str(path)]))


def test_run_folder_with_no_results(tmp_path):
    run = write_run(tmp_path, "r1", {"base": {"a": ["skip", "skip"]}})
    assert "no round of any trial was tested" in _one_line_exit_2(runner.invoke(app, ["report", str(run)]))


def test_run_folder_with_only_infrastructure_errors(tmp_path):
    run = write_run(tmp_path, "r1", {"base": {"a": ["infra"]}})
    assert "no round of any trial was tested" in _one_line_exit_2(runner.invoke(app, ["report", str(run)]))


def test_not_a_run_folder(tmp_path):
    (tmp_path / "empty").mkdir()
    _one_line_exit_2(runner.invoke(app, ["report", str(tmp_path / "empty")]))
    _one_line_exit_2(runner.invoke(app, ["report", "no-such-run", "--runs-dir", str(tmp_path)]))


def test_corrupt_manifest(tmp_path):
    run = write_run(tmp_path, "r1", {"base": {"a": [1]}})
    (run / "manifest.json").write_text('{"run_id": "r1"}')
    assert "not a run manifest" in _one_line_exit_2(runner.invoke(app, ["report", str(run)]))


def test_configs_that_share_no_tasks(tmp_path):
    write_run(tmp_path, "r1", {"base": {"a": [1], "b": [None]}})
    write_run(tmp_path, "r2", {"new": {"c": [1]}})
    line = _one_line_exit_2(runner.invoke(app, ["compare", "r1", "r2", "--runs-dir", str(tmp_path)]))
    assert "share no tasks" in line


def test_bad_options(tmp_path):
    run = write_run(tmp_path, "r1", {"base": {"a": [1, 1]}})
    _one_line_exit_2(runner.invoke(app, ["report", str(run), "--cohort", "top:1"]))
    _one_line_exit_2(runner.invoke(app, ["report", str(run), "--cohort", "best:3"]))
    _one_line_exit_2(runner.invoke(app, ["report", str(run), "--format", "pdf"]))
    _one_line_exit_2(runner.invoke(app, ["report", str(run), "--out", str(tmp_path / "x.txt")]))
    _one_line_exit_2(runner.invoke(app, ["report"]))
    _one_line_exit_2(runner.invoke(app, ["report", str(run), "--resamples", "5"]))


def test_the_real_command_prints_one_line_and_exits_2(tmp_path):
    """The installed entry point, in its own process: no traceback reaches the user."""
    import subprocess
    import sys

    path = tmp_path / "o.csv"
    path.write_text("config,task,trial,round2\nm,a,1,1\n")
    harness = Path(sys.executable).parent / "harness"
    done = subprocess.run([str(harness), "report", "--outcomes", str(path)], capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.strip() == f"error: {path}: missing column round1 (need config, task, trial, round1, round2)"
    assert done.stdout == ""


@pytest.mark.parametrize("command", [["report", "r1"], ["compare", "r1:base", "r1:new"], ["view", "r1"]])
def test_an_out_that_cannot_be_written_is_one_line(command, tmp_path):
    write_run(tmp_path, "r1", {"base": {"a": [1, None]}, "new": {"a": [2, 1]}})
    (tmp_path / "a-file").write_text("")
    outs = [tmp_path / "a-file", tmp_path / "a-file" / "pages"] if command[0] == "view" else [tmp_path / "a-file" / "x.md"]
    for out in outs:
        got = runner.invoke(app, [*command, "--runs-dir", str(tmp_path), "--out", str(out)])
        line = _one_line_exit_2(got)
        assert "--out" in line and ("cannot be written" in line or "a file; name a folder" in line), line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file", "r1"]  # nothing half-written
