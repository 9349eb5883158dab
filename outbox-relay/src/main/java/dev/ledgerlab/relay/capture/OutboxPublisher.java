package dev.ledgerlab.relay.capture;

import dev.ledgerlab.relay.status.RelayStatus;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * The at-least-once step. Every record of a batch is sent, then every send is awaited, and only then is any record
 * marked processed. A failed, interrupted or unacknowledged send leaves the whole batch unmarked: the engine stops, its stored offset
 * still points before the batch, and the next engine run publishes it again. Duplicates are possible, loss is not.
 */
final class OutboxPublisher implements DebeziumEngine.ChangeConsumer<RecordChangeEvent<SourceRecord>> {

    private final Producer<String, String> producer;
    private final OutboxRecords records;
    private final RelayStatus status;
    private final RelayFaults faults;
    private final Timer publishLatency;
    private final Duration acknowledgementTimeout;

    OutboxPublisher(Producer<String, String> producer, OutboxRecords records, RelayStatus status, RelayFaults faults,
            Timer publishLatency, Duration acknowledgementTimeout) {
        this.producer = producer;
        this.acknowledgementTimeout = acknowledgementTimeout;
        this.publishLatency = publishLatency;
        this.records = records;
        this.status = status;
        this.faults = faults;
    }

    @Override
    public void handleBatch(List<RecordChangeEvent<SourceRecord>> batch,
            DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer) throws InterruptedException {
        var sends = new ArrayList<CompletableFuture<RecordMetadata>>(batch.size());
        var committedAt = new ArrayList<Long>(batch.size());
        for (var change : batch) {
            var record = records.toKafka(change.record());
            if (record.isEmpty()) {
                continue;
            }
            // Awaited through the callback, not the Future that send returns: that one follows the producer's chain
            // of futures by recursion, one level per time the producer split the batch, and a batch the broker
            // refuses as too large is split again on every round trip for as long as the producer lives (after a few
            // seconds the wait ended in a StackOverflowError; OutboxPublisherSplitTest). The callback is called once,
            // when the record is finally acknowledged or failed, also for a send that fails before it leaves.
            var send = new CompletableFuture<RecordMetadata>();
            producer.send(record.get(), (metadata, failure) -> {
                if (failure == null) {
                    send.complete(metadata);
                } else {
                    send.completeExceptionally(failure);
                }
            });
            // A send that failed before it left (no metadata for the topic within max.block.ms: no broker answers)
            // fails the batch now, instead of each further send of it blocking as long again.
            if (send.isDone()) {
                acknowledged(send, System.nanoTime(), batch.size());
            }
            sends.add(send);
            committedAt.add(commitMicros(change.record()));
        }
        // Sending without waiting lets the producer batch and compress; the wait below is what makes it safe. It has a
        // deadline of its own: the producer's delivery timeout does not cover every wait (an idempotent producer that
        // cannot get its producer id, the controller quorum being lost, never fails its sends at all: seen blocking
        // for 15 minutes), and the relay must fail and start again rather than hang without saying so.
        long deadline = System.nanoTime() + acknowledgementTimeout.toNanos();
        for (var send : sends) {
            acknowledged(send, deadline, sends.size());
        }
        long acknowledged = micros(Instant.now());
        for (var commit : committedAt) {
            if (commit != null) {
                publishLatency.record(Math.max(0, acknowledged - commit), TimeUnit.MICROSECONDS);
            }
        }
        faults.acknowledged(sends.size());
        for (var change : batch) {
            committer.markProcessed(change);
        }
        committer.markBatchFinished();
        status.published(sends.size());
    }

    /** Waits for Kafka's acknowledgement of one send until {@code deadline}; anything else fails the whole batch. */
    private void acknowledged(CompletableFuture<RecordMetadata> send, long deadline, int batchSize)
            throws InterruptedException {
        try {
            send.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw new PublishFailedException(batchSize, e.getCause());
        } catch (TimeoutException e) {
            throw new PublishFailedException(batchSize, new TimeoutException("no acknowledgement within "
                    + acknowledgementTimeout));
        }
    }

    /**
     * When the record's transaction committed: Debezium's PostgreSQL connector keeps the commit time of the
     * transaction in the record's source offset ({@code ts_usec}); null when a record has none.
     */
    private static Long commitMicros(SourceRecord record) {
        return record.sourceOffset() != null && record.sourceOffset().get("ts_usec") instanceof Number micros
                ? micros.longValue() : null;
    }

    private static long micros(Instant instant) {
        return instant.getEpochSecond() * 1_000_000 + instant.getNano() / 1_000;
    }

    @Override
    public boolean supportsTombstoneEvents() {
        return false;
    }

    /**
     * Deliberately not a Kafka Connect {@code RetriableException}: the engine would retry by polling the next batch,
     * and a later acknowledged batch would then move the offset past this one.
     */
    static final class PublishFailedException extends RuntimeException {
        PublishFailedException(int records, Throwable cause) {
            super("Kafka did not acknowledge a batch of " + records + " records, so none of it is marked processed: "
                    + cause, cause);
        }
    }
}
