"""`harness view` and the HTML pages of reports, driven in headless Chromium over a real
run: the real runner, the real Aider driver, the real sandbox, and a scripted model
server as the only test double. Config `base` solves the task in round 1 (trial 1) and
after the test feedback (trial 2); config `new` writes code that does not compile (with a
<script> in its answer), then a wrong answer (trial 1), and its server then stays down (an
infrastructure error, trial 2). So `new` regresses on the task against `base`."""

from __future__ import annotations

import signal
import socket
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from harness.agents.editformat import render_whole as whole_answer
from harness.records import RoundTrajectory, Sampling, TestReport
from harness.run import run
from harness.run.config import RunConfig
from harness.task import load_task

from tests.browser import browser, chromium, follow, screenshot  # noqa: F401  (fixtures)
from tests.conftest import GOLDEN, ROOT
from tests.run_support import fast_profile, make_suite
from tests.scripted_model import Script, ScriptedModel

pytestmark = [pytest.mark.slow, pytest.mark.docker]

TASK = load_task(GOLDEN / "sum-of-squares")
REF = {name: data.decode() for name, data in TASK.reference_files().items()}
SOLVED = whole_answer(REF)
WRONG = whole_answer({"sum_of_squares.cpp": REF["sum_of_squares.cpp"].replace("total += k * k;", "total += k;")})
INJECTED = "</pre><script>window.__pwned = 1</script>"
BROKEN = f"Here is my fix. {INJECTED}\n\n" + whole_answer({"sum_of_squares.cpp": (
    '#include "sum_of_squares.h"\n// <script>window.__pwned = 2</script>\n'
    "namespace sum_of_squares {\nlong long sum(int n) { return n * ; }\n}\n")})
HARNESS = str(ROOT / ".venv" / "bin" / "harness")


@pytest.fixture(scope="module")
def view_run(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("view")
    scripts = {"base": Script([SOLVED, WRONG, SOLVED]), "new": Script([BROKEN, WRONG], then=500)}
    with ScriptedModel(scripts) as model:
        # One worker: each model's script is answered in trial order.
        run(RunConfig(suite=str(make_suite(tmp)), models=[f"openai/{n}@{model.api_base}" for n in scripts],
                      trials=2, rounds=2, workers=1, agent=str(fast_profile(tmp)), runs_dir=tmp / "runs",
                      run_id="view", sampling=Sampling(temperature=0.0)))
    return tmp / "runs" / "view"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def served(view_run):
    """`harness view RUN` in its own process, until the test ends."""
    port = _free_port()
    proc = subprocess.Popen([HARNESS, "view", str(view_run), "--port", str(port), "--resamples", "2000"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                if httpx.get(url, timeout=5).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert proc.poll() is None, proc.communicate()[1]
            assert time.monotonic() < deadline, "harness view did not answer in 90 s"
            time.sleep(0.3)
        yield url
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _cell(driver, config: str) -> str:
    from selenium.webdriver.common.by import By

    return driver.find_element(By.CSS_SELECTOR, f"tr[data-task='sum-of-squares'] td[data-config='{config}']").text


def _boxes(driver, config: str) -> list[str]:
    from selenium.webdriver.common.by import By

    cell = driver.find_element(By.CSS_SELECTOR, f"tr[data-task='sum-of-squares'] td[data-config='{config}']")
    return [b.get_attribute("data-o") for b in cell.find_elements(By.CSS_SELECTOR, "a.t")]


def _check_grid(driver) -> None:
    from selenium.webdriver.common.by import By

    assert "r1 1/2 · 2r 2/2" in _cell(driver, "openai-base")
    assert "r1 0/1 · 2r 0/1" in _cell(driver, "openai-new")   # the infrastructure error is not counted
    assert _boxes(driver, "openai-base") == ["p1", "p2"] and _boxes(driver, "openai-new") == ["f", "i"]
    headline = driver.find_element(By.ID, "headline").find_element(By.XPATH, "following-sibling::div").text
    assert "openai-base 1 2 0.50 (50.0%)" in headline and "1.00 (100.0%)" in headline


@pytest.mark.timeout(1800)  # installing Chromium on first use may take 25 minutes
def test_the_viewer_in_the_browser(view_run, served, browser, tmp_path):  # noqa: F811
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    browser.get(served)
    _check_grid(browser)
    shown = browser.find_element(By.ID, "shown")
    assert shown.text == "4 of 4 trials"
    Select(browser.find_element(By.ID, "f-outcome")).select_by_value("i")
    assert shown.text == "1 of 4 trials" and "outcome=i" in browser.current_url
    Select(browser.find_element(By.ID, "f-outcome")).select_by_value("")
    Select(browser.find_element(By.ID, "f-kind")).select_by_visible_text("syntax-error")
    visible = [b for b in browser.find_elements(By.CSS_SELECTOR, "a.t") if b.is_displayed()]
    assert shown.text == "1 of 4 trials" and [b.get_attribute("title") for b in visible] == \
        ["trial 1: failed; syntax-error, wrong-value"]
    Select(browser.find_element(By.ID, "f-kind")).select_by_value("")
    Select(browser.find_element(By.ID, "f-config")).select_by_visible_text("openai-new")
    assert shown.text == "2 of 4 trials"
    assert not browser.find_element(By.CSS_SELECTOR, "th[data-config='openai-base']").is_displayed()
    Select(browser.find_element(By.ID, "f-config")).select_by_value("")
    screenshot(browser, tmp_path / "grid.png")

    # base's trial 2: the round-2 feedback message and round 1's failing test, as recorded
    follow(browser, browser.find_element(By.CSS_SELECTOR, "td[data-config='openai-base'] a.t.p2"))
    trial = view_run / "openai-base" / "sum-of-squares" / "trial-2"
    feedback = RoundTrajectory.model_validate_json((trial / "round-2" / "trajectory.json").read_bytes()).message
    report = TestReport.model_validate_json((trial / "round-1" / "test_report.json").read_bytes())
    failing = report.failing()[0]
    shown_feedback = browser.find_element(By.ID, "round-2-message").text
    assert "FAILED" in feedback and all(line.strip() in shown_feedback for line in feedback.splitlines() if line.strip())
    tests = browser.find_element(By.CSS_SELECTOR, "#round-1 table.tests").text
    assert failing.name in tests and failing.message.splitlines()[0].strip() in tests
    assert "-    for (long long k = 1; k <= n; ++k) total += k;" in browser.find_element(By.ID, "round-2").text
    screenshot(browser, tmp_path / "trial.png")
    raw = browser.find_element(By.LINK_TEXT, "result.json").get_attribute("href")
    assert httpx.get(raw).json()["passed_round"] == 2

    # new's trial 1: a compile error with its diagnostics, and a <script> in the answer shown as text
    browser.get(served)
    follow(browser, browser.find_element(By.CSS_SELECTOR, "td[data-config='openai-new'] a.t.f"))
    assert browser.execute_script("return window.__pwned") is None
    page = browser.find_element(By.TAG_NAME, "main").text
    assert INJECTED in page and "// <script>window.__pwned = 2</script>" in page
    assert "expected primary-expression" in browser.find_element(By.CSS_SELECTOR, "#round-1 .report").text

    # the comparison, from the grid's form, to the regressed task's two answers
    browser.get(served)
    follow(browser, browser.find_element(By.ID, "compare-go"))
    assert "Difference in mean tasks solved" in browser.find_element(By.ID, "paired").text
    screenshot(browser, tmp_path / "compare.png")
    follow(browser, browser.find_element(By.CSS_SELECTOR, "ul.changed a"))
    assert "regression" in browser.find_element(By.TAG_NAME, "h1").text
    base_answer = browser.find_element(By.ID, "answer-1").text
    new_answer = browser.find_element(By.ID, "answer-2").text
    assert "total += k * k;" in base_answer and "total += k;" in new_answer and "k * k" not in new_answer
    assert "sum of the first ten" in browser.find_element(By.CSS_SELECTOR, "table.tests").text
    screenshot(browser, tmp_path / "compare-task.png")

    # read-only: nothing outside the run is served
    assert httpx.get(served + "raw/view/../../etc/passwd").status_code == 404
    assert httpx.get(served + "trial/openai-new/sum-of-squares/trial-9.html").status_code == 404


def test_html_reports_link_static_pages(view_run, browser, tmp_path):  # noqa: F811
    from selenium.webdriver.common.by import By

    out = tmp_path / "report.html"
    done = subprocess.run([HARNESS, "report", str(view_run), "--format", "html", "--out", str(out),
                           "--resamples", "2000"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    browser.get(out.as_uri())
    follow(browser, browser.find_element(By.LINK_TEXT, "Every trial behind these numbers"))
    _check_grid(browser)
    follow(browser, browser.find_element(By.CSS_SELECTOR, "td[data-config='openai-new'] a.t.f"))   # a file, no server
    assert browser.execute_script("return window.__pwned") is None
    assert INJECTED in browser.find_element(By.TAG_NAME, "main").text
    follow(browser, browser.find_element(By.LINK_TEXT, "result.json"))   # the raw file in the run folder itself
    assert '"outcome": "failed"' in browser.page_source

    out = tmp_path / "compare.html"
    done = subprocess.run([HARNESS, "compare", "openai-base", "openai-new", "--from", str(view_run),
                           "--format", "html", "--out", str(out), "--resamples", "2000"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    browser.get(out.as_uri())
    follow(browser, browser.find_element(By.LINK_TEXT, "sum-of-squares"))
    assert "total += k * k;" in browser.find_element(By.ID, "answer-1").text
    assert "total += k;" in browser.find_element(By.ID, "answer-2").text
    screenshot(browser, tmp_path / "static-compare-task.png")
