package dev.ledgerlab.projector.watch;

import dev.ledgerlab.projector.ProjectorProperties;
import dev.ledgerlab.projector.operate.LogEndOffsets;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.utils.Utils;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * One event's way through the pipeline, each stage read where it left its mark: committed (its row in
 * {@code ledger.events}), published (its record in Kafka, found by reading the account's partition from the
 * record's time on: the log can be re-read at will), applied (the account's row in {@code projection.balances}).
 */
@Component
public class Journeys {

    /** How far before the event's time the search starts: the relay's clock and the command API's may differ. */
    private static final Duration CLOCK_SLACK = Duration.ofSeconds(5);
    /** A search reads at most this many records, for at most this long; the record is then reported not found. */
    private static final int SEARCH_RECORDS = 100_000;
    private static final Duration SEARCH_TIME = Duration.ofSeconds(3);
    /** Events found are remembered (a record never moves), so that a page asking again does not search again. */
    private static final int REMEMBERED = 1_000;

    /** @param position its place in the outbox's append order; {@code occurredAt} is when the command was decided */
    public record Committed(UUID eventId, String type, long position, Instant occurredAt) {
    }

    /**
     * @param partition {@code murmur2(account id) % partitions}, the partition every event of the account goes to
     * @param at the record's timestamp: when the relay's producer sent it
     * @param millisAfterCommit from the command's {@code occurredAt} (the command API's clock) to {@code at} (the
     *     relay's): across two hosts, clock skew is in it
     */
    public record Published(int partition, long offset, Instant at, long millisAfterCommit) {
    }

    /**
     * @param version the version the projection holds now; the event is applied once it is at least the event's
     * @param at when the projection last changed the account (the event's own time when {@code version} is its)
     */
    public record Applied(long version, long balance, Instant at, boolean lastApplied) {
    }

    /**
     * Stages not reached yet are null.
     *
     * @param error why Kafka could not be searched, or why the search gave up, if it did
     */
    public record Journey(UUID accountId, long version, Committed committed, Integer partition, Published published,
            Applied applied, String error) {
    }

    private final JdbcClient jdbc;
    private final LogEndOffsets logEnd;
    private final ProjectorProperties projector;
    private final KafkaProperties kafka;
    private final Map<UUID, Published> found = Collections.synchronizedMap(
            new LinkedHashMap<>(16, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<UUID, Published> eldest) {
                    return size() > REMEMBERED;
                }
            });

    public Journeys(JdbcClient jdbc, LogEndOffsets logEnd, ProjectorProperties projector, KafkaProperties kafka) {
        this.jdbc = jdbc;
        this.logEnd = logEnd;
        this.projector = projector;
        this.kafka = kafka;
    }

    /** Empty when {@code ledger.events} has no such event. */
    public Optional<Journey> of(UUID accountId, long version) {
        var committed = jdbc.sql("""
                SELECT id, type, position, occurred_at FROM ledger.events WHERE account_id = ? AND version = ?""")
                .params(accountId, version)
                .query((rs, row) -> new Committed(rs.getObject(1, UUID.class), rs.getString(2), rs.getLong(3),
                        rs.getTimestamp(4).toInstant()))
                .optional();
        if (committed.isEmpty()) {
            return Optional.empty();
        }
        var applied = jdbc.sql("SELECT version, balance, updated_at FROM projection.balances WHERE account_id = ?")
                .param(accountId)
                .query((rs, row) -> new Applied(rs.getLong(1), rs.getLong(2), rs.getTimestamp(3).toInstant(),
                        rs.getLong(1) == version))
                .optional().filter(row -> row.version() >= version).orElse(null);
        var known = found.get(committed.get().eventId());
        if (known != null) {
            return Optional.of(new Journey(accountId, version, committed.get(), known.partition(), known, applied,
                    null));
        }
        Map<Integer, Long> ends;
        try {
            ends = logEnd.current();
        } catch (ExecutionException | TimeoutException | KafkaException e) {
            return Optional.of(new Journey(accountId, version, committed.get(), null, null, applied,
                    "Kafka: " + e.getMessage()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.of(new Journey(accountId, version, committed.get(), null, null, applied, "interrupted"));
        }
        // The relay's producer partitions by key exactly so (Kafka's default partitioner for keyed records).
        int partition = Utils.toPositive(Utils.murmur2(accountId.toString().getBytes(StandardCharsets.UTF_8)))
                % ends.size();
        Search search;
        try {
            search = find(committed.get(), partition, ends.getOrDefault(partition, 0L));
        } catch (KafkaException e) {
            search = new Search(null, "Kafka: " + e.getMessage());
        }
        if (search.published() != null) {
            found.put(committed.get().eventId(), search.published());
        }
        return Optional.of(new Journey(accountId, version, committed.get(), partition, search.published(), applied,
                search.gaveUp()));
    }

    /** What a search found, or why it stopped before the log end (null: it reached the end, not published yet). */
    private record Search(Published published, String gaveUp) {
    }

    private Search find(Committed event, int partition, long end) {
        var settings = kafka.buildConsumerProperties();
        settings.remove(ConsumerConfig.GROUP_ID_CONFIG);
        settings.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        settings.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2000);
        settings.put(ConsumerConfig.CLIENT_ID_CONFIG, "projector-journey");
        var topicPartition = new TopicPartition(projector.topic(), partition);
        var eventId = event.eventId().toString().getBytes(StandardCharsets.UTF_8);
        try (var consumer = new KafkaConsumer<>(settings, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.assign(List.of(topicPartition));
            var from = consumer.offsetsForTimes(Map.of(topicPartition,
                    event.occurredAt().minus(CLOCK_SLACK).toEpochMilli()), SEARCH_TIME).get(topicPartition);
            if (from == null) {
                return new Search(null, null); // nothing in the partition is that recent: not published yet
            }
            consumer.seek(topicPartition, from.offset());
            long deadline = System.nanoTime() + SEARCH_TIME.toNanos();
            int read = 0;
            while (consumer.position(topicPartition, SEARCH_TIME) < end) {
                if (read >= SEARCH_RECORDS || System.nanoTime() > deadline) {
                    return new Search(null, "not found in the " + read + " records of partition " + partition
                            + " read from offset " + from.offset() + " (the search stops there)");
                }
                for (var record : consumer.poll(Duration.ofMillis(200))) {
                    read++;
                    var header = record.headers().lastHeader("eventId");
                    if (header != null && Arrays.equals(header.value(), eventId)) {
                        var at = Instant.ofEpochMilli(record.timestamp());
                        return new Search(new Published(partition, record.offset(), at,
                                Duration.between(event.occurredAt(), at).toMillis()), null);
                    }
                }
            }
            return new Search(null, null);
        }
    }
}
