package dev.ledgerlab.bench;

import dev.ledgerlab.infra.EmbeddedStack;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * The lab as its users run it, through {@code ./ledger-lab} (unpacked jar, class data archive, lab/jvm.options;
 * without the build, which the bench's own start did), in a process of its own on free ports: so that its start is
 * measured from the process's birth, its memory is its own, and the load the benchmark generates does not run
 * inside it. The script ends in {@code exec java}, so the process is the lab's JVM.
 */
final class LabProcess implements AutoCloseable {

    private static final String OPERATOR_PASSWORD = "LEDGER_LAB_OPERATOR_PASSWORD";
    private static final Pattern UP = Pattern.compile("Ledger Lab is up in ([0-9.]+) s");
    /** The checkout whose lab the benchmark measures unless told otherwise: the one it runs from. */
    static final Path HERE = Path.of("");
    private static final Path SCRIPT = Path.of("ledger-lab");
    private static final Path ARCHIVE = Path.of("lab", "target", "app", "classes.jsa");
    /** Where the script's first lab writes the archive, kept (and renamed at the next start) if that lab came up. */
    private static final Path WRITTEN_ARCHIVE = Path.of("lab", "target", "app", "classes.jsa.partial");
    private static final Path CAME_UP = Path.of("lab", "target", "app", "classes.jsa.up");
    private static final Path JAR = Path.of("lab", "target", "ledger-lab.jar");
    private static final Path JVM_OPTIONS = Path.of("lab", "jvm.options");

    private final Process process;
    private final Path dataDirectory;
    private final Path output;
    private final long spawnedNanos;
    private final int postgresPort;
    private final int kafkaPort;
    private final int commandApiPort;
    private final int projectorPort;
    private final int relayPort;
    private final String operatorPassword;
    private long readyNanos;

    private LabProcess(Process process, Path dataDirectory, Path output, long spawnedNanos, int[] ports,
            String operatorPassword) {
        this.process = process;
        this.dataDirectory = dataDirectory;
        this.operatorPassword = operatorPassword;
        this.output = output;
        this.spawnedNanos = spawnedNanos;
        this.postgresPort = ports[0];
        this.kafkaPort = ports[1];
        this.commandApiPort = ports[3];
        this.projectorPort = ports[4];
        this.relayPort = ports[5];
    }

    /**
     * Starts a lab on fresh data in {@code dataDirectory} with these services and extra arguments, and waits until
     * it prints that it is up. {@code javaOptions} go to its JVM after lab/jvm.options, as LEDGER_LAB_JAVA_OPTS.
     */
    static LabProcess start(Path dataDirectory, String services, List<String> extraArgs, List<String> javaOptions) {
        return start(HERE, dataDirectory, services, extraArgs, javaOptions);
    }

    /** The same, with the script and the build of another checkout ({@code root}): another commit's lab. */
    static LabProcess start(Path root, Path dataDirectory, String services, List<String> extraArgs,
            List<String> javaOptions) {
        int[] ports = EmbeddedStack.freePorts(6);
        var args = new ArrayList<>(List.of("--data-dir=" + dataDirectory.toAbsolutePath(), "--fresh",
                "--postgres-port=" + ports[0],
                "--kafka-port=" + ports[1], "--controller-port=" + ports[2], "--command-api-port=" + ports[3],
                "--projector-port=" + ports[4], "--relay-port=" + ports[5], "--services=" + services));
        args.addAll(extraArgs);
        var output = dataDirectory.resolveSibling(dataDirectory.getFileName() + ".log");
        try {
            Files.createDirectories(dataDirectory.getParent());
            long spawned = System.nanoTime();
            var command = new ArrayList<String>();
            command.add(root.resolve(SCRIPT).toAbsolutePath().toString());
            command.addAll(args);
            var builder = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(Redirect.to(output.toFile()));
            builder.environment().put("LEDGER_LAB_SKIP_BUILD", "1");
            // The operator's password, for the replays the benchmark asks for: the one the environment gives, else a
            // new one for this lab.
            var operatorPassword = builder.environment().get(OPERATOR_PASSWORD);
            if (operatorPassword == null || operatorPassword.isBlank()) {
                operatorPassword = UUID.randomUUID().toString();
                builder.environment().put(OPERATOR_PASSWORD, operatorPassword);
            }
            if (!javaOptions.isEmpty()) {
                builder.environment().merge("LEDGER_LAB_JAVA_OPTS", String.join(" ", javaOptions),
                        (given, added) -> given + " " + added);
            }
            var process = builder.start();
            var lab = new LabProcess(process, dataDirectory, output, spawned, ports, operatorPassword);
            lab.awaitUp();
            return lab;
        }
        catch (IOException e) {
            throw new UncheckedIOException("cannot start the lab", e);
        }
    }

    /**
     * Makes sure the script's class data archive exists before anything is measured: the first start after a build
     * runs without it and writes it when the lab stops (the users' second start is the one measured, like every
     * start after it). Says so when it does.
     */
    static void prepareClassArchive(Path work) {
        prepareClassArchive(HERE, work);
    }

    /** The same for the lab of another checkout. */
    static void prepareClassArchive(Path root, Path work) {
        if (!Files.isRegularFile(root.resolve(SCRIPT))) {
            throw new IllegalStateException("run the benchmark from the project's directory, as ./ledger-lab bench");
        }
        // The script unpacks the jar again, without the archive, after every build.
        if (classArchiveWritten(root)) {
            return;
        }
        var lab = start(root, work.resolve("archive-" + UUID.randomUUID().toString().substring(0, 8)),
                "command-api,outbox-relay,projector", List.of(), List.of());
        System.out.printf("first start after the build (writes the class data archive): up in %.1f s%n",
                lab.readySeconds());
        lab.close();
        if (!classArchiveWritten(root)) {
            throw new IllegalStateException("the lab stopped without writing " + root.resolve(WRITTEN_ARCHIVE)
                    + "; its last lines:\n" + lab.tail());
        }
    }

    /** An archive since the last build: in use, or written by a lab that came up, for the script's next start. */
    private static boolean classArchiveWritten(Path root) {
        try {
            var built = Files.getLastModifiedTime(root.resolve(JAR));
            var archive = root.resolve(ARCHIVE);
            var written = root.resolve(WRITTEN_ARCHIVE);
            if (Files.isRegularFile(archive)) {
                return Files.getLastModifiedTime(archive).compareTo(built) > 0;
            }
            return Files.isRegularFile(written) && Files.isRegularFile(root.resolve(CAME_UP))
                    && Files.getLastModifiedTime(written).compareTo(built) > 0;
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The lab's own JVM settings, lab/jvm.options as ./ledger-lab passes them, and what LEDGER_LAB_JAVA_OPTS adds to
     * them (as the script adds it): the flags of every process the benchmark measures, and of its baselines.
     */
    static List<String> labJvmFlags() {
        try {
            var flags = new ArrayList<>(Files.readAllLines(HERE.resolve(JVM_OPTIONS), StandardCharsets.UTF_8).stream()
                    .map(String::strip).filter(line -> !line.isEmpty() && !line.startsWith("#")).toList());
            var added = System.getenv("LEDGER_LAB_JAVA_OPTS");
            if (added != null && !added.isBlank()) {
                flags.addAll(List.of(added.strip().split("\\s+")));
            }
            return List.copyOf(flags);
        }
        catch (IOException e) {
            throw new UncheckedIOException("cannot read " + JVM_OPTIONS + ": run the benchmark as ./ledger-lab bench", e);
        }
    }

    private void awaitUp() {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        while (System.nanoTime() < deadline) {
            if (UP.matcher(output()).find()) {
                readyNanos = System.nanoTime();
                return;
            }
            if (!process.isAlive()) {
                throw new IllegalStateException("the lab exited with " + process.exitValue() + ":\n" + tail());
            }
            Pause.millis(20);
        }
        process.destroyForcibly();
        throw new IllegalStateException("the lab was not up within 3 minutes:\n" + tail());
    }

    /** Seconds from the process's start to the lab's "up" line: JVM start, PostgreSQL, Kafka, every service. */
    double readySeconds() {
        return (readyNanos - spawnedNanos) / 1e9;
    }

    long spawnedNanos() {
        return spawnedNanos;
    }

    String output() {
        try {
            return Files.readString(output, StandardCharsets.UTF_8);
        }
        catch (IOException e) {
            return "";
        }
    }

    String tail() {
        var lines = output().lines().toList();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    }

    /** Resident memory of the lab's JVM (VmRSS), in MiB. */
    double residentMib() {
        try {
            for (var line : Files.readAllLines(Path.of("/proc", Long.toString(process.pid()), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0;
                }
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        throw new IllegalStateException("no VmRSS for pid " + process.pid());
    }

    long pid() {
        return process.pid();
    }

    /** A meter of where this lab's CPU goes: its JVM's threads and its PostgreSQL's processes. */
    CpuMeter cpuMeter() {
        return new CpuMeter(process.pid(), dataDirectory.resolve("postgres"), commandApiPort);
    }

    /**
     * Under this share of a core over a window of load, the lab's compiler threads rest, and the lab counts as warm:
     * figures of a JVM still compiling would measure the compiler.
     */
    private static final double WARM_COMPILER_SHARE = 0.03;

    static boolean isWarm(double compilerShare) {
        return compilerShare < WARM_COMPILER_SHARE;
    }

    /** The share of a core the lab JVM's JIT compiler threads used while {@code window} ran (under load, say). */
    double compilerShareDuring(Runnable window) {
        double before = compilerCpuSeconds();
        long started = System.nanoTime();
        window.run();
        return (compilerCpuSeconds() - before) / ((System.nanoTime() - started) / 1e9);
    }

    /**
     * CPU seconds the lab JVM's JIT compiler threads (C1, C2) have used so far, from /proc: while they keep
     * working, the lab is not yet running the code it will run once warm.
     */
    private double compilerCpuSeconds() {
        double ticks = 0;
        try (var tasks = Files.list(Path.of("/proc", Long.toString(process.pid()), "task"))) {
            for (var task : tasks.toList()) {
                try {
                    var name = Files.readString(task.resolve("comm")).strip();
                    if (name.startsWith("C1 Compiler") || name.startsWith("C2 Compiler")) {
                        ticks += Math.max(0, CpuMeter.ticks(task.resolve("stat")));
                    }
                }
                catch (IOException gone) {
                    // a thread that ended meanwhile
                }
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        // Linux reports these in clock ticks of USER_HZ, 100 per second on every common kernel.
        return ticks / 100.0;
    }

    String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + postgresPort + "/ledger";
    }

    String bootstrapServers() {
        return "127.0.0.1:" + kafkaPort;
    }

    int commandApiPort() {
        return commandApiPort;
    }

    int projectorPort() {
        return projectorPort;
    }

    String operatorPassword() {
        return operatorPassword;
    }

    int relayPort() {
        return relayPort;
    }

    /** SIGTERM, the lab's own clean stop; SIGKILL after a minute. */
    @Override
    public void close() {
        ChildProcess.stop(process);
    }
}
