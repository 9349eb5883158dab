package dev.ledgerlab.testkit;

import dev.ledgerlab.events.Replication;
import dev.ledgerlab.infra.KafkaCluster;
import java.util.List;

/**
 * A real Kafka cluster of three KRaft nodes, each a process of its own ({@link KafkaCluster}), for the proofs about
 * broker failures: a node can be killed with {@code SIGKILL} and started again. Always embedded (its nodes are
 * processes of this machine), beside the PostgreSQL {@link TestInfrastructure} chose; only the tests that ask for it
 * start it, once per test JVM, and it stops when the JVM exits.
 *
 * @param cluster        its nodes
 * @param infrastructure PostgreSQL as {@link TestInfrastructure} chose it, and this cluster's nodes as bootstrap
 *                       servers
 */
public record ReplicatedKafka(KafkaCluster cluster, Infrastructure infrastructure) {

    public static final int NODES = 3;

    private static ReplicatedKafka instance;

    /** Started on first use, once per test JVM, stopped when the JVM exits. */
    public static synchronized ReplicatedKafka get() {
        if (instance == null) {
            var postgres = TestInfrastructure.get();
            long started = System.nanoTime();
            var cluster = KafkaCluster.start(EmbeddedInfrastructure.newRunDirectory("kafka-cluster"),
                    KafkaCluster.nodesOnFreePorts(NODES), KafkaCluster.SHORT_SESSIONS, KafkaCluster.SHORT_LIVED);
            Runtime.getRuntime().addShutdownHook(new Thread(cluster::close, "kafka-cluster-shutdown"));
            instance = new ReplicatedKafka(cluster, new Infrastructure(postgres.jdbcUrl(), postgres.username(),
                    postgres.password(), cluster.bootstrapServers()));
            System.out.printf("Ledger Lab Kafka cluster of %d node processes, up in %d ms: %s%n", NODES,
                    (System.nanoTime() - started) / 1_000_000, String.join("; ", cluster.describeNodes()));
        }
        return instance;
    }

    /** What a pipeline's services are told so that the topics they create have a copy on every node. */
    public List<String> serviceArguments() {
        return List.of("--relay.replication-factor=" + NODES, "--projector.dead-letter-replication-factor=" + NODES);
    }

    /** The replication the topics get, for checks. */
    public Replication replication() {
        return Replication.of(NODES);
    }
}
