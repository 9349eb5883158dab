package dev.ledgerlab.testkit;

import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.awaitility.core.ConditionTimeoutException;

/**
 * Reads a whole topic from offset zero with a plain consumer: assigned every partition, in no consumer group's
 * bookkeeping, committing nothing, never creating the topic. The one topic reader of every module's tests.
 */
public final class TopicReader implements AutoCloseable {

    private final KafkaConsumer<String, String> consumer;
    private final List<TopicPartition> partitions;
    private final List<ConsumerRecord<String, String>> seen = new ArrayList<>();

    /** @throws IllegalStateException when the topic does not exist */
    public TopicReader(String bootstrapServers, String topic) {
        this(bootstrapServers, topic, "read_uncommitted");
    }

    private TopicReader(String bootstrapServers, String topic, String isolationLevel) {
        consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolationLevel,
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                // A group id nobody uses, so that the consumer does not warn about its high watermark; never committed.
                ConsumerConfig.GROUP_ID_CONFIG, "test-reader-" + UUID.randomUUID(),
                ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false",
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000"),
                new StringDeserializer(), new StringDeserializer());
        partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                .map(p -> new TopicPartition(p.topic(), p.partition()))
                .toList();
        if (partitions.isEmpty()) {
            consumer.close();
            throw new IllegalStateException("topic " + topic + " does not exist");
        }
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
    }

    /** Everything the topic holds right now: read up to the end offsets taken at this call. */
    public static List<ConsumerRecord<String, String>> readAll(String bootstrapServers, String topic) {
        try (var reader = new TopicReader(bootstrapServers, topic)) {
            return reader.readToEnd();
        }
    }

    /**
     * What a {@code read_committed} consumer sees of the topic right now: records of committed Kafka transactions and
     * records written outside any transaction, up to the last stable offset.
     */
    public static List<ConsumerRecord<String, String>> readAllCommitted(String bootstrapServers, String topic) {
        try (var reader = new TopicReader(bootstrapServers, topic, "read_committed")) {
            return reader.readToEnd();
        }
    }

    /** The end offset of every partition: the number of records each has ever held. */
    public static Map<Integer, Long> endOffsets(String bootstrapServers, String topic) {
        try (var reader = new TopicReader(bootstrapServers, topic)) {
            return reader.ends().entrySet().stream()
                    .collect(Collectors.toMap(e -> e.getKey().partition(), Map.Entry::getValue));
        }
    }

    /** Reads up to the end offsets taken now, and returns everything read. */
    public List<ConsumerRecord<String, String>> readToEnd() {
        var ends = ends();
        await().atMost(Duration.ofSeconds(60)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(10)).until(() -> {
            consumer.poll(Duration.ofMillis(200)).forEach(seen::add);
            return partitions.stream().allMatch(tp -> consumer.position(tp) >= ends.get(tp));
        });
        seen.removeIf(r -> r.offset() >= ends.get(new TopicPartition(r.topic(), r.partition())));
        return List.copyOf(seen);
    }

    /** Polls until everything seen so far satisfies {@code done}, and returns all of it. */
    public List<ConsumerRecord<String, String>> readUntil(Predicate<List<ConsumerRecord<String, String>>> done,
            Duration atMost) {
        await().atMost(atMost).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(10)).until(() -> {
            consumer.poll(Duration.ofMillis(200)).forEach(seen::add);
            return done.test(seen);
        });
        return List.copyOf(seen);
    }

    /**
     * Like {@link #readUntil}, but returns what it has seen when time runs out, so that the caller's assertion, not a
     * timeout, says which records are missing.
     */
    public List<ConsumerRecord<String, String>> readUntilOrGiveUp(
            Predicate<List<ConsumerRecord<String, String>>> done, Duration atMost) {
        try {
            return readUntil(done, atMost);
        } catch (ConditionTimeoutException e) {
            return List.copyOf(seen);
        }
    }

    public static String header(ConsumerRecord<?, ?> record, String name) {
        var header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    public static List<ConsumerRecord<String, String>> keyed(List<ConsumerRecord<String, String>> records, Object key) {
        return records.stream().filter(r -> key.toString().equals(r.key())).toList();
    }

    private Map<TopicPartition, Long> ends() {
        return consumer.endOffsets(partitions, Duration.ofSeconds(30));
    }

    @Override
    public void close() {
        consumer.close();
    }
}
