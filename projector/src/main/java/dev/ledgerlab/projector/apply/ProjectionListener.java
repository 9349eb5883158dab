package dev.ledgerlab.projector.apply;

import dev.ledgerlab.projector.ProjectorProperties;
import java.util.List;
import java.util.Map;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.listener.BatchListenerFailedException;
import org.springframework.kafka.listener.ConsumerSeekAware;
import org.springframework.stereotype.Component;

/**
 * The consumer group's member. Positions come from projection.offsets, not from Kafka: on every assignment each
 * partition is sought to the offset stored with the balances, or to the beginning when none is stored. Kafka's
 * own commit (after the batch) only spares a seek.
 */
@Component
public class ProjectionListener implements ConsumerSeekAware {

    private static final Logger log = LoggerFactory.getLogger(ProjectionListener.class);

    private final ProjectionWriter writer;
    private final ProjectionSignals signals;
    private final ProjectorProperties properties;
    private final Counter applied;
    private final Counter duplicates;
    private final Counter held;
    private final Counter redelivered;

    private final ProjectionFaults faults;
    private final java.util.Set<Integer> assigned = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final java.util.concurrent.atomic.AtomicLong received = new java.util.concurrent.atomic.AtomicLong();

    public ProjectionListener(ProjectionWriter writer, ProjectionSignals signals, ProjectorProperties properties,
            MeterRegistry meters, ProjectionFaults faults) {
        this.faults = faults;
        this.writer = writer;
        this.signals = signals;
        this.properties = properties;
        this.applied = meters.counter("projection.events", "outcome", "applied");
        this.duplicates = meters.counter("projection.events", "outcome", "duplicate");
        this.held = meters.counter("projection.events", "outcome", "held");
        // Records below the stored offset: Kafka's position lagged the database's. Stays 0 while seeks work.
        this.redelivered = meters.counter("projection.events", "outcome", "redelivered");
    }

    /** Records re-read below the stored offset since this process started. */
    public long redeliveredSinceStart() {
        return (long) redelivered.count();
    }

    @KafkaListener(id = "projection-listener", topics = "${projector.topic}", groupId = "${projector.group-id}",
            concurrency = "${projector.concurrency}", batch = "true")
    public void onBatch(List<ConsumerRecord<String, String>> records) {
        received.addAndGet(records.size());
        var outcome = writer.apply(records);
        faults.afterDbCommit(outcome.applied());
        signals.changed();
        applied.increment(outcome.applied());
        duplicates.increment(outcome.duplicates());
        held.increment(outcome.held());
        redelivered.increment(outcome.redelivered());
        if (outcome.duplicates() > 0 || outcome.redelivered() > 0) {
            log.debug("batch of {}: {} applied, {} duplicates skipped, {} redelivered", records.size(),
                    outcome.applied(), outcome.duplicates(), outcome.redelivered());
        }
        if (outcome.failedIndex() >= 0) {
            // Everything before the index is committed; the error handler retries from it, then recovers it.
            throw new BatchListenerFailedException(outcome.failure().getMessage(), outcome.failure(),
                    outcome.failedIndex());
        }
    }

    /** The partitions this process's consumers hold now. */
    public java.util.SortedSet<Integer> assignedPartitions() {
        return new java.util.TreeSet<>(assigned);
    }

    /** Records this process received from Kafka since it started. */
    public long receivedSinceStart() {
        return received.get();
    }

    @Override
    public void onPartitionsRevoked(java.util.Collection<TopicPartition> partitions) {
        partitions.forEach(p -> assigned.remove(p.partition()));
    }

    @Override
    public void onPartitionsAssigned(Map<TopicPartition, Long> assignments, ConsumerSeekCallback callback) {
        assignments.keySet().forEach(p -> assigned.add(p.partition()));
        var stored = writer.storedOffsets();
        for (var partition : assignments.keySet()) {
            var offset = stored.get(partition.partition());
            if (offset != null) {
                callback.seek(partition.topic(), partition.partition(), offset);
            } else {
                callback.seekToBeginning(List.of(partition));
            }
        }
        log.info("group {} assigned {}: positions from projection.offsets {}", properties.groupId(),
                assignments.keySet(), stored);
    }
}
