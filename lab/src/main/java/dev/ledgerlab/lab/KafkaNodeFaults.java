package dev.ledgerlab.lab;

import dev.ledgerlab.events.Replication;
import dev.ledgerlab.infra.KafkaCluster;
import dev.ledgerlab.infra.KafkaServers;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * {@code ./ledger-lab break kill kafka-node 2} and {@code restart kafka-node 2}, with {@code --kafka-nodes=3}: a node's
 * process {@code SIGKILL}ed (no controlled shutdown, no flush), as KafkaClusterProofTest does under load. Like
 * PostgreSQL ({@link PostgresFaults}), a killed node stays down until {@code restart}: it then recovers its log and
 * catches up from the others. A lab of one node runs it inside its own JVM, where there is nothing to kill alone.
 */
final class KafkaNodeFaults {

    static final String TARGET = "kafka-node";
    private static final Pattern NODE = Pattern.compile(TARGET + "-(\\d+)");

    private KafkaNodeFaults() {
    }

    /** The node id in {@code kafka-node-N}, or -1 when {@code target} names no node. */
    static int node(String target) {
        var matcher = NODE.matcher(target);
        return matcher.matches() ? Integer.parseInt(matcher.group(1)) : -1;
    }

    /** Whether {@code target} is a node of this lab's cluster, one that can be killed on its own. */
    static boolean isNode(String target, KafkaServers kafka) {
        int id = node(target);
        return kafka instanceof KafkaCluster cluster && cluster.nodes().stream().anyMatch(node -> node.id() == id);
    }

    /** Does {@code fault} (kill or restart) to the node, and says what happened and what to watch. */
    static Map<String, Object> fault(ServiceProcesses.Fault fault, KafkaCluster cluster, int id) {
        var name = TARGET + "-" + id;
        var answer = new LinkedHashMap<String, Object>();
        answer.put("service", name);
        answer.put("fault", fault.name().toLowerCase(Locale.ROOT));
        long before = cluster.pid(id);
        answer.put("pid", before);
        var replication = Replication.of(cluster.nodes().size());
        long down = cluster.nodes().stream().filter(node -> !cluster.isRunning(node.id())).count();
        switch (fault) {
            case KILL -> {
                if (!cluster.isRunning(id)) {
                    answer.put("did", "nothing: %s is down already; ./ledger-lab break restart %s starts it again"
                            .formatted(name, name));
                    answer.put("watch", "the relay's and the projectors' lines in the lab's output");
                    return answer;
                }
                int code = cluster.kill(id);
                answer.put("exitCode", code);
                long left = cluster.nodes().size() - down - 1;
                answer.put("did", "SIGKILL: %s (pid %d) exited with code %d; %d of %d nodes run; it stays down until"
                        .formatted(name, before, code, left, cluster.nodes().size())
                        + " ./ledger-lab break restart " + name);
                answer.put("watch", left >= replication.minInSyncReplicas()
                        ? "a write needs %d copies and %d nodes keep them: after a few seconds (the node's session) its"
                                .formatted(replication.minInSyncReplicas(), left)
                                + " partitions have new leaders, commands are answered and projected as before"
                        : ("a write needs %d copies and only %d nodes run: the relay cannot publish, commands are still"
                                + " answered 200 and wait in the outbox, the slot lag rises; nothing is marked"
                                + " processed until a node is back").formatted(replication.minInSyncReplicas(), left));
            }
            case RESTART -> {
                if (cluster.isRunning(id)) {
                    answer.put("did", "nothing: %s (pid %d) is running; restart starts it after a kill".formatted(name,
                            before));
                    answer.put("watch", "./ledger-lab break kill " + name + " first");
                    return answer;
                }
                cluster.start(id);
                answer.put("pid", cluster.pid(id));
                answer.put("did", "%s started again (pid %d): it recovered its log and serves clients".formatted(name,
                        cluster.pid(id)));
                answer.put("watch", "it catches up from the other nodes and is a copy again (in-sync); what waited in"
                        + " the outbox is published, in each account's order, and the lag falls");
            }
            default -> throw new IllegalArgumentException("a Kafka node's faults are kill and restart, not "
                    + fault.name().toLowerCase(Locale.ROOT));
        }
        return answer;
    }
}
