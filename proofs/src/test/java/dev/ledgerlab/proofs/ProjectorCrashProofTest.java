package dev.ledgerlab.proofs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ledgerlab.proofs.support.Faults;
import dev.ledgerlab.proofs.support.GroupOffsets;
import dev.ledgerlab.proofs.support.IndependentChecker;
import dev.ledgerlab.proofs.support.Load;
import dev.ledgerlab.proofs.support.Pipeline;
import dev.ledgerlab.proofs.support.ServiceProcess;
import dev.ledgerlab.testkit.CommandApiClient;
import dev.ledgerlab.testkit.ProjectorClient;
import dev.ledgerlab.testkit.TestInfrastructure;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Scenario 3: the projector dies mid-batch while deposits flow, and each line of defense is shown on its own. Each
 * death is a real one: a halt injected through the projector's fault seam (no shutdown hook, no commit), or a SIGKILL
 * from outside; each test asserts that the death happened where it claims, and what was read again after it.
 * <ul>
 *   <li>Stored offsets: positions come from projection.offsets, committed with the balances, so a projector that dies
 *       between its database commit and Kafka's gets nothing delivered again (3a, 3c).</li>
 *   <li>The transaction: a batch that dies before its commit leaves nothing, and is read and applied again (3b).</li>
 *   <li>The version check: with positions from Kafka's committed offsets (the usual "commit after the write"
 *       design), the same death makes the group read applied records again, and the check skips every one (3d).</li>
 * </ul>
 */
class ProjectorCrashProofTest {

    private static Pipeline pipeline;
    private static ServiceProcess api;
    /** Records this class made the group read a second time on purpose (3d): the checker's due. */
    private static long deliberateRereads;

    @BeforeAll
    static void start() {
        pipeline = Pipeline.isolated(TestInfrastructure.get(), "proof_projector_crash");
        api = pipeline.together(pipeline::commandApi, pipeline::relay).get(0);
    }

    @AfterAll
    static void stop() {
        pipeline.close();
    }

    @Test
    void redeliversNothingWhenTheProjectorDiesAfterItsDatabaseCommitBeforeItsKafkaCommit() throws Exception {
        long seed = System.nanoTime();
        int batch = 3 + new Random(seed).nextInt(5);
        var accounts = CommandApiClient.at(api.port()).openAccounts(6);
        try (var load = new Load(api, accounts, seed)) {
            var halted = haltAt("after-db-commit", batch);
            var ranges = Faults.batchRanges(halted);
            var stored = GroupOffsets.storedWithTheProjection(pipeline);
            var committed = GroupOffsets.committedInKafka(pipeline);
            ranges.forEach((partition, range) -> {
                assertThat(stored.get(partition)).as("the batch committed with the balances").isGreaterThan(range[1]);
                assertThat(committed.getOrDefault(partition, 0L)).as("Kafka never got this batch's commit")
                        .isLessThanOrEqualTo(range[0]);
            });
            long window = GroupOffsets.window(stored, committed);
            long duplicatesBefore = pipeline.duplicatesSkipped();
            try (var recovered = pipeline.projector()) {
                load.awaitMore(200, Duration.ofSeconds(60));
                load.close();
                pipeline.awaitQuiet(Duration.ofSeconds(120));
                assertThat(ProjectorClient.at(recovered.port()).status().get("redeliveredSinceStart").asLong())
                        .as("records read again below the stored offsets").isZero();
                assertThat(pipeline.duplicatesSkipped() - duplicatesBefore).as("duplicates skipped").isZero();
                var verdict = assertExact(accounts, load, recovered);
                System.out.printf("scenario 3a seed=%d: halted after the database commit of batch %d %s; Kafka's"
                        + " offsets %d records behind; redelivered 0; %s; %s%n", seed, batch, halted, window,
                        load.counts(), verdict);
            }
        }
    }

    @Test
    void appliesTheBatchAgainWhenTheProjectorDiesHalfwayThroughApplyingIt() throws Exception {
        long seed = System.nanoTime();
        int batch = 3 + new Random(seed).nextInt(5);
        var accounts = CommandApiClient.at(api.port()).openAccounts(6);
        try (var load = new Load(api, accounts, seed)) {
            var halted = haltAt("before-db-commit", batch);
            var ranges = Faults.batchRanges(halted);
            var stored = GroupOffsets.storedWithTheProjection(pipeline);
            ranges.forEach((partition, range) -> assertThat(stored.getOrDefault(partition, 0L))
                    .as("partition %d: the halted batch rolled back", partition).isLessThanOrEqualTo(range[0]));
            try (var recovered = pipeline.projector()) {
                load.awaitMore(200, Duration.ofSeconds(60));
                load.close();
                pipeline.awaitQuiet(Duration.ofSeconds(120));
                var after = GroupOffsets.storedWithTheProjection(pipeline);
                ranges.forEach((partition, range) -> assertThat(after.get(partition))
                        .as("partition %d: the batch was read and applied again", partition).isGreaterThan(range[1]));
                var verdict = assertExact(accounts, load, recovered);
                System.out.printf("scenario 3b seed=%d: halted before the database commit of batch %d %s; read"
                        + " again by the next projector; %s; %s%n", seed, batch, halted, load.counts(), verdict);
            }
        }
    }

    @Test
    void staysExactWhenAProjectorProcessIsKilledAtRandomPointsUnderLoad() throws Exception {
        long seed = System.nanoTime();
        var random = new Random(seed);
        var accounts = CommandApiClient.at(api.port()).openAccounts(6);
        var kills = new ArrayList<Long>();
        try (var load = new Load(api, accounts, seed)) {
            for (int i = 0; i < 3; i++) {
                var projector = pipeline.projector();
                long target = ProjectorClient.at(projector.port()).status().get("applied").asLong() + 50 + random.nextInt(400);
                await().atMost(Duration.ofSeconds(90)).until(() ->
                        ProjectorClient.at(projector.port()).status().get("applied").asLong() >= target);
                assertThat(projector.kill()).as("SIGKILL").isEqualTo(137);
                kills.add(target);
            }
            long duplicatesBefore = pipeline.duplicatesSkipped();
            try (var survivor = pipeline.projector()) {
                load.awaitMore(200, Duration.ofSeconds(60));
                load.close();
                pipeline.awaitQuiet(Duration.ofSeconds(120));
                assertThat(ProjectorClient.at(survivor.port()).status().get("redeliveredSinceStart").asLong()).isZero();
                assertThat(pipeline.duplicatesSkipped() - duplicatesBefore).isZero();
                var verdict = assertExact(accounts, load, survivor);
                System.out.printf("scenario 3c seed=%d: SIGKILLed at %s applied events; redelivered 0; %s; %s%n",
                        seed, kills, load.counts(), verdict);
            }
        }
    }

    @Test
    void skipsEveryRecordReadAgainAsADuplicateWhenPositionsComeFromKafka() throws Exception {
        long seed = System.nanoTime();
        int batch = 3 + new Random(seed).nextInt(5);
        var accounts = CommandApiClient.at(api.port()).openAccounts(6);
        try (var load = new Load(api, accounts, seed)) {
            var halted = haltAt("after-db-commit", batch);
            long window = GroupOffsets.window(GroupOffsets.storedWithTheProjection(pipeline),
                    GroupOffsets.committedInKafka(pipeline));
            assertThat(window).as("records Kafka's committed offsets would deliver again").isPositive();
            long duplicatesBefore = pipeline.duplicatesSkipped();
            long appliedBefore = pipeline.applied();
            try (var recovered = pipeline.projector("--projector.positions=kafka")) {
                // Exactly the window is read again; the version check is all that stands between it and the sums.
                await().atMost(Duration.ofSeconds(60)).until(() ->
                        pipeline.duplicatesSkipped() - duplicatesBefore >= window);
                load.awaitMore(200, Duration.ofSeconds(60));
                load.close();
                pipeline.awaitQuiet(Duration.ofSeconds(120));
                assertThat(pipeline.duplicatesSkipped() - duplicatesBefore).as("duplicates skipped").isEqualTo(window);
                deliberateRereads += window;
                var verdict = assertExact(accounts, load, recovered);
                System.out.printf("scenario 3d seed=%d: halted after the database commit of batch %d %s; positions"
                        + " from Kafka: %d records read again, all %d skipped as duplicates, %d events applied since;"
                        + " %s; %s%n", seed, batch, halted, window, window, pipeline.applied() - appliedBefore,
                        load.counts(), verdict);
            }
        }
    }

    /** A projector armed to halt at that point of that batch; returns its FAULT line once it is gone. */
    private static String haltAt(String point, int batch) {
        var faulty = pipeline.projectorStoppingAt(point, batch);
        return Faults.awaitHalt(faulty, Duration.ofSeconds(120));
    }

    private static IndependentChecker.Verdict assertExact(List<UUID> accounts, Load load, ServiceProcess projector)
            throws Exception {
        pipeline.assertProjectedAsTold(projector, accounts, load);
        return IndependentChecker.assertConsistent(pipeline, java.util.Set.of(), deliberateRereads);
    }
}
