"""A Suite is a named, versioned, ordered list of Tasks: a folder holding `suite.toml` and
one Exercism-layout folder per task. Suites are found by name in a list of roots (the
bundled suites, the user's imported suites; the curriculum adds its own root) or opened by
path. Everything that can change a result is in the suite's content hash."""

from __future__ import annotations

import datetime
import difflib
import json
import re
import shutil
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Callable, Iterable, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from .errors import BadInput, invalid
from .fs import read_toml, subfolders, written_folder
from .hashing import sha256_bytes, sha256_json
from .languages import LAYOUTS, layout_named, task_name
from .paths import bundled_dir, state_dir
from .sandbox.image import image_repo, suite_image
from .task import Task, load_task
from .training_files import curriculum_roots

MANIFEST = "suite.toml"
_NAME = re.compile(r"[a-z0-9][a-z0-9_.-]*")


class SuiteManifest(BaseModel):
    """What `suite.toml` holds."""

    model_config = ConfigDict(extra="forbid")

    schema_version: Literal[1] = 1
    name: str
    version: str
    # A name in harness.languages.LAYOUTS: every task's own. A suite of several languages
    # lists them, each task's its files' (`task.Task.language`), each run in its own image.
    language: str | list[str]
    image: str | None = None  # the sandbox image repository of a suite of one language
    description: str = ""
    source: str | None = None  # where an imported suite was copied from
    tasks: list[str]
    # A held-out pool: tasks the models it evaluates cannot have seen (a suite imported
    # after their training cutoff, a curriculum built here). `unseen = true` declares every
    # task; `unseen_tasks` some of them. Reports split their numbers by it.
    unseen: bool = False
    unseen_tasks: list[str] = []
    # The day each task's code was written (its function's last change in git, or a date the
    # importer was given): what a model's training cutoff is compared with. A task without a
    # date is never called written after a cutoff.
    written: dict[str, datetime.date] = {}


class Suite(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    version: str
    languages: tuple[str, ...]  # one, or those of a suite of several (suite.toml's `language`)
    images: tuple[str, ...]     # the image repository of each language, in the same order
    description: str
    path: Path
    origin: str  # which root it was found in ("bundled", "user", ...), or "path"
    tasks: tuple[Task, ...]
    unseen_tasks: tuple[str, ...] = ()  # the tasks it declares unseen (SuiteManifest.unseen)
    written: dict[str, datetime.date] = {}  # SuiteManifest.written

    @property
    def language(self) -> str:
        """The language of a suite of one; bad input for a suite of several, where a command
        that works in one language's terms (a curriculum, a teacher's contract) is asked of it."""
        return self.languages[self._one()]

    @property
    def image(self) -> str:
        return self.images[self._one()]

    def _one(self) -> int:
        if len(self.languages) > 1:
            raise BadInput(f"{self.manifest_path}: suite {self.name} holds exercises of several languages "
                           f"({', '.join(self.languages)}); this takes a suite of one language")
        return 0

    @property
    def manifest_path(self) -> Path:
        return self.path / MANIFEST

    @cached_property
    def content_hash(self) -> str:
        """The manifest and every task's content, in suite order."""
        return sha256_json({
            MANIFEST: sha256_bytes(self.manifest_path.read_bytes()),
            "tasks": [[t.slug, t.content_hash] for t in self.tasks],
        })

    def task(self, slug: str) -> Task:
        for t in self.tasks:
            if t.slug == slug:
                return t
        close = difflib.get_close_matches(slug, [t.slug for t in self.tasks], n=2, cutoff=0.8)
        hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
        raise BadInput(f"{self.manifest_path}: suite {self.name} has no task {slug!r}{hint}")

    def select(self, slugs: Iterable[str] | None) -> list[Task]:
        """The named tasks in suite order, or all of them."""
        if slugs is None:
            return list(self.tasks)
        wanted = list(dict.fromkeys(s.strip() for s in slugs if s.strip()))
        for slug in wanted:
            self.task(slug)
        return [t for t in self.tasks if t.slug in wanted]


# --- where suites live -------------------------------------------------------------------


def user_suites_dir() -> Path:
    return state_dir() / "suites"


# Searched in order by name. Another kind of suite (the curriculum's) adds its root here.
SUITE_ROOTS: list[tuple[str, Callable[[], Path]]] = [
    ("bundled", lambda: bundled_dir("suites")),
    ("user", user_suites_dir),
    ("curriculum", lambda: curriculum_roots()[0]),  # where `harness curriculum` writes by default
]


@dataclass(frozen=True)
class SuiteEntry:
    name: str
    origin: str
    path: Path


def known_suites() -> list[SuiteEntry]:
    """Every suite folder in every root (a folder with a suite.toml), in root order. A name
    found in an earlier root hides the same name in a later one."""
    out: list[SuiteEntry] = []
    seen: set[str] = set()
    for origin, locate in SUITE_ROOTS:
        root = locate()
        if not root.is_dir():
            continue
        for sub in sorted(root.iterdir()):
            if (sub / MANIFEST).is_file() and not sub.name.startswith(".") and sub.name not in seen:
                seen.add(sub.name)
                out.append(SuiteEntry(sub.name, origin, sub))
    return out


def _looks_like_path(ref: str) -> bool:
    return "/" in ref or "\\" in ref or ref.startswith(".") or ref.endswith(MANIFEST)


def find_suite(ref: str) -> Suite:
    """A suite by name (searched in SUITE_ROOTS) or by the path of its folder; a bare
    name that no root knows may still be a suite folder in the working directory."""
    if _looks_like_path(ref):
        path = Path(ref)
        return load_suite(path.parent if path.name == MANIFEST else path)
    for entry in known_suites():
        if entry.name == ref:
            return load_suite(entry.path, origin=entry.origin)
    if (Path(ref) / MANIFEST).is_file():
        return load_suite(ref)
    places = ", ".join(str(locate()) for _, locate in SUITE_ROOTS)
    known = ", ".join(e.name for e in known_suites()) or "none"
    raise BadInput(f"unknown suite {ref!r} (looked in {places}; known: {known})")


def suite_of_run(manifest) -> Suite:
    """The suite a run used (a records.RunManifest), where its manifest says it was, else by
    name."""
    if manifest.suite_path and Path(manifest.suite_path, "suite.toml").is_file():
        return find_suite(str(Path(manifest.suite_path) / "suite.toml"))
    return find_suite(manifest.suite)


def _languages(manifest: SuiteManifest, where: str) -> tuple[str, ...]:
    """The suite's languages, each one the harness has. A suite of several runs each in its
    own image (`harness-<language>`), so it names none."""
    if isinstance(manifest.language, str):
        return (layout_named(manifest.language, where).name,)
    if not manifest.language:
        raise BadInput(f"{where}: language lists no language")
    if manifest.image is not None:
        raise BadInput(f"{where}: a suite of several languages runs each in its own image; drop `image`")
    if len(set(manifest.language)) != len(manifest.language):
        raise BadInput(f"{where}: language lists a language twice")
    return tuple(layout_named(lang, where).name for lang in manifest.language)


def read_manifest(path: Path) -> SuiteManifest:
    manifest_path = path / MANIFEST
    if not manifest_path.is_file():
        raise BadInput(f"{manifest_path}: missing; a suite folder needs a {MANIFEST}")
    data = read_toml(manifest_path)
    try:
        return SuiteManifest.model_validate(data)
    except ValidationError as exc:
        raise invalid(exc, str(manifest_path)) from None


def load_suite(path: Path | str, origin: str = "path") -> Suite:
    """Load a suite folder and every task it lists. Each broken rule is refused with the
    file named: the manifest, a task folder's config, a missing solution file."""
    path = Path(path).resolve()
    if not path.is_dir():
        raise BadInput(f"{path}: not a suite folder (no such directory)")
    manifest = read_manifest(path)
    manifest_path = path / MANIFEST
    if origin != "path" and manifest.name != path.name:
        raise BadInput(f"{manifest_path}: name {manifest.name!r} differs from its folder name {path.name!r}")
    languages = _languages(manifest, str(manifest_path))
    tasks: list[Task] = []
    seen: set[str] = set()
    for slug in manifest.tasks:
        if not _NAME.fullmatch(slug):
            raise BadInput(f"{manifest_path}: {slug!r} is not a task folder name")
        if slug in seen:
            raise BadInput(f"{manifest_path}: task {slug!r} is listed twice")
        seen.add(slug)
        task_dir = path / slug
        if not task_dir.is_dir():
            raise BadInput(f"{manifest_path}: lists task {slug!r} but {task_dir} does not exist")
        task = load_task(task_dir)
        if task.layout.name not in languages:
            titles = " or ".join(layout_named(lang, str(manifest_path)).title for lang in languages)
            raise BadInput(f"{task_dir}: a {task.layout.title} exercise in a suite whose language is {titles}")
        tasks.append(task)
    if not tasks:
        raise BadInput(f"{manifest_path}: lists no tasks")
    for field, named in (("unseen_tasks", manifest.unseen_tasks), ("written", manifest.written)):
        stray = sorted(set(named) - seen)
        if stray:
            raise BadInput(f"{manifest_path}: {field} names tasks it does not list: {', '.join(stray)}")
    unseen = manifest.tasks if manifest.unseen else [t for t in manifest.tasks if t in manifest.unseen_tasks]
    if len(languages) > 1:
        idle = sorted(set(languages) - {t.layout.name for t in tasks})
        if idle:
            raise BadInput(f"{manifest_path}: language lists {', '.join(idle)} but no task is of it")
    images = (suite_image(languages[0], manifest.image or image_repo(languages[0])),) if len(languages) == 1 \
        else tuple(image_repo(lang) for lang in languages)
    return Suite(
        name=manifest.name, version=manifest.version, languages=languages, images=images,
        description=manifest.description, path=path, origin=origin, tasks=tuple(tasks), unseen_tasks=tuple(unseen),
        written=manifest.written,
    )


# --- importing ---------------------------------------------------------------------------


def _toml_string(text: str) -> str:
    # A JSON string is a valid TOML basic string for everything json.dumps emits.
    return json.dumps(text, ensure_ascii=False)


def render_manifest(manifest: SuiteManifest, command: str = "harness suite import") -> str:
    lines = [
        f"# Generated by `{command}`.",
        f"name = {_toml_string(manifest.name)}",
        f"version = {_toml_string(manifest.version)}",
    ]
    if isinstance(manifest.language, str):
        lines.append(f"language = {_toml_string(manifest.language)}")
    else:
        lines.append(f"language = [{', '.join(_toml_string(lang) for lang in manifest.language)}]")
    if manifest.image is not None:
        lines.append(f"image = {_toml_string(manifest.image)}")
    lines.append(f"description = {_toml_string(manifest.description)}")
    if manifest.source is not None:
        lines.append(f"source = {_toml_string(manifest.source)}")
    if manifest.unseen:
        lines.append("unseen = true")
    lines.append("tasks = [")
    lines += [f"  {_toml_string(slug)}," for slug in manifest.tasks]
    lines.append("]")
    if manifest.written:  # a table, so after every top-level key
        lines.append("[written]")
        lines += [f"{_toml_string(slug)} = {day.isoformat()}" for slug, day in sorted(manifest.written.items())]
    return "\n".join(lines) + "\n"


def check_suite_name(name: str, replace: bool = False) -> Path:
    """Where a new user suite called `name` goes: a valid name that no root holds yet (with
    `replace`, an imported suite of that name is overwritten)."""
    if not _NAME.fullmatch(name):
        raise BadInput(f"{name!r} is not a suite name (lowercase letters, digits, '-', '_', '.')")
    for entry in known_suites():
        if entry.name == name and not (replace and entry.origin == "user"):
            hint = "" if entry.origin != "user" else " (use --replace to overwrite it)"
            raise BadInput(f"{entry.path}: a {entry.origin} suite named {name!r} exists already{hint}")
    return user_suites_dir() / name


def write_user_suite(manifest: SuiteManifest, fill: Callable[[Path], None], command: str = "harness suite import") -> Suite:
    """Write a user suite in one step: `fill` lays out the task folders in a staging folder,
    the manifest is rendered beside them, and the staged suite must load before it replaces
    whatever held its name (check_suite_name first)."""
    dest = user_suites_dir() / manifest.name
    with written_folder(dest) as staging:
        fill(staging)
        (staging / MANIFEST).write_text(render_manifest(manifest, command))
        load_suite(staging)
    return load_suite(dest, origin="user")


# Where a checkout of Aider's polyglot benchmark (Exercism's tracks) keeps each language's
# exercises: <language>/exercises/practice/<exercise>.
TRACK_EXERCISES = ("exercises", "practice")


def _tracks(source: Path) -> list[Path]:
    """The language folders of a benchmark checkout (or of any folder holding
    <language>/exercises/practice); none for a folder of exercises."""
    return [p for p in subfolders(source) if p.joinpath(*TRACK_EXERCISES).is_dir()]


def _exercises(folder: Path) -> list[Path]:
    return [p for p in subfolders(folder) if not p.name.startswith(".")]


def _track_tasks(source: Path, notice: Callable[[str], None]) -> dict[str, Task]:
    """Task name -> exercise of every language of a checkout the harness has; another
    language's folder is skipped with one line said. With several languages a task is named
    `<language>.<exercise>` (the same exercise is in several tracks), which reads back as
    Aider's <language>/exercises/practice/<exercise>."""
    found: dict[str, list[Task]] = {}
    skipped: list[str] = []
    for track in _tracks(source):
        exercises = _exercises(track.joinpath(*TRACK_EXERCISES))
        if track.name not in LAYOUTS:
            skipped.append(f"{track.name}: skipped {len(exercises)} exercises, not a language the harness has "
                           f"({', '.join(LAYOUTS)})")
            continue
        tasks = [load_task(ex) for ex in exercises]
        stray = next((t for t in tasks if t.language != track.name), None)
        if stray is not None:
            raise BadInput(f"{stray.path}: a {stray.layout.title} exercise in the {track.name} folder")
        found[track.name] = tasks
    if not found:
        raise BadInput(f"{source}: no exercises of a language the harness has ({', '.join(LAYOUTS)})")
    for line in skipped:  # said once the others import: a refusal stays one line
        notice(line)
    several = len(found) > 1
    return {task_name(lang, t.slug) if several else t.slug: t for lang, tasks in found.items() for t in tasks}


def import_suite(source: Path | str, name: str, replace: bool = False, unseen: bool = False,
                 notice: Callable[[str], None] = lambda line: None) -> Suite:
    """Copy Exercism-layout exercises, unchanged, into the user suites folder as suite
    `name`, with a generated suite.toml listing every exercise in name order (and, with
    `unseen`, declaring them a held-out pool). `source` is a folder of exercises of one
    language, or a checkout of the polyglot benchmark: every language of it the harness has,
    as one suite (`notice` hears of the languages skipped)."""
    source = Path(source).resolve()
    check_suite_name(name, replace)
    if not source.is_dir():
        raise BadInput(f"{source}: not a folder")
    if not _exercises(source):
        raise BadInput(f"{source}: holds no exercise folders")
    # Each broken exercise is refused with its file named, and so is one of a language the
    # harness does not have: built as C++, it would score 0 as the model's failure.
    tasks = _track_tasks(source, notice) if _tracks(source) else {ex.name: load_task(ex) for ex in _exercises(source)}
    languages = sorted({t.layout.name for t in tasks.values()})
    if len(languages) > 1 and not _tracks(source):
        raise BadInput(f"{source}: holds exercises of several languages ({', '.join(languages)}); "
                       "import each language's as a suite of its own, or the checkout that holds them")
    counts = ", ".join(f"{lang} {sum(t.language == lang for t in tasks.values())}" for lang in languages)
    manifest = SuiteManifest(
        name=name, version="imported", language=languages if len(languages) > 1 else languages[0],
        image=None if len(languages) > 1 else image_repo(languages[0]),
        description=f"imported from {source}" + (f" ({counts})" if len(languages) > 1 else ""),
        source=str(source), tasks=sorted(tasks), unseen=unseen,
    )

    def copy(staging: Path) -> None:
        for slug, task in tasks.items():
            shutil.copytree(task.path, staging / slug, ignore=shutil.ignore_patterns(".git"), symlinks=True)

    return write_user_suite(manifest, copy)
