package dev.ledgerlab.infra;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PostgreSQL and Kafka under one base directory ({@code <base>/postgres}; {@code <base>/kafka} for the single broker in
 * this JVM, or {@code <base>/kafka-1}, {@code kafka-2}, ... for a {@link KafkaCluster} of node processes), guarded by
 * the lock file {@code <base>/.lock} so that one live JVM at a time owns them.
 */
public final class EmbeddedStack implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedStack.class);
    /** The JVM a directory belongs to, from its name ({@link #ownedName}). */
    private static final Pattern OWNER = Pattern.compile("-pid(\\d+)-");
    private static final String LOCK_FILE = ".lock";

    private final Settings settings;
    private final DirectoryLock lock;
    private final EmbeddedPostgres postgres;
    private final CompletableFuture<KafkaServers> kafka;
    private boolean closed;

    private EmbeddedStack(Settings settings, DirectoryLock lock, EmbeddedPostgres postgres,
            CompletableFuture<KafkaServers> kafka) {
        this.settings = settings;
        this.lock = lock;
        this.postgres = postgres;
        this.kafka = kafka;
    }

    /**
     * What to start and where. Ports are fixed so that a restarted stack is found where it was.
     *
     * @param kafkaPort        the single broker's port, or the first node's of a cluster
     * @param controllerPort   the KRaft controller's port, or the first node's of a cluster
     * @param postgresSettings PostgreSQL server settings on top of {@link PostgresServerSettings#fromClasspath()}
     * @param fresh            delete everything under the base directory before starting
     * @param kafkaNodes       1: one broker in this JVM; more: a {@link KafkaCluster} of that many node processes
     */
    public record Settings(Path baseDirectory, int postgresPort, int kafkaPort, int controllerPort,
            Map<String, String> postgresSettings, boolean fresh, int kafkaNodes) {

        public static final int DEFAULT_POSTGRES_PORT = 15432;
        public static final int DEFAULT_KAFKA_PORT = 19092;
        public static final int DEFAULT_CONTROLLER_PORT = 19093;

        public Settings {
            baseDirectory = baseDirectory.toAbsolutePath().normalize();
            postgresSettings = Map.copyOf(postgresSettings);
            if (kafkaNodes < 1) {
                throw new IllegalArgumentException("Kafka needs at least one node, not " + kafkaNodes);
            }
        }

        /**
         * Default ports, no extra server settings, data kept.
         */
        public static Settings under(Path baseDirectory) {
            return new Settings(baseDirectory, DEFAULT_POSTGRES_PORT, DEFAULT_KAFKA_PORT, DEFAULT_CONTROLLER_PORT,
                    Map.of(), false, 1);
        }

        public Settings withPostgresPort(int port) {
            return new Settings(baseDirectory, port, kafkaPort, controllerPort, postgresSettings, fresh, kafkaNodes);
        }

        public Settings withKafkaPort(int port) {
            return new Settings(baseDirectory, postgresPort, port, controllerPort, postgresSettings, fresh, kafkaNodes);
        }

        public Settings withControllerPort(int port) {
            return new Settings(baseDirectory, postgresPort, kafkaPort, port, postgresSettings, fresh, kafkaNodes);
        }

        /**
         * Three distinct ports that are free right now.
         */
        public Settings withFreePorts() {
            int[] ports = Ports.free(3);
            return new Settings(baseDirectory, ports[0], ports[1], ports[2], postgresSettings, fresh, kafkaNodes);
        }

        public Settings withPostgresSetting(String name, String value) {
            Map<String, String> settings = new LinkedHashMap<>(postgresSettings);
            settings.put(name, value);
            return new Settings(baseDirectory, postgresPort, kafkaPort, controllerPort, settings, fresh, kafkaNodes);
        }

        public Settings withFresh(boolean fresh) {
            return new Settings(baseDirectory, postgresPort, kafkaPort, controllerPort, postgresSettings, fresh,
                    kafkaNodes);
        }

        /** 1 (the default): one broker in this JVM; 3: a cluster of three node processes. */
        public Settings withKafkaNodes(int nodes) {
            return new Settings(baseDirectory, postgresPort, kafkaPort, controllerPort, postgresSettings, fresh, nodes);
        }

        /** Where Kafka's clients connect, known before it is up. */
        public String bootstrapServers() {
            return kafkaNodes == 1 ? Ports.LOOPBACK + ":" + kafkaPort : clusterNodes().stream()
                    .map(KafkaCluster.Node::address).collect(java.util.stream.Collectors.joining(","));
        }

        /** The cluster's nodes: node i on {@code kafkaPort + 10 * (i - 1)}, its controller likewise. */
        public List<KafkaCluster.Node> clusterNodes() {
            return KafkaCluster.nodes(kafkaNodes, kafkaPort, controllerPort);
        }

        public Path postgresDirectory() {
            return baseDirectory.resolve("postgres");
        }

        public Path kafkaDirectory() {
            return baseDirectory.resolve("kafka");
        }
    }

    /**
     * Starts PostgreSQL and Kafka side by side and returns once both serve; if either fails, the other is stopped
     * again.
     */
    public static EmbeddedStack start(Settings settings) {
        long started = System.nanoTime();
        var stack = begin(settings);
        try {
            stack.kafka();
        }
        catch (RuntimeException e) {
            stack.close();
            throw e;
        }
        log.info("Embedded stack up in {} ms under {}", (System.nanoTime() - started) / 1_000_000,
                settings.baseDirectory());
        return stack;
    }

    /**
     * Starts Kafka on a thread of its own and PostgreSQL on this one, and returns once PostgreSQL serves: what needs
     * only the database (the command API, its migrations) can start while Kafka still is; {@link #kafka()} waits for
     * it. Kafka's address is known before it is up ({@link Settings#bootstrapServers()}).
     */
    public static EmbeddedStack begin(Settings settings) {
        DirectoryLock lock = DirectoryLock.acquire(settings.baseDirectory().resolve(LOCK_FILE));
        try {
            if (settings.fresh()) {
                // An orphan from a killed run still has its files open and its port bound: stop it before deleting.
                EmbeddedPostgres.stopOrphan(settings.postgresDirectory(), PostgresBinaries.home(),
                        OsUser.forDataDirectory(settings.postgresDirectory()));
                Directories.deleteContents(settings.baseDirectory(), Set.of(LOCK_FILE));
            }
        }
        catch (IOException e) {
            lock.close();
            throw new UncheckedIOException("cannot prepare " + settings.baseDirectory(), e);
        }
        catch (RuntimeException e) {
            lock.close();
            throw e;
        }
        var kafka = new CompletableFuture<KafkaServers>();
        var starter = new Thread(() -> {
            try {
                kafka.complete(startKafka(settings));
            }
            catch (Throwable e) {
                kafka.completeExceptionally(e);
            }
        }, "embedded-kafka-start");
        starter.start();
        try {
            var postgres = EmbeddedPostgres.startLocked(settings.postgresDirectory(), settings.postgresPort(),
                    settings.postgresSettings());
            return new EmbeddedStack(settings, lock, postgres, kafka);
        }
        catch (RuntimeException e) {
            kafka.handle((started, failed) -> {
                if (started != null) {
                    started.close();
                }
                return null;
            }).join();
            lock.close();
            throw e;
        }
    }

    /**
     * One broker in this JVM, or a cluster of node processes. A directory's Kafka data belongs to one of the two: the
     * relay's and the projector's stored positions (in PostgreSQL) point into that Kafka's topic, so starting the
     * other on the same data would leave them pointing into an empty log.
     */
    private static KafkaServers startKafka(Settings settings) {
        int madeWith = kafkaNodesOf(settings);
        if (madeWith > 0 && madeWith != settings.kafkaNodes()) {
            throw new IllegalStateException(settings.baseDirectory() + " holds the data of " + describe(madeWith)
                    + ", and PostgreSQL there the positions of its topic; starting " + describe(settings.kafkaNodes())
                    + " on it would leave the relay and projector pointing into another log. Start it with"
                    + " --kafka-nodes=" + madeWith + ", or use --fresh or another --data-dir.");
        }
        if (settings.kafkaNodes() == 1) {
            return EmbeddedKafka.start(settings.kafkaDirectory(), settings.kafkaPort(), settings.controllerPort());
        }
        return KafkaCluster.start(settings.baseDirectory(), settings.clusterNodes(), Map.of());
    }

    /** The Kafka a directory's data was made with: 1 for a single broker, n for n cluster nodes, 0 for none yet. */
    private static int kafkaNodesOf(Settings settings) {
        if (Files.exists(settings.kafkaDirectory().resolve("meta.properties"))) {
            return 1;
        }
        int nodes = 0;
        while (Files.exists(settings.baseDirectory().resolve("kafka-" + (nodes + 1)).resolve("meta.properties"))) {
            nodes++;
        }
        return nodes;
    }

    private static String describe(int kafkaNodes) {
        return kafkaNodes == 1 ? "a single Kafka broker" : "a Kafka cluster of " + kafkaNodes + " nodes";
    }

    /**
     * Deletes every directory below {@code root} that earlier JVMs left ({@link #deleteIfAbandoned}), except those
     * named for a JVM that still runs ({@link #ownedName}). Test JVMs run side by side (Maven builds two modules at a
     * time, the proofs run in two JVMs), and only a whole stack holds a lock on its directory: a lone PostgreSQL or a
     * Kafka cluster of another running JVM would otherwise be taken for abandoned, stopped and deleted under it.
     */
    public static void deleteAbandonedBelow(Path root) {
        if (!Files.isDirectory(root)) {
            return;
        }
        try (var earlier = Files.list(root)) {
            earlier.filter(Files::isDirectory).filter(directory -> !ownedByARunningJvm(directory))
                    .forEach(EmbeddedStack::deleteIfAbandoned);
        }
        catch (IOException e) {
            throw new UncheckedIOException("cannot list " + root, e);
        }
    }

    /** {@code name} marked as this JVM's, so that {@link #deleteAbandonedBelow} leaves it alone while it runs. */
    public static String ownedName(String name) {
        return name + "-pid" + ProcessHandle.current().pid() + "-";
    }

    static boolean ownedByARunningJvm(Path directory) {
        var owner = OWNER.matcher(directory.getFileName().toString());
        return owner.find() && ProcessHandle.of(Long.parseLong(owner.group(1))).map(ProcessHandle::isAlive)
                .orElse(false);
    }

    /**
     * Deletes a stack directory that no live JVM holds, stopping the orphaned postmaster a killed JVM may have left on
     * it. Meant for throw-away directories, such as those of earlier test runs.
     *
     * @return false when a live JVM still uses the directory, which is then left alone
     */
    public static boolean deleteIfAbandoned(Path baseDirectory) {
        Path base = baseDirectory.toAbsolutePath().normalize();
        DirectoryLock lock;
        try {
            lock = DirectoryLock.acquire(base.resolve(LOCK_FILE));
        }
        catch (IllegalStateException inUse) {
            return false;
        }
        try (lock) {
            Path postgresDirectory = Settings.under(base).postgresDirectory();
            if (Files.isDirectory(postgresDirectory)) {
                EmbeddedPostgres.stopOrphan(postgresDirectory, PostgresBinaries.home(),
                        OsUser.forDataDirectory(postgresDirectory));
            }
            Directories.deleteContents(base, Set.of(LOCK_FILE));
        }
        catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + base, e);
        }
        try {
            Directories.deleteRecursively(base);
        }
        catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + base, e);
        }
        return true;
    }

    public EmbeddedPostgres postgres() {
        return postgres;
    }

    /** Kafka, once it serves: waits while it is still starting. */
    public KafkaServers kafka() {
        try {
            return kafka.join();
        }
        catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException runtime ? runtime
                    : new IllegalStateException("Kafka did not start", e.getCause());
        }
    }

    public Settings settings() {
        return settings;
    }

    /**
     * Stops Kafka, then PostgreSQL, then releases the directory.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            // A Kafka still starting is waited for, then stopped; one that failed to start has nothing to stop.
            kafka.handle((started, failed) -> {
                if (started != null) {
                    started.close();
                }
                return null;
            }).join();
        }
        finally {
            try {
                postgres.close();
            }
            finally {
                lock.close();
            }
        }
    }

    /**
     * A new directory for a throw-away stack, below {@code java.io.tmpdir}: every user can traverse it, so it works
     * for a root JVM wherever the checkout lives.
     */
    public static Path scratchDirectory(String prefix) {
        return Directories.scratch(prefix + "-" + java.util.UUID.randomUUID().toString().substring(0, 8));
    }

    /**
     * A port that is free right now on the loopback interface.
     */
    public static int freePort() {
        return Ports.free();
    }

    /**
     * A port free right now on the loopback interface, below the kernel's ephemeral range: for a server that another
     * process binds later (a service process of the proofs), which an outgoing connection could otherwise take first.
     */
    public static int freeListenPort() {
        return Ports.freeBelowEphemeralRange(java.util.concurrent.ThreadLocalRandom.current());
    }

    /** {@code count} ports that are free right now on the loopback interface, all different. */
    public static int[] freePorts(int count) {
        return Ports.free(count);
    }
}
