package dev.ledgerlab.proofs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ledgerlab.proofs.support.Faults;
import dev.ledgerlab.proofs.support.IndependentChecker;
import dev.ledgerlab.proofs.support.Load;
import dev.ledgerlab.proofs.support.Pipeline;
import dev.ledgerlab.proofs.support.ServiceProcess;
import dev.ledgerlab.testkit.CommandApiClient;
import dev.ledgerlab.testkit.DurablePostgres;
import dev.ledgerlab.testkit.ProjectorClient;
import dev.ledgerlab.testkit.TestHttp;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A replay or a rebuild loses its projector halfway, and another one finishes the run: the state of a run lives in
 * projection.replays and projection.offsets, not in any process. Deposits keep arriving over REST throughout, on
 * PostgreSQL with fsync and synchronous_commit on. Small batches (50 records) make "halfway" many batches long; each
 * halt comes through the projector's fault seam at a named point, and the test checks the run really was halfway
 * when it did.
 */
class ReplayCrashProofTest {

    private static final String SMALL_BATCHES = "--spring.kafka.consumer.max-poll-records=50";

    private static Pipeline pipeline;
    private static ServiceProcess api;

    @BeforeAll
    static void start() {
        pipeline = Pipeline.isolated(DurablePostgres.get().infrastructure(), "proof_replay_crash");
        api = pipeline.together(pipeline::commandApi, pipeline::relay).get(0);
    }

    @AfterAll
    static void stop() {
        pipeline.close();
    }

    @Test
    void completesAnInPlaceReplayWhoseProjectorDiedHalfway() throws Exception {
        long seed = System.nanoTime();
        int batch = 3 + new Random(seed).nextInt(4);
        var accounts = CommandApiClient.at(api.port()).openAccounts(8);
        try (var load = new Load(api, accounts, seed)) {
            // A replay re-reads the whole log whatever was projected before: enough of it to die halfway through.
            load.awaitMore(500, Duration.ofSeconds(90));
            var faulty = pipeline.projectorStoppingAt("after-db-commit", batch, "--projector.replay.on-start=true",
                    SMALL_BATCHES);
            var halfway = awaitHaltedHalfway(faulty, "replay");
            try (var next = pipeline.projector()) {
                awaitCompleted(next, "replay");
                halfway.report(seed, load, finish(load, accounts, next));
            }
        }
    }

    @Test
    void completesAShadowRebuildWhoseProjectorDiedHalfway() throws Exception {
        long seed = System.nanoTime();
        int batch = 3 + new Random(seed).nextInt(4);
        var accounts = CommandApiClient.at(api.port()).openAccounts(8);
        try (var load = new Load(api, accounts, seed)) {
            var faulty = pipeline.projector(SMALL_BATCHES, "--projector.faults.halt-at=rebuild-after-db-commit",
                    "--projector.faults.halt-after-batches=" + batch);
            catchUp(faulty, load);
            assertThat(TestHttp.at(faulty.port()).asOperator().post("/projection/rebuild", "{}").status()).isEqualTo(202);
            var halfway = awaitHaltedHalfway(faulty, "rebuild");
            assertThat(shadowTables()).as("the shadow tables it was filling").isEqualTo(3);
            try (var next = pipeline.projector()) {
                awaitCompleted(next, "rebuild");
                assertThat(shadowTables()).as("shadow tables left behind").isZero();
                halfway.report(seed, load, finish(load, accounts, next));
            }
        }
    }

    @Test
    void completesAShadowRebuildWhoseProjectorDiedInTheMiddleOfTheSwap() throws Exception {
        long seed = System.nanoTime();
        var accounts = CommandApiClient.at(api.port()).openAccounts(8);
        try (var load = new Load(api, accounts, seed)) {
            var faulty = pipeline.projector("--projector.faults.halt-at=during-swap");
            catchUp(faulty, load);
            assertThat(TestHttp.at(faulty.port()).asOperator().post("/projection/rebuild", "{}").status()).isEqualTo(202);
            var halted = Faults.awaitHalt(faulty, Duration.ofSeconds(120));
            var run = runState("rebuild");
            assertThat(run.state()).as("the swap rolled back with its process").isEqualTo("running");
            assertThat(shadowTables()).as("the shadow tables are still beside the live ones").isEqualTo(3);
            assertThat(pipeline.queryLong("SELECT count(*) FROM projection.balances")).as("the live balances, intact")
                    .isEqualTo(pipeline.queryLong("SELECT count(*) FROM ledger.accounts"));
            try (var next = pipeline.projector()) {
                awaitCompleted(next, "rebuild");
                assertThat(shadowTables()).as("shadow tables left behind").isZero();
                var verdict = finish(load, accounts, next);
                System.out.printf("swap killed seed=%d: %s; the next projector swapped rebuild %d in; %s; %s%n", seed,
                        halted, run.id(), load.counts(), verdict);
            }
        }
    }

    /** A projector halted by its fault seam in the middle of a run: what it printed, and how far the run had got. */
    private record Halfway(String kind, String halted, Run run) {

        void report(long seed, Load load, IndependentChecker.Verdict verdict) {
            System.out.printf("%s killed halfway seed=%d: %s at %d of %d records; the next projector completed %s %d;"
                    + " %s; %s%n", kind, seed, halted, run.position(), run.target(), kind, run.id(), load.counts(),
                    verdict);
        }
    }

    /** Waits for the projector to halt, and asserts that the latest run of that kind was halfway when it did. */
    private static Halfway awaitHaltedHalfway(ServiceProcess faulty, String kind) throws Exception {
        var halted = Faults.awaitHalt(faulty, Duration.ofSeconds(120));
        var run = runState(kind);
        assertThat(run.state()).isEqualTo("running");
        assertThat(run.position()).as("records of the %s done when it died", kind).isPositive()
                .isLessThan(run.target());
        return new Halfway(kind, halted, run);
    }

    /** Waits for enough events in the log to rebuild for many batches, and for this projector to have them all. */
    private static void catchUp(ServiceProcess projector, Load load) {
        load.awaitMore(500, Duration.ofSeconds(90));
        await().atMost(Duration.ofSeconds(60)).until(() -> ProjectorClient.at(projector.port()).status().get("lag").asLong() == 0);
    }

    private static IndependentChecker.Verdict finish(Load load, List<UUID> accounts, ServiceProcess projector)
            throws Exception {
        load.awaitMore(100, Duration.ofSeconds(60));
        load.close();
        pipeline.assertProjectedAsTold(projector, accounts, load);
        return IndependentChecker.assertConsistent(pipeline);
    }

    /** Waits until the latest run of that kind, as this projector reports it, completed. */
    private static void awaitCompleted(ServiceProcess projector, String kind) {
        await().atMost(Duration.ofSeconds(120)).until(() -> "completed".equals(
                TestHttp.at(projector.port()).get("/projection/" + kind).json().get("state").asString()));
    }

    private record Run(long id, String state, long position, long target) {
    }

    /** The latest run of that kind as the database holds it: how far its group's stored offsets got. */
    private static Run runState(String kind) throws Exception {
        try (var connection = pipeline.connect(); var statement = connection.createStatement();
                var rs = statement.executeQuery("""
                SELECT r.id, r.state,
                       -- least() ignores NULL: a partition with nothing stored yet counts as 0, not as done
                       (SELECT coalesce(sum(least(coalesce(o.next_offset, 0), t.end_offset)), 0) FROM projection.replay_targets t
                        LEFT JOIN projection.offsets o ON o.group_id = r.group_id AND o.topic = r.topic
                                                      AND o.partition = t.partition
                        WHERE t.replay_id = r.id),
                       (SELECT sum(end_offset) FROM projection.replay_targets t WHERE t.replay_id = r.id)
                FROM projection.replays r WHERE r.kind = '%s' ORDER BY r.id DESC LIMIT 1""".formatted(kind))) {
            assertThat(rs.next()).as("a %s run", kind).isTrue();
            return new Run(rs.getLong(1), rs.getString(2), rs.getLong(3), rs.getLong(4));
        }
    }

    private static long shadowTables() throws Exception {
        return pipeline.queryLong("SELECT count(*) FROM pg_tables WHERE schemaname = 'projection_rebuild'");
    }
}
