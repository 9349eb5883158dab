package dev.ledgerlab.proofs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ledgerlab.events.EventCodec;
import dev.ledgerlab.proofs.simpler.SimplerProjector;
import dev.ledgerlab.proofs.support.Faults;
import dev.ledgerlab.proofs.support.GroupOffsets;
import dev.ledgerlab.proofs.support.IndependentChecker;
import dev.ledgerlab.proofs.support.Load;
import dev.ledgerlab.proofs.support.Pipeline;
import dev.ledgerlab.proofs.support.ServiceProcess;
import dev.ledgerlab.testkit.CommandApiClient;
import dev.ledgerlab.testkit.ProjectorClient;
import dev.ledgerlab.testkit.TestInfrastructure;
import dev.ledgerlab.testkit.TopicReader;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Why not simpler, 3 and 4: a projector that lets Kafka keep its position, with the two commits (Kafka's and
 * PostgreSQL's) in the order that looks safe. {@link SimplerProjector} consumes the same topic as the lab's
 * projector, under the same load, each in a group of its own; both halt between their two commits of the same
 * numbered batch, both are restarted, and the tests compare what each holds against the write side.
 * <ul>
 *   <li>Kafka offsets committed, then the database write: the halted batch is never applied (at most once).</li>
 *   <li>Kafka's exactly-once (a transactional producer committing the offsets with its output, read_committed
 *       consumers), then the PostgreSQL commit: Kafka records the batch as processed, PostgreSQL never got it. A
 *       Kafka transaction covers Kafka only.</li>
 * </ul>
 * The lab's projector, halted at the same points, ends exact: its positions are committed in its own database
 * transaction with the balances, and its version check skips whatever it is given again.
 */
class CommitOrderProofTest {

    private static Pipeline pipeline;
    private static ServiceProcess api;

    @BeforeAll
    static void start() {
        pipeline = Pipeline.isolated(TestInfrastructure.get(), "proof_commit_order");
        api = pipeline.together(pipeline::commandApi, pipeline::relay).get(0);
    }

    @AfterAll
    static void stop() {
        pipeline.close();
    }

    @Test
    void neverAppliesTheBatchWhoseKafkaOffsetsWereCommittedBeforeTheProjectorDiedWritingIt() throws Exception {
        long seed = System.nanoTime();
        int batch = 3 + new Random(seed).nextInt(5);
        var accounts = CommandApiClient.at(api.port()).openAccounts(6);
        try (var load = new Load(api, accounts, seed)) {
            var simpler = simplerProjector("offsets-first", batch);
            var lab = pipeline.projectorStoppingAt("before-db-commit", batch);
            var lostBatch = Faults.batchRanges(Faults.awaitHalt(simpler, Duration.ofSeconds(120)));
            var labBatch = Faults.batchRanges(Faults.awaitHalt(lab, Duration.ofSeconds(120)));
            assertCommittedInKafkaPast(lostBatch, "offsets-first");
            var lost = records(lostBatch);

            try (var simplerAgain = simplerProjector("offsets-first", 0); var labAgain = pipeline.projector()) {
                load.awaitMore(200, Duration.ofSeconds(60));
                load.close();
                var verdict = assertTheLabsProjectorExact(labAgain, accounts, load, labBatch);
                var shortBy = awaitShortOfTheWriteSideBy(lost, "offsets-first");
                System.out.printf("why-not-simpler 3 offsets before the write, seed=%d: halted in batch %d %s:"
                        + " LOST %s for good, Kafka's offsets already past them; the lab's projector"
                        + " halted before its commit of batch %d %s applied it once after restart; %s; %s%n", seed,
                        batch, lostBatch.keySet(), shortBy, batch, labBatch.keySet(), load.counts(), verdict);
            }
        }
    }

    @Test
    void leavesKafkaAndPostgresDisagreeingWhenTheProcessDiesBetweenItsKafkaTransactionAndItsDatabaseCommit()
            throws Exception {
        long seed = System.nanoTime();
        int batch = 3 + new Random(seed).nextInt(5);
        var accounts = CommandApiClient.at(api.port()).openAccounts(6);
        try (var load = new Load(api, accounts, seed)) {
            var simpler = simplerProjector("kafka-transaction", batch);
            var lab = pipeline.projectorStoppingAt("after-db-commit", batch);
            var lostBatch = Faults.batchRanges(Faults.awaitHalt(simpler, Duration.ofSeconds(120)));
            var labBatch = Faults.batchRanges(Faults.awaitHalt(lab, Duration.ofSeconds(120)));
            // What Kafka says: the batch is consumed, and downstream (read_committed) sees it processed.
            assertCommittedInKafkaPast(lostBatch, "kafka-transaction");
            var lost = records(lostBatch);
            var outputs = TopicReader.readAllCommitted(pipeline.infrastructure().bootstrapServers(), appliedTopic())
                    .stream().map(ConsumerRecord::value).collect(Collectors.toSet());
            assertThat(outputs).as("the transaction's output, as a read_committed consumer sees it")
                    .containsAll(lost.stream().map(r -> r.partition() + ":" + r.offset()).toList());

            try (var simplerAgain = simplerProjector("kafka-transaction", 0); var labAgain = pipeline.projector()) {
                load.awaitMore(200, Duration.ofSeconds(60));
                load.close();
                var verdict = assertTheLabsProjectorExact(labAgain, accounts, load, labBatch);
                assertThat(ProjectorClient.at(labAgain.port()).status().get("redeliveredSinceStart").asLong())
                        .as("records the lab's projector was given again below its stored offsets").isZero();
                // What PostgreSQL says: none of it happened.
                var shortBy = awaitShortOfTheWriteSideBy(lost, "kafka-transaction");
                System.out.printf("why-not-simpler 4 Kafka transaction, then PostgreSQL, seed=%d: halted in batch %d"
                        + " %s: Kafka committed the offsets past %d events and their %d outputs (read_committed),"
                        + " PostgreSQL never applied them: LOST %s; the lab's projector halted between its database"
                        + " commit and Kafka's in batch %d %s: nothing redelivered, nothing lost; %s; %s%n", seed,
                        batch, lostBatch.keySet(), lost.size(), lost.size(), shortBy, batch, labBatch.keySet(),
                        load.counts(), verdict);
            }
        }
    }

    private static ServiceProcess simplerProjector(String commit, int haltAfterBatches) {
        return pipeline.variant("simpler-" + commit, SimplerProjector.class, false, "--simpler.commit=" + commit,
                "--simpler.group=" + group(commit), "--simpler.table=" + commit.replace('-', '_'),
                "--simpler.applied-topic=" + appliedTopic(), "--simpler.halt-after-batches=" + haltAfterBatches);
    }

    private static String group(String commit) {
        return pipeline.group() + "-simpler-" + commit;
    }

    private static String appliedTopic() {
        return pipeline.name() + ".simpler-applied";
    }

    private static void assertCommittedInKafkaPast(Map<Integer, long[]> batch, String commit) throws Exception {
        var committed = GroupOffsets.committedInKafka(pipeline, group(commit));
        batch.forEach((partition, range) -> assertThat(committed.get(partition))
                .as("partition %d: Kafka holds the halted batch as consumed", partition).isGreaterThan(range[1]));
    }

    /** The records of the topic in these {partition: [first, last]} ranges. */
    private static List<ConsumerRecord<String, String>> records(Map<Integer, long[]> ranges) {
        var records = TopicReader.readAll(pipeline.infrastructure().bootstrapServers(), pipeline.topic()).stream()
                .filter(r -> ranges.containsKey(r.partition()) && r.offset() >= ranges.get(r.partition())[0]
                        && r.offset() <= ranges.get(r.partition())[1])
                .toList();
        assertThat(records).as("records of the halted batch").isNotEmpty();
        return records;
    }

    /**
     * Waits until the simpler projector has consumed the whole topic, and its table differs from ledger.accounts by
     * exactly the {@code lost} events: per account, that many events missing and their amounts. Returns what is
     * missing, in words.
     */
    private static String awaitShortOfTheWriteSideBy(List<ConsumerRecord<String, String>> lost, String commit) {
        var expected = new TreeMap<String, List<Long>>();
        for (var record : lost) {
            var envelope = EventCodec.fromJson(record.value());
            expected.merge(envelope.accountId().toString(), List.of(1L, envelope.event().applyTo(0)),
                    (a, b) -> List.of(a.get(0) + b.get(0), a.get(1) + b.get(1)));
        }
        var ends = new TreeMap<Integer, Long>();
        TopicReader.endOffsets(pipeline.infrastructure().bootstrapServers(), pipeline.topic()).forEach((p, end) -> {
            if (end > 0) {
                ends.put(p, end);
            }
        });
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(250)).untilAsserted(() -> {
            assertThat(new TreeMap<>(GroupOffsets.committedInKafka(pipeline, group(commit))))
                    .as("consumed to the end").isEqualTo(ends);
            assertThat(shortOfTheWriteSide(commit)).as("(events, amount) the write side has and it has not")
                    .isEqualTo(expected);
        });
        return lost.size() + " events, " + expected.values().stream().mapToLong(v -> v.get(1)).sum()
                + " in minor units, over " + expected.size() + " accounts";
    }

    /** Per account: how many events and how much money ledger.accounts has that the simpler table has not. */
    private static Map<String, List<Long>> shortOfTheWriteSide(String commit) throws SQLException {
        var difference = new TreeMap<String, List<Long>>();
        try (var connection = pipeline.connect(); var statement = connection.createStatement();
                var rs = statement.executeQuery("SELECT a.account_id, a.version - coalesce(s.events, 0),"
                        + " a.balance - coalesce(s.balance, 0) FROM ledger.accounts a LEFT JOIN simpler."
                        + commit.replace('-', '_') + " s USING (account_id)"
                        + " WHERE a.version <> coalesce(s.events, 0) OR a.balance <> coalesce(s.balance, 0)")) {
            while (rs.next()) {
                difference.put(rs.getString(1), List.of(rs.getLong(2), rs.getLong(3)));
            }
        }
        return difference;
    }

    /** The lab's projector after the same kind of halt: the batch it held applied once, everything exact. */
    private static IndependentChecker.Verdict assertTheLabsProjectorExact(ServiceProcess projector,
            List<UUID> accounts, Load load, Map<Integer, long[]> haltedBatch) throws Exception {
        pipeline.assertProjectedAsTold(projector, accounts, load);
        var stored = GroupOffsets.storedWithTheProjection(pipeline);
        haltedBatch.forEach((partition, range) -> assertThat(stored.get(partition))
                .as("partition %d: the lab's halted batch is applied", partition).isGreaterThan(range[1]));
        return IndependentChecker.assertConsistent(pipeline, Set.of(), 0);
    }
}
