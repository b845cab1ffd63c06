"""Loading suites: the rules on broken folders (each refused with the file named, exit 2
with one line from the CLI), lookup by name and by path, the content hash, and import."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness import suite as suite_mod
from harness.errors import BadInput
from harness.suite import find_suite, import_suite, known_suites, load_suite

from tests.conftest import GOLDEN, ROOT
from tests.run_support import write_python_leap

HARNESS = str(Path(sys.executable).parent / "harness")
FIXED26 = [
    "all-your-base", "allergies", "bank-account", "binary-search-tree", "circular-buffer", "clock",
    "complex-numbers", "crypto-square", "diamond", "dnd-character", "gigasecond", "grade-school",
    "kindergarten-garden", "knapsack", "linked-list", "meetup", "parallel-letter-frequency", "perfect-numbers",
    "phone-number", "queen-attack", "robot-name", "space-age", "spiral-matrix", "sublist", "yacht", "zebra-puzzle",
]


@pytest.fixture(autouse=True)
def private_state(tmp_path, monkeypatch):
    """Each test gets its own user suites folder."""
    monkeypatch.setenv("HARNESS_STATE_DIR", str(tmp_path / "state"))


def write_manifest(folder: Path, tasks: list[str], name: str | None = None, **extra: str) -> Path:
    lines = [f'name = "{name or folder.name}"', 'version = "1"', 'language = "cpp"', 'image = "harness-cpp"']
    lines += [f'{k} = "{v}"' for k, v in extra.items()]
    lines.append("tasks = [" + ", ".join(f'"{t}"' for t in tasks) + "]")
    (folder / "suite.toml").write_text("\n".join(lines) + "\n")
    return folder / "suite.toml"


def make_suite(root: Path, name: str = "demo", slugs: tuple[str, ...] = ("sum-of-squares",)) -> Path:
    """A suite folder of copies of the golden task under the given slugs."""
    folder = root / name
    folder.mkdir(parents=True)
    for slug in slugs:
        shutil.copytree(GOLDEN / "sum-of-squares", folder / slug)
    write_manifest(folder, list(slugs), name)
    return folder


def harness(*args: str, env_state: Path) -> subprocess.CompletedProcess:
    import os

    env = dict(os.environ, HARNESS_STATE_DIR=str(env_state))
    return subprocess.run([HARNESS, *args], capture_output=True, text=True, env=env, cwd=ROOT)


def assert_one_line_exit_2(proc: subprocess.CompletedProcess, *needles: str) -> None:
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    assert "Traceback" not in proc.stderr
    for needle in needles:
        assert needle in lines[0]


def test_loads_tasks_in_manifest_order(tmp_path):
    folder = make_suite(tmp_path, slugs=("b-task", "a-task"))
    s = load_suite(folder)
    assert (s.name, s.version, s.language, s.image, s.origin) == ("demo", "1", "cpp", "harness-cpp", "path")
    assert [t.slug for t in s.tasks] == ["b-task", "a-task"]
    assert [t.slug for t in s.select(["a-task", "b-task"])] == ["b-task", "a-task"]
    with pytest.raises(BadInput, match="no task 'c-task'"):
        s.select(["c-task"])


def test_content_hash_covers_the_manifest_and_every_task_file(tmp_path):
    folder = make_suite(tmp_path)
    first = load_suite(folder).content_hash
    assert load_suite(folder).content_hash == first
    test_file = folder / "sum-of-squares" / "sum_of_squares_test.cpp"
    test_file.write_text(test_file.read_text() + "\n// changed\n")
    second = load_suite(folder).content_hash
    assert second != first
    (folder / "suite.toml").write_text((folder / "suite.toml").read_text().replace('version = "1"', 'version = "2"'))
    assert load_suite(folder).content_hash != second
    faulty = folder / "sum-of-squares" / ".meta" / "faulty" / "bug"
    faulty.mkdir(parents=True)
    (faulty / "sum_of_squares.cpp").write_text("// a bug\n")
    assert load_suite(folder).content_hash not in (first, second)


@pytest.mark.parametrize(
    "breakage, named",
    [
        ("missing config", "sum-of-squares/.meta/config.json"),
        ("missing solution file", "sum-of-squares/sum_of_squares.cpp"),
        ("duplicate slug", "suite.toml"),
        ("listed but missing", "suite.toml"),
        ("bad toml", "suite.toml"),
        ("missing field", "suite.toml"),
    ],
)
def test_broken_folders_are_refused_naming_the_file(tmp_path, breakage, named):
    folder = make_suite(tmp_path)
    task = folder / "sum-of-squares"
    if breakage == "missing config":
        (task / ".meta" / "config.json").unlink()
    elif breakage == "missing solution file":
        (task / "sum_of_squares.cpp").unlink()
    elif breakage == "duplicate slug":
        write_manifest(folder, ["sum-of-squares", "sum-of-squares"])
    elif breakage == "listed but missing":
        write_manifest(folder, ["sum-of-squares", "no-such-task"])
    elif breakage == "bad toml":
        (folder / "suite.toml").write_text('name = "demo"\ntasks = [\n')
    elif breakage == "missing field":
        (folder / "suite.toml").write_text('name = "demo"\nversion = "1"\nlanguage = "cpp"\ntasks = []\n')
    with pytest.raises(BadInput) as exc:
        load_suite(folder)
    assert str(folder / named) in str(exc.value)
    proc = harness("suite", "show", str(folder), env_state=tmp_path / "state")
    assert_one_line_exit_2(proc, str(folder / named))
    proc = harness("suite", "validate", str(folder), "--sandbox", "local", env_state=tmp_path / "state")
    assert_one_line_exit_2(proc, str(folder / named))


def test_unknown_suite_name_is_bad_input(tmp_path):
    with pytest.raises(BadInput, match="unknown suite 'nope'"):
        find_suite("nope")
    proc = harness("suite", "show", "nope", env_state=tmp_path / "state")
    assert_one_line_exit_2(proc, "unknown suite 'nope'", str(tmp_path / "state" / "suites"))
    folder = make_suite(tmp_path)
    proc = harness("suite", "validate", str(folder), "--tasks", "no-such-task", env_state=tmp_path / "state")
    assert_one_line_exit_2(proc, "no-such-task", str(folder / "suite.toml"))


def test_lookup_by_name_searches_the_roots_in_order(tmp_path, monkeypatch):
    user = tmp_path / "state" / "suites"
    make_suite(user, "mine")
    s = find_suite("mine")
    assert (s.name, s.origin, s.path) == ("mine", "user", user / "mine")
    # Another kind of suite (a curriculum) adds a root; its suites are then found by name.
    extra = tmp_path / "curricula"
    make_suite(extra, "repairs")
    monkeypatch.setattr(suite_mod, "SUITE_ROOTS", [*suite_mod.SUITE_ROOTS, ("curricula", lambda: extra)])
    assert find_suite("repairs").origin == "curricula"
    names = [(e.name, e.origin) for e in known_suites()]
    assert names.index(("fixed26", "bundled")) < names.index(("mine", "user")) < names.index(("repairs", "curricula"))
    # A folder's name and its manifest's name must agree when found by name.
    write_manifest(user / "mine", ["sum-of-squares"], name="other")
    with pytest.raises(BadInput, match="differs from its folder name"):
        find_suite("mine")


def test_import_copies_exercises_unchanged_and_registers_them(tmp_path):
    upstream = tmp_path / "practice"
    upstream.mkdir()
    for slug in ("zeta", "alpha"):
        shutil.copytree(GOLDEN / "sum-of-squares", upstream / slug)
    (upstream / ".git").mkdir()  # a checkout's own metadata is not an exercise
    s = import_suite(upstream, "upstream")
    assert (s.name, s.origin) == ("upstream", "user")
    assert [t.slug for t in s.tasks] == ["alpha", "zeta"]
    for t in s.tasks:
        for rel in ("sum_of_squares_test.cpp", ".meta/config.json", "CMakeLists.txt", ".meta/example.h"):
            assert (t.path / rel).read_bytes() == (upstream / t.slug / rel).read_bytes()
    assert find_suite("upstream").content_hash == s.content_hash
    with pytest.raises(BadInput, match="exists already.*--replace"):
        import_suite(upstream, "upstream")
    assert import_suite(upstream, "upstream", replace=True).content_hash == s.content_hash
    with pytest.raises(BadInput, match="bundled suite named 'fixed26'"):
        import_suite(upstream, "fixed26", replace=True)


def test_import_refuses_an_exercise_without_config(tmp_path):
    upstream = tmp_path / "practice"
    shutil.copytree(GOLDEN / "sum-of-squares", upstream / "good")
    (upstream / "bad").mkdir()
    proc = harness("suite", "import", str(upstream), "--name", "x", env_state=tmp_path / "state")
    assert_one_line_exit_2(proc, str(upstream / "bad" / ".meta" / "config.json"))
    assert not (tmp_path / "state" / "suites" / "x").exists()


def test_an_exercise_of_a_language_the_harness_lacks_is_refused_on_import(tmp_path):
    upstream = tmp_path / "practice"
    shutil.copytree(GOLDEN / "sum-of-squares", upstream / "sum-of-squares")
    (upstream / "leap" / ".meta").mkdir(parents=True)
    (upstream / "leap" / "leap.rb").write_text("class Year\n  def self.leap?(year)\n    false\n  end\nend\n")
    (upstream / "leap" / "leap_test.rb").write_text("require 'minitest/autorun'\nrequire_relative 'leap'\n")
    (upstream / "leap" / ".meta" / "config.json").write_text(json.dumps(
        {"files": {"solution": ["leap.rb"], "test": ["leap_test.rb"]}}))
    proc = harness("suite", "import", str(upstream), "--name", "ruby", env_state=tmp_path / "state")
    assert_one_line_exit_2(proc, f"{upstream / 'leap'}: a Ruby exercise; the harness runs C++ (cpp), Python (python), "
                           "Go (go), Rust (rust), JavaScript (javascript), Java (java) exercises")
    assert not (tmp_path / "state" / "suites" / "ruby").exists()


def test_a_suite_names_a_language_its_tasks_are_in(tmp_path):
    root = tmp_path / "s"
    shutil.copytree(GOLDEN / "sum-of-squares", root / "sum-of-squares")
    manifest = 'schema_version = 1\nname = "s"\nversion = "1"\nimage = "x"\ntasks = ["sum-of-squares"]\n'
    (root / "suite.toml").write_text(manifest + 'language = "cobol"\n')
    with pytest.raises(BadInput, match="language 'cobol' is not one the harness has: C\\+\\+ \\(cpp\\), Python \\(python\\)"):
        load_suite(root)
    write_python_leap(root / "leap")
    (root / "suite.toml").write_text(manifest.replace('["sum-of-squares"]', '["sum-of-squares", "leap"]')
                                     + 'language = "cpp"\n')
    with pytest.raises(BadInput, match="leap: a Python exercise in a suite whose language is C\\+\\+"):
        load_suite(root)


def test_cli_list_show_and_import(tmp_path):
    upstream = tmp_path / "practice"
    shutil.copytree(GOLDEN / "sum-of-squares", upstream / "sum-of-squares")
    proc = harness("suite", "import", str(upstream), "--name", "tiny", env_state=tmp_path / "state")
    assert proc.returncode == 0, proc.stderr
    assert "imported 1 tasks as suite tiny" in proc.stdout
    proc = harness("suite", "list", env_state=tmp_path / "state")
    assert proc.returncode == 0 and "tiny" in proc.stdout and "fixed26" in proc.stdout
    proc = harness("suite", "show", "tiny", env_state=tmp_path / "state")
    assert proc.returncode == 0, proc.stderr
    s = find_suite("tiny")
    assert s.content_hash in proc.stdout and str(s.path) in proc.stdout
    row = next(line for line in proc.stdout.splitlines() if "sum-of-squares" in line)
    assert " 4 " in row  # the golden task declares four TEST_CASEs


def test_bundled_fixed26_is_complete():
    s = find_suite("fixed26")
    assert s.origin == "bundled" and len(s.tasks) == 26
    assert [t.slug for t in s.tasks] == FIXED26
    from harness.suite_validation import declared_test_cases, faulty_controls

    for t in s.tasks:
        assert t.reference_files(), t.slug
        assert declared_test_cases(t) > 0, t.slug
        controls = faulty_controls(t)
        assert len(controls) >= 3, f"{t.slug}: {len(controls)} faulty controls"
        for name in controls:
            folder = t.path / ".meta" / "faulty" / name
            held = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
            assert held and held <= set(t.solution_files), f"{t.slug}/{name}: {held}"
        assert json.loads((t.path / ".meta" / "config.json").read_text())["files"]["solution"]


def _checkout(root: Path) -> Path:
    """A polyglot-benchmark checkout in small: one exercise name in two languages, one more
    Python exercise, and a language the harness has not (its folder skipped, not read)."""
    shutil.copytree(GOLDEN / "sum-of-squares", root / "cpp" / "exercises" / "practice" / "sum-of-squares")
    write_python_leap(root / "python" / "exercises" / "practice" / "sum-of-squares")
    write_python_leap(root / "python" / "exercises" / "practice" / "leap")
    (root / "cobol" / "exercises" / "practice" / "hello").mkdir(parents=True)
    return root


def test_a_benchmark_checkout_imports_as_one_suite_of_its_languages(tmp_path):
    checkout = _checkout(tmp_path / "polyglot-benchmark")
    proc = harness("suite", "import", str(checkout), "--name", "poly", env_state=tmp_path / "state")
    assert proc.returncode == 0, proc.stderr
    assert "cobol: skipped 1 exercises, not a language the harness has" in proc.stderr
    s = find_suite("poly")
    assert [t.slug for t in s.tasks] == ["cpp.sum-of-squares", "python.leap", "python.sum-of-squares"]
    assert [t.exercise for t in s.tasks] == ["sum-of-squares", "leap", "sum-of-squares"]
    assert (s.languages, s.images) == (("cpp", "python"), ("harness-cpp", "harness-python"))
    manifest = s.manifest_path.read_text()
    assert 'language = ["cpp", "python"]' in manifest and "image" not in manifest
    with pytest.raises(BadInput, match="several languages \\(cpp, python\\); this takes a suite of one"):
        s.language
    # A suite of several languages names no image (each runs in its own), and lists only
    # languages its tasks are in.
    s.manifest_path.write_text(manifest.replace("description", 'image = "harness-cpp"\ndescription'))
    with pytest.raises(BadInput, match="runs each in its own image; drop `image`"):
        load_suite(s.path)
    s.manifest_path.write_text(manifest.replace('["cpp", "python"]', '["cpp", "python", "go"]'))
    with pytest.raises(BadInput, match="language lists go but no task is of it"):
        load_suite(s.path)
    # An exercise in another language's folder would be judged as that folder's: refused.
    write_python_leap(checkout / "cpp" / "exercises" / "practice" / "leap")
    proc = harness("suite", "import", str(checkout), "--name", "poly2", env_state=tmp_path / "state")
    assert_one_line_exit_2(proc, "leap: a Python exercise in the cpp folder")
