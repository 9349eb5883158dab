package dev.ledgerlab.infra;

import dev.ledgerlab.events.Replication;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Kafka node (KRaft, broker and controller in one) running inside the JVM, its log directory on disk and kept
 * across restarts: alone, as the lab's default single broker, or as one node of a {@link KafkaCluster}, where each node
 * runs in a process of its own ({@link KafkaNodeMain}).
 */
public final class EmbeddedKafka implements KafkaServers {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedKafka.class);
    private static final String CONTROLLER_LISTENER = "CONTROLLER";

    private final KafkaRaftServer server;
    private final Path logDirectory;
    private final int port;
    private boolean closed;

    private EmbeddedKafka(KafkaRaftServer server, Path logDirectory, int port) {
        this.server = server;
        this.logDirectory = logDirectory;
        this.port = port;
    }

    public static EmbeddedKafka start(Path logDirectory, int port, int controllerPort) {
        return start(logDirectory, port, controllerPort, Map.of());
    }

    /**
     * Starts a single broker on {@code 127.0.0.1:port}, formatting {@code logDirectory} first when it holds no
     * {@code meta.properties}; returns once the broker is unfenced and serves clients.
     *
     * @param brokerSettings broker configuration that overrides the defaults below
     * @throws IllegalStateException when another process uses either port
     */
    public static EmbeddedKafka start(Path logDirectory, int port, int controllerPort, Map<String, String> brokerSettings) {
        var node = new KafkaCluster.Node(1, port, controllerPort);
        var settings = new HashMap<String, String>(Replication.SINGLE.brokerConfigs());
        // After a kill -9 the replayed metadata still holds the dead broker's registration, and the restarted broker can
        // register only once that session expires (9 s by default). Broker and controller share this JVM, so a
        // heartbeat is never lost to the network and a short session is safe.
        settings.put("broker.heartbeat.interval.ms", "500");
        settings.put("broker.session.timeout.ms", "2000");
        settings.putAll(brokerSettings);
        return startNode(node, List.of(node), logDirectory, Uuid.randomUuid().toString(), settings);
    }

    /**
     * Starts {@code self}, one voter of the static quorum {@code voters}, formatting {@code logDirectory} with
     * {@code clusterId} when it holds no {@code meta.properties}. Returns once the broker is unfenced, which needs a
     * majority of the voters running: the nodes of a cluster must start side by side.
     */
    static EmbeddedKafka startNode(KafkaCluster.Node self, List<KafkaCluster.Node> voters, Path logDirectory,
            String clusterId, Map<String, String> brokerSettings) {
        int port = self.port();
        int controllerPort = self.controllerPort();
        if (port == controllerPort) {
            throw new IllegalArgumentException("Kafka needs two different ports for clients and its controller, got "
                    + port + " twice");
        }
        Ports.requireFree(port, "Kafka");
        Ports.requireFree(controllerPort, "the Kafka controller");
        Path logDir = logDirectory.toAbsolutePath().normalize();
        long started = System.nanoTime();
        KafkaConfig config = new KafkaConfig(configuration(self, voters, logDir, brokerSettings), false);
        try {
            Files.createDirectories(logDir);
            if (!Files.exists(logDir.resolve("meta.properties"))) {
                format(logDir, self.id(), clusterId);
            }
        }
        catch (Exception e) {
            throw new IllegalStateException("cannot format the Kafka log directory " + logDir, e);
        }
        KafkaRaftServer server = new KafkaRaftServer(config, Time.SYSTEM);
        try {
            server.startup();
        }
        catch (RuntimeException e) {
            server.shutdown();
            server.awaitShutdown();
            throw new IllegalStateException("Kafka did not start on port " + port + " with log directory " + logDir, e);
        }
        log.info("Kafka node {} up on {}:{} in {} ms (controller port {}, log {})", self.id(), Ports.LOOPBACK, port,
                (System.nanoTime() - started) / 1_000_000, controllerPort, logDir);
        return new EmbeddedKafka(server, logDir, port);
    }

    private static Map<String, String> configuration(KafkaCluster.Node self, List<KafkaCluster.Node> voters, Path logDir,
            Map<String, String> overrides) {
        Map<String, String> config = new HashMap<>();
        config.put("process.roles", "broker,controller");
        config.put("node.id", Integer.toString(self.id()));
        // A static quorum: the simplest KRaft setup, and the one the formatter defaults to (kraft.version 0).
        config.put("controller.quorum.voters", voters.stream().map(KafkaCluster.Node::voter)
                .collect(Collectors.joining(",")));
        config.put("controller.listener.names", CONTROLLER_LISTENER);
        config.put("listeners", "PLAINTEXT://" + Ports.LOOPBACK + ":" + self.port() + "," + CONTROLLER_LISTENER + "://"
                + Ports.LOOPBACK + ":" + self.controllerPort());
        config.put("advertised.listeners", "PLAINTEXT://" + Ports.LOOPBACK + ":" + self.port());
        config.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT," + CONTROLLER_LISTENER + ":PLAINTEXT");
        config.put("inter.broker.listener.name", "PLAINTEXT");
        config.put("log.dirs", logDir.toString());
        config.put("metadata.log.dir", logDir.toString());
        // The default 50 partitions of __consumer_offsets only slow the first group join and recovery after a crash.
        config.put("offsets.topic.num.partitions", "5");
        config.put("group.initial.rebalance.delay.ms", "0");
        // Topics are created by whoever owns them (the relay its outbox topic, with its fixed partition count): a
        // consumer or producer that merely names a missing topic must not get one with the default single partition.
        config.put("auto.create.topics.enable", "false");
        // The cleaner's key map (24 bytes a key) is allocated when the broker starts and lives as long as it: the
        // default 128 MiB would not fit the lab's heap, and 16 MiB was a sixth of its live set. The only compacted topic
        // here is __consumer_offsets, a few keys per group and partition. Kafka requires more than 1 MiB per cleaner
        // thread; 2 MiB holds about 80,000 keys.
        config.put("log.cleaner.dedupe.buffer.size", Integer.toString(2 * 1024 * 1024));
        config.putAll(overrides);
        return config;
    }

    private static void format(Path logDir, int nodeId, String clusterId) throws Exception {
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        Formatter formatter = new Formatter()
                .setPrintStream(new PrintStream(output, true, StandardCharsets.UTF_8))
                .setNodeId(nodeId)
                .setClusterId(clusterId)
                .setDirectories(List.of(logDir.toString()))
                .setMetadataLogDirectory(logDir.toString())
                .setControllerListenerName(CONTROLLER_LISTENER)
                .setReleaseVersion(MetadataVersion.latestProduction());
        formatter.run();
        log.info("Formatted Kafka log directory: {}", output.toString(StandardCharsets.UTF_8).trim());
    }

    /**
     * The address clients use, e.g. {@code 127.0.0.1:9092}.
     */
    @Override
    public String bootstrapServers() {
        return Ports.LOOPBACK + ":" + port;
    }

    public int port() {
        return port;
    }

    @Override
    public List<String> describeNodes() {
        return List.of("node 1 " + bootstrapServers() + " in this JVM, log " + logDirectory);
    }

    public Path logDirectory() {
        return logDirectory;
    }

    /**
     * Shuts the broker down cleanly, so the next start needs no log recovery.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        server.shutdown();
        server.awaitShutdown();
        log.info("Kafka on port {} stopped", port);
    }
}
