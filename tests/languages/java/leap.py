"""A tiny Java exercise in Exercism's layout, for the Java tests: three test methods, one
`@Disabled("...")` as the track ships it (a round runs it, as Aider's benchmark does) and
one disabled by a bare `@Disabled`, as forth ships one (Aider's benchmark leaves it, so
JUnit skips it and Gradle's build passes)."""

from __future__ import annotations

from pathlib import Path

from tests.exercise import write_exercise

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
    return write_exercise(root, "leap", {
        "build.gradle": 'plugins {\n    id "java"\n}\n',
        "src/main/java/Leap.java": (
            "class Leap {\n    boolean isLeapYear(int year) {\n"
            '        throw new UnsupportedOperationException("Delete this statement and write your own implementation.");\n'
            "    }\n}\n"),
        "src/test/java/LeapTest.java": TESTS, ".meta/src/reference/java/Leap.java": REFERENCE,
    }, solution=["src/main/java/Leap.java"], test=["src/test/java/LeapTest.java"],
        example=[".meta/src/reference/java/Leap.java"], invalidator=["build.gradle"])
