"""A Rust run as `cargo test -- --include-ignored` prints it (what Aider's benchmark shows a
model), made from what the harness read back: the build's own lines, then each test binary
in cargo's order with libtest's plain output made from its events, up to the first binary
that failed, where cargo stops; without timings, as Aider's cleanup_test_output leaves
them (a round's transcript is the same for the same program)."""

from __future__ import annotations

import re
import signal

from .verdict import Binary

_TIMING = re.compile(r"\bin \d+\.\d+s\b")  # what Aider's cleanup_test_output removes


def untimed(text: str) -> str:
    return _TIMING.sub("", text)


def _running(binary: Binary, executable: str) -> str:
    what = "unittests src/lib.rs" if binary.target == "lib" else f"tests/{binary.target}.rs"
    return f"     Running {what} (target/debug/deps/{executable})\n"


def _libtest(binary: Binary) -> str:
    """libtest's plain output for the binary's events."""
    n = len(binary.outcomes)
    out = [f"\nrunning {n} test{'' if n == 1 else 's'}\n"]
    marks = {"ok": "ok", "failed": "FAILED", "ignored": "ignored"}
    out.extend(f"test {name} ... {marks[what]}\n" for name, what in binary.outcomes.items())
    failed = [name for name, what in binary.outcomes.items() if what == "failed"]
    if binary.counts is None:  # the binary ended before its summary
        return "".join(out)
    if failed:
        out.append("\nfailures:\n")
        told = "".join(f"---- {name} stdout ----\n{binary.output[name]}\n" for name in failed if binary.output.get(name))
        if told:
            out.append("\n" + told)
        out.append("\nfailures:\n" + "".join(f"    {name}\n" for name in sorted(failed)))
    c = binary.counts
    out.append(f"\ntest result: {'FAILED' if failed else 'ok'}. {c['passed']} passed; {c['failed']} failed; "
               f"{c['ignored']} ignored; 0 measured; {c['filtered_out']} filtered out; finished \n\n")
    return "".join(out)


def _ended(binary: Binary, executable: str) -> str:
    rerun = "--lib" if binary.target == "lib" else f"--test {binary.target}"
    code = binary.exit_code
    if code is not None and code > 128:
        try:
            name = signal.Signals(code - 128).name
        except ValueError:
            name = "?"
        return (f"error: test failed, to rerun pass `{rerun}`\n\nCaused by:\n  process didn't exit successfully: "
                f"`target/debug/deps/{executable} --include-ignored` (signal: {code - 128}, {name})\n")
    return f"error: test failed, to rerun pass `{rerun}`\n"


def console(build_lines: str, binaries: list[tuple[Binary, str, str]]) -> str:
    """`binaries`: each binary run, in cargo's order, with its executable's file name and
    what it wrote to standard error."""
    out = [untimed(build_lines)]
    for binary, executable, stderr in binaries:
        out.append(_running(binary, executable))
        out.append(_libtest(binary))
        out.append(stderr)
        if binary.exit_code != 0:
            out.append(_ended(binary, executable))
            break
    return "".join(out)
