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
     *
     * @param deadline how long the relay waits for an acknowledgement, and so how long {@code send} may block
     */
    public static Producer<String, String> create(String bootstrapServers, String clientId, Duration linger,
            Duration deadline) {
        return new KafkaProducer<>(settings(bootstrapServers, clientId, linger, deadline), new StringSerializer(),
                new StringSerializer());
    }

    /** The producer's settings, for a producer made elsewhere with the relay's (the benchmark's baselines). */
    public static Map<String, Object> settings(String bootstrapServers, String clientId, Duration linger,
            Duration deadline) {
        return Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ProducerConfig.CLIENT_ID_CONFIG, clientId,
                // Acknowledged means written to every in-sync replica: only then may the offset move.
                ProducerConfig.ACKS_CONFIG, "all",
                // Broker-side de-duplication of the producer's own retries.
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true",
                // Order per partition, also when a send fails: what the log holds of this producer's sends must be
                // the sends in their order, from the first, since the relay publishes again from the first one it
                // gave up on. With several requests in flight a later batch can be appended while an earlier one is
                // refused (seen after a leader moved: NOT_LEADER_OR_FOLLOWER, then the earlier one out of order),
                // and a producer that expires a batch moves to a new epoch and appends the later ones (seen in the
                // cluster proofs as a gap of 51 versions; OutboxProducerOrderTest forces it). So: one request at a
                // time per broker, and no send ever expires on its own; retries are unlimited by default. The relay's
                // deadline (OutboxPublisher) is what gives up, and it gives up on the whole rest of the batch.
                ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1",
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Integer.toString(Integer.MAX_VALUE),
                ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4",
                ProducerConfig.LINGER_MS_CONFIG, Long.toString(linger.toMillis()),
                // How long send() itself may block, waiting for the topic's metadata while no broker answers (60 s by
                // default, for every send of a batch): no longer than the relay waits for an acknowledgement.
                ProducerConfig.MAX_BLOCK_MS_CONFIG, Long.toString(deadline.toMillis()));
    }
}
