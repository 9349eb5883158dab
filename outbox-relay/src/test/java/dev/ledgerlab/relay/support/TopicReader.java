package dev.ledgerlab.relay.support;

import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.awaitility.core.ConditionTimeoutException;

/**
 * Reads a whole topic from offset zero with a plain consumer and no group, collecting everything it has seen. Create
 * it after the relay has started: the relay creates the topic, and a consumer must never create it by accident.
 */
public final class TopicReader implements AutoCloseable {

    private final KafkaConsumer<String, String> consumer;
    private final List<ConsumerRecord<String, String>> seen = new ArrayList<>();

    TopicReader(String bootstrapServers, String topic) {
        consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false"),
                new StringDeserializer(), new StringDeserializer());
        var partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                .map(p -> new TopicPartition(p.topic(), p.partition()))
                .toList();
        if (partitions.isEmpty()) {
            throw new IllegalStateException("topic " + topic + " does not exist");
        }
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
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

    @Override
    public void close() {
        consumer.close();
    }
}
