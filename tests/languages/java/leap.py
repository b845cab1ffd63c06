"""A tiny Java exercise in Exercism's layout, for the Java tests: three test methods, one
`@Disabled("...")` as the track ships it (a round runs it, as Aider's benchmark does) and
one disabled by a bare `@Disabled`, as forth ships one (Aider's benchmark leaves it, so
JUnit skips it and Gradle's build passes)."""

from __future__ import annotations

import json
from pathlib import Path

WRONG = "class Leap {\n    boolean isLeapYear(int year) {\n        return false;\n    }\n}\n"
REFERENCE = ("class Leap {\n    boolean isLeapYear(int year) {\n"
             "        return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);\n    }\n}\n")
TESTS = '''import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

public class LeapTest {
    private final Leap leap = new Leap();

    @Test
    public void commonYear() {
        assertThat(leap.isLeapYear(2015)).isFalse();
    }

    @Disabled("Remove to run test")
    @Test
    public void leapYears() {
        assertThat(leap.isLeapYear(1996)).isTrue();
        assertThat(leap.isLeapYear(2000)).isTrue();
    }

    @Test
    @Disabled
    public void centuryOnItsOwn() {
        assertThat(leap.isLeapYear(1900)).isTrue();
    }
}
'''


def write_leap(root: Path) -> Path:
    task = root / "leap"
    (task / ".meta" / "src" / "reference" / "java").mkdir(parents=True)
    (task / "src" / "main" / "java").mkdir(parents=True)
    (task / "src" / "test" / "java").mkdir(parents=True)
    (task / "build.gradle").write_text('plugins {\n    id "java"\n}\n')
    (task / "src" / "main" / "java" / "Leap.java").write_text(
        "class Leap {\n    boolean isLeapYear(int year) {\n"
        '        throw new UnsupportedOperationException("Delete this statement and write your own implementation.");\n'
        "    }\n}\n")
    (task / "src" / "test" / "java" / "LeapTest.java").write_text(TESTS)
    (task / ".meta" / "src" / "reference" / "java" / "Leap.java").write_text(REFERENCE)
    (task / ".meta" / "config.json").write_text(json.dumps({"files": {
        "solution": ["src/main/java/Leap.java"], "test": ["src/test/java/LeapTest.java"],
        "example": [".meta/src/reference/java/Leap.java"], "invalidator": ["build.gradle"]}}))
    return task
