package dev.ledgerlab.projector.apply;

import dev.ledgerlab.db.DatabaseFailures;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.kafka.listener.BatchListenerFailedException;

/**
 * The bookkeeping of one listener's failed batches: what a failure is reported as (so that the error handler retries
 * it) and how often, and how often in a row each partition's record stayed unapplicable.
 */
final class BatchRetries {

    private static final Logger log = LoggerFactory.getLogger(BatchRetries.class);

    private final String group;
    private final int gapRetries;
    private final MeterRegistry meters;
    private final AtomicLong retries = new AtomicLong();
    /** Per partition: the offset of the record that last stayed unapplicable, and how often it did in a row. */
    private final Map<TopicPartition, long[]> unapplicable = new ConcurrentHashMap<>();

    BatchRetries(String group, int gapRetries, MeterRegistry meters) {
        this.group = group;
        this.gapRetries = gapRetries;
        this.meters = meters;
    }

    /**
     * A batch failed for a reason that is not its records' (the database unreachable, a timeout, an abort, or a
     * bug): everything from {@code index} on is delivered again after the error handler's back-off, for as long as it
     * takes. Logged here once per attempt; counted by cause in {@code ledger.projection.batches.retried}.
     */
    BatchListenerFailedException retry(RuntimeException failure, int index) {
        var cause = DatabaseFailures.unavailable(failure) ? "database-unavailable"
                : DatabaseFailures.transientFailure(failure) ? "transient" : "unexpected";
        meters.counter("ledger.projection.batches.retried", "group", group, "cause", cause).increment();
        long attempt = retries.incrementAndGet();
        if (cause.equals("unexpected")) {
            log.error("group {}: batch failed (retry {}), trying it again after a back-off: {}", group, attempt,
                    failure.toString(), failure);
        } else {
            log.warn("group {}: batch failed, {} (retry {}), trying it again after a back-off: {}", group, cause,
                    attempt, failure.getMessage());
        }
        return new BatchListenerFailedException(cause + ": " + failure.getMessage(), failure, index);
    }

    long retries() {
        return retries.get();
    }

    /**
     * Counts one more time that this record stayed unapplicable; true once it did more often in a row than
     * {@code projector.gap-retries} (and the count starts over).
     */
    boolean exhausted(ConsumerRecord<?, ?> record) {
        var partition = new TopicPartition(record.topic(), record.partition());
        var attempts = unapplicable.merge(partition, new long[] {record.offset(), 1},
                (seen, first) -> seen[0] == record.offset() ? new long[] {seen[0], seen[1] + 1} : first);
        if (attempts[1] <= gapRetries) {
            return false;
        }
        unapplicable.remove(partition);
        return true;
    }
}
