"""A Task is an Exercism-layout exercise folder: instructions in `.docs/`, the file roles
in `.meta/config.json`, a reference solution in `.meta/`, and the stub, tests and build
files at the top. Upstream exercise folders load unchanged.

A task has a kind (`.meta/config.json`'s "kind"): repair, the default (write or fix the
solution; its tests judge it), or output-prediction (predict what a call of some code
produces: the solution is the answer file, the reference the observed value in the answer
format, `.meta/item.json` the item it was made from, predict/build.py)."""

from __future__ import annotations

import json
from functools import cached_property
from pathlib import Path
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict

from .errors import BadInput
from .file_names import describe, refusal
from .fs import regular_files
from .hashing import hash_files
from .languages import LAYOUTS, language_of, layout_named, no_language, task_name
from .languages.base import Layout

# Folders of an exercise that never enter a build: documentation, metadata (the reference
# lives there), and Exercism's CLI state.
_NOT_BUILT = (".docs", ".meta", ".exercism", ".git")
_DOC_FILES = ("introduction.md", "instructions.md", "instructions.append.md")

TaskKind = Literal["repair", "output-prediction"]


class Task(BaseModel):
    model_config = ConfigDict(frozen=True)

    slug: str
    path: Path
    solution_files: tuple[str, ...]
    test_files: tuple[str, ...]
    example_files: tuple[str, ...]
    editor_files: tuple[str, ...] = ()
    kind: TaskKind = "repair"
    # A name in harness.languages.LAYOUTS, from the solution files; None for a task judged
    # by its answer's text alone, which nothing builds.
    language: str | None = "cpp"

    @property
    def exercise(self) -> str:
        """The exercise's own name, which its build files and the transcripts a model reads
        call it: the folder's name, less the `<language>.` that keeps it apart from the same
        exercise of another language in a suite of several (suite.py)."""
        return self.slug.removeprefix(task_name(self.language, "")) if self.language is not None else self.slug

    @property
    def layout(self) -> Layout:
        if self.language is None:
            raise no_language(self.solution_files, str(self.path))
        return LAYOUTS[self.language]

    def is_build_file(self, rel: str) -> bool:
        """A file that changes how the exercise builds or its tests run: no answer may write one."""
        return self.language is not None and self.layout.is_build_file(rel)

    def instruction_docs(self) -> list[str]:
        """The exercise's documents in reading order (introduction, instructions, appendix),
        each exactly as written."""
        return [self.read_text(f".docs/{doc}") for doc in _DOC_FILES if (self.path / ".docs" / doc).is_file()]

    def read_text(self, rel: str) -> str:
        """A task file read as text: UTF-8, the one way every task file is read as text.
        One that is not is bad input naming the file and the first byte that is not."""
        return decode_text(self.read(rel), self.path / rel)

    @property
    def text_files(self) -> tuple[str, ...]:
        """The files a trial reads as text: the documents, and every file of a role (the
        stub, the tests, the reference) that a prompt or an answer quotes."""
        docs = tuple(f".docs/{doc}" for doc in _DOC_FILES if (self.path / ".docs" / doc).is_file())
        return docs + tuple(dict.fromkeys(self.solution_files + self.test_files + self.example_files + self.editor_files))

    def text_problem(self) -> str | None:
        """Why the task cannot be read as text (one line naming its file), or None."""
        for rel in self.text_files:
            try:
                self.read_text(rel)
            except BadInput as exc:
                return str(exc)
        return None

    def instructions(self) -> str:
        return "\n\n".join(doc.strip() for doc in self.instruction_docs())

    @cached_property
    def shipped_files(self) -> tuple[str, ...]:
        """Every file of the exercise a build can see, relative to the task folder."""
        return tuple(rel for rel in regular_files(self.path) if rel.split("/")[0] not in _NOT_BUILT)

    @property
    def protected_files(self) -> tuple[str, ...]:
        """What the sandbox always takes from the task, never from a workspace: tests,
        build files, vendored test framework, anything that is not a solution file."""
        solution = set(self.solution_files)
        return tuple(f for f in self.shipped_files if f not in solution)

    @property
    def written_tests(self) -> tuple[str, ...]:
        """Test files the model wrote (a test-writing suite's), judged as the candidate's
        own files (languages/cpp/policy.py); none in a task as shipped."""
        return ()

    def may_write(self, rel: str) -> bool:
        """Whether a repair answer may write `rel`: a solution file, or a file of its own
        that the task does not ship, outside the exercise's metadata and not a build file.
        Tests, build files and everything else the task ships are the task's."""
        if rel in self.solution_files:
            return True
        return (rel not in self.shipped_files and rel.split("/")[0] not in _NOT_BUILT and not self.is_build_file(rel)
                and refusal(rel) is None)

    def read(self, rel: str) -> bytes:
        return (self.path / rel).read_bytes()

    def stub_files(self) -> dict[str, bytes]:
        return {f: self.read(f) for f in self.solution_files if (self.path / f).is_file()}

    def reference_files(self) -> dict[str, bytes]:
        """The reference solution under the solution files' names. Exercism pairs
        `.meta/example.h` with `foo.h` by extension, and so do we; a language whose references
        live in a folder of their own (`Layout.reference_root`) places them by that folder."""
        root = self.layout.reference_root if self.language is not None else None
        if root is not None and all(ex.startswith(root[0]) for ex in self.example_files):
            return {root[1] + ex[len(root[0]):]: self.read(ex) for ex in self.example_files}
        by_suffix: dict[str, str] = {}
        for sol in self.solution_files:
            by_suffix.setdefault(Path(sol).suffix, sol)
        out: dict[str, bytes] = {}
        for ex in self.example_files:
            target = by_suffix.get(Path(ex).suffix)
            if target is None:
                raise BadInput(
                    f"{self.path / '.meta/config.json'}: example file {ex} matches no solution file by extension"
                )
            out[target] = self.read(ex)
        return out

    @cached_property
    def content_hash(self) -> str:
        """Every file that can change a result: the instructions, the build and test files,
        the stub and the reference."""
        return hash_files({rel: path.read_bytes() for rel, path in regular_files(self.path).items()
                           if not rel.startswith((".git/", ".exercism/"))})


# An #include of one of Catch2 v3's headers (catch_all.hpp, catch_test_macros.hpp, ...);
# v2 has the one catch.hpp.
def decode_text(data: bytes, where: Path | str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise BadInput(f"{where}: not UTF-8 text (byte 0x{data[exc.start]:02x} at line {line}, column {column}); "
                       "save it as UTF-8") from None


def load_task(path: Path | str) -> Task:
    """Load one exercise folder. Anything that would make a later build meaningless is
    refused here, with the file named."""
    path = Path(path).resolve()
    if not path.is_dir():
        raise BadInput(f"{path}: not a task folder (no such directory)")
    config_path = path / ".meta" / "config.json"
    if not config_path.is_file():
        raise BadInput(f"{config_path}: missing; a task folder needs .meta/config.json")
    problem = refusal(".meta/config.json", root=path)
    if problem is not None:  # a link, read, would put any file of this machine in the task
        raise BadInput(f"{path}: {describe('.meta/config.json', problem)}")
    try:
        config = json.loads(decode_text(config_path.read_bytes(), config_path))
        files = config["files"]
        solution = tuple(files["solution"])
        test = tuple(files["test"])
        example = tuple(files.get("example", ()))
        editor = tuple(files.get("editor", ()))
        kind = config.get("kind", "repair")
        named = config.get("language")
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise BadInput(f"{config_path}: not a valid exercise config ({exc.__class__.__name__}: {exc})") from None
    if not solution:
        raise BadInput(f"{config_path}: files.solution is empty")
    if kind not in get_args(TaskKind):
        raise BadInput(f"{config_path}: kind {kind!r} is not one of {', '.join(get_args(TaskKind))}")
    language: str | None
    if named is not None:  # the code an output-prediction task asks about: its files do not say
        language = layout_named(str(named), str(config_path)).name
    elif kind == "output-prediction":
        language = "cpp"  # built before prediction tasks named their language, all of C++
    else:
        found = language_of(solution, str(path))
        language = found.name if found is not None else None
    for role, names in (("solution", solution), ("test", test), ("example", example), ("editor", editor)):
        for name in names:
            problem = refusal(name, root=path)
            if problem is not None:
                raise BadInput(f"{config_path}: the {role} file {describe(name, problem)}")
            if not (path / name).is_file():
                raise BadInput(f"{path / name}: listed in .meta/config.json as a {role} file but does not exist")
    return Task(
        slug=path.name,
        path=path,
        solution_files=solution,
        test_files=test,
        example_files=example,
        editor_files=editor,
        kind=kind,
        language=language,
    )
