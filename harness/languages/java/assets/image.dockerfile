# Java: Debian's OpenJDK 17, JUnit 5.9.2 and AssertJ 3.14 (languages/java/layout.py). The
# harness's launcher (assets/HarnessLauncher.java) compiled once into a jar, and two
# class-data archives made by compiling and running a tiny test class as a round does:
# javac's and the launcher's JVMs map them instead of loading and verifying their classes
# (measured on the host: a round's run 0.9 s -> 0.43 s, its compile about half).
COPY java/HarnessLauncher.java /opt/harness/java/src/HarnessLauncher.java
RUN cd /opt/harness/java && export CP=/usr/share/java/junit-platform-console-standalone.jar:/usr/share/java/assertj-core.jar:/usr/share/java/com.android.json.jar \
 && javac -proc:none -d /tmp/launcher -cp $CP src/HarnessLauncher.java && jar cf launcher.jar -C /tmp/launcher . \
 && mkdir -p /tmp/warm && cd /tmp/warm \
 && printf 'import org.junit.jupiter.api.Test;\nimport static org.assertj.core.api.Assertions.assertThat;\npublic class WarmTest {\n    @Test\n    public void warm() { assertThat(java.util.List.of(1)).isEqualTo(java.util.List.of(1)); }\n}\n' > WarmTest.java \
 && javac -J-XX:ArchiveClassesAtExit=/opt/harness/java/javac.jsa -proc:none -d classes -cp $CP WarmTest.java \
 && printf 0123456789abcdef0123456789abcdef | java -XX:ArchiveClassesAtExit=/opt/harness/java/round.jsa -cp /opt/harness/java/launcher.jar:$CP HarnessLauncher classes WarmTest 3>/dev/null \
 && cd / && rm -rf /tmp/warm /tmp/launcher && chmod -R a+rX /opt/harness/java && java -version 2>&1 | grep -q '"17\.'
