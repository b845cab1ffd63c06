"""A Java round as `./gradlew test` prints it for the exercises' build.gradle (what Aider's
benchmark shows a model, with its timings removed): Gradle's task lines, each test's
printed output and its result (`events passed, failed, skipped`, `showStandardStreams`,
`exceptionFormat full`), the count, and Gradle's failure block; a build that does not
compile shows javac's lines under the task that failed. Made from the verdict channel,
never from what the candidate printed on the process's own output. Where it differs from
Gradle (no daemon or download lines, frames after the test method's left out as Gradle's
default filter does, paths as `<slug>/...`) docs/suites.md says."""

from __future__ import annotations

from .verdict import Channel

_TASKS = ("> Task :compileJava\n> Task :processResources NO-SOURCE\n> Task :classes\n")
_TEST_TASKS = ("> Task :compileTestJava\n> Task :processTestResources NO-SOURCE\n> Task :testClasses\n")
_TRY = ("* Try:\n> Run with --stacktrace option to get the stack trace.\n"
        "> Run with --info or --debug option to get more log output.\n> Run with --scan to get full insights.\n")
_WORD = {"successful": "PASSED", "failed": "FAILED", "aborted": "SKIPPED", "skipped": "SKIPPED"}


def _indented(text: str, by: str) -> str:
    return "".join(by + line + "\n" for line in text.rstrip("\n").split("\n")) if text.strip() else ""


def tests_console(channel: Channel, test_class: str, slug: str) -> str:
    out = [_TASKS, _TEST_TASKS, "\n> Task :test\n"]
    failed = 0
    for ended in channel.containers:
        out.append(f"\n{test_class} > {ended.name} FAILED\n{_indented(ended.failure, '    ')}")
    for ended in channel.tests:
        head = f"{test_class} > {ended.name}"
        if ended.output.strip():
            out.append(f"\n{head} STANDARD_OUT\n{_indented(ended.output, '    ')}")
        out.append(f"\n{head} {_WORD[ended.outcome]}\n")
        if ended.outcome != "successful":
            failed += ended.outcome not in ("skipped", "aborted")
            out.append(_indented(ended.failure, "    ") if ended.outcome != "skipped" else "")
    total = len(channel.tests)
    if channel.record is None:
        out.append("\nThe test JVM stopped before the run ended (a crash, or the round's time limit).\n")
    skipped = sum(t.outcome in ("skipped", "aborted") for t in channel.tests)
    counts = f"{total} tests completed, {failed} failed" + (f", {skipped} skipped" if skipped else "")
    if failed or channel.containers or channel.record is None or not total:
        out.append(f"\n{counts}\n\n> Task :test FAILED\n\nFAILURE: Build failed with an exception.\n\n"
                   "* What went wrong:\nExecution failed for task ':test'.\n"
                   f"> There were failing tests. See the report at: file:///{slug}/build/reports/tests/test/index.html\n\n"
                   f"{_TRY}\nBUILD FAILED\n")
    else:
        out.append("\nBUILD SUCCESSFUL\n")
    return "".join(out)


def build_console(javac: str, in_tests: bool) -> str:
    """javac's diagnostics under the Gradle task that would have failed: the tests' compile
    when every error is in a test file, the solution's otherwise."""
    task = ":compileTestJava" if in_tests else ":compileJava"
    head = f"{_TASKS}{_TEST_TASKS.split(chr(10))[0]} FAILED\n" if in_tests else "> Task :compileJava FAILED\n"
    return (f"{head}{javac}\nFAILURE: Build failed with an exception.\n\n* What went wrong:\n"
            f"Execution failed for task '{task}'.\n> Compilation failed; see the compiler error output for details.\n\n"
            f"{_TRY}\nBUILD FAILED\n")
