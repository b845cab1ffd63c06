"""The package's floors, as ARCHITECTURE.md draws them, held by its imports: a module
imports only from its own floor or the floors below, the wings of one floor do not import
each other, and no two modules import each other, at the top of a file or inside a function.
An import inside a function is kept for an optional or heavy dependency and says so."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "harness"

# Floor by longest matching prefix, bottom first. On the floors marked apart, each prefix is a
# wing that does not import another wing of its floor; below them, modules share their floor.
FLOORS: tuple[tuple[bool, tuple[str, ...]], ...] = (
    (False, ("records", "errors", "fs", "store", "hashing", "paths", "file_names", "adapter_card", "llm",
             "hold_out", "training_files", "languages", "languages.base", "languages.mutation",
             "languages.cpp.layout", "languages.cpp.files", "languages.cpp.lexer", "languages.cpp.catch2",
             "languages.cpp.catch_pch", "languages.cpp.mutants", "languages.cpp.screen", "languages.cpp.normal_form",
             "languages.go.layout", "languages.go.screen", "languages.rust.layout", "languages.rust.screen",
             "languages.java.layout", "languages.java.screen", "languages.token_screen",
             "languages.javascript.layout")),
    (False, ("stats", "bar", "registered_bar", "outcomes", "result_facts", "accounting")),
    (False, ("sandbox", "suite", "task", "staging", "contract", "agents.editformat", "agents.aider.checkout")),
    (False, ("executor",)),
    (False, ("agents", "languages.registry", "languages.language", "languages.cpp.language",
             "languages.cpp.policy", "languages.cpp.verdict_channel", "languages.cpp.compared_types", "languages.cpp.testrun",
             "languages.cpp.cmake", "languages.cpp.objects", "languages.cpp.written", "languages.python.written",
             "languages.python.separate", "languages.python.trace", "languages.python.expression",
             "languages.cpp.probe", "languages.cpp.fill", "languages.python.fill", "languages.cpp.expected",
             "languages.python.expected",
             "languages.python.cases", "languages.python.inprocess", "languages.python.language", "languages.python.testrun",
             "languages.python.warm", "languages.python.junit",
             "languages.python.probe", "languages.token_language", "languages.go", "languages.rust",
             "languages.java",
             "languages.javascript",
             "suite_validation", "verify", "probe", "gold", "mutant_model", "kinds.base", "exercism_results",
             "schemas")),     # schemas: the records on disk and Exercism's results.json
    (True, ("curriculum", "testwriting", "serve")),
    (False, ("models",)),               # models: a local adapter's endpoint is the server's (serve/)
    (True, ("predict",)),
    (False, ("kinds",)),                # the registry, over every kind's own wing (testwriting/, predict/)
    (True, ("run",)),
    (True, ("train",)),
    (True, ("loop",)),
    (True, ("report",)),                # reads loop/lineage.py, never the orchestrator
    (True, ("view",)),
    (False, ("cli", "__main__", "train.__main__")),
)


def _modules() -> dict[str, Path]:
    found = {}
    for path in ROOT.rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _place(module: str) -> tuple[int, str, bool]:
    """(floor, wing, whether the wings of that floor stay apart)."""
    if not module:
        return 0, "harness", False  # the package's __init__: its version
    best: tuple[int, str, bool] | None = None
    for floor, (apart, wings) in enumerate(FLOORS):
        for wing in wings:
            if (module == wing or module.startswith(wing + ".")) and (best is None or len(wing) > len(best[1])):
                best = (floor, wing, apart)
    assert best is not None, f"harness.{module} is on no floor of tests/test_layers.py: add it where it belongs"
    return best


def _imports(module: str) -> list[tuple[str, int, bool]]:
    """(module imported, line, inside a function) for every import of the harness's own."""
    path = MODULES[module]
    tree = ast.parse(path.read_text())
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    top = set(map(id, tree.body))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1] if node.level > 1 else package
                stem = ".".join(base + ([node.module] if node.module else []))
            elif (node.module or "").startswith("harness"):
                stem = (node.module or "").removeprefix("harness").removeprefix(".")
            else:
                continue
            for alias in node.names:
                name = f"{stem}.{alias.name}" if stem else alias.name
                out.append((name if name in MODULES else stem, node.lineno, id(node) not in top))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("harness."):
                    out.append((alias.name.removeprefix("harness."), node.lineno, id(node) not in top))
    return [(m, line, inner) for m, line, inner in out if m in MODULES and m != module]


def test_every_import_goes_down_or_stays_in_its_wing():
    wrong = []
    for module in sorted(MODULES):
        floor, wing, apart = _place(module)
        for target, line, _ in _imports(module):
            t_floor, t_wing, _ = _place(target)
            if t_floor > floor or (apart and t_floor == floor and t_wing != wing):
                wrong.append(f"harness/{MODULES[module].relative_to(ROOT)}:{line} {module} ({wing}) imports "
                             f"{target} ({t_wing}), floor {floor} -> {t_floor}")
    assert not wrong, "\n".join(wrong)


def test_no_two_modules_import_each_other():
    graph = {m: {t for t, _, _ in _imports(m)} for m in MODULES}
    circles = []
    for module in sorted(graph):
        seen, stack = {module}, [(module, [module])]
        while stack:
            at, path = stack.pop()
            for nxt in sorted(graph[at]):
                if nxt == module:
                    circles.append(" -> ".join([*path, module]))
                elif nxt not in seen and nxt > module:
                    seen.add(nxt)
                    stack.append((nxt, [*path, nxt]))
    assert not circles, "\n".join(circles)


def test_an_import_inside_a_function_says_why():
    # The house rule: imports sit at the top, unless an optional or a heavy package (or a
    # module that pulls one) waits for the one command that needs it; a comment in the
    # function, before the import or on its line, says which.
    silent = []
    for module, path in sorted(MODULES.items()):
        lines = path.read_text().splitlines()
        for fn in ast.walk(ast.parse(path.read_text())):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            inner = [n for n in ast.walk(fn) if isinstance(n, (ast.Import, ast.ImportFrom))]
            if not inner:
                continue
            first = min(n.lineno for n in inner)
            said = any(line.strip().startswith("#") for line in lines[fn.lineno - 1:first])
            if not said and not any("#" in lines[n.lineno - 1] for n in inner):
                silent.append(f"harness/{path.relative_to(ROOT)}:{first} in {fn.name}")
    assert not silent, "imports inside functions with no reason given:\n" + "\n".join(silent)
