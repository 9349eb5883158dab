package dev.ledgerlab.projector.apply;

import dev.ledgerlab.projector.ProjectorProperties;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.kafka.listener.AbstractConsumerSeekAware;
import org.springframework.kafka.listener.BatchListenerFailedException;

/**
 * A consumer group's member whose positions come from projection.offsets, not from Kafka: on every assignment each
 * partition is sought to the offset stored with the projection, or to the beginning when none is stored. Kafka's
 * own commit only spares a seek. When a reset of the projection (a replay's clear, a rebuild's swap) moves the
 * epoch, the writer refuses the batches read from the old positions, and the member seeks again: after a refused
 * batch at once, and while no records come, at the container's idle events.
 *
 * <p>When the stored offsets cannot be read (PostgreSQL away during an assignment), the partitions stay unpositioned:
 * their first batch is refused as stale and re-positions them, retried until the database answers. Each batch goes
 * through {@link #process}, which turns every failure into one the error handler retries ({@link BatchRetries}).
 */
public abstract class PositionedListener extends AbstractConsumerSeekAware {

    private static final Logger log = LoggerFactory.getLogger(PositionedListener.class);

    protected final ProjectionWriter writer;
    private final ProjectionStore store;
    private final SeekEpochs seekEpochs;
    private final ProjectionTables target;
    private final boolean seekOnAssignment;
    private final BatchRetries retries;
    private final Timer batches;

    protected PositionedListener(ProjectionWriter writer, ProjectionStore store, SeekEpochs seekEpochs, ProjectionTables target,
            ProjectorProperties properties, MeterRegistry meters) {
        this.writer = writer;
        this.store = store;
        this.seekEpochs = seekEpochs;
        this.target = target;
        this.retries = new BatchRetries(store.groupId(target), properties.gapRetries(), meters);
        this.batches = Timer.builder("ledger.projection.batch")
                .description("one polled batch applied in its transaction, or failed (then tried again)")
                .tag("target", target.name().toLowerCase(java.util.Locale.ROOT))
                .publishPercentiles(0.5, 0.99)
                .register(meters);
        // projector.positions=kafka: the live group starts where Kafka's committed offset says (the rebuild never does).
        this.seekOnAssignment = target == ProjectionTables.REBUILD
                || properties.positions() == ProjectorProperties.Positions.DATABASE;
    }

    @Override
    public void onPartitionsAssigned(Map<TopicPartition, Long> assignments, ConsumerSeekCallback callback) {
        super.onPartitionsAssigned(assignments, callback);
        ProjectionStore.Positions positions;
        try {
            positions = store.positions(target);
        } catch (RuntimeException e) {
            seekEpochs.forget(target, assignments.keySet());
            log.warn("group {} assigned {}: cannot read the stored offsets ({}); their first batch re-positions them",
                    store.groupId(target), assignments.keySet(), e.getMessage());
            return;
        }
        if (seekOnAssignment) {
            seek(assignments.keySet(), callback, positions);
            log.info("group {} assigned {}: positions from projection.offsets {} (epoch {})", store.groupId(target),
                    assignments.keySet(), positions.offsets(), positions.epoch());
        } else {
            assignments.keySet().forEach(partition -> seekEpochs.positioned(target, partition, positions.epoch()));
            log.info("group {} assigned {}: positions from Kafka's committed offsets (projector.positions=kafka;"
                    + " stored {}, epoch {})", store.groupId(target), assignments.keySet(), positions.offsets(),
                    positions.epoch());
        }
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
        super.onPartitionsRevoked(partitions);
        seekEpochs.forget(target, partitions);
    }

    /** An idle member gets no batch to be refused, so it compares epochs here, on its own consumer thread. */
    @Override
    public void onIdleContainer(Map<TopicPartition, Long> assignments, ConsumerSeekCallback callback) {
        ProjectionStore.Positions positions;
        try {
            positions = store.positions(target);
        } catch (RuntimeException e) {
            // Nothing to apply while idle; the next batch retries what needs the database.
            log.debug("group {} idle: cannot read the stored offsets: {}", store.groupId(target), e.getMessage());
            return;
        }
        if (positions.epoch() != ProjectionStore.NO_EPOCH && assignments.keySet().stream()
                .anyMatch(partition -> !Long.valueOf(positions.epoch())
                        .equals(seekEpochs.epochOf(target, partition)))) {
            seek(assignments.keySet(), callback, positions);
            log.info("group {} re-positioned {} after a reset: {} (epoch {})", store.groupId(target),
                    assignments.keySet(), positions.offsets(), positions.epoch());
        }
        idle(positions);
    }

    /** Called on the consumer thread at every idle event, after the epoch check. */
    protected void idle(ProjectionStore.Positions positions) {
    }

    /**
     * After a batch the writer refused as stale: every partition of this member seeks to the stored offsets. The
     * seeks run on this consumer thread before its next poll, so no batch is read from the old positions after.
     */
    protected void reposition(Consumer<?, ?> consumer) {
        var positions = store.positions(target);
        for (var partition : consumer.assignment()) {
            var callbacks = getSeekCallbacksFor(partition);
            if (callbacks != null && !callbacks.isEmpty()) {
                seek(List.of(partition), callbacks.get(0), positions);
            }
        }
        log.info("group {} re-positioned {} after a reset: {} (epoch {})", store.groupId(target),
                consumer.assignment(), positions.offsets(), positions.epoch());
    }

    /**
     * One polled batch: {@code write} applies it in one transaction and {@code committed} runs right after. A batch
     * read from positions older than a reset re-positions this member (when {@link #repositionWhenStale()}); an
     * unapplicable record is parked here after its retries, or handed to the error handler with its index; any other
     * failure is retried from the first record not committed.
     *
     * @return the outcome, when the batch needs nothing more
     */
    protected ProjectionWriter.Outcome process(List<ConsumerRecord<String, String>> records, Consumer<?, ?> consumer,
            Function<List<ConsumerRecord<String, String>>, ProjectionWriter.Outcome> write,
            java.util.function.Consumer<ProjectionWriter.Outcome> committed) {
        ProjectionWriter.Outcome outcome;
        var sample = Timer.start();
        try {
            outcome = write.apply(records);
        } catch (RuntimeException e) {
            // The transaction rolled back: nothing of this batch is applied, all of it comes again.
            throw retries.retry(e, 0);
        } finally {
            sample.stop(batches);
        }
        committed.accept(outcome);
        try {
            if (outcome.stale()) {
                // Read from positions taken before a replay or a swap reset the projection: nothing was applied.
                if (repositionWhenStale()) {
                    reposition(consumer);
                }
                return outcome;
            }
            if (outcome.failedIndex() >= 0 && parkedAfterRetries(outcome, records, consumer)) {
                return outcome;
            }
        } catch (RuntimeException e) {
            // Everything before the failed index is committed (everything, without one): the rest comes again.
            throw retries.retry(e, outcome.stale() || outcome.failedIndex() < 0 ? 0 : outcome.failedIndex());
        }
        if (outcome.failedIndex() >= 0) {
            // The error handler retries from the index, then recovers that record (dead-letters or parks it).
            throw new BatchListenerFailedException(outcome.failure().getMessage(), outcome.failure(),
                    outcome.failedIndex());
        }
        return outcome;
    }

    /** Whether a member that read a stale batch seeks again; false when it is about to stop anyway. */
    protected boolean repositionWhenStale() {
        return true;
    }

    /** Batches tried again since this process started, whatever the cause. */
    public long retriesSinceStart() {
        return retries.retries();
    }

    /**
     * Parks the account of a record that stayed unapplicable through its retries, right here. Spring Kafka's error
     * handler counts the retries of a batch's failed record only while nothing succeeds before it: with traffic on
     * other partitions, their new records come first in every redelivered batch, its count starts over each time,
     * and the partition would retry the same record forever. Without such traffic the handler's recoverer parks
     * first (see ErrorHandlerConfiguration); parking is idempotent either way.
     *
     * @return true when the account was parked and this member re-positioned: the caller must not throw
     */
    private boolean parkedAfterRetries(ProjectionWriter.Outcome outcome,
            List<ConsumerRecord<String, String>> records, Consumer<?, ?> consumer) {
        if (!(outcome.failure() instanceof UnapplicableEventException reason)) {
            return false;
        }
        var record = records.get(outcome.failedIndex());
        if (!retries.exhausted(record)) {
            return false;
        }
        log.warn("parking account {} in {} at partition {} offset {} after its retries: {}", reason.accountId(),
                target.schema(), record.partition(), record.offset(), reason.getMessage());
        writer.park(target, record, reason);
        reposition(consumer);
        return true;
    }

    private void seek(Collection<TopicPartition> partitions, ConsumerSeekCallback callback,
            ProjectionStore.Positions positions) {
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
