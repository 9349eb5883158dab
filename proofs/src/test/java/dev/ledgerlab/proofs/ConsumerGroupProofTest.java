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
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Scenarios 5, 6 and 7: the consumer group. Members share the partitions and take over a dead member's; the
 * group's parallelism is the partition count; re-reading the log from the start changes nothing.
 *
 * <p>Takeover is prompt because the projector's consumers use a short session ({@code session.timeout.ms}: 10 s in
 * the lab, 6 s in the proofs, Kafka's default is 45 s): a killed member is declared dead, and its partitions
 * reassigned, within about that long.
 */
class ConsumerGroupProofTest {

    /**
     * The command API and the relay that the scenarios of members dying or freezing share: their faults strike the
     * projectors only. Each of those scenarios starts its own members and stops them, so the group is empty between
     * scenarios, and each checks its own accounts and the whole pipeline. The scenario of five members (three
     * partitions) and the rewind (whose re-reads the checker counts for the whole database) have pipelines of their own.
     */
    private static Pipeline shared;
    private static ServiceProcess sharedApi;

    @BeforeAll
    static void start() {
        shared = Pipeline.isolated(TestInfrastructure.get(), "proof_group_members");
        sharedApi = shared.together(shared::commandApi, shared::relay).get(0);
    }

    @AfterAll
    static void stop() {
        shared.close();
    }

    @Test
    void sharesThePartitionsBetweenTwoProjectorsAndHandsThemOverWhenOneIsKilled() throws Exception {
        long seed = System.nanoTime();
        var pipeline = shared;
        var api = sharedApi;
        var members = pipeline.together(pipeline::projector, pipeline::projector);
        try (var first = members.get(0); var second = members.get(1)) {
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                var a = assigned(first);
                var b = assigned(second);
                assertThat(a).isNotEmpty();
                assertThat(b).isNotEmpty();
                assertThat(a).doesNotContainAnyElementsOf(b);
                assertThat(a.size() + b.size()).isEqualTo(6);
            });
            var accounts = CommandApiClient.at(api.port()).openAccounts(12);
            try (var load = new Load(api, accounts, seed)) {
                long target = ProjectorClient.at(first.port()).status().get("applied").asLong() + 300;
                await().atMost(Duration.ofSeconds(60)).until(() ->
                        ProjectorClient.at(second.port()).status().get("applied").asLong() >= target);
                var before = assigned(second);
                assertThat(first.kill()).as("SIGKILL").isEqualTo(137);
                long killed = System.nanoTime();
                await().atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(200)).until(() ->
                        assigned(second).size() == 6);
                long takeoverMillis = (System.nanoTime() - killed) / 1_000_000;
                load.awaitMore(100, Duration.ofSeconds(60));
                load.close();

                pipeline.assertProjectedAsTold(second, accounts, load);
                assertThat(ProjectorClient.at(second.port()).status().get("redeliveredSinceStart").asLong())
                        .as("the survivor started the dead member's partitions at their stored offsets").isZero();
                var verdict = IndependentChecker.assertConsistent(pipeline);
                System.out.printf("scenario 5 seed=%d: survivor held %s, took over all 6 partitions %d ms after the"
                        + " kill; redelivered 0; %s; %s%n", seed, before, takeoverMillis, load.counts(), verdict);
                assertThat(takeoverMillis).as("takeover well before Kafka's default 45 s session").isLessThan(30_000);
            }
        }
    }

    @Test
    void givesWorkToOnlyAsManyProjectorsAsThereArePartitions() throws Exception {
        try (var pipeline = Pipeline.isolated(TestInfrastructure.get(), "proof_group_three", "--relay.partitions=3")) {
            var api = pipeline.together(pipeline::commandApi, pipeline::relay).get(0);
            // One consumer per projector here (the default is two): each process is then one member, and five
            // members share three partitions.
            Supplier<ServiceProcess> oneConsumer = () -> pipeline.projector("--projector.concurrency=1");
            var projectors = pipeline.together(oneConsumer, oneConsumer, oneConsumer, oneConsumer, oneConsumer);
            // Members joining one after another make the group rebalance several times, and between two of those
            // rebalances the members may already hold one partition each (seen: a fourth member then received a
            // record). Only once Kafka calls the group Stable with all five in it is the assignment final.
            await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> {
                assertThat(GroupOffsets.stableAssignmentSizes(pipeline)).containsExactlyInAnyOrder(1, 1, 1, 0, 0);
                var sizes = new ArrayList<Integer>();
                for (var p : projectors) {
                    sizes.add(assigned(p).size());
                }
                assertThat(sizes).containsExactlyInAnyOrder(1, 1, 1, 0, 0);
            });
            var accounts = new ArrayList<UUID>();
            for (int i = 0; i < 30; i++) {
                var account = CommandApiClient.at(api.port()).openAccount("proof");
                accounts.add(account);
                assertThat(CommandApiClient.at(api.port()).deposit(account, 10 + i).status()).isEqualTo(200);
            }

            pipeline.awaitQuiet(Duration.ofSeconds(90));

            var received = new ArrayList<Long>();
            for (var p : projectors) {
                received.add(ProjectorClient.at(p.port()).status().get("receivedSinceStart").asLong());
            }
            assertThat(received.stream().filter(r -> r > 0)).as("members that received records").hasSize(3);
            assertThat(received.stream().filter(r -> r == 0)).as("idle members").hasSize(2);
            for (int i = 0; i < accounts.size(); i++) {
                assertThat(ProjectorClient.at(projectors.get(0).port()).balance(accounts.get(i)).json()
                        .get("balance").asLong()).isEqualTo(10 + i);
            }
            Pipeline.assertInvariantsHold(projectors.get(0));
            var verdict = IndependentChecker.assertConsistent(pipeline);
            System.out.printf("scenario 6: five members on three partitions received %s records; %s%n", received,
                    verdict);
        }
    }

    @Test
    void recognisesEveryEventAsADuplicateWhenTheGroupReplaysFromTheEarliestOffset() throws Exception {
        try (var pipeline = Pipeline.isolated(TestInfrastructure.get(), "proof_group_rewind")) {
            var started = pipeline.startAll();
            var api = started.api();
            var projector = started.projector();
            var accounts = new ArrayList<UUID>();
            for (int i = 0; i < 10; i++) {
                var account = CommandApiClient.at(api.port()).openAccount("proof");
                accounts.add(account);
                CommandApiClient.at(api.port()).deposit(account, 100 + i);
            }
            pipeline.awaitQuiet(Duration.ofSeconds(90));
            projector.close();
            String balances = "SELECT md5(string_agg(b::text, '|' ORDER BY account_id)) FROM projection.balances b";
            var digestBefore = digest(pipeline, balances);
            long appliedBefore = pipeline.queryLong("SELECT sum(applied) FROM projection.offsets");
            long duplicatesBefore = pipeline.queryLong("SELECT sum(duplicates) FROM projection.offsets");

            // What kafka-consumer-groups --reset-offsets --to-earliest does: rewind the group's committed offsets.
            rewindKafkaGroup(pipeline);
            // The projector's position lives in projection.offsets with the balances; rewinding the group means
            // rewinding it there too, or the projector would just continue where the database says it stopped.
            pipeline.execute("UPDATE projection.offsets SET next_offset = 0 WHERE group_id = '" + pipeline.group()
                    + "'");
            long records = pipeline.queryLong("SELECT count(*) FROM ledger.events");
            var replaying = pipeline.projector();

            await().atMost(Duration.ofSeconds(120)).until(() -> ProjectorClient.at(replaying.port()).status().get("lag").asLong() == 0
                    && pipeline.queryLong("SELECT sum(duplicates) FROM projection.offsets") - duplicatesBefore
                            >= records);
            long duplicates = pipeline.queryLong("SELECT sum(duplicates) FROM projection.offsets") - duplicatesBefore;
            assertThat(pipeline.queryLong("SELECT sum(applied) FROM projection.offsets")).as("nothing applied again")
                    .isEqualTo(appliedBefore);
            assertThat(digest(pipeline, balances)).as("balances unchanged").isEqualTo(digestBefore);
            Pipeline.assertInvariantsHold(replaying);
            assertThat(duplicates).as("every record read again is a duplicate").isEqualTo(records);
            var verdict = IndependentChecker.assertConsistent(pipeline, Set.of(), records);
            System.out.printf("scenario 7: replay from offset zero re-read %d records (%d events stored): %d "
                    + "recognised as duplicates, 0 applied; %s%n",
                    ProjectorClient.at(replaying.port()).status().get("partitions").findValues("logEndOffset").stream()
                            .mapToLong(n -> n.asLong()).sum(), records, duplicates, verdict);
        }
    }

    @Test
    void refusesTheBatchAFrozenMemberHeldWhenItWakesAfterTheGroupHasMovedOn() throws Exception {
        long seed = System.nanoTime();
        int batch = 3 + new Random(seed).nextInt(5);
        var pipeline = shared;
        var api = sharedApi;
        try (var survivor = pipeline.projector()) {
            var accounts = CommandApiClient.at(api.port()).openAccounts(12);
            try (var load = new Load(api, accounts, seed);
                    // A second member joins, takes its share of the partitions, and freezes (SIGSTOP) holding a batch.
                    var zombie = pipeline.projectorStoppingAt("freeze-holding-batch", batch)) {
                var freezing = Faults.awaitFrozen(zombie, Duration.ofSeconds(120));
                var held = Faults.batchRanges(freezing);
                long heldRecords = held.values().stream().mapToLong(range -> range[1] - range[0] + 1).sum();
                long frozen = System.nanoTime();
                // Its session expires; the survivor takes every partition and applies past the records it holds.
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() ->
                        assigned(survivor).size() == 6);
                long takeoverMillis = (System.nanoTime() - frozen) / 1_000_000;
                await().atMost(Duration.ofSeconds(60)).until(() -> {
                    var stored = GroupOffsets.storedWithTheProjection(pipeline);
                    return held.entrySet().stream().allMatch(e ->
                            stored.getOrDefault(e.getKey(), 0L) > e.getValue()[1]);
                });
                long appliedBeforeWaking = pipeline.applied();

                Faults.assertFrozen(zombie);
                zombie.thaw();

                await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() ->
                        !zombie.logLines("projector resumed (SIGCONT)").isEmpty()
                        && ProjectorClient.at(zombie.port()).status().get("redeliveredSinceStart").asLong() >= heldRecords);
                load.awaitMore(100, Duration.ofSeconds(60));
                load.close();
                pipeline.assertProjectedAsTold(survivor, accounts, load);
                var verdict = IndependentChecker.assertConsistent(pipeline);
                System.out.printf("zombie seed=%d: a member froze holding batch %d %s (%d records); the survivor held"
                        + " all 6 partitions %d ms later and applied past them; woken, the zombie tried its batch: %d"
                        + " records refused as below the stored offsets, its held ones among them (%d applications"
                        + " counted meanwhile by the survivor);"
                        + " %s; %s%n", seed, batch, freezing, heldRecords, takeoverMillis,
                        ProjectorClient.at(zombie.port()).status().get("redeliveredSinceStart").asLong(),
                        pipeline.applied() - appliedBeforeWaking, load.counts(), verdict);
            }
        }
    }

    /**
     * A member frozen inside a batch's transaction, after its writes: its rows stay locked while it is frozen, and the
     * member that takes its partitions over would wait on them for as long. PostgreSQL ends the frozen session after
     * {@code idle_in_transaction_session_timeout} (projector.yml) and rolls its batch back; the survivor applies past
     * it, and the woken member's commit fails as a transient failure (its connection is gone), nothing dead-lettered.
     */
    @Test
    void carriesOnWhenAMemberFreezesInsideItsTransactionHoldingRowLocks() throws Exception {
        long seed = System.nanoTime();
        int batch = 3 + new Random(seed).nextInt(5);
        var pipeline = shared;
        var api = sharedApi;
        try (var survivor = pipeline.projector()) {
            var accounts = CommandApiClient.at(api.port()).openAccounts(12);
            try (var load = new Load(api, accounts, seed);
                    var frozenMember = pipeline.projectorStoppingAt("freeze-before-db-commit", batch)) {
                var freezing = Faults.awaitFrozen(frozenMember, Duration.ofSeconds(120));
                var held = Faults.batchRanges(freezing);
                long frozen = System.nanoTime();
                // Its session sits in its open transaction, the batch's rows locked...
                await().atMost(Duration.ofSeconds(30)).until(() -> idleInTransaction(pipeline) > 0);
                // ...until PostgreSQL ends it, and the survivor, owner of every partition, applies past the batch.
                await().atMost(Duration.ofSeconds(60)).until(() -> idleInTransaction(pipeline) == 0);
                long endedMillis = (System.nanoTime() - frozen) / 1_000_000;
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() ->
                        assigned(survivor).size() == 6);
                await().atMost(Duration.ofSeconds(60)).until(() -> {
                    var stored = GroupOffsets.storedWithTheProjection(pipeline);
                    return held.entrySet().stream().allMatch(e ->
                            stored.getOrDefault(e.getKey(), 0L) > e.getValue()[1]);
                });
                long pastMillis = (System.nanoTime() - frozen) / 1_000_000;

                Faults.assertFrozen(frozenMember);
                frozenMember.thaw();
                // Its connection is gone (the driver reports the closed socket, SQLSTATE 08006): a transient failure,
                // tried again, never dead-lettered.
                await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() ->
                        !frozenMember.logLines("batch failed, database-unavailable").isEmpty());
                load.awaitMore(100, Duration.ofSeconds(60));
                load.close();
                pipeline.assertProjectedAsTold(survivor, accounts, load);
                var verdict = IndependentChecker.assertConsistent(pipeline);
                System.out.printf("frozen transaction seed=%d: a member froze inside the transaction of batch %d %s;"
                        + " PostgreSQL ended its session %d ms later, the survivor held all 6 partitions and applied"
                        + " past the batch %d ms after the freeze; woken, the member's commit failed as"
                        + " database-unavailable and was tried again; %s; %s%n", seed, batch, freezing, endedMillis, pastMillis,
                        load.counts(), verdict);
            }
        }
    }

    /** Sessions of the projector's role sitting in an open transaction for over a second. */
    private static long idleInTransaction(Pipeline pipeline) throws Exception {
        return pipeline.queryLong("SELECT count(*) FROM pg_stat_activity WHERE usename = 'ledger_projector'"
                + " AND datname = current_database() AND state = 'idle in transaction'"
                + " AND now() - state_change > interval '1 second'");
    }

    private static TreeSet<Integer> assigned(ServiceProcess projector) {
        var set = new TreeSet<Integer>();
        ProjectorClient.at(projector.port()).status().get("assignedHere").forEach(n -> set.add(n.asInt()));
        return set;
    }

    private static String digest(Pipeline pipeline, String sql) throws Exception {
        try (var c = pipeline.connect(); var s = c.createStatement(); var rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static void rewindKafkaGroup(Pipeline pipeline) throws Exception {
        try (var admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                pipeline.infrastructure().bootstrapServers()))) {
            Map<TopicPartition, OffsetAndMetadata> earliest = new HashMap<>();
            for (int p = 0; p < 6; p++) {
                earliest.put(new TopicPartition(pipeline.topic(), p), new OffsetAndMetadata(0));
            }
            // The group must be empty to be rewound; the stopped projector's leave may take a moment to land.
            await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> {
                admin.alterConsumerGroupOffsets(pipeline.group(), earliest).all().get(10, TimeUnit.SECONDS);
                return true;
            });
        }
    }
}
