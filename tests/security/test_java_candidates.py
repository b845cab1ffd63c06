"""Hostile Java candidates through Java's real test round in Docker (issue 34). The
candidate's classes and the tests run in one JVM, so each of these would pass if its
attack worked, and none passes:

- Reaching the process, its files or the test framework (System.exit(0) in a static
  initialiser, Runtime.halt, the verdict descriptor opened through /proc, java.util's
  Formatter opening a file by name, reading the test file, ProcessBuilder, System.setOut,
  reflection into JUnit's classes, a class loader, method handles, a native method, an
  `import static` of exit, a Unicode escape spelling System, a package of JUnit's own):
  refused by the screen before anything compiles, never a pass.
- Printing what Gradle prints for a pass, or a guess at the launcher's record, and leaving
  a thread running; an output bomb; a memory bomb; a thread bomb; sleeping past the
  round's limit; an exception whose message cannot be printed: the verdict is the
  launcher's channel, and each fails within the round's bound.
- Writing build.gradle, the test class, a test class of its own or a file outside the
  solution's folder: refused as tampered, never compiled.
- Returning, where the tests compare a String, an object whose `equals` says yes to
  everything (an anonymous class behind `Object`, a list of its own behind `List`), or
  deciding `compareTo`: refused by the screen where the task's reference declares neither;
  where it declares one, a solution may too.

After them, the reference passes in the same session: no candidate harms the next."""

from __future__ import annotations

from pathlib import Path


import pytest

from harness.languages.java.screen import declared_comparisons, refusals
from harness.languages.registry import language_for
from harness.records import Status
from harness.task import load_task

from ..conftest import make_backend
from ..exercise import write_exercise
from ..languages.java.leap import REFERENCE, write_leap

pytestmark = [pytest.mark.slow]
SOLUTION = "src/main/java/Leap.java"


def solution(body: str, head: str = "", answer: str = "return false;") -> bytes:
    return f"{head}\nclass Leap {{\n{body}\n    boolean isLeapYear(int year) {{\n        {answer}\n    }}\n}}\n".encode()


# Each would pass if the process, its descriptors or JUnit's state were the candidate's.
SCREENED = {
    "exits 0 in a static initialiser": solution("static { System.exit(0); }"),
    "halts the JVM": solution("", answer="Runtime.getRuntime().halt(0); return false;"),
    "writes the verdict descriptor": solution(
        "static { try { new java.io.FileOutputStream(\"/proc/self/fd/3\").write(\"verdict\".getBytes()); }"
        " catch (Exception e) {} }"),
    "opens a file with Formatter": solution("static { try { new Formatter(\"/proc/self/fd/3\").format(\"x\").close(); }"
                                            " catch (Exception e) {} }", head="import java.util.*;"),
    "reads the test file": solution(
        "", head="import java.nio.file.*;",
        answer="try { return Files.readString(Path.of(\"src/test/java/LeapTest.java\")).isEmpty(); }"
               " catch (Exception e) { return false; }"),
    "starts a process": solution("", answer="try { new ProcessBuilder(\"true\").start(); } catch (Exception e) {} return false;"),
    "replaces standard output": solution("static { System.setOut(null); }"),
    "reflects into JUnit": solution(
        "static { try { Class.forName(\"org.junit.platform.launcher.core.LauncherFactory\").getDeclaredFields(); }"
        " catch (Exception e) {} }"),
    "uses JUnit itself": solution("", answer="org.junit.jupiter.api.Assumptions.abort(); return false;"),
    "takes a class loader": solution("", answer="Thread.currentThread().getContextClassLoader(); return false;"),
    "uses method handles": solution("", head="import java.lang.invoke.*;", answer="MethodHandles.lookup(); return false;"),
    "declares a native method": solution("static native void exit(int code);"),
    "imports exit statically": solution("static { exit(0); }", head="import static java.lang.System.exit;"),
    "spells System with an escape": solution("static { \\u0053ystem.exit(0); }"),
    "hides code in a comment's escaped newline": solution("// \\u000a static { Runtime.getRuntime().halt(0); }"),
    "declares JUnit's package": solution("", head="package org.junit.jupiter.api;"),
    "reads the environment": solution("", answer="return System.getenv(\"HOME\") != null;"),
}

# Each prints what a pass looks like or breaks down, and must fail within the bound.
RUN = {
    "prints Gradle's pass and a guessed record, leaves a thread": solution(
        "static { new Thread(() -> { while (true) { System.out.println(\"verdict 0123456789abcdef0123456789abcdef 2\"); }"
        " }).start(); }",
        answer="System.out.println(\"LeapTest > leapYears() PASSED\\n\\nBUILD SUCCESSFUL\"); "
               "for (int i = 0; i < 20000; i++) System.out.println(\"test successful bGVhcFllYXJzKCk=  \"); return false;"),
    "allocates without end, then throws what cannot be printed": solution(
        "static class Bad extends RuntimeException { public String toString() { throw new Bad(); }"
        " public String getMessage() { throw new Bad(); } }", head="import java.util.*;",
        answer="if (year == 2015) { List<long[]> all = new ArrayList<>(); while (true) all.add(new long[1 << 20]); }"
               " throw new Bad();"),
    "starts threads without end": solution("", answer="while (true) { new Thread(() -> { try { Thread.sleep(100000); }"
                                                      " catch (InterruptedException e) {} }).start(); }"),
    "sleeps past the limit": solution("", answer="try { Thread.sleep(600000); } catch (InterruptedException e) {} return true;"),
}


@pytest.fixture(scope="module")
def java_round(tmp_path_factory):
    """One Java session for the module, and the task."""
    task = load_task(write_leap(tmp_path_factory.mktemp("java")))
    with make_backend("docker").session("java-hostile", "java") as session:
        yield task, session


def test_the_screen_refuses_each_way_to_the_process():
    for name, source in SCREENED.items():
        assert refusals({SOLUTION: source}), name
    assert refusals({SOLUTION: b'class Leap { String s = "unterminated\n; }'})
    assert not refusals({SOLUTION: REFERENCE.encode()})
    assert not refusals({SOLUTION: solution("", head="import java.util.*;\nimport java.lang.reflect.Array;",
                                            answer='System.out.println(List.of(1)); return """\n  x""".isEmpty();')})


def test_hostile_candidates_never_pass(java_round):
    task, session = java_round
    java = language_for(task)
    for name, source in SCREENED.items():
        report = java.run_tests(task, {SOLUTION: source}, session)
        assert not report.passed and report.forged and not report.built, name
    for name, source in RUN.items():
        report = java.run_tests(task, {SOLUTION: source}, session, time_limit_s=3, transcript=True)
        assert report.status is not Status.passed and not report.passed, (name, report)
        assert report.run_seconds < 30, name
        assert len(report.transcript or "") < 200_000, name
    passed = java.run_tests(task, task.reference_files(), session)
    assert passed.passed and [t.status for t in passed.tests] == [Status.passed] * 3, passed


def test_written_tests_and_build_files_are_refused(java_round):
    task, session = java_round
    cheat = b"public class LeapTest {\n}\n"
    workspace = {SOLUTION: solution(""), "src/test/java/LeapTest.java": cheat, "src/main/java/OtherTest.java": cheat,
                 "build.gradle": b"", "src/main/java/sub/Helper.java": b"class Helper {}\n", "Helper.java": b"class Helper {}\n"}
    report = language_for(task).run_tests(task, workspace, session, transcript=True)
    assert not report.passed and report.status is Status.failed
    assert set(report.tampered) >= set(workspace) - {SOLUTION}
    assert "LeapTest > leapYears() FAILED" in (report.transcript or "")


GREETING_TESTS = """import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

public class GreetingTest {
    @Test
    public void saysHello() {
        assertThat(new Greeting().hello("Ann")).isEqualTo("Hello, Ann!");
    }

    @Test
    public void namesEveryone() {
        assertThat(new Greeting().names("Ann", "Bo")).containsExactly("Ann", "Bo");
    }
}
"""
GREETING = """import java.util.List;

class Greeting {
    String hello(String name) {
        return "Hello, " + name + "!";
    }

    List<String> names(String... names) {
        return List.of(names);
    }
}
"""
EQUALS_EVERYTHING = {
    "an anonymous class behind Object": """import java.util.*;

class Greeting {
    Object hello(String name) {
        return new Object() { public boolean equals(Object o) { return true; } };
    }

    List<String> names(String... names) { return List.of(names); }
}
""",
    "a list of its own whose elements equal anything": """import java.util.*;

class Greeting {
    String hello(String name) { return "Hello, " + name + "!"; }

    List<Object> names(String... names) {
        List<Object> all = new ArrayList<>();
        for (String n : names) all.add(new Any());
        return all;
    }
}

class Any {
    @Override
    public boolean equals(Object o) { return true; }
}
""",
    "compareTo decides": """class Greeting implements Comparable<Greeting> {
    public int compareTo(Greeting o) { return 0; }

    String hello(String name) { return "Hello, " + name + "!"; }

    java.util.List<String> names(String... names) { return java.util.List.of(names); }
}
""",
}


def write_greeting(root: Path) -> Path:
    return write_exercise(root, "greeting", {
        "build.gradle": 'plugins {\n    id "java"\n}\n',
        "src/main/java/Greeting.java":
            'class Greeting {\n    String hello(String name) {\n        throw new UnsupportedOperationException();\n    }\n}\n',
        "src/test/java/GreetingTest.java": GREETING_TESTS, ".meta/src/reference/java/Greeting.java": GREETING,
    }, solution=["src/main/java/Greeting.java"], test=["src/test/java/GreetingTest.java"],
        example=[".meta/src/reference/java/Greeting.java"], invalidator=["build.gradle"])


def test_an_object_that_equals_everything_is_refused_where_the_reference_declares_no_equals(tmp_path):
    task = load_task(write_greeting(tmp_path))
    java = language_for(task)
    solution_file = "src/main/java/Greeting.java"
    with make_backend("docker").session("java-equals", "java") as session:
        for name, source in EQUALS_EVERYTHING.items():
            report = java.run_tests(task, {solution_file: source.encode()}, session)
            assert report.forged and not report.passed and not report.built, (name, report)
            assert "by which an object decides what a test's comparison says" in (report.message or ""), name
        assert java.run_tests(task, task.reference_files(), session).passed
    # Calls of equals and compareTo are a solution's as ever; declaring one is its where the
    # reference's declares it (custom-set, rational-numbers).
    honest = b"class Greeting {\n    boolean same(String a, String b) { return a.equals(b) && a.compareTo(b) == 0; }\n}\n"
    assert refusals({solution_file: honest}) == []
    clock = EQUALS_EVERYTHING["a list of its own whose elements equal anything"].encode()
    assert refusals({solution_file: clock}) and refusals({solution_file: clock}, frozenset({"equals"})) == []
    assert declared_comparisons({"Clock.java": b"class Clock { public boolean equals(Object o) { return o == this; } }"}) \
        == {"equals"}
