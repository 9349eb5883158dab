package dev.ledgerlab.relay.kafka;

import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringSerializer;

/** Producer settings that make an acknowledged send durable and a retried send harmless. */
public final class OutboxProducer {

    private OutboxProducer() {
    }

    /**
     * A new producer. The relay takes one per engine run: after a failed send an idempotent producer may be left in
     * a fatal state, and a fresh one is the simple way out.
     */
    public static Producer<String, String> create(String bootstrapServers, String clientId, Duration linger,
            Duration deliveryTimeout) {
        return create(bootstrapServers, clientId, linger, deliveryTimeout, "lz4");
    }

    /**
     * The same with another compression ({@code none}, {@code gzip}, {@code lz4}, {@code zstd}): for the benchmark's
     * producer experiment, which varies it and linger on exactly these settings.
     */
    public static Producer<String, String> create(String bootstrapServers, String clientId, Duration linger,
            Duration deliveryTimeout, String compression) {
        // Kafka insists on delivery.timeout.ms >= linger.ms + request.timeout.ms.
        var requestTimeout = Duration.ofSeconds(30).compareTo(deliveryTimeout.minus(linger)) < 0
                ? Duration.ofSeconds(30) : deliveryTimeout.minus(linger);
        return new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ProducerConfig.CLIENT_ID_CONFIG, clientId,
                // Acknowledged means written to every in-sync replica: only then may the offset move.
                ProducerConfig.ACKS_CONFIG, "all",
                // Broker-side de-duplication of the producer's own retries, which also keeps order per partition
                // with several requests in flight.
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true",
                ProducerConfig.COMPRESSION_TYPE_CONFIG, compression,
                ProducerConfig.LINGER_MS_CONFIG, Long.toString(linger.toMillis()),
                // A send still unacknowledged after this fails its batch: the engine restarts and publishes it again.
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Long.toString(deliveryTimeout.toMillis()),
                // How long send() itself may block, waiting for the topic's metadata while no broker answers (60 s by
                // default, for every send of a batch): no longer than a send may take to be acknowledged.
                ProducerConfig.MAX_BLOCK_MS_CONFIG, Long.toString(deliveryTimeout.toMillis()),
                ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, Long.toString(requestTimeout.toMillis())),
                new StringSerializer(), new StringSerializer());
    }
}
