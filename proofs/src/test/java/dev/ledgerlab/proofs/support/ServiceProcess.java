package dev.ledgerlab.proofs.support;

import static org.awaitility.Awaitility.await;

import dev.ledgerlab.infra.EmbeddedStack;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One service as a JVM of its own, started from this module's test classpath, so that a kill is a real
 * {@code SIGKILL} of a real process: no shutdown hook runs, no transaction commits, sockets just drop.
 */
public final class ServiceProcess implements AutoCloseable {

    private static final AtomicInteger SEQUENCE = new AtomicInteger();
    private static final Path LOGS = Path.of("target", "proof-logs");

    private final String name;
    private final Process process;
    private final int port;
    private final Path log;

    private ServiceProcess(String name, Process process, int port, Path log) {
        this.name = name;
        this.process = process;
        this.port = port;
        this.log = log;
    }

    /** Starts {@code main} with these Spring Boot arguments on a free port and waits until it is ready. */
    public static ServiceProcess start(String name, Class<?> main, List<String> args) {
        int port = EmbeddedStack.freePort();
        var command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                // Small and quick to start: several of these share two cores with the test and the brokers.
                "-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
                "-cp", System.getProperty("java.class.path"),
                main.getName(),
                "--server.port=" + port,
                "--spring.main.banner-mode=off"));
        command.addAll(args);
        try {
            Files.createDirectories(LOGS);
            var log = LOGS.resolve(name + "-" + SEQUENCE.incrementAndGet() + ".log");
            var process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            // A test JVM that ends (or fails) must not leave services running on its ports.
            Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly, "stop-" + name));
            var service = new ServiceProcess(name, process, port, log);
            service.awaitReady();
            return service;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name, e);
        }
    }

    private void awaitReady() {
        try {
            await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(250)).until(() -> {
                if (!process.isAlive()) {
                    throw new IllegalStateException(name + " exited with " + process.exitValue() + ":\n" + tail());
                }
                return Http.get(port, "/actuator/health/readiness").statusCode() == 200;
            });
        } catch (RuntimeException e) {
            process.destroyForcibly();
            throw e;
        }
    }

    @Override
    public String toString() {
        return name + " pid " + process.pid() + " port " + port + " log " + log;
    }

    public int port() {
        return port;
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** SIGKILL, then wait for the process to be gone. */
    public void kill() {
        process.destroyForcibly();
        waitFor();
    }

    /** Waits for a process that is ending by itself (e.g. a fault-injected halt); returns its exit code. */
    public int awaitExit(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(name + " did not exit within " + timeout + ":\n" + tail());
            }
            return process.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** SIGTERM: Spring's graceful shutdown; SIGKILL if that takes more than 30 s. */
    @Override
    public void close() {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                kill();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            kill();
        }
    }

    public String tail() {
        return tail(40);
    }

    /** The last {@code n} lines of the process's log. */
    public String tail(int n) {
        try {
            var lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - n), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    private void waitFor() {
        try {
            process.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
