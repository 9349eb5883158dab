package dev.ledgerlab.relay.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ledgerlab.relay.status.RelayStatus;
import io.debezium.engine.RecordChangeEvent;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The publisher's own deadline. A real idempotent producer whose cluster has lost its controller quorum can leave a
 * send neither acknowledged nor failed for as long as the quorum stays lost (KafkaClusterTest shows it; which broker
 * answers decides whether it happens, so the pipeline's proofs cannot force it). Kafka's own {@link MockProducer},
 * told never to complete a send, stands for that producer here.
 */
class OutboxPublisherTest {

    private static final String TOPIC = "accounts.events";

    @Test
    @Timeout(30) // without its deadline the publisher would wait here for good
    void failsABatchKafkaNeitherAcknowledgesNorFailsWithinItsDeadlineAndMarksNothingProcessed() {
        var producer = new MockProducer<>(false, null, new StringSerializer(),
                new StringSerializer());
        var committer = new RecordingCommitter();
        var publisher = publisher(producer, Duration.ofMillis(300));
        long started = System.nanoTime();

        assertThatThrownBy(() -> publisher.handleBatch(batch(3), committer))
                .isInstanceOf(OutboxPublisher.PublishFailedException.class)
                .hasMessageContaining("Kafka did not acknowledge a batch of 3 records")
                .hasMessageContaining("no acknowledgement within PT0.3S");

        assertThat((System.nanoTime() - started) / 1_000_000).as("ms until the batch failed").isBetween(300L, 5_000L);
        assertThat(producer.history()).as("every record was sent").hasSize(3);
        assertThat(committer.processed).as("records marked processed").isEmpty();
        assertThat(committer.batchesFinished).isZero();
    }

    @Test
    void marksTheBatchProcessedOnceKafkaAcknowledgedEveryRecord() throws Exception {
        var producer = new MockProducer<>(true, null, new StringSerializer(),
                new StringSerializer());
        var committer = new RecordingCommitter();

        publisher(producer, Duration.ofSeconds(5)).handleBatch(batch(3), committer);

        assertThat(committer.processed).hasSize(3);
        assertThat(committer.batchesFinished).isOne();
    }

    private static OutboxPublisher publisher(MockProducer<String, String> producer, Duration deadline) {
        return new OutboxPublisher(producer, new OutboxRecords(TOPIC), new RelayStatus("slot", TOPIC),
                new RelayFaults(0), Timer.builder("publish").register(new SimpleMeterRegistry()), deadline);
    }

    /** Events rows as the EventRouter hands them over: routed to the topic, keyed by account, the payload as value. */
    private static List<RecordChangeEvent<SourceRecord>> batch(int size) {
        var batch = new ArrayList<RecordChangeEvent<SourceRecord>>();
        for (int i = 0; i < size; i++) {
            var record = new SourceRecord(Map.of("server", "ledger"), Map.of("lsn", (long) i), TOPIC, null,
                    Schema.STRING_SCHEMA, "account-" + i, Schema.STRING_SCHEMA, "{\"version\":" + (i + 1) + "}");
            batch.add(() -> record);
        }
        return batch;
    }
}
