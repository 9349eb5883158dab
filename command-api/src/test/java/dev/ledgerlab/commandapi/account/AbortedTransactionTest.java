package dev.ledgerlab.commandapi.account;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ledgerlab.commandapi.support.CommandApiIntegrationTest;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * A transaction PostgreSQL aborts (here a real deadlock, made by the test) is a transient failure: the command runs
 * again and succeeds, it is not answered as an error.
 */
class AbortedTransactionTest extends CommandApiIntegrationTest {

    @Autowired
    private DataSource dataSource;

    @Test
    void runsATransferAgainWhenPostgresAbortsItsTransactionAsADeadlockVictim() throws Exception {
        var alice = api.openAccount("alice");
        var bob = api.openAccount("bob");
        api.deposit(alice, 100);
        boolean aliceFirst = alice.toString().compareTo(bob.toString()) < 0;
        var lower = aliceFirst ? alice : bob;
        var higher = aliceFirst ? bob : alice;
        long deadlocksBefore = deadlocks();

        try (var other = dataSource.getConnection()) {
            other.setAutoCommit(false);
            lock(other, higher);
            // The transfer locks the lower id, then waits here for the higher one, which this transaction holds.
            var transfer = CompletableFuture.supplyAsync(() -> api.transfer(alice, bob, 10));
            await().atMost(Duration.ofSeconds(10)).until(() -> waitingForARowLock() == 1);
            // The cycle: this waits for the transfer's row. The transfer has waited longer, so its deadlock check runs
            // first (after deadlock_timeout, 1 s) and PostgreSQL aborts the transfer's transaction, freeing the row.
            lock(other, lower);
            other.commit();

            var response = transfer.get(30, TimeUnit.SECONDS);
            assertThat(response.status()).as(response.body()).isEqualTo(201);
        }
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(deadlocks() - deadlocksBefore).as("deadlocks PostgreSQL detected").isEqualTo(1));
        assertThat(api.account(alice).json().get("balance").asLong()).isEqualTo(90);
        assertThat(api.account(bob).json().get("balance").asLong()).isEqualTo(10);
    }

    private static void lock(Connection connection, UUID account) throws SQLException {
        try (var statement = connection.prepareStatement(
                "SELECT version FROM ledger.accounts WHERE account_id = ? FOR UPDATE")) {
            statement.setObject(1, account);
            statement.executeQuery().close();
        }
    }

    private long waitingForARowLock() {
        return jdbc.sql("""
                SELECT count(*) FROM pg_stat_activity
                WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%FOR UPDATE%'""")
                .query(Long.class).single();
    }

    private long deadlocks() {
        return jdbc.sql("SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()")
                .query(Long.class).single();
    }
}
