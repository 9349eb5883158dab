package dev.ledgerlab.lab;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * {@code ./ledger-lab break poison projector}: one record on the projectors' topic that no version of the event
 * contract can decode, keyed by an account nobody opened, as GapAndPoisonTest publishes them. The projector does not
 * retry it: it goes to the dead-letter topic with its origin in headers, and the partition reads on. It was never an
 * event in the store, so the invariant check still passes.
 */
final class PoisonFault {

    static final String NAME = "poison";

    private PoisonFault() {
    }

    /** The topics the lab's projectors read and dead-letter to: theirs by default, or as the lab was told. */
    record Topics(String topic, String deadLetterTopic) {

        static Topics from(List<String> passThrough) {
            return new Topics(value(passThrough, "--projector.topic=", "accounts.events"),
                    value(passThrough, "--projector.dead-letter-topic=", "accounts.events.dlt"));
        }

        private static String value(List<String> passThrough, String prefix, String otherwise) {
            return passThrough.stream().filter(arg -> arg.startsWith(prefix)).map(arg -> arg.substring(prefix.length()))
                    .reduce((first, last) -> last).orElse(otherwise);
        }
    }

    /** Publishes the poison and says where it went and what to watch. */
    static Map<String, Object> publish(String bootstrapServers, Topics topics) {
        var key = UUID.randomUUID().toString();
        var value = "this is not an event: poison from ./ledger-lab break at " + Instant.now();
        Map<String, Object> config = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000,
                ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 29_000);
        try (var producer = new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
            var sent = producer.send(new ProducerRecord<>(topics.topic(), key, value)).get(40, TimeUnit.SECONDS);
            var answer = new LinkedHashMap<String, Object>();
            answer.put("service", LabServices.PROJECTOR);
            answer.put("fault", NAME);
            answer.put("topic", sent.topic());
            answer.put("partition", sent.partition());
            answer.put("offset", sent.offset());
            answer.put("key", key);
            answer.put("did", "published a record that is not an event to %s, partition %d, offset %d (key %s, value"
                    .formatted(sent.topic(), sent.partition(), sent.offset(), key) + " \"" + value + "\")");
            answer.put("watch", ("the projector holding partition %d cannot decode it and does not retry: it goes to"
                    + " %s with its origin in headers, and the partition reads on (ledger_projection_dead_letters_total"
                    + " on /actuator/prometheus, dead-lettered on the page); the invariant check still passes: it was"
                    + " never an event").formatted(sent.partition(), topics.deadLetterTopic()));
            return answer;
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("Kafka did not take the poison: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
