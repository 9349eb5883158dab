package dev.ledgerlab.projector.apply;

import dev.ledgerlab.projector.ProjectorProperties;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;

/** The live consumer group's member: applies each polled batch to the projection that serves reads. */
@Component
public class ProjectionListener extends PositionedListener {

    public static final String ID = "projection-listener";
    /** {@code ledger_projection_events_total{outcome}}: what became of each record the live group received. */
    public static final String EVENTS = "ledger.projection.events";

    private static final Logger log = LoggerFactory.getLogger(ProjectionListener.class);

    private final ProjectionSignals signals;
    private final Counter applied;
    private final Counter duplicates;
    private final Counter held;
    private final Counter redelivered;
    private final Counter refused;
    /** Per partition held here: the timestamp of the oldest record received and not yet applied. */
    private final Map<Integer, Long> pending = new ConcurrentHashMap<>();
    private final ProjectionFaults faults;
    private final Set<Integer> assigned = ConcurrentHashMap.newKeySet();
    private final AtomicLong received = new AtomicLong();
    private final EventSpans spans;

    public ProjectionListener(ProjectionWriter writer, ProjectionStore store, SeekEpochs seekEpochs,
            ProjectionSignals signals, ProjectorProperties properties, MeterRegistry meters, ProjectionFaults faults,
            EventSpans spans) {
        super(writer, store, seekEpochs, ProjectionTables.LIVE, properties, meters);
        this.faults = faults;
        this.spans = spans;
        this.signals = signals;
        this.applied = meters.counter(EVENTS, "outcome", "applied");
        this.duplicates = meters.counter(EVENTS, "outcome", "duplicate");
        this.held = meters.counter(EVENTS, "outcome", "held");
        // Records below the stored offset: Kafka's position lagged the database's. Stays 0 while seeks work.
        this.redelivered = meters.counter(EVENTS, "outcome", "redelivered");
        // Records of batches read from positions older than a replay's clear or a rebuild's swap: not applied, read
        // again from the new positions.
        this.refused = meters.counter(EVENTS, "outcome", "refused");
    }

    /**
     * The Kafka timestamp (milliseconds) of the oldest record this process has received and not yet applied, if any:
     * what {@code ledger_projection_lag_seconds} is measured from. A batch that keeps failing (the database away)
     * keeps its records here until it is applied.
     */
    public java.util.OptionalLong oldestPendingTimestamp() {
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

    @Override
    public void onPartitionsAssigned(Map<TopicPartition, Long> assignments, ConsumerSeekCallback callback) {
        assignments.keySet().forEach(partition -> assigned.add(partition.partition()));
        super.onPartitionsAssigned(assignments, callback);
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
        partitions.forEach(partition -> {
            assigned.remove(partition.partition());
            pending.remove(partition.partition());
        });
        super.onPartitionsRevoked(partitions);
    }

    @KafkaListener(id = ID, topics = "${projector.topic}", groupId = "${projector.group-id}",
            concurrency = "${projector.concurrency}", batch = "true")
    public void onBatch(List<ConsumerRecord<String, String>> records, Consumer<?, ?> consumer) {
        received.addAndGet(records.size());
        long started = System.currentTimeMillis();
        // Per partition of this batch its oldest timestamp, in a local map: the shared one changes once per partition.
        var oldest = new HashMap<Integer, Long>();
        records.forEach(record -> oldest.merge(record.partition(), record.timestamp(), Math::min));
        oldest.forEach((partition, timestamp) -> pending.merge(partition, timestamp, Math::min));
        faults.beforeApply(records);
        process(records, consumer, writer::apply, outcome -> {
            faults.afterDbCommit(outcome.applied(), records);
            if (outcome.stale()) {
                refused.increment(records.size());
                return;
            }
            if (outcome.failedIndex() < 0) {
                pending.keySet().removeAll(oldest.keySet());
            }
            int committed = outcome.failedIndex() < 0 ? records.size() : outcome.failedIndex();
            spans.committed(records, committed, started);
            signals.committed(() -> records.stream().limit(committed).map(ConsumerRecord::key).iterator());
            applied.increment(outcome.applied());
            duplicates.increment(outcome.duplicates());
            held.increment(outcome.held());
            redelivered.increment(outcome.redelivered());
            if (outcome.duplicates() > 0 || outcome.redelivered() > 0) {
                log.debug("batch of {}: {} applied, {} duplicates skipped, {} redelivered", records.size(),
                        outcome.applied(), outcome.duplicates(), outcome.redelivered());
            }
        });
    }
}
