package dev.ledgerlab.infra;

import dev.ledgerlab.events.Replication;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Kafka cluster of several KRaft nodes, each broker and controller in one, each an operating-system process of
 * its own ({@link KafkaNodeMain}) with its own port and log directory: a node can be killed with {@code SIGKILL}, and
 * its log recovery when it comes back is Kafka's own. The nodes run with {@link Replication#brokerConfigs()} for
 * their count: three nodes keep three copies of every topic and need two of them for a write.
 *
 * <p>Under {@code baseDirectory}: {@code kafka-<id>/} (a node's log directory), {@code kafka-<id>.log} (its output,
 * appended to across restarts), {@code kafka-<id>.pid}, and {@code kafka-cluster-id}, which every node is formatted with.
 */
public final class KafkaCluster implements KafkaServers {

    private static final Logger log = LoggerFactory.getLogger(KafkaCluster.class);
    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);
    /** A node's clean stop: its controlled shutdown, its logs closed. {@link KafkaNodeMain} halts itself at 15 s. */
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(20);
    private static final String CLUSTER_ID_FILE = "kafka-cluster-id";
    /** A node is a small JVM: the lab's topics are small, and three of them share two cores with everything else. */
    private static final List<String> NODE_JVM_FLAGS = List.of("-Xms64m", "-Xmx384m", "-XX:+UseSerialGC",
            "-Dlogback.configurationFile=dev/ledgerlab/infra/kafka-node-logback.xml");
    /**
     * Extra flags for nodes that live a few minutes (tests): the C1 compiler only. C2 would spend most of a core for
     * minutes compiling the broker's code, on two cores the node shares with every other process of a test, for a
     * load that C1's code serves as well.
     */
    public static final List<String> SHORT_LIVED = List.of("-XX:TieredStopAtLevel=1");

    /**
     * One node: its id (also its broker id), where clients reach it, and where the other controllers do.
     */
    public record Node(int id, int port, int controllerPort) {

        public String address() {
            return Ports.LOOPBACK + ":" + port;
        }

        /** The node in {@code controller.quorum.voters}. */
        String voter() {
            return id + "@" + Ports.LOOPBACK + ":" + controllerPort;
        }

        String spec() {
            return id + ":" + port + ":" + controllerPort;
        }

        static List<Node> parseAll(String specs) {
            return Arrays.stream(specs.split(",")).map(spec -> {
                var parts = spec.split(":");
                return new Node(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]), Integer.parseInt(parts[2]));
            }).toList();
        }
    }

    /**
     * Broker sessions for tests, to pass as {@code settings}: the controller fences a node that stopped heartbeating
     * after 4 s instead of Kafka's 9 s, and a node killed and started again registers that much sooner (it must wait
     * for its old session to expire). Each scenario that kills a node waits for both; 4 s still leaves a node starved
     * of CPU for a moment on two busy cores four heartbeats before it is fenced.
     */
    public static final Map<String, String> SHORT_SESSIONS = Map.of("broker.session.timeout.ms", "4000",
            "broker.heartbeat.interval.ms", "1000");

    private final Path baseDirectory;
    private final List<Node> nodes;
    private final Map<Integer, NodeProcess> processes;
    private boolean closed;

    private KafkaCluster(Path baseDirectory, List<Node> nodes, Map<Integer, NodeProcess> processes) {
        this.baseDirectory = baseDirectory;
        this.nodes = nodes;
        this.processes = processes;
    }

    /**
     * Nodes 1 to {@code count}: node {@code i} listens on {@code firstPort + 10 * (i - 1)} and its controller on
     * {@code firstControllerPort + 10 * (i - 1)}, so that the lab's default ports stay readable (19092, 19102, 19112).
     */
    public static List<Node> nodes(int count, int firstPort, int firstControllerPort) {
        var nodes = new ArrayList<Node>();
        for (int i = 0; i < count; i++) {
            nodes.add(new Node(i + 1, firstPort + 10 * i, firstControllerPort + 10 * i));
        }
        return List.copyOf(nodes);
    }

    /** Nodes 1 to {@code count} on ports that are free right now, all different. */
    public static List<Node> nodesOnFreePorts(int count) {
        int[] ports = Ports.free(2 * count);
        var nodes = new ArrayList<Node>();
        for (int i = 0; i < count; i++) {
            nodes.add(new Node(i + 1, ports[2 * i], ports[2 * i + 1]));
        }
        return List.copyOf(nodes);
    }

    /**
     * Starts every node side by side (a node is ready only once a majority of the controllers run) and returns once
     * each serves clients; formats the log directories that are new. A node left running by a JVM that was killed is
     * stopped first.
     *
     * @param settings broker settings on top of the defaults and {@link Replication#brokerConfigs()}
     */
    public static KafkaCluster start(Path baseDirectory, List<Node> nodes, Map<String, String> settings) {
        return start(baseDirectory, nodes, settings, List.of());
    }

    /** As {@link #start(Path, List, Map)}, each node's JVM started with {@code jvmFlags} too ({@link #SHORT_LIVED}). */
    public static KafkaCluster start(Path baseDirectory, List<Node> nodes, Map<String, String> settings,
            List<String> jvmFlags) {
        Path base = baseDirectory.toAbsolutePath().normalize();
        long started = System.nanoTime();
        try {
            Files.createDirectories(base);
        }
        catch (IOException e) {
            throw new UncheckedIOException("cannot create " + base, e);
        }
        var clusterId = clusterId(base);
        var brokerSettings = new LinkedHashMap<>(Replication.of(nodes.size()).brokerConfigs());
        brokerSettings.putAll(settings);
        var voters = nodes.stream().map(Node::spec).collect(Collectors.joining(","));
        var processes = new LinkedHashMap<Integer, NodeProcess>();
        for (var node : nodes) {
            var args = new ArrayList<>(List.of("--node=" + node.id(), "--voters=" + voters,
                    "--log-dir=" + base.resolve("kafka-" + node.id()), "--cluster-id=" + clusterId));
            brokerSettings.forEach((name, value) -> args.add("--set=" + name + "=" + value));
            processes.put(node.id(), new NodeProcess(node, JavaCommand.of(KafkaNodeMain.class,
                    Stream.concat(NODE_JVM_FLAGS.stream(), jvmFlags.stream()).toList(), args),
                    base.resolve("kafka-" + node.id() + ".log"), base.resolve("kafka-" + node.id() + ".pid")));
        }
        var cluster = new KafkaCluster(base, List.copyOf(nodes), processes);
        try {
            processes.values().forEach(NodeProcess::stopOrphan);
            cluster.start(nodes.stream().mapToInt(Node::id).toArray());
        }
        catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
        log.info("Kafka cluster of {} nodes up in {} ms: {}", nodes.size(), (System.nanoTime() - started) / 1_000_000,
                cluster.bootstrapServers());
        return cluster;
    }

    /** The id every node is formatted with: kept beside them, made once. */
    private static String clusterId(Path base) {
        var file = base.resolve(CLUSTER_ID_FILE);
        try {
            if (Files.exists(file)) {
                return Files.readString(file, StandardCharsets.UTF_8).strip();
            }
            var id = Uuid.randomUuid().toString();
            Files.writeString(file, id + "\n", StandardCharsets.UTF_8);
            return id;
        }
        catch (IOException e) {
            throw new UncheckedIOException("cannot keep the cluster id in " + file, e);
        }
    }

    /**
     * Starts these nodes (stopped or killed before) side by side, and returns once each serves clients. A node killed
     * with {@code SIGKILL} recovers its log first, and registers once the controller has expired its old session.
     */
    public void start(int... ids) {
        for (int id : ids) {
            process(id).spawn();
        }
        for (int id : ids) {
            process(id).awaitReady(START_TIMEOUT);
        }
    }

    /** {@code SIGKILL}: no controlled shutdown, no flush; returns the exit code (137) once the process is gone. */
    public int kill(int id) {
        return process(id).kill();
    }

    /** {@code SIGTERM}: a controlled shutdown that hands leadership over first; returns the exit code. */
    public int stop(int id) {
        return process(id).stop();
    }

    public boolean isRunning(int id) {
        return process(id).isAlive();
    }

    public long pid(int id) {
        return process(id).pid();
    }

    public List<Node> nodes() {
        return nodes;
    }

    public Path baseDirectory() {
        return baseDirectory;
    }

    /** A node's output, all its runs. */
    public Path output(int id) {
        return process(id).output;
    }

    private NodeProcess process(int id) {
        var process = processes.get(id);
        if (process == null) {
            throw new IllegalArgumentException("no node " + id + " in " + nodes);
        }
        return process;
    }

    @Override
    public String bootstrapServers() {
        return nodes.stream().map(Node::address).collect(Collectors.joining(","));
    }

    @Override
    public List<String> describeNodes() {
        return nodes.stream().map(node -> {
            var process = process(node.id());
            return "node " + node.id() + " " + node.address() + " (controller " + node.controllerPort() + "), "
                    + (process.isAlive() ? "pid " + process.pid() : "not running") + ", output " + process.output;
        }).toList();
    }

    /** Stops every node side by side, each cleanly if it can be within its time, else with {@code SIGKILL}. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        processes.values().forEach(NodeProcess::terminate);
        processes.values().forEach(NodeProcess::awaitTermination);
        log.info("Kafka cluster {} stopped", bootstrapServers());
    }

    /** One node's process: its command line, kept for restarts, and its output file. */
    private static final class NodeProcess {

        private final Node node;
        private final List<String> command;
        private final Path output;
        private final Path pidFile;
        private volatile Process process;
        private volatile long outputOffset;

        NodeProcess(Node node, List<String> command, Path output, Path pidFile) {
            this.node = node;
            this.command = command;
            this.output = output;
            this.pidFile = pidFile;
        }

        synchronized void spawn() {
            if (isAlive()) {
                throw new IllegalStateException("Kafka node " + node.id() + " is running already (pid " + pid() + ")");
            }
            try {
                outputOffset = Files.exists(output) ? Files.size(output) : 0;
                // Standard input stays a pipe from this JVM: the node stops when it ends (KafkaNodeMain).
                process = new ProcessBuilder(command).redirectErrorStream(true)
                        .redirectOutput(Redirect.appendTo(output.toFile())).start();
                Files.writeString(pidFile, process.pid() + "\n", StandardCharsets.UTF_8);
            }
            catch (IOException e) {
                throw new UncheckedIOException("cannot start Kafka node " + node.id(), e);
            }
        }

        /** Polls the node's output for its ready line; fails at once if the process ends. */
        void awaitReady(Duration timeout) {
            long deadline = System.nanoTime() + timeout.toNanos();
            var ready = KafkaNodeMain.READY + node.id() + " ";
            while (true) {
                if (outputSinceSpawn().contains(ready)) {
                    log.info("Kafka node {} ready on {} (pid {})", node.id(), node.address(), pid());
                    return;
                }
                if (!process.isAlive()) {
                    throw new IllegalStateException("Kafka node " + node.id() + " exited with " + process.exitValue()
                            + " before it was ready; its output: " + output + "\n" + tail(outputSinceSpawn()));
                }
                if (System.nanoTime() > deadline) {
                    process.destroyForcibly();
                    throw new IllegalStateException("Kafka node " + node.id() + " was not ready within " + timeout
                            + "; its output: " + output + "\n" + tail(outputSinceSpawn()));
                }
                try {
                    TimeUnit.MILLISECONDS.sleep(100);
                }
                catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while waiting for Kafka node " + node.id(), e);
                }
            }
        }

        private String outputSinceSpawn() {
            try (var file = new RandomAccessFile(output.toFile(), "r")) {
                long length = file.length();
                if (length <= outputOffset) {
                    return "";
                }
                file.seek(outputOffset);
                var bytes = new byte[(int) Math.min(length - outputOffset, 8 * 1024 * 1024)];
                file.readFully(bytes);
                return new String(bytes, StandardCharsets.UTF_8);
            }
            catch (IOException e) {
                return "";
            }
        }

        private static String tail(String text) {
            var lines = text.lines().toList();
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        }

        boolean isAlive() {
            return process != null && process.isAlive();
        }

        long pid() {
            return process.pid();
        }

        int kill() {
            process.destroyForcibly();
            return waitFor(Duration.ofSeconds(30));
        }

        int stop() {
            terminate();
            return awaitTermination();
        }

        void terminate() {
            if (isAlive()) {
                process.destroy();
            }
        }

        int awaitTermination() {
            if (process == null) {
                return 0;
            }
            try {
                if (!process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                    log.warn("Kafka node {} did not stop within {}: SIGKILL", node.id(), STOP_TIMEOUT);
                    return kill();
                }
                return process.exitValue();
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return kill();
            }
        }

        private int waitFor(Duration timeout) {
            try {
                if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    throw new IllegalStateException("Kafka node " + node.id() + " (pid " + pid() + ") did not exit");
                }
                return process.exitValue();
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }

        /**
         * A node whose JVM was killed stops by itself when its standard input ends, but may still be stopping (it
         * has up to 15 s): wait for it, then make sure, so that its ports and log directory are free.
         */
        void stopOrphan() {
            if (!Files.exists(pidFile)) {
                return;
            }
            long pid;
            try {
                pid = Long.parseLong(Files.readString(pidFile, StandardCharsets.UTF_8).strip());
            }
            catch (IOException | NumberFormatException e) {
                return;
            }
            ProcessHandle.of(pid).filter(ProcessHandle::isAlive)
                    .filter(orphan -> orphan.info().commandLine().map(line -> line.contains(KafkaNodeMain.class.getName())
                            && line.contains("--node=" + node.id() + " ") && line.contains(output.getParent().toString()))
                            .orElse(false))
                    .ifPresent(orphan -> {
                        log.warn("Kafka node {} of an earlier run is still running (pid {}): stopping it", node.id(), pid);
                        orphan.destroy();
                        try {
                            orphan.onExit().get(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                        }
                        catch (Exception notYet) {
                            orphan.destroyForcibly();
                            orphan.onExit().join();
                        }
                    });
        }
    }
}
