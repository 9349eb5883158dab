package dev.ledgerlab.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Another commit's lab for {@code --compare=REF}: checked out with {@code git worktree add} under the run's scratch
 * directory and built there as {@code ./ledger-lab} builds it (the lab module and what it needs, tests skipped), so
 * that its own script starts it exactly as its users would have; the work tree is removed after the run.
 */
final class ReferenceBuild implements AutoCloseable {

    private final Path root;
    private final String commit;

    private ReferenceBuild(Path root, String commit) {
        this.root = root;
        this.commit = commit;
    }

    static ReferenceBuild of(String ref, Path work) {
        var commit = run(Path.of(""), null, 1, "git", "rev-parse", "--short=12", ref + "^{commit}")
                .strip();
        var root = work.resolve("compare-" + commit).toAbsolutePath();
        var log = work.resolve("compare-" + commit + ".log").toAbsolutePath();
        run(Path.of(""), log, 2, "git", "worktree", "add", "--detach", root.toString(), commit);
        System.out.printf("building %s (%s) in %s for the comparison; its build's output: %s%n", ref, commit, root,
                log);
        long started = System.nanoTime();
        run(root, log, 30, "./mvnw", "-q", "-B", "-pl", "lab", "-am", "package", "-DskipTests");
        System.out.printf("%s built in %.0f s%n", commit, (System.nanoTime() - started) / 1e9);
        return new ReferenceBuild(root, commit);
    }

    Path root() {
        return root;
    }

    String commit() {
        return commit;
    }

    @Override
    public void close() {
        run(Path.of(""), root.resolveSibling(root.getFileName() + ".log"), 2, "git", "worktree", "remove", "--force",
                root.toString());
    }

    /**
     * Runs a command in {@code directory}, its output appended to {@code log} (null: to no log); returns the output,
     * fails on an error.
     */
    private static String run(Path directory, Path log, int minutes, String... command) {
        try {
            var output = Files.createTempFile("ledger-lab-compare", ".out");
            try {
                var process = new ProcessBuilder(new ArrayList<>(List.of(command)))
                        .directory(directory.toAbsolutePath().toFile()).redirectErrorStream(true)
                        .redirectOutput(Redirect.to(output.toFile())).start();
                if (!process.waitFor(minutes, TimeUnit.MINUTES)) {
                    process.destroyForcibly();
                    throw new IllegalStateException(String.join(" ", command) + " took over " + minutes + " min");
                }
                var text = Files.readString(output, StandardCharsets.UTF_8);
                if (log != null) {
                    Files.writeString(log, text, StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.CREATE,
                            java.nio.file.StandardOpenOption.APPEND);
                }
                if (process.exitValue() != 0) {
                    throw new IllegalStateException(String.join(" ", command) + " failed (exit " + process.exitValue()
                            + "):\n" + text);
                }
                return text;
            }
            finally {
                Files.deleteIfExists(output);
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
