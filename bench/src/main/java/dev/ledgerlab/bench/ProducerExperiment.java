package dev.ledgerlab.bench;

import dev.ledgerlab.events.EventCodec;
import dev.ledgerlab.events.EventEnvelope;
import dev.ledgerlab.events.MoneyDeposited;
import dev.ledgerlab.infra.EmbeddedKafka;
import dev.ledgerlab.infra.EmbeddedStack;
import dev.ledgerlab.relay.kafka.OutboxProducer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The course's producer batching experiment on the relay's own producer settings ({@link OutboxProducer}: acks=all,
 * idempotent), varying only {@code linger.ms} (0, 10, 100) and {@code compression.type} (none, gzip, lz4, zstd), all
 * sending the same records (event envelopes keyed by 1,000 accounts, with the relay's headers):
 * <ul>
 *   <li>throughput: as many records as fast as the producer takes them, until every one is acknowledged;</li>
 *   <li>latency from send to acknowledgement at a steady 2,000 records/s, as the relay sends under load;</li>
 *   <li>bytes the broker keeps per record (its log size over the record count): what compression saves.</li>
 * </ul>
 */
final class ProducerExperiment {

    private static final List<Integer> LINGERS = List.of(0, 10, 100);
    private static final List<String> COMPRESSIONS = List.of("none", "gzip", "lz4", "zstd");
    private static final int STEADY_RATE = 2_000;
    private static final int PARTITIONS = 6;

    private final BenchOptions options;
    private final Report report;
    private final Path work;

    ProducerExperiment(BenchOptions options, Report report, Path work) {
        this.options = options;
        this.report = report;
        this.work = work;
    }

    void run(Path charts, String stamp) throws Exception {
        int records = options.quick() ? 50_000 : 300_000;
        var values = records(records);
        var dir = work.resolve("producer-" + UUID.randomUUID().toString().substring(0, 8));
        var throughputLines = new LinkedHashMap<String, List<double[]>>();
        var latencyLines = new LinkedHashMap<String, List<double[]>>();
        var rows = new ArrayList<String>(List.of(
                "| linger.ms | compression | records/s (range) | latency p50 / p99 at 2,000/s | bytes kept per record |",
                "| --- | --- | --- | --- | --- |"));
        try (var kafka = EmbeddedKafka.start(dir.resolve("kafka"), EmbeddedStack.freePort(), EmbeddedStack.freePort())) {
            var bootstrap = kafka.bootstrapServers();
            for (var compression : COMPRESSIONS) {
                var throughputLine = new ArrayList<double[]>();
                var latencyLine = new ArrayList<double[]>();
                for (int linger : LINGERS) {
                    var topic = "bench.producer." + compression + "." + linger;
                    createTopic(bootstrap, topic);
                    var rates = new ArrayList<Double>();
                    for (int run = 0; run < options.repetitions(); run++) {
                        rates.add(throughput(bootstrap, topic, compression, linger, values));
                    }
                    var latency = latency(bootstrap, topic, compression, linger, values,
                            options.quick() ? Duration.ofSeconds(4) : Duration.ofSeconds(10));
                    double bytesPerRecord = logBytes(bootstrap, topic) / (double) (records * options.repetitions()
                            + latency.getTotalCount() + PARTITIONS);
                    var key = "producer." + compression + ".linger" + linger;
                    report.put(key + ".records_per_s", Stats.median(rates)).put(key + ".runs", rates)
                            .put(key + ".latency_p50_ms", latency.getValueAtPercentile(50) / 1000.0)
                            .put(key + ".latency_p99_ms", latency.getValueAtPercentile(99) / 1000.0)
                            .put(key + ".bytes_per_record", bytesPerRecord);
                    rows.add("| %d | %s | %s | %.1f / %.1f ms | %.0f |".formatted(linger, compression,
                            Stats.spread(rates), latency.getValueAtPercentile(50) / 1000.0,
                            latency.getValueAtPercentile(99) / 1000.0, bytesPerRecord));
                    System.out.printf("producer linger %d ms, %s: %s records/s, p50 %.1f ms, p99 %.1f ms, %.0f B"
                            + " per record%n", linger, compression, Stats.spread(rates),
                            latency.getValueAtPercentile(50) / 1000.0, latency.getValueAtPercentile(99) / 1000.0,
                            bytesPerRecord);
                    throughputLine.add(new double[] {linger, Stats.median(rates)});
                    latencyLine.add(new double[] {linger, latency.getValueAtPercentile(50) / 1000.0});
                }
                throughputLines.put(compression, throughputLine);
                latencyLines.put(compression, latencyLine);
            }
        }
        finally {
            EmbeddedStack.deleteIfAbandoned(dir);
        }
        report.put("producer.records", records).put("producer.steady_rate_per_s", STEADY_RATE);
        report.section("The relay's producer: linger.ms and compression (%,d records of ~%d bytes, acks=all,"
                .formatted(records, values.get(0).value().length()) + " idempotent, one broker)",
                rows.toArray(String[]::new));
        Charts.points(charts.resolve("producer-throughput.png"), "Producer throughput by linger.ms and compression",
                stamp, "linger.ms", "records per second", throughputLines);
        Charts.points(charts.resolve("producer-latency.png"), "Send to acknowledgement at 2,000 records/s, p50",
                stamp, "linger.ms", "milliseconds", latencyLines);
    }

    /** Event envelopes of deposits over 1,000 accounts, with the relay's headers, as the relay publishes them. */
    private static List<ProducerRecord<String, String>> records(int count) {
        var accounts = new UUID[1000];
        var versions = new long[accounts.length];
        for (int i = 0; i < accounts.length; i++) {
            accounts[i] = UUID.randomUUID();
            versions[i] = 1;
        }
        var records = new ArrayList<ProducerRecord<String, String>>(count);
        var now = Instant.now().truncatedTo(ChronoUnit.MICROS);
        for (int i = 0; i < count; i++) {
            int a = i % accounts.length;
            var event = new MoneyDeposited(1 + (i * 7919L) % 100_000);
            var envelope = new EventEnvelope(UUID.randomUUID(), accounts[a], ++versions[a], now.plusNanos(i * 1000L),
                    event);
            var record = new ProducerRecord<String, String>("unset", accounts[a].toString(), EventCodec.toJson(envelope));
            record.headers().add("eventId", envelope.eventId().toString().getBytes(StandardCharsets.UTF_8));
            record.headers().add("eventType", event.type().getBytes(StandardCharsets.UTF_8));
            record.headers().add("version", Long.toString(envelope.version()).getBytes(StandardCharsets.UTF_8));
            records.add(record);
        }
        return records;
    }

    private static Producer<String, String> producer(String bootstrap, String compression, int linger) {
        // The relay's own settings, with another compression and linger.
        var settings = new HashMap<>(OutboxProducer.settings(bootstrap, "bench-producer", Duration.ofMillis(linger),
                Duration.ofMinutes(2)));
        settings.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, compression);
        return new KafkaProducer<>(settings, new StringSerializer(), new StringSerializer());
    }

    private static ProducerRecord<String, String> to(String topic, ProducerRecord<String, String> record) {
        return new ProducerRecord<>(topic, null, null, record.key(), record.value(), record.headers());
    }

    private static double throughput(String bootstrap, String topic, String compression, int linger,
            List<ProducerRecord<String, String>> records) throws Exception {
        try (var producer = producer(bootstrap, compression, linger)) {
            producer.partitionsFor(topic);
            var done = new CountDownLatch(records.size());
            var failure = new AtomicReference<Exception>();
            long started = System.nanoTime();
            for (var record : records) {
                producer.send(to(topic, record), (metadata, e) -> {
                    if (e != null) {
                        failure.compareAndSet(null, e);
                    }
                    done.countDown();
                });
            }
            if (!done.await(10, TimeUnit.MINUTES) || failure.get() != null) {
                throw new IllegalStateException("sends failed or did not end", failure.get());
            }
            return records.size() / ((System.nanoTime() - started) / 1e9);
        }
    }

    /** Sends at a steady rate, scheduled by the clock; each latency from the send's due time to its acknowledgement. */
    private static Histogram latency(String bootstrap, String topic, String compression, int linger,
            List<ProducerRecord<String, String>> records, Duration duration) throws Exception {
        var histogram = new ConcurrentHistogram(TimeUnit.MINUTES.toMicros(1), 3);
        try (var producer = producer(bootstrap, compression, linger)) {
            producer.partitionsFor(topic);
            int count = (int) Math.min(records.size(), duration.toSeconds() * STEADY_RATE);
            long interval = 1_000_000_000L / STEADY_RATE;
            var done = new CountDownLatch(count);
            long start = System.nanoTime();
            for (int i = 0; i < count; i++) {
                long due = start + i * interval;
                long wait;
                while ((wait = due - System.nanoTime()) > 0) {
                    LockSupport.parkNanos(wait);
                }
                producer.send(to(topic, records.get(i)), (metadata, e) -> {
                    histogram.recordValue(Math.max(0, (System.nanoTime() - due) / 1000));
                    done.countDown();
                });
            }
            done.await(2, TimeUnit.MINUTES);
        }
        return histogram;
    }

    /**
     * Creates the topic and writes one acknowledged record to each partition before anything is measured. Seen on
     * Kafka 4.1 without it: the first produce request to a just-created partition answered NOT_LEADER_OR_FOLLOWER,
     * the next batch of the same idempotent producer was appended as its first, and the retried first batch was then
     * refused as out of order until its delivery timeout.
     */
    private static void createTopic(String bootstrap, String topic) throws Exception {
        try (var admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
        try (var producer = OutboxProducer.create(bootstrap, "bench-producer-prime", Duration.ZERO,
                Duration.ofMinutes(1))) {
            for (int partition = 0; partition < PARTITIONS; partition++) {
                producer.send(new ProducerRecord<>(topic, partition, "prime", "{}")).get(60, TimeUnit.SECONDS);
            }
        }
    }

    /** What the broker keeps of a topic on disk, all partitions. */
    private static long logBytes(String bootstrap, String topic) throws Exception {
        try (var admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            long bytes = 0;
            for (var broker : admin.describeLogDirs(List.of(1)).allDescriptions().get(60, TimeUnit.SECONDS).values()) {
                for (var dir : broker.values()) {
                    for (var replica : dir.replicaInfos().entrySet()) {
                        if (replica.getKey().topic().equals(topic)) {
                            bytes += replica.getValue().size();
                        }
                    }
                }
            }
            return bytes;
        }
    }
}
