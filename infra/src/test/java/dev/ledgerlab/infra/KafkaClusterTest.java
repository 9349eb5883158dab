package dev.ledgerlab.infra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ledgerlab.events.Replication;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Three KRaft nodes, each a process of its own: what the lab's {@code --kafka-nodes=3} and the proofs' cluster rest on.
 * The pipeline's own scenarios on it are in the proofs ({@code KafkaClusterProofTest}).
 */
class KafkaClusterTest {

    /**
     * One cluster for both scenarios, each on a topic of its own: starting three nodes is most of what a scenario
     * costs, and this class holds up every module built after infra.
     */
    private static KafkaCluster cluster;
    private static Admin admin;

    @BeforeAll
    static void start() {
        cluster = KafkaCluster.start(TestDirectories.newDirectory("cluster"), KafkaCluster.nodesOnFreePorts(3),
                KafkaCluster.SHORT_SESSIONS, KafkaCluster.SHORT_LIVED);
        admin = Admin.create(Map.of("bootstrap.servers", cluster.bootstrapServers()));
    }

    @AfterAll
    static void stop() {
        admin.close();
        cluster.close();
    }

    /** Every scenario leaves the three nodes running for the next. */
    @AfterEach
    void restartStoppedNodes() {
        var stopped = cluster.nodes().stream().mapToInt(KafkaCluster.Node::id).filter(id -> !cluster.isRunning(id))
                .toArray();
        if (stopped.length > 0) {
            cluster.start(stopped);
        }
    }

    @Test
    void keepsAcknowledgedRecordsWhenTheLeaderIsKilledAndCatchesTheNodeUpWhenItReturns() throws Exception {
        var topic = "copies_leader";
        assertThat(cluster.nodes()).extracting(KafkaCluster.Node::id).containsExactly(1, 2, 3);
        assertThat(cluster.nodes()).map(node -> cluster.pid(node.id())).doesNotHaveDuplicates()
                .doesNotContain(ProcessHandle.current().pid());
        createWithThreeCopies(topic);
        send(topic, "before", Duration.ofSeconds(30));

        int leader = describe(topic).leader().id();
        assertThat(cluster.kill(leader)).as("SIGKILL of node %d", leader).isEqualTo(137);
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> {
            var partition = describe(topic);
            return partition.leader() != null && partition.leader().id() != leader && partition.isr().size() == 2;
        });
        send(topic, "while a node is down", Duration.ofSeconds(30));

        cluster.start(leader);
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> describe(topic).isr().stream()
                .map(Node::id).toList().contains(leader));
        assertThat(KafkaRoundTrip.readValues(cluster.bootstrapServers(), topic, 2))
                .containsExactly("before", "while a node is down");
    }

    @Test
    void refusesAnAcknowledgementWhileOnlyOneOfThreeNodesRuns() throws Exception {
        var topic = "copies_minority";
        createWithThreeCopies(topic);
        assertThat(cluster.kill(2)).isEqualTo(137);
        assertThat(cluster.kill(3)).isEqualTo(137);

        assertThat(acknowledged(topic, "with one copy", Duration.ofSeconds(8))).isFalse();

        cluster.start(2);
        send(topic, "with two copies again", Duration.ofSeconds(60));
        cluster.start(3);
        // Not acknowledged is not "not written". When the node left running was the leader, and had a producer id to
        // give, it appended "with one copy" and waited for copies that never came; once a follower is back, that
        // record is committed, before the next. Kafka promises acknowledgements, not what becomes of a send that
        // timed out, and the relay counts on nothing more: it sends again, and the projector skips the copy.
        assertThat(KafkaRoundTrip.readValuesUntil(cluster.bootstrapServers(), topic,
                values -> values.contains("with two copies again")))
                .endsWith("with two copies again").isSubsetOf("with one copy", "with two copies again")
                .doesNotHaveDuplicates();
    }

    /** Created once every node is back in it (a scenario before may have just restarted one). */
    private static void createWithThreeCopies(String topic) throws Exception {
        admin.createTopics(List.of(new NewTopic(topic, 1, Replication.of(3).factor())
                .configs(Replication.of(3).topicConfigs()))).all().get(30, TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> describe(topic).isr().size() == 3);
    }

    /** The topic's only partition: its leader and in-sync replicas. */
    private static TopicPartitionInfo describe(String topic) throws Exception {
        return admin.describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS).get(topic).partitions()
                .get(0);
    }

    private static void send(String topic, String value, Duration timeout) throws Exception {
        assertThat(acknowledged(topic, value, timeout)).as("%s acknowledged within %s", value, timeout).isTrue();
    }

    /**
     * Whether an idempotent, acks=all send of {@code value} is acknowledged within {@code timeout}. Not the producer's
     * own delivery timeout alone: without a controller quorum the producer cannot even get its producer id, and its
     * send then never completes at all (seen: blocked for 15 minutes).
     */
    private static boolean acknowledged(String topic, String value, Duration timeout) throws Exception {
        Map<String, Object> config = Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers(),
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) timeout.toMillis(),
                ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) timeout.toMillis() - 100,
                ProducerConfig.LINGER_MS_CONFIG, 0);
        var producer = new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
        try {
            producer.send(new ProducerRecord<>(topic, "key", value)).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        }
        catch (java.util.concurrent.TimeoutException notAcknowledged) {
            return false;
        }
        catch (ExecutionException e) {
            assertThat(e.getCause()).as("a failure Kafka calls transient").isInstanceOf(RetriableException.class);
            return false;
        }
        finally {
            // Records still waiting are abandoned: they were never acknowledged.
            producer.close(Duration.ZERO);
        }
    }
}
