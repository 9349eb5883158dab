package dev.ledgerlab.relay.capture;

import dev.ledgerlab.relay.status.RelayStatus;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.micrometer.core.instrument.Timer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * The at-least-once step. Every record of a batch is sent, then every send is awaited, and only then is any record
 * marked processed. A failed or interrupted send leaves the whole batch unmarked: the engine stops, its stored offset
 * still points before the batch, and the next engine run publishes it again. Duplicates are possible, loss is not.
 */
final class OutboxPublisher implements DebeziumEngine.ChangeConsumer<RecordChangeEvent<SourceRecord>> {

    private final Producer<String, String> producer;
    private final OutboxRecords records;
    private final RelayStatus status;
    private final RelayFaults faults;
    private final Timer publishLatency;

    OutboxPublisher(Producer<String, String> producer, OutboxRecords records, RelayStatus status, RelayFaults faults,
            Timer publishLatency) {
        this.producer = producer;
        this.publishLatency = publishLatency;
        this.records = records;
        this.status = status;
        this.faults = faults;
    }

    @Override
    public void handleBatch(List<RecordChangeEvent<SourceRecord>> batch,
            DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer) throws InterruptedException {
        var sends = new ArrayList<Future<RecordMetadata>>(batch.size());
        var committedAt = new ArrayList<Long>(batch.size());
        for (var change : batch) {
            records.toKafka(change.record()).ifPresent(record -> {
                sends.add(producer.send(record));
                committedAt.add(commitMicros(change.record()));
            });
        }
        // Sending without waiting lets the producer batch and compress; the wait below is what makes it safe.
        producer.flush();
        for (var send : sends) {
            try {
                send.get();
            } catch (ExecutionException e) {
                throw new PublishFailedException(sends.size(), e.getCause());
            }
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
