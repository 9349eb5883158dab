package dev.ledgerlab.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A child JVM whose output goes to a file the benchmark can read, and when it was spawned. */
record ChildProcess(Process process, Path output, long spawnedEpochMillis) implements AutoCloseable {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    static ChildProcess start(String name, List<String> command, Path directory) {
        try {
            Files.createDirectories(directory);
            var output = Files.createTempFile(directory, name + "-", ".log");
            long spawned = System.currentTimeMillis();
            var process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(Redirect.to(output.toFile())).start();
            return new ChildProcess(process, output, spawned);
        }
        catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name, e);
        }
    }

    String awaitLine(String prefix, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                for (var line : Files.readAllLines(output, StandardCharsets.UTF_8)) {
                    if (line.startsWith(prefix)) {
                        return line;
                    }
                    if (line.startsWith("BARE FAILED")) {
                        throw new IllegalStateException(line);
                    }
                }
            }
            catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            checkAlive();
            Pause.millis(20);
        }
        throw new IllegalStateException("no line " + prefix + " within " + timeout + " in " + output);
    }

    void checkAlive() {
        if (!process.isAlive()) {
            throw new IllegalStateException("the process exited with " + process.exitValue() + "; see " + output);
        }
    }

    @Override
    public void close() {
        stop(process);
    }

    /** SIGTERM, and SIGKILL if the process is still there a minute later; returns once it is gone (or 30 s more). */
    static void stop(Process process) {
        process.destroy();
        try {
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(30, TimeUnit.SECONDS);
            }
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }

    /** Waits until the service answers its readiness probe on {@code port} with 200. */
    void awaitReady(int port) {
        var probe = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/health/readiness")).build();
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (System.nanoTime() < deadline) {
            checkAlive();
            try {
                if (HTTP.send(probe, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            }
            catch (IOException notYet) {
                // not listening yet
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            Pause.millis(50);
        }
        close();
        throw new IllegalStateException("not ready on port " + port + " within 2 minutes; see " + output);
    }

    /** SIGKILL; returns once the process is gone. */
    int kill() {
        process.destroyForcibly();
        try {
            return process.waitFor();
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
