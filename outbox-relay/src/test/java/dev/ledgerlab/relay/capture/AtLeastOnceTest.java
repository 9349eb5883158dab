package dev.ledgerlab.relay.capture;

import static dev.ledgerlab.testkit.TopicReader.header;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ledgerlab.events.MoneyDeposited;
import dev.ledgerlab.relay.status.RelayRole;
import dev.ledgerlab.relay.support.RelayIntegrationTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/** Whatever happens to the relay or to Kafka, every event reaches the topic: duplicates are allowed, loss is not. */
class AtLeastOnceTest extends RelayIntegrationTest {

    @Test
    void republishesAfterARestartMidStreamWithoutLosingAnEvent() throws Exception {
        // The first relay's snapshot publishes every event already in the table (other tests' too); beyond that
        // count, what it publishes comes from the stream.
        long snapshotted = jdbc.sql("SELECT count(*) FROM ledger.events").query(Long.class).single();
        var first = startRelay();
        awaitRole(first, RelayRole.ACTIVE);
        var writer = new Writer(10);
        var writing = new Thread(writer, "test-event-writer");
        writing.start();
        try {
            await().atMost(Duration.ofSeconds(60)).until(() -> status(first).recordsPublished() >= snapshotted + 300);
            long writtenAtStop = writer.written();
            var firstStatus = status(first);
            first.close();
            long publishedByFirst = firstStatus.recordsPublished();

            var second = startRelay();
            await().atMost(Duration.ofSeconds(60)).until(() -> status(second).recordsPublished() >= 300);
            assertThat(writer.written()).as("events kept coming across the restart").isGreaterThan(writtenAtStop + 100);
            writer.stop();
            writing.join(TimeUnit.SECONDS.toMillis(30));
            var ids = writer.eventIds();

            List<ConsumerRecord<String, String>> published;
            try (var reader = readTopic()) {
                published = reader.readUntilOrGiveUp(all -> seen(all, writer.accounts()).containsAll(ids),
                        Duration.ofSeconds(60));
            }
            var ours = published.stream().filter(r -> writer.accounts().contains(r.key())).toList();
            var perEvent = ours.stream().collect(Collectors.groupingBy(r -> header(r, "eventId"), Collectors.counting()));
            long duplicates = ours.size() - perEvent.size();
            System.out.printf("Restart mid-stream: %d events written, %d records on the topic, %d duplicates "
                    + "(first relay published %d, second %d)%n", ids.size(), ours.size(), duplicates,
                    publishedByFirst, status(second).recordsPublished());
            assertThat(perEvent.keySet()).containsExactlyInAnyOrderElementsOf(ids);
        } finally {
            writer.stop();
        }
    }

    @Test
    void republishesABatchKafkaDidNotAcknowledgeOnceKafkaAcceptsAgain() throws Exception {
        // A short delivery timeout, so an unacknowledged batch fails in seconds rather than the default two minutes.
        // While Kafka refuses, the producer splits and retries the batch in a tight loop, warning each time.
        var relay = startRelay(Map.of("relay.delivery-timeout", "3s",
                "logging.level.org.apache.kafka.clients.producer.internals.Sender", "ERROR"));
        awaitRole(relay, RelayRole.ACTIVE);
        var account = insertOpenedAccount("alice").accountId();
        try (var reader = readTopic()) {
            reader.readUntil(all -> keyedCount(all, account) == 1, Duration.ofSeconds(60));
        }
        long restartsBefore = status(relay).snapshot().engineRestarts();

        // Every batch of the relay is larger than this: the broker refuses each one.
        setTopicConfig(TopicConfig.MAX_MESSAGE_BYTES_CONFIG, "64");
        awaitKafkaRefuses();
        var refused = new ArrayList<String>();
        for (long version = 2; version <= 6; version++) {
            refused.add(append(account, version, new MoneyDeposited(version * 100)).eventId().toString());
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> status(relay).snapshot().engineRestarts() > restartsBefore);
        assertThat(status(relay).snapshot().lastEngineError()).contains("Kafka did not acknowledge");

        setTopicConfig(TopicConfig.MAX_MESSAGE_BYTES_CONFIG, null);
        List<ConsumerRecord<String, String>> published;
        try (var reader = readTopic()) {
            published = reader.readUntilOrGiveUp(all -> seen(all, Set.of(account.toString())).containsAll(refused),
                    Duration.ofSeconds(60));
        }
        assertThat(seen(published, Set.of(account.toString()))).as("events of the refused batch on the topic")
                .containsAll(refused);
        assertThat(published.stream().filter(r -> account.toString().equals(r.key())).map(r -> header(r, "version")))
                .as("every refused event, in order, after the accepted one")
                .containsSubsequence("1", "2", "3", "4", "5", "6");
        assertThat(status(relay).role()).isEqualTo(RelayRole.ACTIVE);
    }

    private void setTopicConfig(String name, String value) throws Exception {
        var resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        var op = value == null
                ? new AlterConfigOp(new ConfigEntry(name, ""), AlterConfigOp.OpType.DELETE)
                : new AlterConfigOp(new ConfigEntry(name, value), AlterConfigOp.OpType.SET);
        try (var admin = admin()) {
            admin.incrementalAlterConfigs(Map.of(resource, List.of(op))).all().get(30, TimeUnit.SECONDS);
        }
    }

    /** The setting reaches the partition leader asynchronously; probe until a send is refused. */
    private void awaitKafkaRefuses() {
        try (var probe = new KafkaProducer<>(Map.<String, Object>of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.bootstrapServers(),
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "1500",
                ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "1000",
                ProducerConfig.LINGER_MS_CONFIG, "0"), new StringSerializer(), new StringSerializer())) {
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                try {
                    probe.send(new ProducerRecord<>(topic, "probe", "x".repeat(200))).get(10, TimeUnit.SECONDS);
                    return false;
                } catch (ExecutionException refused) {
                    return true;
                }
            });
        }
    }

    private static long keyedCount(List<ConsumerRecord<String, String>> records, UUID account) {
        return records.stream().filter(r -> account.toString().equals(r.key())).count();
    }

    private static Set<String> seen(List<ConsumerRecord<String, String>> records, Set<String> accounts) {
        return records.stream().filter(r -> accounts.contains(r.key())).map(r -> header(r, "eventId"))
                .collect(Collectors.toSet());
    }

    /** Appends events round-robin over its own accounts, one transaction each, until stopped. */
    private static final class Writer implements Runnable {

        private final List<UUID> accounts = new ArrayList<>();
        private final Map<UUID, Long> versions = new HashMap<>();
        private final Set<String> eventIds = ConcurrentHashMap.newKeySet();
        private final AtomicBoolean running = new AtomicBoolean(true);

        Writer(int accountCount) {
            for (int i = 0; i < accountCount; i++) {
                var account = insertOpenedAccount("writer-" + i);
                accounts.add(account.accountId());
                versions.put(account.accountId(), 1L);
                eventIds.add(account.eventId().toString());
            }
        }

        @Override
        public void run() {
            int next = 0;
            while (running.get()) {
                var account = accounts.get(next++ % accounts.size());
                long version = versions.merge(account, 1L, Long::sum);
                eventIds.add(append(account, version, new MoneyDeposited(version)).eventId().toString());
            }
        }

        void stop() {
            running.set(false);
        }

        long written() {
            return eventIds.size();
        }

        Set<String> eventIds() {
            return Set.copyOf(eventIds);
        }

        Set<String> accounts() {
            return accounts.stream().map(UUID::toString).collect(Collectors.toSet());
        }
    }
}
