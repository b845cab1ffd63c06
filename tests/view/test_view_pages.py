"""The viewer's loop and curriculum pages, its server's boundaries and its bad input, over
run folders written the way the runner writes them (report_support): a loop of two
checkpoints, a curriculum whose repair exercise came from one of their trials, and a run
over that curriculum. The static pages are driven in headless Chromium."""

from __future__ import annotations

import shutil
import socket
import subprocess
from pathlib import Path

import pytest

from harness.curriculum.records import (
    BuildOptions, ContractRef, CurriculumManifest, CurriculumSummary, RepairRecord, RunOrigin,
)
from harness.curriculum.taxonomy import FailureKind
from harness.loop.config import LoopConfig
from harness.loop.lineage import Iteration, Lineage
from harness.records import RunManifest
from harness.task import load_task
from harness.view.server import create_app
from harness.view.site import load_site

from tests.browser import browser, chromium, follow, screenshot  # noqa: F401  (fixtures)
from tests.conftest import GOLDEN, ROOT
from tests.report_support import STAMP, write_run

HARNESS = str(ROOT / ".venv" / "bin" / "harness")
REPAIR = "sum-of-squares-r1"


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("world")
    runs = root / "runs"
    # iteration 0 solves task a twice in round 1 and b never; the checkpoint after it, b once
    write_run(runs, "e0", {"base": {"a": [1, 1], "b": [None, 2]}}, tests_per_report=2)
    write_run(runs, "e1", {"grpo1@iter1": {"a": [1, 1], "b": [1, None]}}, tests_per_report=2)
    lineage = Lineage(
        loop_id="l1", config=LoopConfig(suite="fixed26", base="tiny", iterations=1, trials=2),
        created_at=STAMP, updated_at=STAMP, status="finished",
        iterations=[Iteration(index=0, eval_run="e0", done=["eval"], started_at=STAMP),
                    Iteration(index=1, adapter="grpo1@iter1", parent=None, eval_run="e1", trained_on_tasks=["fixed26/b"],
                              done=["curriculum", "train", "eval", "bar"], started_at=STAMP)])
    (runs / "loops" / "l1").mkdir(parents=True)
    (runs / "loops" / "l1" / "lineage.json").write_text(lineage.model_dump_json())

    # a curriculum made from e0's trial 1 of b, round 1; its one exercise is a real task folder
    cur = root / "curricula" / "rep1"
    shutil.copytree(GOLDEN / "sum-of-squares", cur / REPAIR)
    origin = RunOrigin(run_id="e0", config="base", model="openai/base", task="b", trial=1, round=1, test_report_hash="h")
    record = RepairRecord(task_id=f"rep1/{REPAIR}", source_task="fixed26/b", source_task_hash="b" * 64,
                          kind=FailureKind.wrong_value, detail="case 0, case 1", normalized_hash="n", origin=origin,
                          contract="repair", contract_hash="c")
    (cur / REPAIR / ".meta" / "repair.json").write_text(record.model_dump_json())
    (cur / "suite.toml").write_text(f'name = "rep1"\nversion = "1"\nlanguage = "cpp"\nimage = "harness-cpp"\ntasks = ["{REPAIR}"]\n')
    manifest = CurriculumManifest(
        name="rep1", made_from="runs", created_at=STAMP, harness_version="0.1.0", content_hash="x",
        source_tasks=["fixed26/b"], repair_tasks=[REPAIR],
        runs=[{"run_id": "e0", "run_dir": str(runs / "e0"), "suite": "fixed26", "suite_hash": "s"}],
        contract=ContractRef(name="repair", version="1", content_hash="c"),
        options=BuildOptions(max_per_task=4, seed=0, controls=2, mutants_per_task=8),
        summary=CurriculumSummary(candidates=3, kept=1, dropped={"duplicate": 2}, by_kind={}, by_task={},
                                  sandbox_runs=4, validation_seconds=1.0, workers=1, backend="docker"))
    (cur / "manifest.json").write_text(manifest.model_dump_json())

    # a run over the curriculum, which knows where its suite is
    task = load_task(cur / REPAIR)
    run = write_run(runs, "r2", {"tiny": {REPAIR: [None]}}, task_hashes={REPAIR: task.content_hash})
    m = RunManifest.model_validate_json((run / "manifest.json").read_bytes())
    (run / "manifest.json").write_text(m.model_copy(update={"suite": "rep1", "suite_path": str(cur)}).model_dump_json())
    return root


def test_a_lineage_and_a_curriculum_in_the_browser(world, browser, tmp_path):  # noqa: F811
    from selenium.webdriver.common.by import By

    out = tmp_path / "site"
    done = subprocess.run([HARNESS, "view", "l1", str(world / "curricula" / "rep1"), str(world / "runs" / "r2"),
                           "--runs-dir", str(world / "runs"), "--resamples", "1000", "--out", str(out)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    browser.get((out / "lineage" / "l1.html").as_uri())
    points = browser.find_elements(By.CSS_SELECTOR, "svg.lineage a.point")
    titles = sorted(p.find_element(By.TAG_NAME, "title").get_attribute("textContent") for p in points)
    assert titles == ["a at base: 2/2 in round 1", "a at grpo1@iter1: 2/2 in round 1",
                      "b at base: 0/2 in round 1", "b at grpo1@iter1: 1/2 in round 1"]
    screenshot(browser, tmp_path / "lineage.png")
    point = next(p for p in points if "b at grpo1@iter1" in p.find_element(By.TAG_NAME, "title").get_attribute("textContent"))
    browser.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", point)
    # the grid, filtered to that checkpoint's trials of b
    assert browser.find_element(By.ID, "shown").text == "2 of 9 trials"
    shown = [b.get_attribute("href") for b in browser.find_elements(By.CSS_SELECTOR, "a.t") if b.is_displayed()]
    assert [h.rsplit("/", 3)[-3:] for h in shown] == [["grpo1@iter1", "b", "trial-1.html"], ["grpo1@iter1", "b", "trial-2.html"]]

    # the curriculum's exercise links to the trial it came from, and so does a run of it
    browser.get((out / "curriculum" / "rep1.html").as_uri())
    follow(browser, browser.find_element(By.CSS_SELECTOR, "a.source-trial"))
    assert browser.find_element(By.TAG_NAME, "h1").text == "b, trial 1 base"
    assert browser.current_url.endswith("#round-1")
    browser.get((out / "trial" / "tiny" / REPAIR / "trial-1.html").as_uri())
    link = browser.find_element(By.CSS_SELECTOR, "a.source-trial")
    assert link.text == "run e0, base, b trial 1, round 1"
    assert "No workspace snapshot was kept for this round." in browser.page_source  # write_run keeps none


def test_the_server_answers_pages_and_refuses_the_rest(world):
    from fastapi.testclient import TestClient

    site = load_site(["l1", str(world / "curricula" / "rep1")], world / "runs")
    client = TestClient(create_app(site))
    page = client.get("/lineage/l1.html")
    assert page.status_code == 200 and "default-src 'none'" in page.headers["content-security-policy"]
    assert client.get("/curriculum/rep1.html").status_code == 200
    assert client.get("/trial/base/b/trial-1.html").status_code == 200
    assert client.get("/compare/base/grpo1@iter1/task-b.html").status_code == 200
    assert client.get("/compare/base/base/index.html").status_code == 404
    assert client.get("/trial/nobody/b/trial-1.html").status_code == 404
    raw = client.get("/raw/e0/base/b/trial-1/result.json")
    assert raw.status_code == 200 and raw.headers["content-type"].startswith("text/plain")
    assert (world / "curricula" / "rep1" / "manifest.json").is_file()
    assert client.get("/raw/e0/..%2F..%2Fcurricula%2Frep1%2Fmanifest.json").status_code == 404
    assert client.get("/raw/zz/manifest.json").status_code == 404


def test_bad_input_is_one_line_and_exit_2(world, tmp_path):
    done = subprocess.run([HARNESS, "view", str(tmp_path / "nothing")], capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr.strip().count("\n") == 0 and "no such file" in done.stderr
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run([HARNESS, "view", str(world / "runs" / "e0"), "--port", str(port)],
                              capture_output=True, text=True)
    assert done.returncode == 2 and f"cannot listen on 127.0.0.1:{port}" in done.stderr
