package dev.ledgerlab.proofs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledgerlab.proofs.support.IndependentChecker;
import dev.ledgerlab.proofs.support.Pipeline;
import dev.ledgerlab.proofs.support.ServiceProcess;
import dev.ledgerlab.testkit.CommandApiClient;
import dev.ledgerlab.testkit.Concurrently;
import dev.ledgerlab.testkit.ProjectorClient;
import dev.ledgerlab.testkit.TestHttp;
import dev.ledgerlab.testkit.TestInfrastructure;
import dev.ledgerlab.testkit.TopicReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Scenarios 1 and 2: many clients at once, through REST, PostgreSQL, Debezium, Kafka and the projector. The projector
 * starts before the relay, so before its topic exists: it must wait for the relay to create it with its six
 * partitions, not have the broker create it with one.
 */
class ConcurrencyProofTest {

    private static Pipeline pipeline;
    private static ServiceProcess api;
    private static ServiceProcess projector;

    @BeforeAll
    static void start() {
        pipeline = Pipeline.isolated(TestInfrastructure.get(), "proof_concurrency");
        var started = pipeline.startAll();
        api = started.api();
        projector = started.projector();
    }

    @AfterAll
    static void stop() {
        pipeline.close();
    }

    @Test
    void projectsHundredConcurrentDepositsOverTenAccountsExactly() throws Exception {
        long seed = System.nanoTime();
        System.out.println("scenario 1 seed=" + seed);
        var random = new Random(seed);
        var accounts = CommandApiClient.at(api.port()).openAccounts(10);
        var sums = new HashMap<UUID, Long>();
        var counts = new HashMap<UUID, Long>();
        var deposits = new ArrayList<Callable<TestHttp.Response>>();
        for (int i = 0; i < 100; i++) {
            var account = accounts.get(random.nextInt(accounts.size()));
            long amount = 1 + random.nextInt(1_000_000);
            sums.merge(account, amount, Long::sum);
            counts.merge(account, 1L, Long::sum);
            deposits.add(() -> CommandApiClient.at(api.port()).deposit(account, amount));
        }
        long started = System.nanoTime();

        var responses = Concurrently.atOnce(deposits);
        pipeline.awaitQuiet(Duration.ofSeconds(90));

        assertThat(responses).allSatisfy(r -> assertThat(r.status()).as(r.body()).isEqualTo(200));
        for (var account : accounts) {
            var projected = ProjectorClient.at(projector.port()).balance(account).json();
            assertThat(projected.get("balance").asLong()).as("balance of %s", account)
                    .isEqualTo(sums.getOrDefault(account, 0L));
            assertThat(projected.get("version").asLong()).as("version of %s", account)
                    .isEqualTo(1 + counts.getOrDefault(account, 0L));
        }
        Pipeline.assertInvariantsHold(projector);
        assertThat(TopicReader.endOffsets(pipeline.infrastructure().bootstrapServers(),
                pipeline.topic())).as("the relay's partitions, though the projector subscribed first").hasSize(6);
        var verdict = IndependentChecker.assertConsistent(pipeline);
        System.out.printf("scenario 1 seed=%d: 110 events, quiet after %d ms; %s%n", seed,
                (System.nanoTime() - started) / 1_000_000, verdict);
    }

    @Test
    void neverLetsABalanceGoNegativeWhileWithdrawalsRaceDeposits() throws Exception {
        long seed = System.nanoTime();
        System.out.println("scenario 2 seed=" + seed);
        var random = new Random(seed);
        var accounts = new ArrayList<UUID>();
        for (int i = 0; i < 5; i++) {
            var account = CommandApiClient.at(api.port()).openAccount("proof");
            assertThat(CommandApiClient.at(api.port()).deposit(account, 1_000).status()).isEqualTo(200);
            accounts.add(account);
        }
        var operations = new ArrayList<Callable<TestHttp.Response>>();
        var targets = new ArrayList<UUID>();
        for (int i = 0; i < 200; i++) {
            var account = accounts.get(random.nextInt(accounts.size()));
            boolean withdraw = random.nextInt(3) > 0;
            long amount = withdraw ? 1 + random.nextInt(400) : 1 + random.nextInt(200);
            targets.add(account);
            operations.add(() -> withdraw ? CommandApiClient.at(api.port()).withdraw(account, amount)
                    : CommandApiClient.at(api.port()).deposit(account, amount));
        }

        var responses = Concurrently.atOnce(operations);
        pipeline.awaitQuiet(Duration.ofSeconds(90));

        Map<UUID, Long> succeeded = new HashMap<>();
        long refused = 0;
        for (int i = 0; i < responses.size(); i++) {
            var response = responses.get(i);
            if (response.status() == 200) {
                succeeded.merge(targets.get(i), 1L, Long::sum);
            } else {
                assertThat(response.status()).as(response.body()).isEqualTo(409);
                assertThat(response.json().get("type").asString())
                        .isEqualTo("urn:ledgerlab:problem:insufficient-funds");
                refused++;
            }
        }
        for (var account : accounts) {
            long events = pipeline.queryLong("SELECT count(*) FROM ledger.events WHERE account_id = '" + account + "'");
            assertThat(events).as("a refused withdrawal leaves no event").isEqualTo(2 + succeeded.getOrDefault(account, 0L));
            var written = CommandApiClient.at(api.port()).account(account).json();
            var projected = ProjectorClient.at(projector.port()).balance(account).json();
            assertThat(projected.get("balance").asLong()).isEqualTo(written.get("balance").asLong()).isNotNegative();
            assertThat(projected.get("version").asLong()).isEqualTo(written.get("version").asLong());
        }
        Pipeline.assertInvariantsHold(projector);
        var verdict = IndependentChecker.assertConsistent(pipeline);
        System.out.printf("scenario 2 seed=%d: 200 racing operations, %d refused with 409; %s%n", seed, refused,
                verdict);
    }

    @Test
    void reportsEachViolationWithAccountExpectedAndActual() throws Exception {
        var account = CommandApiClient.at(api.port()).openAccount("proof");
        CommandApiClient.at(api.port()).deposit(account, 500);
        pipeline.awaitQuiet(Duration.ofSeconds(60));
        Pipeline.assertInvariantsHold(projector);

        // Corrupt the read side behind the projector's back: the checker must name exactly what is wrong.
        pipeline.execute("UPDATE projection.balances SET balance = balance + 1, version = version + 1 "
                + "WHERE account_id = '" + account + "'");
        // And count one application too many, as a projector that applied an event twice would.
        pipeline.execute("UPDATE projection.offsets SET applied = applied + 1 WHERE group_id = '" + pipeline.group()
                + "' AND partition = (SELECT min(partition) FROM projection.offsets WHERE group_id = '"
                + pipeline.group() + "')");
        try {
            var report = TestHttp.at(projector.port()).asOperator().get("/projection/invariants").json();

            assertThat(report.get("ok").asBoolean()).isFalse();
            var violations = new ArrayList<String>();
            report.get("violations").forEach(v -> violations.add(v.get("accountId").asString("") + " | "
                    + v.get("invariant").asString() + " | " + v.get("expected").asString() + " | "
                    + v.get("actual").asString()));
            assertThat(violations).contains(
                    account + " | balance equals the fold of its events | 500 | 501",
                    account + " | version equals the last event's version | 2 | 3");
            assertThat(violations).anySatisfy(v -> assertThat(v).startsWith(" | events applied equal events stored"));
        } finally {
            pipeline.execute("UPDATE projection.balances SET balance = balance - 1, version = version - 1 "
                    + "WHERE account_id = '" + account + "'");
            pipeline.execute("UPDATE projection.offsets SET applied = applied - 1 WHERE group_id = '"
                    + pipeline.group() + "' AND partition = (SELECT min(partition) FROM projection.offsets"
                    + " WHERE group_id = '" + pipeline.group() + "')");
        }
        Pipeline.assertInvariantsHold(projector);
    }
}
