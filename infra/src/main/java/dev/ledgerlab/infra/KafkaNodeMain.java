package dev.ledgerlab.infra;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One node of a {@link KafkaCluster} as a process of its own, so that it can be killed with {@code SIGKILL} and its
 * log recovery is real. Prints {@value #READY} and its node id once the broker serves clients; stops cleanly on
 * {@code SIGTERM}, and also when its standard input ends: the JVM that started it is gone (even by {@code kill -9}),
 * and no node may outlive it holding its ports and log directory.
 *
 * <p>Arguments: {@code --node=<id>}, {@code --voters=<id>:<port>:<controller port>,...} (every node of the cluster),
 * {@code --log-dir=<dir>}, {@code --cluster-id=<id>}, and any number of {@code --set=<broker setting>=<value>}.
 */
public final class KafkaNodeMain {

    static final String READY = "KAFKA NODE READY ";
    /**
     * How long a clean stop may take before the node halts anyway. A broker's controlled shutdown waits for the
     * controller quorum to answer, and when the whole cluster stops, the last node has no quorum left to answer it
     * (seen: it waited until halted). A healthy one takes about a second.
     */
    private static final long STOP_LIMIT_SECONDS = 15;

    private KafkaNodeMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        int nodeId = 0;
        var voters = new ArrayList<KafkaCluster.Node>();
        Path logDir = null;
        String clusterId = null;
        Map<String, String> settings = new LinkedHashMap<>();
        for (var arg : args) {
            var eq = arg.indexOf('=');
            var name = eq < 0 ? arg : arg.substring(0, eq);
            var value = eq < 0 ? "" : arg.substring(eq + 1);
            switch (name) {
                case "--node" -> nodeId = Integer.parseInt(value);
                case "--voters" -> voters.addAll(KafkaCluster.Node.parseAll(value));
                case "--log-dir" -> logDir = Path.of(value);
                case "--cluster-id" -> clusterId = value;
                case "--set" -> {
                    var setting = value.split("=", 2);
                    settings.put(setting[0], setting[1]);
                }
                default -> throw new IllegalArgumentException("unknown argument " + arg);
            }
        }
        int id = nodeId;
        var self = voters.stream().filter(node -> node.id() == id).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("node " + id + " is not among the voters " + voters));
        if (logDir == null || clusterId == null) {
            throw new IllegalArgumentException("--log-dir and --cluster-id are required");
        }
        var kafka = EmbeddedKafka.startNode(self, List.copyOf(voters), logDir, clusterId, settings);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(kafka), "kafka-node-shutdown"));
        watchStandardInput();
        System.out.println(READY + self.id() + " pid " + ProcessHandle.current().pid());
        System.out.flush();
        new CountDownLatch(1).await();
    }

    private static void stop(EmbeddedKafka kafka) {
        // Without a controller quorum a broker's controlled shutdown waits for an answer that cannot come.
        var limit = new Thread(() -> {
            try {
                TimeUnit.SECONDS.sleep(STOP_LIMIT_SECONDS);
                Runtime.getRuntime().halt(1);
            }
            catch (InterruptedException stopped) {
                Thread.currentThread().interrupt();
            }
        }, "kafka-node-stop-limit");
        limit.setDaemon(true);
        limit.start();
        kafka.close();
    }

    /** The parent holds the other end of standard input; when it dies the pipe ends, and so does this node. */
    private static void watchStandardInput() {
        var watcher = new Thread(() -> {
            try (InputStream in = System.in) {
                while (in.read() >= 0) {
                    // nothing is ever sent; the read only waits for the end
                }
            }
            catch (IOException ended) {
                // a broken pipe ends it just the same
            }
            System.exit(0);
        }, "kafka-node-parent-watch");
        watcher.setDaemon(true);
        watcher.start();
    }
}
