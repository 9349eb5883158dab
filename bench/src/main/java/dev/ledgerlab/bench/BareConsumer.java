package dev.ledgerlab.bench;

import dev.ledgerlab.events.EventCodec;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The replay's baseline: a plain KafkaConsumer in the benchmark's JVM that reads a whole topic from offset zero,
 * every partition assigned, no group and no commit, and either only touches each value or parses it as the projector
 * does (EventCodec, Jackson). What reading the log costs on this machine, without applying anything.
 */
final class BareConsumer {

    private BareConsumer() {
    }

    /** Records per second from the first poll to the last record of the log end as it was at the start. */
    static double rate(String bootstrap, String topic, boolean parse) {
        var props = new HashMap<String, Object>();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "500");
        try (var consumer = new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> assigned = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                    .map(info -> new TopicPartition(topic, info.partition())).toList();
            consumer.assign(assigned);
            consumer.seekToBeginning(assigned);
            var ends = consumer.endOffsets(assigned);
            long total = ends.values().stream().mapToLong(Long::longValue).sum();
            long read = 0;
            long checksum = 0;
            long start = System.nanoTime();
            while (read < total) {
                for (var record : consumer.poll(Duration.ofMillis(500))) {
                    checksum += parse ? EventCodec.fromJson(record.value()).version() : record.value().length();
                    read++;
                }
            }
            double rate = read / ((System.nanoTime() - start) / 1e9);
            System.out.printf("bare consumer %s: %,d records of %s, %,.0f records/s (checksum %d)%n",
                    parse ? "with Jackson parse" : "without parse", read, topic, rate, checksum);
            return Math.round(rate);
        }
    }
}
