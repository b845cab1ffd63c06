"""Java as Exercism lays it out: the solution's classes in `src/main/java/`, the tests in
`src/test/java/*Test.java`, Gradle's build (`build.gradle`, the wrapper `gradlew` and
`gradle/wrapper/`) beside them, the reference in `.meta/src/reference/java/`. Every file
that tells Gradle how to build and every test file is the task's: a model that writes one
is refused, since a test class runs in the same JVM as the candidate's."""

from ..base import Layout

LAYOUT = Layout(
    name="java", title="Java", solution_suffixes=(".java",),
    build_files=("build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts", "gradle.properties",
                 "gradlew", "gradlew.bat", "gradle-wrapper.jar", "gradle-wrapper.properties"),
    build_suffixes=("Test.java",),
    # Debian's JDK, JUnit 5.9.2 and AssertJ 3.14 (Gradle's wrapper cannot be fetched offline);
    # Android's org.json for rest-api (the exercise asks Maven for json.org's).
    image_packages=("openjdk-17-jdk-headless", "junit5", "libassertj-core-java", "libandroid-json-java"),
    image_files=("HarnessLauncher.java",),
    runs_locally=False,
    reference_root=(".meta/src/reference/java/", "src/main/java/"),
)
