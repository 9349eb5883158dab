package dev.ledgerlab.proofs.support;

import static org.awaitility.Awaitility.await;

import dev.ledgerlab.infra.EmbeddedStack;
import dev.ledgerlab.testkit.TestHttp;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One service as a JVM of its own, started from this module's test classpath, so that a kill is a real
 * {@code SIGKILL} of a real process: no shutdown hook runs, no transaction commits, sockets just drop. A restart
 * runs the same command line on the same port, as a supervisor would, so clients find it where it was.
 */
public final class ServiceProcess implements AutoCloseable {

    private static final AtomicInteger SEQUENCE = new AtomicInteger();
    /** Every port handed out in this JVM: a free port is only free until someone binds it. */
    private static final Set<Integer> PORTS = new HashSet<>();
    private static final Path LOGS = Path.of("target", "proof-logs");
    /** Small and quick to start: several of these share two cores with the test and the brokers. */
    private static final List<String> JAVA = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto");

    private final String name;
    private final String main;
    private final List<String> command;
    private final boolean classDataSharing;
    /** For a process that freezes itself: the file whose existence releases it (null for any other). */
    private final Path release;
    private final int port;
    private volatile Process process;
    private volatile Path log;

    private ServiceProcess(String name, String main, List<String> command, boolean classDataSharing,
            Path release, int port) {
        this.name = name;
        this.main = main;
        this.command = List.copyOf(command);
        this.classDataSharing = classDataSharing;
        this.release = release;
        this.port = port;
    }

    /** Starts {@code main} with these Spring Boot arguments on a free port and waits until it is ready. */
    public static ServiceProcess start(String name, Class<?> main, List<String> args) {
        return launch(name, main, args, true, true, null);
    }

    /** Starts it without waiting for readiness: for a process expected to stop on its own (a fault seam). */
    public static ServiceProcess startUnready(String name, Class<?> main, List<String> args) {
        return launch(name, main, args, false, true, null);
    }

    /**
     * Starts it without waiting for readiness, for a process that will freeze itself with {@code SIGSTOP} and must
     * stay frozen until the test releases it ({@link #thaw()}): {@code releaseOption} tells it the file whose existence
     * releases it. It runs in a session of its own ({@code setsid}), so that no job-control signal meant for the
     * build's process group reaches it (the kernel sends {@code SIGHUP} and {@code SIGCONT} to a group that becomes
     * orphaned while one of its members is stopped).
     */
    public static ServiceProcess startFreezable(String name, Class<?> main, String releaseOption, List<String> args) {
        // Beside the logs (target/, so a clean removes it); absolute, as the process reads it.
        var release = LOGS.toAbsolutePath().resolve("release-" + ProcessHandle.current().pid() + "-"
                + SEQUENCE.incrementAndGet());
        var all = new ArrayList<>(args);
        all.add(releaseOption + "=" + release);
        return launch(name, main, all, false, true, release);
    }

    /**
     * Starts a {@code main} of this module's own test sources (a variant that exists only to be shown failing), with
     * the services' classpath and this module's classes after it, mapping the command API's class-data archive if
     * there is one; waits for readiness only if asked.
     */
    public static ServiceProcess startVariant(String name, Class<?> main, List<String> args, boolean awaitReady) {
        return launch(name, main, args, awaitReady, false, null);
    }

    private static ServiceProcess launch(String name, Class<?> main, List<String> args, boolean awaitReady,
            boolean classDataSharing, Path release) {
        if (classDataSharing) {
            // The archive first, before a port is taken: a port is free only until someone binds it, and the other
            // test JVM's check would find this one free for as long as a training lasts (seen: "Port ... was already
            // in use"). A training binds no port, so it runs with 0.
            try {
                Files.createDirectories(LOGS);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            ClassDataSharing.flags(main.getName(), JAVA, command(main, 0, args, true),
                    LOGS.resolve(name + "-" + ProcessHandle.current().pid() + ".log"));
        }
        int port = newPort();
        var service = new ServiceProcess(name, main.getName(), command(main, port, args, classDataSharing),
                classDataSharing, release, port);
        service.spawn();
        if (awaitReady) {
            service.awaitReady();
        }
        return service;
    }

    private static List<String> command(Class<?> main, int port, List<String> args, boolean classDataSharing) {
        var command = new ArrayList<>(List.of(
                "-cp", classDataSharing ? ClassDataSharing.classpath() : ClassDataSharing.variantClasspath(),
                main.getName(),
                "--server.port=" + port,
                "--spring.main.banner-mode=off",
                // The proofs are about the data path; the API description and the traces have their own tests
                // (ApiDocumentationTest, PipelineTest), and their work would only lengthen each of the many starts
                // and requests here (tracing on made this module about a fifth slower). Without it the command API
                // stores the trace context the caller sent (the proofs' clients send none).
                "--springdoc.api-docs.enabled=false",
                "--springdoc.swagger-ui.enabled=false",
                "--management.tracing.export.enabled=false",
                dev.ledgerlab.testkit.TestHttp.OPERATOR_PASSWORD_ARGUMENT));
        command.addAll(args);
        return command;
    }

    /**
     * A free port never handed out before in this JVM, below the ephemeral range (a service binds it only once it
     * has started, and an outgoing connection could take an ephemeral one first). Processes started side by side each
     * take a port before any of them binds it, and the same one could come twice (seen: two of five projectors).
     */
    private static synchronized int newPort() {
        int port;
        do {
            port = EmbeddedStack.freeListenPort();
        } while (!PORTS.add(port));
        return port;
    }

    private void spawn() {
        try {
            Files.createDirectories(LOGS);
            // Named for the test JVM too: proof classes run in two JVMs side by side, each counting from 1.
            log = LOGS.resolve(name + "-" + ProcessHandle.current().pid() + "-" + SEQUENCE.incrementAndGet() + ".log");
            var flags = classDataSharing ? ClassDataSharing.flags(main, JAVA, command, log)
                    : ClassDataSharing.variantFlags();
            var full = new ArrayList<String>();
            if (release != null) {
                // setsid(1) (util-linux, as setpriv for PostgreSQL) execs java in the same process, so the pid is the
                // JVM's: it forks only when it is a group leader, which a child of this JVM never is.
                full.add("setsid");
            }
            full.addAll(JAVA);
            full.addAll(flags);
            full.addAll(command);
            var started = new ProcessBuilder(full).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            // A test JVM that ends (or fails) must not leave services running on its ports.
            try {
                Runtime.getRuntime().addShutdownHook(new Thread(started::destroyForcibly, "stop-" + name));
            } catch (IllegalStateException shuttingDown) {
                // Started by a test still running while the JVM stops (seen after a SIGTERM to the test JVM: seven
                // services left running, their parent gone): nothing would stop this one later.
                started.destroyForcibly();
                throw shuttingDown;
            }
            process = started;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name, e);
        }
    }

    /** Starts the same command line again, on the same port, once the previous process is gone; waits until ready. */
    public void restart() {
        if (process.isAlive()) {
            throw new IllegalStateException(this + " is still running");
        }
        spawn();
        awaitReady();
    }

    public void awaitReady() {
        try {
            await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(250)).until(() -> {
                if (!process.isAlive()) {
                    throw new IllegalStateException(name + " exited with " + process.exitValue() + ":\n" + tail());
                }
                return TestHttp.at(port).get("/actuator/health/readiness").status() == 200;
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

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** SIGKILL, then wait for the process to be gone; returns its exit code (137). */
    public int kill() {
        process.destroyForcibly();
        return awaitExit(Duration.ofSeconds(30));
    }

    /**
     * Sends a signal by name ({@code STOP}, {@code CONT}) through kill(1): the JDK can only send TERM and KILL.
     */
    public void signal(String signal) {
        try {
            var kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start();
            if (kill.waitFor() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Releases a process started by {@link #startFreezable} and wakes it ({@code SIGCONT}). */
    public void thaw() {
        try {
            if (release != null && !Files.exists(release)) {
                Files.createFile(release);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        signal("CONT");
    }

    /** Whether the kernel has it stopped (state T in /proc/pid/stat): frozen by SIGSTOP. */
    public boolean isFrozen() {
        try {
            var stat = Files.readString(Path.of("/proc", Long.toString(process.pid()), "stat"));
            // pid (comm) state ...: the state follows the last ')' of the command name.
            return stat.substring(stat.lastIndexOf(')') + 2).startsWith("T");
        } catch (IOException e) {
            return false;
        }
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
        if (isFrozen()) {
            thaw();
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

    /** The last {@code n} lines of the process's current log. */
    public String tail(int n) {
        try {
            var lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - n), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** Every line of the current log that contains {@code text}. */
    public List<String> logLines(String text) {
        try {
            return Files.readAllLines(log).stream().filter(line -> line.contains(text)).toList();
        } catch (IOException e) {
            return List.of();
        }
    }
}
