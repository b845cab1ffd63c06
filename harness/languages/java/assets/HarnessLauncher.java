// The harness's launcher of a Java round (languages/java/verdict.py reads what it writes).
// It reads the round's token from standard input before any class of the exercise loads,
// opens descriptor 3 (the verdict channel) the same way, then runs the test classes named
// on its command line with JUnit's Jupiter engine. Each test's outcome, its failure and
// what it printed go to the channel, never to the output the candidate shares; the last
// line is the token and the number of tests, and the process ends with halt, so nothing
// the candidate left running can add to it. The candidate's code, kept by the screen
// (screen.py) from files, descriptors, reflection and the process, reaches none of this.

import java.io.ByteArrayOutputStream;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Base64;

import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.launcher.EngineFilter;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

public final class HarnessLauncher {
    private static final int TEXT_CAP = 8000;

    private HarnessLauncher() {}

    // What the tests print, kept per test up to a bound (the rest is counted, not kept).
    private static final class Capture extends OutputStream {
        private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
        private long dropped;

        @Override
        public synchronized void write(int b) {
            if (kept.size() < TEXT_CAP) kept.write(b); else dropped++;
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            int room = Math.max(0, Math.min(len, TEXT_CAP - kept.size()));
            kept.write(b, off, room);
            dropped += len - room;
        }

        synchronized String take() {
            String text = kept.toString(StandardCharsets.UTF_8);
            if (dropped > 0) text += "\n... (" + dropped + " more bytes)";
            kept.reset();
            dropped = 0;
            return text;
        }
    }

    private static String b64(String text) {
        if (text.length() > TEXT_CAP) text = text.substring(0, TEXT_CAP) + "\n...";
        return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }

    // The failure as Gradle's full exception format shows it: the throwable's lines, then
    // its frames down to the test class's own, and its causes the same way.
    private static String failure(Throwable thrown, String testClass) {
        StringBuilder out = new StringBuilder();
        try {
            for (Throwable t = thrown; t != null && out.length() < TEXT_CAP; t = t.getCause() == t ? null : t.getCause()) {
                out.append(t == thrown ? "" : "Caused by: ").append(t).append('\n');
                for (StackTraceElement frame : t.getStackTrace()) {
                    out.append("    at ").append(frame).append('\n');
                    if (frame.getClassName().equals(testClass) || out.length() >= TEXT_CAP) break;
                }
            }
        } catch (Throwable unprintable) {
            out.append("(a failure that could not be printed: ").append(unprintable.getClass().getName()).append(")\n");
        }
        return out.toString();
    }

    public static void main(String[] args) throws Exception {
        byte[] token = System.in.readNBytes(32);
        System.setIn(InputStream.nullInputStream());
        PrintStream channel = new PrintStream(new FileOutputStream("/proc/self/fd/3"), false, StandardCharsets.UTF_8);
        Capture capture = new Capture();
        PrintStream captured = new PrintStream(capture, true, StandardCharsets.UTF_8);
        System.setOut(captured);
        System.setErr(captured);
        int[] counts = new int[2];  // tests reported, tests that neither succeeded nor were skipped
        TestExecutionListener listener = new TestExecutionListener() {
            @Override
            public void executionStarted(TestIdentifier id) {
                if (id.isTest()) capture.take();
            }

            @Override
            public void executionSkipped(TestIdentifier id, String reason) {
                if (id.isTest()) {
                    counts[0]++;  // a bare @Disabled (Aider's benchmark removes only @Disabled(...)): Gradle passes it
                    write(channel, "test skipped " + b64(id.getDisplayName()) + " " + b64(reason) + " " + b64(""));
                }
            }

            @Override
            public void executionFinished(TestIdentifier id, TestExecutionResult result) {
                String outcome = result.getStatus().name().toLowerCase();
                String thrown = result.getThrowable().map(t -> failure(t, className(id))).orElse("");
                boolean ok = result.getStatus() == TestExecutionResult.Status.SUCCESSFUL;
                if (id.isTest()) {
                    counts[0]++;
                    counts[1] += ok ? 0 : 1;
                    write(channel, "test " + outcome + " " + b64(id.getDisplayName()) + " " + b64(thrown) + " " + b64(capture.take()));
                } else if (!ok) {
                    counts[1]++;
                    write(channel, "container " + outcome + " " + b64(id.getDisplayName()) + " " + b64(thrown) + " " + b64(capture.take()));
                }
            }
        };
        LauncherDiscoveryRequestBuilder request = LauncherDiscoveryRequestBuilder.request()
                .filters(EngineFilter.includeEngines("junit-jupiter"));
        // The round's classes load in a loader of their own (args[0] their folder), so the
        // class path stays the one the image's class-data archive was made with; named as
        // the application loader is, so that frames print as Gradle prints them (app//).
        ClassLoader round = new URLClassLoader("app", new URL[] {Path.of(args[0]).toUri().toURL()}, HarnessLauncher.class.getClassLoader());
        Thread.currentThread().setContextClassLoader(round);
        for (String name : Arrays.asList(args).subList(1, args.length)) request.selectors(DiscoverySelectors.selectClass(name));
        try {
            Launcher launcher = LauncherFactory.create();
            launcher.execute(request.build(), listener);
        } catch (Throwable broke) {
            counts[1]++;
            write(channel, "container failed " + b64("launcher") + " " + b64(failure(broke, "")) + " " + b64(capture.take()));
        }
        channel.print("verdict " + new String(token, StandardCharsets.US_ASCII) + " " + counts[0] + "\n");
        channel.flush();
        Runtime.getRuntime().halt(counts[0] > 0 && counts[1] == 0 ? 0 : 1);
    }

    private static void write(PrintStream channel, String line) {
        channel.print(line + "\n");
        channel.flush();
    }

    private static String className(TestIdentifier id) {
        return id.getSource().filter(s -> s instanceof org.junit.platform.engine.support.descriptor.MethodSource)
                .map(s -> ((org.junit.platform.engine.support.descriptor.MethodSource) s).getClassName()).orElse("");
    }
}
