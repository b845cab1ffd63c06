"""A bar registered first: `harness preregister` writes it hashed and dated, `harness run
--preregistered` refuses one changed since and records it in the manifest before the first
trial (a resumed run keeps it), and the manifest carries each config's training cutoff and
the tasks' written dates. The real path: the gold and mutant models, the direct agent, the
local sandbox, one task."""

from __future__ import annotations

import json
from datetime import datetime

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.records import RegisteredBar
from harness.registered_bar import bar_hash
from harness.store import RunFolder
from tests.conftest import make_backend
from tests.run_support import make_suite

runner = CliRunner()

MODELS = """model_list:
  - model_name: reference
    litellm_params: {model: gold}
    model_info: {training_cutoff: 2024-06-01}
  - model_name: broken
    litellm_params: {model: "mutant:1"}
    model_info: {training_cutoff: 2024-01-01, max_tokens: 100}
"""


@pytest.fixture
def local_sandbox():
    make_backend("local")  # skips the test where the local sandbox cannot run


@pytest.fixture
def setup(tmp_path):
    suite = make_suite(tmp_path)
    with (suite / "suite.toml").open("a") as f:
        f.write('[written]\n"sum-of-squares" = 2024-07-01\n')
    models = tmp_path / "models.yaml"
    models.write_text(MODELS)
    return tmp_path, suite, models


def _preregister(tmp_path, *args: str):
    return runner.invoke(app, ["preregister", *args, "--out", str(tmp_path / "bar.json")])


def _run(tmp_path, suite, models, bar, *extra: str):
    return runner.invoke(app, ["run", "--suite", str(suite), "--models-file", str(models), "--agent", "direct",
                               "--sandbox", "local", "--trials", "1", "--runs-dir", str(tmp_path / "runs"),
                               "--run-id", "r", "--preregistered", str(bar), *extra])


def _one_line_exit_2(result, *words: str) -> None:
    assert result.exit_code == 2, result.output
    line = result.output.strip()
    assert "\n" not in line and "Traceback" not in line and all(w in line for w in words), line


def test_preregister_writes_the_bar_hashed_and_dated_in_utc_and_never_overwrites(tmp_path):
    result = _preregister(tmp_path, "reference", "broken", "--delta", "0.5", "--round", "1",
                          "--hypothesis", "broken answers lose")
    assert result.exit_code == 0, result.output
    reg = RegisteredBar.model_validate_json((tmp_path / "bar.json").read_text())
    assert (reg.bar.base, reg.bar.new, reg.bar.delta, reg.bar.round, reg.bar.metric) == ("reference", "broken", 0.5, 1,
                                                                                          "solved")
    assert reg.sha256 == bar_hash(reg.bar) and datetime.fromisoformat(reg.bar.registered_at).utcoffset().seconds == 0
    _one_line_exit_2(_preregister(tmp_path, "reference", "broken", "--delta", "1"), "never overwritten")
    _one_line_exit_2(runner.invoke(app, ["preregister", "a", "b", "--delta", "1", "--metric", "speed", "--out",
                                         str(tmp_path / "other.json")]), "--metric")


def test_a_run_records_the_bar_before_its_first_trial_and_compare_judges_it(setup, local_sandbox):
    tmp_path, suite, models = setup
    assert _preregister(tmp_path, "reference", "broken", "--delta", "0.5").exit_code == 0
    written = json.loads((tmp_path / "bar.json").read_text())
    assert _run(tmp_path, suite, models, tmp_path / "bar.json").exit_code == 0

    folder = RunFolder(tmp_path / "runs" / "r")
    m = folder.read_manifest()
    assert m.preregistered is not None and m.preregistered.registration.model_dump(mode="json") == written
    assert m.preregistered.path == str(tmp_path / "bar.json")
    starts = [datetime.fromisoformat(folder.read_result(c, "sum-of-squares", 1).started_at)
              for c in ("reference", "broken")]
    registered = datetime.fromisoformat(m.preregistered.registration.bar.registered_at)
    assert registered < datetime.fromisoformat(m.preregistered.recorded_at) <= min(starts)
    # What reports need later, without the suite folder.
    assert {c.name: str(c.training_cutoff) for c in m.configs} == {"reference": "2024-06-01", "broken": "2024-01-01"}
    assert {t: str(d) for t, d in m.written.items()} == {"sum-of-squares": "2024-07-01"}

    compare = ["compare", "reference", "broken", "--from", str(folder.root), "--resamples", "1000"]
    judged = runner.invoke(app, compare)
    assert judged.exit_code == 1, judged.output  # broken does not gain: FAIL, judged on the registered bar
    text = " ".join(judged.stdout.split())
    assert f"registered at {m.preregistered.registration.bar.registered_at}, before the first trial of broken" in text
    assert "Registered bar: NEW must gain at least 0.5 tasks" in text and "post hoc" not in text
    assert "All 1 tasks were written after every compared config's training cutoff" in text  # 2024-07-01
    _one_line_exit_2(runner.invoke(app, [*compare, "--pre-registered-bar", "0.2"]), "is 0.5")

    # A resumed run keeps the registration, and refuses a new one.
    (folder.trial_dir("broken", "sum-of-squares", 1) / "result.json").unlink()
    _one_line_exit_2(runner.invoke(app, ["run", "--resume", "r", "--runs-dir", str(tmp_path / "runs"),
                                         "--preregistered", str(tmp_path / "bar.json")]), "preregistered")
    resumed = runner.invoke(app, ["run", "--resume", "r", "--runs-dir", str(tmp_path / "runs"), "--sandbox", "local"])
    assert resumed.exit_code == 0, resumed.output
    assert folder.read_manifest().preregistered == m.preregistered


def test_a_registration_changed_after_it_was_written_is_refused_before_the_run(setup):
    tmp_path, suite, models = setup
    assert _preregister(tmp_path, "reference", "broken", "--delta", "0.5").exit_code == 0
    bar = tmp_path / "bar.json"
    bar.write_text(bar.read_text().replace('"delta": 0.5', '"delta": 0.1'))
    _one_line_exit_2(_run(tmp_path, suite, models, bar), "does not match its hash")
    assert not (tmp_path / "runs" / "r").exists()


def test_a_registration_for_configs_the_run_does_not_have_is_refused(setup):
    tmp_path, suite, models = setup
    assert _preregister(tmp_path, "reference", "mutant:1", "--delta", "0.5").exit_code == 0
    _one_line_exit_2(_run(tmp_path, suite, models, tmp_path / "bar.json"), "mutant:1", "reference, broken")
    _one_line_exit_2(_run(tmp_path, suite, models, tmp_path / "none.json"), "no such registration file")


def test_a_training_cutoff_that_is_not_a_day_is_one_line(setup):
    tmp_path, suite, models = setup
    models.write_text(MODELS.replace("2024-06-01", "soon"))
    result = runner.invoke(app, ["run", "--suite", str(suite), "--models-file", str(models), "--dry-run",
                                 "--runs-dir", str(tmp_path / "runs")])
    _one_line_exit_2(result, "model_info.training_cutoff")


def test_an_adapter_card_declares_the_training_cutoff_its_config_records(tmp_path, monkeypatch):
    from harness.adapter_card import AdapterCard, load_card
    from harness.models import ModelSpec
    from harness.run import plan

    card = AdapterCard(name="lora", base_model="base", path=".", rank=8, alpha=16, target_modules=["q"],
                       dtype="float32", sha256="0" * 64, training_cutoff="2024-05-31")
    (tmp_path / "lora.toml").write_text(card.to_toml())
    read = load_card(tmp_path / "lora.toml")
    assert str(read.training_cutoff) == "2024-05-31"
    monkeypatch.setattr(plan, "card_files", lambda: {"lora": tmp_path / "lora.toml"})
    monkeypatch.setattr(plan, "find_card", lambda name: (read, tmp_path / "lora.toml"))
    monkeypatch.setattr(plan, "verify_card", lambda card, path: None)
    spec = ModelSpec(name="local/lora", kind="local", litellm_model="openai/lora", adapter="lora")
    assert str(plan._adapter_facts(spec)["training_cutoff"]) == "2024-05-31"
