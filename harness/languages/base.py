"""What every floor may know of a language without loading its toolchain: its name, which
of an exercise's files are its own, and which files change how an exercise builds (no
answer may write those), and what its image needs. Each language's `layout.py` holds one `Layout`; how its tests
build and run and its mutants (`language.Language`) live beside it in the same folder."""

from __future__ import annotations

from pathlib import PurePosixPath

from pydantic import BaseModel, ConfigDict


class Layout(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str                          # as suites, tasks and records name it ("cpp")
    title: str                         # as people do ("C++")
    solution_suffixes: tuple[str, ...]  # a solution file with one of these is this language's
    build_files: tuple[str, ...] = ()   # exact names that configure a build or a test run
    build_suffixes: tuple[str, ...] = ()
    build_folders: tuple[str, ...] = ()  # a file anywhere under a folder of one of these names
    # The image's toolchain: Debian packages, and the files that assets/image.dockerfile (its
    # own build steps, if any) copies from assets/ (nothing is fetched while a test runs).
    image_packages: tuple[str, ...] = ()
    image_files: tuple[str, ...] = ()
    # Files the image's build reads from elsewhere in the language's folder: name in the
    # build context -> path under languages/<name>/ (so the image's tag changes with them).
    image_sources: dict[str, str] = {}
    # Whether the local backend runs its tests too (`sandbox up` installs its packages on the
    # host); a language that runs in its image alone says so when asked of another backend.
    runs_locally: bool = True
    # Where the reference's files go when an exercise places them by folder rather than
    # pairing each with a solution file by extension (Java's classes, one a file, some with
    # no stub): (the reference's folder, the solution's folder).
    reference_root: tuple[str, str] | None = None
    # The prompt contract (prompt_contracts/) its repair curricula are written with unless
    # one is named: the instructions say which language and library to keep to.
    repair_contract: str = "repair"
    # The language's own version of a contract written for another (`tests` says Catch2):
    # a run on a suite of this language that names the key asks with the value.
    contracts: dict[str, str] = {}

    def contract(self, name: str) -> str:
        return self.contracts.get(name, name)

    def owns(self, solution_files: tuple[str, ...]) -> bool:
        return any(PurePosixPath(f).suffix.lower() in self.solution_suffixes for f in solution_files)

    def is_build_file(self, rel: str) -> bool:
        path = PurePosixPath(rel)
        return (path.name in self.build_files or path.name.endswith(self.build_suffixes)
                or any(part in self.build_folders for part in path.parts[:-1]))

