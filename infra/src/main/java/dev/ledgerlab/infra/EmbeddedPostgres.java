package dev.ledgerlab.infra;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real PostgreSQL server whose data directory is on disk and survives restarts of the JVM.
 *
 * <p>It runs initdb and pg_ctl from zonky's binaries artifact itself rather than through zonky's own
 * {@code EmbeddedPostgres}, because that class cannot drop root privileges (PostgreSQL refuses root), always starts the
 * server with fsync off ({@code -F}), and after a {@code kill -9} silently connects to the orphaned postmaster of the
 * previous run. Here the orphan is stopped, a foreign process on the port is an error, and durability settings are the
 * caller's.
 */
public final class EmbeddedPostgres implements AutoCloseable {

    public static final String DATABASE = "ledger";

    private static final Logger log = LoggerFactory.getLogger(EmbeddedPostgres.class);
    private static final String SUPERUSER = "postgres";
    private static final String LOCK_FILE = ".lock";
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(120);

    private final Path dataDirectory;
    private final int port;
    private final Map<String, String> settings;
    private final Path home;
    private final OsUser user;
    private final DirectoryLock ownLock;
    private long pid;
    private boolean running = true;
    private boolean closed;

    private EmbeddedPostgres(Path dataDirectory, int port, Map<String, String> settings, long pid, Path home,
            OsUser user, DirectoryLock ownLock) {
        this.dataDirectory = dataDirectory;
        this.port = port;
        this.settings = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(settings));
        this.pid = pid;
        this.home = home;
        this.user = user;
        this.ownLock = ownLock;
    }

    /**
     * Starts a server on {@code dataDirectory} (created and initialised when it holds no cluster yet) listening on
     * {@code 127.0.0.1:port}, and creates the database {@value #DATABASE} if missing.
     *
     * <p>The data directory's parent also holds the lock file {@code .lock} and the server log
     * {@code <data directory name>.log}, so each server needs a parent directory of its own.
     *
     * @param serverSettings settings added to those of {@link PostgresServerSettings#fromClasspath()}, e.g.
     *                       {@code fsync=off} for tests
     * @throws IllegalStateException when another live JVM uses the directory or another process uses the port
     */
    public static EmbeddedPostgres start(Path dataDirectory, int port, Map<String, String> serverSettings) {
        Path data = dataDirectory.toAbsolutePath().normalize();
        DirectoryLock lock = DirectoryLock.acquire(data.getParent().resolve(LOCK_FILE));
        try {
            return start(data, port, serverSettings, lock);
        }
        catch (RuntimeException e) {
            lock.close();
            throw e;
        }
    }

    /**
     * Starts a server while the caller holds the directory lock, which the caller then also releases.
     */
    static EmbeddedPostgres startLocked(Path dataDirectory, int port, Map<String, String> serverSettings) {
        return start(dataDirectory.toAbsolutePath().normalize(), port, serverSettings, null);
    }

    private static EmbeddedPostgres start(Path data, int port, Map<String, String> serverSettings, DirectoryLock ownLock) {
        long started = System.nanoTime();
        Path home = PostgresBinaries.home();
        OsUser user = OsUser.forDataDirectory(data);
        user.requireTraversable(home, "PostgreSQL binaries");
        user.requireTraversable(data, "PostgreSQL data directory");

        stopOrphan(data, home, user);
        Ports.requireFree(port, "PostgreSQL");

        Map<String, String> settings = new LinkedHashMap<>(PostgresServerSettings.fromClasspath());
        settings.putAll(serverSettings);
        settings.put("listen_addresses", Ports.LOOPBACK);
        settings.put("port", Integer.toString(port));
        // TCP only: two servers never meet on a socket file in /tmp, and no socket directory needs to be writable.
        settings.put("unix_socket_directories", "");

        try {
            if (!Files.exists(data.resolve("PG_VERSION"))) {
                initdb(data, home, user, "off".equals(settings.get("fsync")));
            }
            long pid = launch(data, port, settings, home, user);
            EmbeddedPostgres server = new EmbeddedPostgres(data, port, settings, pid, home, user, ownLock);
            try {
                server.verifyAndCreateDatabase();
            }
            catch (RuntimeException e) {
                server.stop();
                throw e;
            }
            log.info("PostgreSQL up on {}:{} in {} ms (pid {}, uid {}, data {})", Ports.LOOPBACK, port,
                    (System.nanoTime() - started) / 1_000_000, pid, user.uid(), data);
            return server;
        }
        catch (IOException e) {
            throw new UncheckedIOException("cannot start PostgreSQL on " + data, e);
        }
    }

    /** Runs {@code pg_ctl start} and waits until the server accepts connections; returns the postmaster's pid. */
    private static long launch(Path data, int port, Map<String, String> settings, Path home, OsUser user)
            throws IOException {
        Path logFile = data.resolveSibling(data.getFileName() + ".log");
        if (!Files.exists(logFile)) {
            Files.createFile(logFile);
        }
        user.own(logFile);

        List<String> options = new ArrayList<>();
        settings.forEach((name, value) -> options.add("-c " + shellQuoted(name + "=" + value)));
        CommandResult result = run(user, home, "pg_ctl", List.of("-D", data.toString(), "-l", logFile.toString(),
                "-w", "-t", "60", "-o", String.join(" ", options), "start"));
        if (result.exitCode() != 0) {
            throw new IllegalStateException("PostgreSQL did not start on port " + port + " (" + result.output().trim()
                    + "). End of " + logFile + ":\n" + tail(logFile, 20));
        }
        return postmasterPid(data).orElseThrow(() -> new IllegalStateException(
                "PostgreSQL started but left no postmaster.pid in " + data));
    }

    /**
     * A crash, for the proofs: {@code SIGKILL} of the postmaster, then waits until it and every server process it had
     * started are gone. Nothing is flushed or shut down: what survives is what was durable (with fsync and
     * synchronous_commit on, every acknowledged commit). The data directory stays this object's; {@link #restart()}
     * starts the server on it again.
     */
    public synchronized void kill() {
        if (!running) {
            return;
        }
        var postmaster = ProcessHandle.of(pid);
        List<ProcessHandle> processes = new ArrayList<>();
        postmaster.ifPresent(p -> {
            processes.add(p);
            p.descendants().forEach(processes::add);
            p.destroyForcibly();
        });
        running = false;
        // Backends notice the postmaster's death and exit by themselves; one still attached to the shared memory
        // would make the next start refuse ("pre-existing shared memory block is still in use").
        for (ProcessHandle process : processes) {
            try {
                process.onExit().get(30, TimeUnit.SECONDS);
            }
            catch (java.util.concurrent.TimeoutException e) {
                process.destroyForcibly();
            }
            catch (Exception e) {
                throw new IllegalStateException("PostgreSQL process " + process.pid() + " did not exit", e);
            }
        }
        log.warn("PostgreSQL on port {} killed (SIGKILL to postmaster pid {})", port, pid);
    }

    /** Starts the server again after {@link #kill()}, on the same data directory, port and settings (crash recovery). */
    public synchronized void restart() {
        if (running) {
            throw new IllegalStateException("PostgreSQL on port " + port + " is running");
        }
        long started = System.nanoTime();
        try {
            pid = launch(dataDirectory, port, settings, home, user);
        }
        catch (IOException e) {
            throw new UncheckedIOException("cannot restart PostgreSQL on " + dataDirectory, e);
        }
        running = true;
        log.info("PostgreSQL on port {} restarted in {} ms (pid {})", port, (System.nanoTime() - started) / 1_000_000,
                pid);
    }

    private static void initdb(Path data, Path home, OsUser user, boolean noSync) throws IOException {
        Files.createDirectories(data);
        Files.setPosixFilePermissions(data, PosixFilePermissions.fromString("rwx------"));
        user.own(data);
        List<String> arguments = new ArrayList<>(List.of("-D", data.toString(), "-E", "UTF8", "--locale=C", "-A", "trust",
                "-U", SUPERUSER, "--no-instructions"));
        if (noSync) {
            // Only when the server itself will run with fsync off: initdb's final sync is most of its run time.
            arguments.add("--no-sync");
        }
        CommandResult result = run(user, home, "initdb", arguments);
        if (result.exitCode() != 0) {
            throw new IllegalStateException("initdb failed for " + data + ":\n" + result.output());
        }
    }

    /**
     * A JVM killed with {@code kill -9} leaves its postmaster running. Reusing it would hide that the previous run
     * crashed and keep the old settings, so it is stopped and the server started afresh on the same data.
     */
    static void stopOrphan(Path data, Path home, OsUser user) {
        Optional<Long> recorded = postmasterPid(data);
        if (recorded.isEmpty()) {
            return;
        }
        long pid = recorded.get();
        Optional<ProcessHandle> process = ProcessHandle.of(pid).filter(ProcessHandle::isAlive);
        if (process.isEmpty()) {
            return;
        }
        if (!isPostmasterOf(process.get(), data)) {
            log.warn("{} names pid {}, which now belongs to another program; removing the stale file",
                    data.resolve("postmaster.pid"), pid);
            try {
                Files.deleteIfExists(data.resolve("postmaster.pid"));
            }
            catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return;
        }
        log.warn("orphaned postmaster pid {} from a previous run, stopping it", pid);
        CommandResult result = run(user, home, "pg_ctl", List.of("-D", data.toString(), "-m", "fast", "-w", "-t", "60",
                "stop"));
        if (result.exitCode() != 0) {
            log.warn("pg_ctl could not stop pid {} ({}), killing it", pid, result.output().trim());
            process.get().destroyForcibly();
        }
        try {
            process.get().onExit().get(60, TimeUnit.SECONDS);
        }
        catch (Exception e) {
            throw new IllegalStateException("orphaned postmaster pid " + pid + " on " + data + " did not stop", e);
        }
    }

    /**
     * Whether a live process is the postmaster of {@code data}; when that cannot be told, nothing is touched.
     */
    private static boolean isPostmasterOf(ProcessHandle process, Path data) {
        ProcessHandle.Info info = process.info();
        String command = info.command().orElseThrow(() -> unknownProcess(process, data));
        if (!command.endsWith("/postgres")) {
            return false;
        }
        String[] arguments = info.arguments().orElseThrow(() -> unknownProcess(process, data));
        return List.of(arguments).contains(data.toString());
    }

    private static IllegalStateException unknownProcess(ProcessHandle process, Path data) {
        return new IllegalStateException(data.resolve("postmaster.pid") + " names the live process " + process.pid()
                + ", which this JVM cannot inspect. Stop it if it is a PostgreSQL server on " + data
                + ", or delete the file if it is not.");
    }

    static Optional<Long> postmasterPid(Path data) {
        Path file = data.resolve("postmaster.pid");
        try {
            if (!Files.exists(file)) {
                return Optional.empty();
            }
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            return lines.isEmpty() ? Optional.empty() : Optional.of(Long.parseLong(lines.get(0).trim()));
        }
        catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
    }

    private void verifyAndCreateDatabase() {
        try (Connection connection = DriverManager.getConnection(jdbcUrl("postgres"), SUPERUSER, password());
             Statement statement = connection.createStatement()) {
            // Proof that the server answering on the port is the one on our data directory, not a stranger.
            try (ResultSet rs = statement.executeQuery("SHOW data_directory")) {
                rs.next();
                if (!Path.of(rs.getString(1)).equals(dataDirectory)) {
                    throw new IllegalStateException("the server on port " + port + " serves " + rs.getString(1)
                            + ", not " + dataDirectory);
                }
            }
            try (ResultSet rs = statement.executeQuery("SELECT 1 FROM pg_database WHERE datname = '" + DATABASE + "'")) {
                if (rs.next()) {
                    return;
                }
            }
            statement.execute("CREATE DATABASE " + DATABASE);
        }
        catch (SQLException e) {
            throw new IllegalStateException("cannot prepare database " + DATABASE + " on port " + port, e);
        }
    }

    public String jdbcUrl(String database) {
        return "jdbc:postgresql://" + Ports.LOOPBACK + ":" + port + "/" + database;
    }

    /**
     * The JDBC URL of the database {@value #DATABASE}.
     */
    public String jdbcUrl() {
        return jdbcUrl(DATABASE);
    }

    public int port() {
        return port;
    }

    public String username() {
        return SUPERUSER;
    }

    /**
     * Any password works: the server trusts every connection, and it listens on the loopback only.
     */
    public String password() {
        return "";
    }

    public Path dataDirectory() {
        return dataDirectory;
    }

    /** Whether the server runs: false between {@link #kill()} and {@link #restart()}. */
    public synchronized boolean isRunning() {
        return running;
    }

    /**
     * The postmaster's process id.
     */
    public synchronized long pid() {
        return pid;
    }

    /**
     * Stops the server ({@code pg_ctl stop -m fast}: open transactions roll back, committed data stays).
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (running) {
                stop();
            }
        }
        finally {
            if (ownLock != null) {
                ownLock.close();
            }
        }
    }

    private void stop() {
        CommandResult result = run(user, home, "pg_ctl", List.of("-D", dataDirectory.toString(), "-m", "fast", "-w",
                "-t", "60", "stop"));
        if (result.exitCode() != 0) {
            throw new IllegalStateException("pg_ctl stop failed for " + dataDirectory + ": " + result.output().trim());
        }
        log.info("PostgreSQL on port {} stopped", port);
    }

    private static CommandResult run(OsUser user, Path home, String program, List<String> arguments) {
        List<String> command = user.command(PostgresBinaries.executable(home, program), arguments);
        Path output = null;
        try {
            output = Files.createTempFile("ledger-lab-" + program, ".out");
            ProcessBuilder builder = new ProcessBuilder(command)
                    // A directory the unprivileged user can enter; the JVM's own may be /root.
                    .directory(home.toFile())
                    .redirectErrorStream(true)
                    // A file, not a pipe: the server that pg_ctl leaves running must never hold our end open.
                    .redirectOutput(output.toFile());
            builder.environment().keySet().removeIf(name -> name.startsWith("PG"));
            builder.environment().put("LC_ALL", "C");
            Process process = builder.start();
            if (!process.waitFor(COMMAND_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " did not finish within " + COMMAND_TIMEOUT);
            }
            return new CommandResult(process.exitValue(), Files.readString(output));
        }
        catch (IOException e) {
            throw new UncheckedIOException("cannot run " + String.join(" ", command), e);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + program, e);
        }
        finally {
            if (output != null) {
                output.toFile().delete();
            }
        }
    }

    private static String shellQuoted(String value) {
        // pg_ctl hands -o to /bin/sh; single quotes keep spaces and quotes in values intact.
        return "'" + value.replace("'", "'\\''") + "'";
    }

    private static String tail(Path file, int lines) {
        try {
            List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        }
        catch (IOException e) {
            return "(cannot read " + file + ")";
        }
    }

    private record CommandResult(int exitCode, String output) {
    }
}
