package dev.ledgerlab.relay.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ledgerlab.relay.support.ProducerMetrics;
import dev.ledgerlab.testkit.ReplicatedKafka;
import dev.ledgerlab.testkit.TopicReader;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.junit.jupiter.api.Test;

/**
 * Everything that feeds Kafka emits an account's events in version order, also when a send fails. The relay marks a
 * batch processed only once every send of it is acknowledged, and after a failure publishes again from the stored
 * offset; that keeps order only if its producer never appends a record after an earlier one of the same partition
 * that it gave up on. An idempotent producer with several requests in flight and a delivery timeout does exactly
 * that: the earlier batch expires, the producer moves to a new epoch, and the later one is appended (seen in the
 * minority proof of the cluster: an account's version 83 on the topic with 32 to 82 missing, the projector parked).
 *
 * <p>Forced on a real three-node cluster: one follower of the topic's partition is shut down, so its in-sync set has
 * two copies, and the topic asks for three ({@code min.insync.replicas}): the leader refuses every send with
 * {@code NOT_ENOUGH_REPLICAS}, which is retriable, until the setting goes back to two.
 */
class OutboxProducerOrderTest {

    /** The relay's wait for an acknowledgement in this test; the relay's own default is two minutes. */
    private static final Duration DEADLINE = Duration.ofSeconds(8);

    @Test
    void neverAppendsARecordAfterAnEarlierOneOfItsPartitionThatFailed() throws Exception {
        var cluster = ReplicatedKafka.get().cluster();
        var topic = "producer-order-" + System.nanoTime();
        var bootstrap = cluster.bootstrapServers();
        try (var admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) ReplicatedKafka.NODES)
                    .configs(Map.of(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, "3"))))
                    .all().get(30, TimeUnit.SECONDS);
            var leader = await().atMost(Duration.ofSeconds(30)).until(() -> partition(admin, topic).leader(),
                    node -> node != null && !node.isEmpty()).id();
            int follower = cluster.nodes().stream().mapToInt(n -> n.id()).filter(id -> id != leader).findFirst()
                    .orElseThrow();
            cluster.stop(follower);
            await().atMost(Duration.ofSeconds(60)).until(() -> partition(admin, topic).isr().size() == 2);

            var producer = OutboxProducer.create(bootstrap, "order-test", Duration.ZERO, DEADLINE);
            boolean firstFailed;
            try {
                var first = producer.send(new ProducerRecord<>(topic, "account", "version 1"));
                // The second send leaves seconds after the first (refused six times meanwhile), so that a producer
                // expiring its sends would give up on the first well before the second.
                await().atMost(Duration.ofSeconds(60)).until(() -> ProducerMetrics.total(producer, "record-retry-total") >= 6);
                producer.send(new ProducerRecord<>(topic, "account", "version 2"));

                // The relay's wait for the first acknowledgement; then what it does after a failed batch: Kafka
                // accepts again by now, and the producer is closed as the relay closes it, finishing what it can.
                firstFailed = !acknowledged(first);
                var minimum = new AlterConfigOp(new ConfigEntry(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, "2"),
                        AlterConfigOp.OpType.SET);
                admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, topic),
                        List.of(minimum))).all().get(30, TimeUnit.SECONDS);
            } finally {
                producer.close(Duration.ofSeconds(10));
                cluster.start(follower);
            }

            var appended = TopicReader.readAll(bootstrap, topic).stream().map(ConsumerRecord::value).toList();
            System.out.printf("first send failed: %s; appended once Kafka accepted again: %s%n", firstFailed,
                    appended);
            assertThat(firstFailed).as("Kafka refused the first send past the relay's deadline").isTrue();
            assertThat(appended).as("what the partition holds: the sends in their order from the first, or nothing")
                    .isEqualTo(List.of("version 1", "version 2").subList(0, Math.min(2, appended.size())));
        }
    }

    private static org.apache.kafka.common.TopicPartitionInfo partition(Admin admin, String topic) throws Exception {
        return admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic)
                .partitions().get(0);
    }

    /** Whether the send was acknowledged within the relay's deadline. */
    private static boolean acknowledged(Future<RecordMetadata> send) throws InterruptedException {
        try {
            send.get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (ExecutionException | TimeoutException e) {
            return false;
        }
    }
}
