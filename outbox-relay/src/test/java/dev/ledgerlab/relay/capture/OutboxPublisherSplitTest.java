package dev.ledgerlab.relay.capture;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import dev.ledgerlab.relay.kafka.OutboxProducer;
import dev.ledgerlab.relay.status.RelayStatus;
import dev.ledgerlab.relay.support.ProducerMetrics;
import dev.ledgerlab.testkit.TestInfrastructure;
import io.debezium.engine.RecordChangeEvent;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.internals.Sender;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A batch the broker refuses as too large, on the real producer and broker. Kafka's producer answers
 * {@code MESSAGE_TOO_LARGE} by splitting the batch and sending the parts again; when the topic's
 * {@code max.message.bytes} is below even the smallest part, the parts are the batch again and it splits for as long
 * as the producer lives, a round trip each time. Every split chains a new future behind the one {@code send} returned,
 * and {@code FutureRecordMetadata.get} follows that chain by recursion: after a few seconds of it, the relay's wait for
 * an acknowledgement ended in a {@link StackOverflowError} instead of the relay's own failure (AtLeastOnceTest, about
 * one run in seven). The wait must end as the relay's {@code PublishFailedException}, whatever the depth.
 */
class OutboxPublisherSplitTest {

    /** A stack much smaller than a thread's default, so a recursion as deep as the splits shows in seconds. */
    private static final long SMALL_STACK_BYTES = 256 * 1024;

    @BeforeAll
    static void quietTheSplits() {
        // The producer warns at every split, thousands of times here.
        ((Logger) LoggerFactory.getLogger(Sender.class)).setLevel(Level.ERROR);
    }

    @AfterAll
    static void restoreTheLogLevel() {
        ((Logger) LoggerFactory.getLogger(Sender.class)).setLevel(null);
    }

    @Test
    void failsABatchKafkaSplitsOverAndOverAsTheRelaysOwnFailureNotAStackOverflow() throws Exception {
        var infra = TestInfrastructure.get();
        var topic = "split-test-" + UUID.randomUUID();
        try (var admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, infra.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1)
                    .configs(Map.of(TopicConfig.MAX_MESSAGE_BYTES_CONFIG, "64"))))
                    .all().get(30, TimeUnit.SECONDS);
            var deadline = Duration.ofSeconds(4);
            // A linger, and the topic's metadata fetched first, so that the five sends make one producer batch: a
            // batch of one record the broker refuses as too large fails at once, without splitting.
            var producer = OutboxProducer.create(infra.bootstrapServers(), "split-test", Duration.ofMillis(50),
                    deadline);
            producer.partitionsFor(topic);
            var publisher = new OutboxPublisher(producer, new OutboxRecords(topic),
                    new RelayStatus("slot", topic), new RelayFaults(0),
                    Timer.builder("publish").register(new SimpleMeterRegistry()), deadline);
            var committer = new RecordingCommitter();
            var failure = new AtomicReference<Throwable>();
            try {
                var relayThread = new Thread(null, () -> {
                    try {
                        publisher.handleBatch(batch(topic, 5), committer);
                    } catch (Throwable t) {
                        failure.set(t);
                    }
                }, "split-test-publisher", SMALL_STACK_BYTES);
                relayThread.start();
                relayThread.join(TimeUnit.SECONDS.toMillis(60));
                assertThat(relayThread.isAlive()).as("the publisher still waiting past its deadline").isFalse();
                double splits = ProducerMetrics.total(producer, "batch-split-total");
                System.out.printf("Refused batch: split %.0f times while the relay waited; the wait ended with %s%n",
                        splits, failure.get());
                assertThat(splits).as("times the producer split the refused batch").isGreaterThan(500);
            } finally {
                producer.close(Duration.ZERO);
                admin.deleteTopics(List.of(topic));
            }
            assertThat(failure.get()).isInstanceOf(OutboxPublisher.PublishFailedException.class)
                    .hasMessageContaining("Kafka did not acknowledge a batch of 5 records")
                    .hasMessageContaining("no acknowledgement within PT4S");
            assertThat(committer.processed).as("records marked processed").isEmpty();
            assertThat(committer.batchesFinished).isZero();
        }
    }

    /** One account's events as the EventRouter hands them over: each far under the batch size, over 64 bytes. */
    private static List<RecordChangeEvent<SourceRecord>> batch(String topic, int size) {
        var account = UUID.randomUUID().toString();
        var batch = new ArrayList<RecordChangeEvent<SourceRecord>>();
        for (int i = 0; i < size; i++) {
            var record = new SourceRecord(Map.of("server", "ledger"), Map.of("lsn", (long) i), topic, null,
                    Schema.STRING_SCHEMA, account, Schema.STRING_SCHEMA,
                    "{\"version\":" + (i + 1) + ",\"type\":\"MoneyDeposited\",\"amount\":100}");
            batch.add(() -> record);
        }
        return batch;
    }
}
