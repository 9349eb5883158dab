package dev.ledgerlab.proofs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ledgerlab.proofs.support.IndependentChecker;
import dev.ledgerlab.proofs.support.Load;
import dev.ledgerlab.proofs.support.Pipeline;
import dev.ledgerlab.proofs.support.ServiceProcess;
import dev.ledgerlab.testkit.CommandApiClient;
import dev.ledgerlab.testkit.ProjectorClient;
import dev.ledgerlab.testkit.TestHttp;
import dev.ledgerlab.testkit.TestInfrastructure;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Replay from offset zero through the whole pipeline: deposits keep arriving over REST, through PostgreSQL, the
 * relay and Kafka, while two projector processes of one group rebuild the projection, in place or into a shadow
 * table. Whoever is asked, both instances follow; nothing accepted is lost, nothing is applied twice.
 */
class ReplayProofTest {

    private static final String REBUILDING = "urn:ledgerlab:problem:projection-rebuilding";

    private static Pipeline pipeline;
    private static ServiceProcess api;
    private static ServiceProcess first;
    private static ServiceProcess second;

    @BeforeAll
    static void start() {
        pipeline = Pipeline.isolated(TestInfrastructure.get(), "proof_replay");
        var started = pipeline.startAll();
        api = started.api();
        first = started.projector();
        second = pipeline.projector();
    }

    @AfterAll
    static void stop() {
        pipeline.close();
    }

    @Test
    void replaysInPlaceWhileDepositsFlowAndEndsExactOnBothInstances() throws Exception {
        long seed = System.nanoTime();
        System.out.println("replay in place seed=" + seed);
        var accounts = accounts(8);
        var reads = new Reads(accounts);
        long replayId;
        try (var load = new Load(api, accounts, seed)) {
            await().atMost(Duration.ofSeconds(60)).until(() -> load.accepted() >= 200);
            try (var reading = reads.start(second)) {
                await().atMost(Duration.ofSeconds(30)).until(() -> reads.answered.get() > 0);
                var started = TestHttp.at(first.port()).asOperator().post("/projection/replay", "{}");
                assertThat(started.status()).as(started.body()).isEqualTo(202);
                replayId = started.json().get("id").asLong();
                await().atMost(Duration.ofSeconds(120)).until(() ->
                        "completed".equals(TestHttp.at(second.port()).get("/projection/replay").json().get("state")
                                .asString()));
                load.awaitMore(100, Duration.ofSeconds(60));
            }
            load.close();
            pipeline.awaitQuiet(Duration.ofSeconds(120));
            assertExact(accounts, load);
        }

        // While it ran, a read was refused as rebuilding; before and after, answered in full, never behind a version
        // it had already shown.
        assertThat(reads.unexpected).as("reads that were neither 200 nor 503 projection-rebuilding").isEmpty();
        assertThat(reads.rebuilding.get()).as("reads refused as rebuilding").isPositive();
        assertThat(reads.wentBack).as("reads whose version was below one read before the replay").isEmpty();
        var progress = TestHttp.at(first.port()).get("/projection/replay").json();
        assertThat(progress.get("id").asLong()).isEqualTo(replayId);
        System.out.printf("replay in place %d under load, two projectors: %s events re-applied in %s s; reads: %d "
                + "refused as rebuilding, %d answered%n", replayId, progress.get("eventsApplied"),
                progress.get("elapsedSeconds"), reads.rebuilding.get(), reads.answered.get());
    }

    @Test
    void rebuildsIntoAShadowTableWhileDepositsAndReadsContinueWithoutAReadGoingBack() throws Exception {
        long seed = System.nanoTime();
        System.out.println("shadow rebuild seed=" + seed);
        var accounts = accounts(8);
        var reads = new Reads(accounts);
        try (var load = new Load(api, accounts, seed)) {
            await().atMost(Duration.ofSeconds(60)).until(() -> load.accepted() >= 200);
            try (var reading = reads.start(first, second)) {
                await().atMost(Duration.ofSeconds(30)).until(() -> reads.answered.get() > 0);
                var started = TestHttp.at(second.port()).asOperator().post("/projection/rebuild", "{}");
                assertThat(started.status()).as(started.body()).isEqualTo(202);
                await().atMost(Duration.ofSeconds(120)).until(() ->
                        "completed".equals(TestHttp.at(first.port()).get("/projection/rebuild").json().get("state")
                                .asString()));
                long acceptedAtSwap = load.accepted();
                long answeredAtSwap = reads.answered.get();
                await().atMost(Duration.ofSeconds(60)).until(() -> load.accepted() > acceptedAtSwap + 100
                        && reads.answered.get() > answeredAtSwap + 20);
            }
            load.close();
            pipeline.awaitQuiet(Duration.ofSeconds(120));
            assertExact(accounts, load);
        }

        assertThat(reads.unexpected).as("reads that did not answer 200 during the rebuild").isEmpty();
        assertThat(reads.rebuilding.get()).as("reads refused as rebuilding").isZero();
        assertThat(reads.wentBack).as("reads whose version was below one read before").isEmpty();
        var progress = TestHttp.at(second.port()).get("/projection/rebuild").json();
        System.out.printf("shadow rebuild %s under load, two projectors: %s; %d reads, none failed or went back%n",
                progress.get("id"), progress.get("detail"), reads.answered.get());
    }

    private static List<UUID> accounts(int n) {
        var accounts = CommandApiClient.at(api.port()).openAccounts(n);
        // Projected before the reads start, so that a 404 would mean a lost account, not a young one.
        pipeline.awaitQuiet(Duration.ofSeconds(60));
        return accounts;
    }

    private static void assertExact(List<UUID> accounts, Load load) throws Exception {
        for (var projector : List.of(first, second)) {
            pipeline.assertProjectedAsTold(projector, accounts, load);
        }
        System.out.println("  " + load.counts() + "; " + IndependentChecker.assertConsistent(pipeline));
    }

    /**
     * One client thread reading every account's balance in turn from the given instances, as fast as it can,
     * remembering what it must never see: an answer other than 200 or 503 projection-rebuilding, or a version below
     * one it read before for the same account.
     */
    private static final class Reads {
        private final List<UUID> accounts;
        final AtomicLong answered = new AtomicLong();
        final AtomicLong rebuilding = new AtomicLong();
        final List<String> unexpected = new CopyOnWriteArrayList<>();
        final List<String> wentBack = new CopyOnWriteArrayList<>();
        private final Map<UUID, Long> lastVersion = new ConcurrentHashMap<>();

        Reads(List<UUID> accounts) {
            this.accounts = accounts;
        }

        AutoCloseable start(ServiceProcess... instances) {
            var running = new AtomicBoolean(true);
            var reader = Executors.newSingleThreadExecutor();
            Future<?> loop = reader.submit(() -> {
                while (running.get()) {
                    for (var instance : instances) {
                        for (var account : accounts) {
                            read(instance, account);
                        }
                    }
                }
                return null;
            });
            return () -> {
                running.set(false);
                try {
                    loop.get(60, TimeUnit.SECONDS);
                } finally {
                    reader.shutdownNow();
                }
            };
        }

        private void read(ServiceProcess instance, UUID account) {
            var response = ProjectorClient.at(instance.port()).balance(account);
            if (response.status() == 503 && REBUILDING.equals(response.json().get("type").asString())) {
                rebuilding.incrementAndGet();
                return;
            }
            if (response.status() != 200) {
                unexpected.add(instance + " " + account + ": " + response.status() + " " + response.body());
                return;
            }
            answered.incrementAndGet();
            long version = response.json().get("version").asLong();
            var before = lastVersion.put(account, version);
            if (before != null && version < before) {
                wentBack.add(account + ": version " + version + " after " + before);
                lastVersion.put(account, before);
            }
        }
    }
}
