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
import java.math.BigInteger;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The bank test, after Jepsen's: transfers between a few accounts from many clients at once, while other clients
 * read the total and every balance. Money is never created or destroyed: every write-side total read equals what
 * was funded and no balance is ever negative; each accepted transfer is two events with one transfer id; once the
 * pipeline is quiet the projection folds every event and its total equals the funding too. Meanwhile the
 * projection's total may differ, because a transfer's two events travel in two partitions: that is measured, not
 * failed.
 */
class BankProofTest {

    private static final int ACCOUNTS = 8;
    private static final long FUNDS = 10_000;
    private static final BigInteger TOTAL = BigInteger.valueOf(ACCOUNTS * FUNDS);
    private static final int TRANSFER_CLIENTS = 16;
    /** Larger than most balances get: some transfers are refused for lack of funds. */
    private static final long MAX_AMOUNT = 6_000;
    private static final Duration RUN = Duration.ofSeconds(10);

    private static Pipeline pipeline;
    private static ServiceProcess api;
    private static ServiceProcess relay;
    /** The projector the readers ask; a second one shares the partitions with it and is the one killed. */
    private static ServiceProcess projector;
    private static ServiceProcess victim;
    private static List<UUID> accounts;
    /** Transfers accepted by every test of this class so far: all of them are in the pipeline's ledger. */
    private static final Map<UUID, Long> TRANSFERS = new HashMap<>();

    @BeforeAll
    static void start() {
        pipeline = Pipeline.isolated(TestInfrastructure.get(), "proof_bank");
        var started = pipeline.together(pipeline::commandApi, pipeline::relay, pipeline::projector,
                pipeline::projector);
        api = started.get(0);
        relay = started.get(1);
        projector = started.get(2);
        victim = started.get(3);
        accounts = CommandApiClient.at(api.port()).openAccounts(ACCOUNTS);
        for (var account : accounts) {
            assertThat(CommandApiClient.at(api.port()).deposit(account, FUNDS).status()).isEqualTo(200);
        }
        pipeline.awaitQuiet(Duration.ofSeconds(60));
    }

    @AfterAll
    static void stop() {
        pipeline.close();
    }

    @Test
    void neverCreatesOrDestroysMoneyWhileTransfersFlow() throws Exception {
        long seed = System.nanoTime();
        var before = balances();
        try (var readers = new Readers(api, projector, accounts);
                var load = Load.transfers(api, accounts, TRANSFER_CLIENTS, MAX_AMOUNT, seed)) {
            // For the whole run, the write side's total never moves.
            await("every write-side total read equals the funding").during(RUN).atMost(RUN.plusSeconds(30))
                    .until(() -> readers.wrongTotals.get() == 0);
            load.close();
            readers.close();
            assertExact(before, load, readers, seed, "no faults");
        }
    }

    @Test
    void neverCreatesOrDestroysMoneyWhenTheRelayAndAProjectorAreKilledDuringTheTransfers() throws Exception {
        long seed = System.nanoTime();
        var before = balances();
        try (var readers = new Readers(api, projector, accounts);
                var load = Load.transfers(api, accounts, TRANSFER_CLIENTS, MAX_AMOUNT, seed)) {
            load.awaitMore(150, Duration.ofSeconds(60));
            assertThat(relay.kill()).as("relay SIGKILL").isEqualTo(137);
            load.awaitMore(100, Duration.ofSeconds(60));
            relay.restart();
            assertThat(victim.kill()).as("projector SIGKILL").isEqualTo(137);
            load.awaitMore(150, Duration.ofSeconds(60));
            victim.restart();
            load.awaitMore(100, Duration.ofSeconds(60));
            load.close();
            readers.close();
            assertExact(before, load, readers, seed, "relay and one of two projectors SIGKILLed and restarted");
        }
    }

    /** Each account's write-side balance now. */
    private static Map<UUID, Long> balances() {
        var balances = new HashMap<UUID, Long>();
        for (var account : accounts) {
            balances.put(account, CommandApiClient.at(api.port()).account(account).json().get("balance").asLong());
        }
        return balances;
    }

    private static void assertExact(Map<UUID, Long> before, Load load, Readers readers, long seed, String faults)
            throws Exception {
        assertThat(readers.failure).as("a reader failed").isNull();
        assertThat(readers.totals.get()).as("write-side totals read").isPositive();
        assertThat(readers.wrongTotals.get()).as("write-side totals that differed from the funding").isZero();
        assertThat(readers.negativeWritten.get()).as("negative balances read on the write side").isZero();
        assertThat(readers.negativeProjected.get()).as("negative balances read on the projection").isZero();
        assertThat(load.acceptedTransfers()).as("accepted transfers").isNotEmpty();
        assertThat(load.counts().refused()).as("transfers refused for lack of funds").isPositive();
        TRANSFERS.putAll(load.acceptedTransfers());
        assertEachTransferIsTwoEvents(TRANSFERS);

        pipeline.awaitQuiet(Duration.ofSeconds(120));
        for (var account : accounts) {
            var projected = ProjectorClient.at(projector.port()).balance(account).json();
            assertThat(projected.get("balance").asLong()).as("projected balance of %s", account)
                    .isEqualTo(before.get(account) + load.sum(account));
        }
        var total = TestHttp.at(projector.port()).get("/projection/total").json();
        assertThat(total.get("balance").bigIntegerValue()).as("projected total once quiet").isEqualTo(TOTAL);
        Pipeline.assertInvariantsHold(projector);
        var verdict = IndependentChecker.assertConsistent(pipeline, Set.of(), 0);
        System.out.printf("bank seed=%d (%s): %d transfers accepted, %d refused; write side: %d totals read, %d wrong,"
                + " %d balances read, %d negative; projection during the run: %d totals read, %d differed from %s"
                + " (at most by %d), %d balances read, %d negative; once quiet: total %s; %s; %s%n", seed, faults,
                load.acceptedTransfers().size(), load.counts().refused(), readers.totals.get(),
                readers.wrongTotals.get(), readers.writeBalances.get(), readers.negativeWritten.get(),
                readers.projectedTotals.get(), readers.projectedDiffering.get(), TOTAL, readers.largestDifference.get(),
                readers.projectedBalances.get(), readers.negativeProjected.get(), total.get("balance"), load.counts(),
                verdict);
    }

    /** Every accepted transfer is exactly one MoneySent and one MoneyReceived of its amount; no other transfer exists. */
    private static void assertEachTransferIsTwoEvents(Map<UUID, Long> accepted) throws Exception {
        var stored = new HashMap<UUID, String>();
        try (var connection = pipeline.connect(); var statement = connection.createStatement();
                var rs = statement.executeQuery("""
                        SELECT payload->'event'->>'transferId',
                               string_agg(type || ' ' || (payload->'event'->>'amount'), ', ' ORDER BY type DESC)
                        FROM ledger.events WHERE type IN ('MoneySent', 'MoneyReceived')
                        GROUP BY 1""")) {
            while (rs.next()) {
                stored.put(UUID.fromString(rs.getString(1)), rs.getString(2));
            }
        }
        var expected = new HashMap<UUID, String>();
        accepted.forEach((id, amount) -> expected.put(id, "MoneySent " + amount + ", MoneyReceived " + amount));
        assertThat(stored).as("transfers in ledger.events").isEqualTo(expected);
    }

    /**
     * Clients that keep reading while the transfers run: the write side's total and balances from the command API,
     * the projection's total and balances from a projector. A read that gets no answer (a process being killed) is
     * not counted.
     */
    private static final class Readers implements AutoCloseable {

        /** Between one round of reads and the next: enough reads to see the projection's lag, cores left over. */
        private static final long READ_PAUSE_MILLIS = 100;

        private final ScheduledExecutorService threads = Executors.newScheduledThreadPool(2);
        private final AtomicLong totals = new AtomicLong();
        private final AtomicLong wrongTotals = new AtomicLong();
        private final AtomicLong writeBalances = new AtomicLong();
        private final AtomicLong projectedTotals = new AtomicLong();
        private final AtomicLong projectedDiffering = new AtomicLong();
        private final AtomicLong largestDifference = new AtomicLong();
        private final AtomicLong projectedBalances = new AtomicLong();
        private final AtomicLong negativeWritten = new AtomicLong();
        private final AtomicLong negativeProjected = new AtomicLong();
        private volatile Throwable failure;

        Readers(ServiceProcess api, ServiceProcess projector, List<UUID> accounts) {
            threads.scheduleWithFixedDelay(() -> guarded(() -> {
                var total = TestHttp.at(api.port()).get("/ledger/total");
                if (total.status() == 200) {
                    totals.incrementAndGet();
                    if (!total.json().get("balance").bigIntegerValue().equals(TOTAL)
                            || total.json().get("accounts").asLong() != ACCOUNTS) {
                        wrongTotals.incrementAndGet();
                    }
                }
                for (var account : accounts) {
                    balance(CommandApiClient.at(api.port()).account(account), writeBalances, negativeWritten);
                }
            }), 0, READ_PAUSE_MILLIS, TimeUnit.MILLISECONDS);
            threads.scheduleWithFixedDelay(() -> guarded(() -> {
                var total = TestHttp.at(projector.port()).get("/projection/total");
                if (total.status() == 200) {
                    projectedTotals.incrementAndGet();
                    long difference = total.json().get("balance").bigIntegerValue().subtract(TOTAL).abs()
                            .longValueExact();
                    if (difference != 0) {
                        projectedDiffering.incrementAndGet();
                        largestDifference.accumulateAndGet(difference, Math::max);
                    }
                }
                for (var account : accounts) {
                    balance(ProjectorClient.at(projector.port()).balance(account), projectedBalances,
                            negativeProjected);
                }
            }), 0, READ_PAUSE_MILLIS, TimeUnit.MILLISECONDS);
        }

        private static void balance(TestHttp.Response response, AtomicLong count, AtomicLong negative) {
            if (response.status() == 200) {
                count.incrementAndGet();
                if (response.json().get("balance").asLong() < 0) {
                    negative.incrementAndGet();
                }
            }
        }

        private void guarded(Runnable read) {
            try {
                read.run();
            } catch (RuntimeException | AssertionError e) {
                failure = e;
                throw e;
            }
        }

        @Override
        public void close() throws InterruptedException {
            threads.shutdown();
            threads.awaitTermination(30, TimeUnit.SECONDS);
        }
    }
}
