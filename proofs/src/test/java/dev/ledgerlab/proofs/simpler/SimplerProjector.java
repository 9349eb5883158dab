package dev.ledgerlab.proofs.simpler;

import dev.ledgerlab.events.EventCodec;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A projector written the way that looks simpler than the lab's: a plain consumer loop that adds each event's
 * amount to a balance row, with Kafka keeping its position. It has no version check and stores no offsets of its
 * own, which is the point: its only protection is the order of its two commits. {@code --simpler.commit} says which:
 * <ul>
 *   <li>{@code offsets-first}: commit the batch's offsets to Kafka, then write and commit the database;</li>
 *   <li>{@code kafka-transaction}: Kafka's exactly-once tools: a {@code read_committed} consumer and a transactional
 *       producer; the batch's database writes are made, then one Kafka transaction holds the batch's offsets and an
 *       output record per event ({@code --simpler.applied-topic}, what downstream consumers see as "applied") and commits,
 *       then the database commits.</li>
 * </ul>
 * With {@code --simpler.halt-after-batches=N} the process halts between the two commits of its N-th batch, after a
 * {@code FAULT:} line naming the batch's offsets ({@code {partition=[first, last]}}, the lab projector's format).
 * Plain Kafka clients and JDBC rather than Spring Kafka: the order of the steps is the subject, so it stays in view.
 */
public final class SimplerProjector {

    private final Map<String, String> options;
    private final String table;
    private final int haltAfterBatches;
    private int batches;

    private SimplerProjector(Map<String, String> options) {
        this.options = options;
        this.table = "simpler." + option("simpler.table");
        this.haltAfterBatches = Integer.parseInt(options.getOrDefault("simpler.halt-after-batches", "0"));
    }

    /**
     * {@code --name=value} arguments, the same a lab projector gets ({@code spring.datasource.*},
     * {@code spring.kafka.bootstrap-servers}, {@code projector.topic}) plus {@code simpler.*}; others are ignored.
     */
    public static void main(String[] args) throws Exception {
        var options = new HashMap<String, String>();
        for (var arg : args) {
            int equals = arg.indexOf('=');
            if (arg.startsWith("--") && equals > 2) {
                options.put(arg.substring(2, equals), arg.substring(equals + 1));
            }
        }
        new SimplerProjector(options).run();
    }

    private String option(String name) {
        var value = options.get(name);
        if (value == null) {
            throw new IllegalArgumentException("--" + name + " is required");
        }
        return value;
    }

    private void run() throws Exception {
        var commit = option("simpler.commit");
        if (!List.of("offsets-first", "kafka-transaction").contains(commit)) {
            throw new IllegalArgumentException("--commit is offsets-first or kafka-transaction: " + commit);
        }
        // It creates a table of its own, so it connects as the admin user the services migrate with.
        try (var db = DriverManager.getConnection(option("spring.datasource.url"),
                option("spring.flyway.user"), option("spring.flyway.password"));
                var consumer = consumer()) {
            createTable(db);
            db.setAutoCommit(false);
            consumer.subscribe(List.of(option("projector.topic")));
            if (commit.equals("offsets-first")) {
                while (true) {
                    var records = consumer.poll(Duration.ofMillis(200));
                    if (records.isEmpty()) {
                        continue;
                    }
                    consumer.commitSync(nextOffsets(records));
                    haltIfDue(records, "after committing the batch's offsets to Kafka, before writing the database");
                    write(db, records);
                    db.commit();
                }
            }
            createTopic(option("simpler.applied-topic"));
            try (var producer = transactionalProducer()) {
                producer.initTransactions();
                while (true) {
                    var records = consumer.poll(Duration.ofMillis(200));
                    if (records.isEmpty()) {
                        continue;
                    }
                    write(db, records);
                    producer.beginTransaction();
                    for (var record : records) {
                        producer.send(new ProducerRecord<>(option("simpler.applied-topic"), record.key(),
                                record.partition() + ":" + record.offset()));
                    }
                    producer.sendOffsetsToTransaction(nextOffsets(records), consumer.groupMetadata());
                    producer.commitTransaction();
                    haltIfDue(records, "after its Kafka transaction committed (offsets and output), before the"
                            + " PostgreSQL commit");
                    db.commit();
                }
            }
        }
    }

    private KafkaConsumer<String, String> consumer() {
        return new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, option("spring.kafka.bootstrap-servers"),
                ConsumerConfig.GROUP_ID_CONFIG, option("simpler.group"),
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false,
                // The broker's minimum: a halted member leaves the group quickly for its successor.
                ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 6000,
                ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 1000),
                new StringDeserializer(), new StringDeserializer());
    }

    private KafkaProducer<String, String> transactionalProducer() {
        return new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, option("spring.kafka.bootstrap-servers"),
                // One id per projector: a successor's initTransactions fences the halted one and aborts its leftovers.
                ProducerConfig.TRANSACTIONAL_ID_CONFIG, option("simpler.group") + "-producer",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                ProducerConfig.ACKS_CONFIG, "all"),
                new StringSerializer(), new StringSerializer());
    }

    private void createTable(Connection db) throws SQLException {
        try (var statement = db.createStatement()) {
            statement.execute("CREATE SCHEMA IF NOT EXISTS simpler");
            statement.execute("CREATE TABLE IF NOT EXISTS " + table
                    + " (account_id uuid PRIMARY KEY, balance bigint NOT NULL, events bigint NOT NULL)");
        }
    }

    private void createTopic(String topic) throws InterruptedException, ExecutionException {
        try (var admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                option("spring.kafka.bootstrap-servers")))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw e;
            }
        }
    }

    /** Each event adds its amount (a withdrawal a negative one) and counts one; nothing checks what came before. */
    private void write(Connection db, ConsumerRecords<String, String> records) throws SQLException {
        try (var upsert = db.prepareStatement("INSERT INTO " + table + " AS t (account_id, balance, events)"
                + " VALUES (?, ?, 1) ON CONFLICT (account_id)"
                + " DO UPDATE SET balance = t.balance + excluded.balance, events = t.events + 1")) {
            for (var record : records) {
                var envelope = EventCodec.fromJson(record.value());
                upsert.setObject(1, envelope.accountId());
                upsert.setLong(2, envelope.event().applyTo(0));
                upsert.addBatch();
            }
            upsert.executeBatch();
        }
    }

    private static Map<TopicPartition, OffsetAndMetadata> nextOffsets(ConsumerRecords<String, String> records) {
        var offsets = new HashMap<TopicPartition, OffsetAndMetadata>();
        for (var partition : records.partitions()) {
            var inPartition = records.records(partition);
            offsets.put(partition, new OffsetAndMetadata(inPartition.get(inPartition.size() - 1).offset() + 1));
        }
        return offsets;
    }

    private void haltIfDue(ConsumerRecords<String, String> records, String where) {
        if (++batches != haltAfterBatches) {
            return;
        }
        var ranges = new TreeMap<Integer, List<Long>>();
        for (ConsumerRecord<String, String> record : records) {
            ranges.merge(record.partition(), List.of(record.offset(), record.offset()),
                    (a, b) -> List.of(Math.min(a.get(0), b.get(0)), Math.max(a.get(1), b.get(1))));
        }
        System.err.println("FAULT: simpler projector halting " + where + ", batch " + batches + " ("
                + records.count() + " records) " + ranges);
        System.err.flush();
        Runtime.getRuntime().halt(99);
    }
}
