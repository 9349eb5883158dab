package dev.ledgerlab.projector.apply;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.stereotype.Component;

/**
 * What the live group's member in this process has received and done, for the status and the metrics: the counters
 * {@code ledger_projection_events_total{outcome}}, the records received, the partitions held, and per partition the
 * timestamp of the oldest record received and not yet applied. {@link ProjectionListener} reports to it.
 */
@Component
public class LiveGroupCounts {

    /** {@code ledger_projection_events_total{outcome}}: what became of each record the live group received. */
    public static final String EVENTS = "ledger.projection.events";

    private final Counter applied;
    private final Counter duplicates;
    private final Counter held;
    private final Counter redelivered;
    private final Counter refused;
    private final AtomicLong received = new AtomicLong();
    private final Set<Integer> assigned = ConcurrentHashMap.newKeySet();
    /** Per partition held here: the timestamp of the oldest record received and not yet applied. */
    private final Map<Integer, Long> pending = new ConcurrentHashMap<>();

    public LiveGroupCounts(MeterRegistry meters) {
        this.applied = meters.counter(EVENTS, "outcome", "applied");
        this.duplicates = meters.counter(EVENTS, "outcome", "duplicate");
        this.held = meters.counter(EVENTS, "outcome", "held");
        // Records below the stored offset: Kafka's position lagged the database's. Stays 0 while seeks work.
        this.redelivered = meters.counter(EVENTS, "outcome", "redelivered");
        // Records of batches read from positions older than a replay's clear or a rebuild's swap: not applied, read
        // again from the new positions.
        this.refused = meters.counter(EVENTS, "outcome", "refused");
    }

    void assigned(Collection<Integer> partitions) {
        assigned.addAll(partitions);
    }

    void revoked(Collection<Integer> partitions) {
        assigned.removeAll(partitions);
        pending.keySet().removeAll(partitions);
    }

    /** A polled batch: its records count as received, and each partition's oldest one as pending. */
    void received(List<ConsumerRecord<String, String>> records, Map<Integer, Long> oldestByPartition) {
        received.addAndGet(records.size());
        oldestByPartition.forEach((partition, timestamp) -> pending.merge(partition, timestamp, Math::min));
    }

    /** The batch's transaction committed; if all of it was applied, its partitions have nothing pending. */
    void committed(ProjectionWriter.Outcome outcome, Collection<Integer> partitions) {
        if (outcome.failedIndex() < 0) {
            pending.keySet().removeAll(partitions);
        }
        applied.increment(outcome.applied());
        duplicates.increment(outcome.duplicates());
        held.increment(outcome.held());
        redelivered.increment(outcome.redelivered());
    }

    /** A batch read from positions older than a reset of the projection, refused whole. */
    void refused(int records) {
        refused.increment(records);
    }

    /**
     * The Kafka timestamp (milliseconds) of the oldest record this process has received and not yet applied, if any:
     * what {@code ledger_projection_lag_seconds} is measured from. A batch that keeps failing (the database away)
     * keeps its records here until it is applied.
     */
    public OptionalLong oldestPendingTimestamp() {
        return pending.values().stream().mapToLong(Long::longValue).min();
    }

    /** Records re-read below the stored offset since this process started. */
    public long redeliveredSinceStart() {
        return (long) redelivered.count();
    }

    /** The partitions this process's consumers hold now. */
    public SortedSet<Integer> assignedPartitions() {
        return new TreeSet<>(assigned);
    }

    /** Records this process received since it started. */
    public long receivedSinceStart() {
        return received.get();
    }
}
