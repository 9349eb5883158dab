package dev.ledgerlab.projector.apply;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.kafka.listener.AbstractConsumerSeekAware;

/**
 * A consumer group's member whose positions come from projection.offsets, not from Kafka: on every assignment each
 * partition is sought to the offset stored with the projection, or to the beginning when none is stored. Kafka's
 * own commit only spares a seek. When a reset of the projection (a replay's clear, a rebuild's swap) moves the
 * epoch, the writer refuses the batches read from the old positions, and the member seeks again: after a refused
 * batch at once, and while no records come, at the container's idle events.
 */
public abstract class PositionedListener extends AbstractConsumerSeekAware {

    private static final Logger log = LoggerFactory.getLogger(PositionedListener.class);

    protected final ProjectionWriter writer;
    private final SeekEpochs seekEpochs;
    private final Target target;
    private final int gapRetries;
    /** Per partition: the offset of the record that last stayed unapplicable, and how often it did in a row. */
    private final Map<TopicPartition, long[]> unapplicable = new ConcurrentHashMap<>();

    protected PositionedListener(ProjectionWriter writer, SeekEpochs seekEpochs, Target target, int gapRetries) {
        this.writer = writer;
        this.seekEpochs = seekEpochs;
        this.target = target;
        this.gapRetries = gapRetries;
    }

    @Override
    public void onPartitionsAssigned(Map<TopicPartition, Long> assignments, ConsumerSeekCallback callback) {
        super.onPartitionsAssigned(assignments, callback);
        var positions = writer.positions(target);
        seek(assignments.keySet(), callback, positions);
        log.info("group {} assigned {}: positions from projection.offsets {} (epoch {})", writer.groupId(target),
                assignments.keySet(), positions.offsets(), positions.epoch());
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
        super.onPartitionsRevoked(partitions);
        seekEpochs.forget(target, partitions);
    }

    /** An idle member gets no batch to be refused, so it compares epochs here, on its own consumer thread. */
    @Override
    public void onIdleContainer(Map<TopicPartition, Long> assignments, ConsumerSeekCallback callback) {
        var positions = writer.positions(target);
        if (positions.epoch() != ProjectionWriter.NO_EPOCH && assignments.keySet().stream()
                .anyMatch(partition -> !Long.valueOf(positions.epoch())
                        .equals(seekEpochs.epochOf(target, partition)))) {
            seek(assignments.keySet(), callback, positions);
            log.info("group {} re-positioned {} after a reset: {} (epoch {})", writer.groupId(target),
                    assignments.keySet(), positions.offsets(), positions.epoch());
        }
        idle(positions);
    }

    /** Called on the consumer thread at every idle event, after the epoch check. */
    protected void idle(ProjectionWriter.Positions positions) {
    }

    /**
     * After a batch the writer refused as stale: every partition of this member seeks to the stored offsets. The
     * seeks run on this consumer thread before its next poll, so no batch is read from the old positions after.
     */
    protected void reposition(Consumer<?, ?> consumer) {
        var positions = writer.positions(target);
        for (var partition : consumer.assignment()) {
            var callbacks = getSeekCallbacksFor(partition);
            if (callbacks != null && !callbacks.isEmpty()) {
                seek(List.of(partition), callbacks.get(0), positions);
            }
        }
        log.info("group {} re-positioned {} after a reset: {} (epoch {})", writer.groupId(target),
                consumer.assignment(), positions.offsets(), positions.epoch());
    }

    /**
     * Parks the account of a record that stayed unapplicable through its retries, right here. Spring Kafka's error
     * handler counts the retries of a batch's failed record only while nothing succeeds before it: with traffic on
     * other partitions, their new records come first in every redelivered batch, its count starts over each time,
     * and the partition would retry the same record forever. Without such traffic the handler's recoverer parks
     * first (see ErrorHandling); parking is idempotent either way.
     *
     * @return true when the account was parked and this member re-positioned: the caller must not throw
     */
    protected boolean parkedAfterRetries(ProjectionWriter.Outcome outcome,
            List<ConsumerRecord<String, String>> records, Consumer<?, ?> consumer) {
        if (!(outcome.failure() instanceof Unapplicable reason)) {
            return false;
        }
        var record = records.get(outcome.failedIndex());
        var partition = new TopicPartition(record.topic(), record.partition());
        var attempts = unapplicable.merge(partition, new long[] {record.offset(), 1},
                (seen, first) -> seen[0] == record.offset() ? new long[] {seen[0], seen[1] + 1} : first);
        if (attempts[1] <= gapRetries) {
            return false;
        }
        unapplicable.remove(partition);
        log.warn("parking account {} in {} at partition {} offset {} after {} attempts: {}", reason.accountId(),
                target.schema(), record.partition(), record.offset(), attempts[1], reason.getMessage());
        writer.park(target, record, reason);
        reposition(consumer);
        return true;
    }

    private void seek(Collection<TopicPartition> partitions, ConsumerSeekCallback callback,
            ProjectionWriter.Positions positions) {
        for (var partition : partitions) {
            var offset = positions.offsets().get(partition.partition());
            if (offset != null) {
                callback.seek(partition.topic(), partition.partition(), offset);
            } else {
                callback.seekToBeginning(partition.topic(), partition.partition());
            }
            seekEpochs.positioned(target, partition, positions.epoch());
        }
    }
}
