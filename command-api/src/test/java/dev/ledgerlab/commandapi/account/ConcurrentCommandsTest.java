package dev.ledgerlab.commandapi.account;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledgerlab.commandapi.support.CommandApiIntegrationTest;
import dev.ledgerlab.events.EventCodec;
import dev.ledgerlab.testkit.Concurrently;
import dev.ledgerlab.testkit.TestHttp;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** Many clients at once through real HTTP: the row lock and UNIQUE (account_id, version) keep every account exact. */
class ConcurrentCommandsTest extends CommandApiIntegrationTest {

    @Test
    void appliesConcurrentDepositsExactlyWithContiguousVersions() throws Exception {
        long seed = System.nanoTime();
        System.out.println("ConcurrentCommandsTest seed=" + seed);
        var random = new Random(seed);
        var accounts = new ArrayList<UUID>();
        for (int i = 0; i < 10; i++) {
            accounts.add(api.openAccount("owner-" + i));
        }
        var expectedSum = new HashMap<UUID, Long>();
        var expectedCount = new HashMap<UUID, Long>();
        var deposits = new ArrayList<Callable<TestHttp.Response>>();
        for (int i = 0; i < 100; i++) {
            var account = accounts.get(random.nextInt(accounts.size()));
            long amount = 1 + random.nextInt(1_000_000);
            expectedSum.merge(account, amount, Long::sum);
            expectedCount.merge(account, 1L, Long::sum);
            deposits.add(() -> api.deposit(account, amount));
        }

        var responses = Concurrently.atOnce(deposits);

        assertThat(responses).allSatisfy(r -> assertThat(r.status()).as(r.body()).isEqualTo(200));
        for (var account : accounts) {
            var state = api.account(account).json();
            long deposited = expectedSum.getOrDefault(account, 0L);
            long count = expectedCount.getOrDefault(account, 0L);
            assertThat(state.get("balance").asLong()).as("balance of %s", account).isEqualTo(deposited);
            assertThat(state.get("version").asLong()).as("version of %s", account).isEqualTo(1 + count);
            assertThat(versionsOf(account)).as("versions of %s", account)
                    .containsExactlyElementsOf(LongStream.rangeClosed(1, 1 + count).boxed().toList());
        }
    }

    @Test
    void letsExactlyTheCoveredConcurrentWithdrawalsSucceed() throws Exception {
        var account = api.openAccount("alice");
        long amount = 2_500;
        api.deposit(account, 20 * amount);
        var withdrawals = new ArrayList<Callable<TestHttp.Response>>();
        for (int i = 0; i < 50; i++) {
            withdrawals.add(() -> api.withdraw(account, amount));
        }

        var responses = Concurrently.atOnce(withdrawals);

        var byStatus = new HashMap<Integer, List<TestHttp.Response>>();
        responses.forEach(r -> byStatus.computeIfAbsent(r.status(), s -> new ArrayList<>()).add(r));
        assertThat(byStatus.keySet()).containsExactlyInAnyOrder(200, 409);
        assertThat(byStatus.get(200)).hasSize(20);
        assertThat(byStatus.get(409)).hasSize(30)
                .allSatisfy(r -> assertThat(r.json().get("type").asString())
                        .isEqualTo("urn:ledgerlab:problem:insufficient-funds"));
        assertThat(byStatus.get(200).stream().map(r -> r.json().get("balance").asLong()))
                .containsExactlyInAnyOrderElementsOf(LongStream.range(0, 20).map(i -> i * amount).boxed().toList());
        var state = api.account(account).json();
        assertThat(state.get("balance").asLong()).isZero();
        assertThat(state.get("version").asLong()).isEqualTo(22);
        assertThat(runningBalances(account)).allSatisfy(balance -> assertThat(balance).isNotNegative());
    }

    private List<Long> versionsOf(UUID account) {
        return jdbc.sql("SELECT version FROM ledger.events WHERE account_id = ? ORDER BY version")
                .param(account).query(Long.class).list();
    }

    /** The balance after each event, folded from the event store in version order. */
    private List<Long> runningBalances(UUID account) {
        var balances = new ArrayList<Long>();
        long balance = 0;
        for (var payload : jdbc.sql("SELECT payload::text FROM ledger.events WHERE account_id = ? ORDER BY version")
                .param(account).query(String.class).list()) {
            balance = EventCodec.fromJson(payload).event().applyTo(balance);
            balances.add(balance);
        }
        return balances;
    }
}
