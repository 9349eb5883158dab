package dev.ledgerlab.commandapi.account;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledgerlab.commandapi.support.CommandApiIntegrationTest;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The connection breaks while PostgreSQL commits a command: the service cannot know whether the commit happened, so
 * it must not answer 500 "wrote nothing" (a claim it cannot make, and a status that clients do not retry). The break
 * is real and lands exactly on COMMIT: a deferred constraint trigger, which PostgreSQL runs during COMMIT, has the
 * backend terminate itself (FATAL 57P01, the message a backend sends when its postmaster dies under it, as in
 * {@code OutageProofTest}). The pool then evicts the connection, so Spring's rollback after the failed commit fails
 * as well ("Connection is closed", no SQLSTATE), which is what hid the commit's failure before.
 */
class BrokenCommitTest extends CommandApiIntegrationTest {

    @AfterEach
    void removeTheTrigger() {
        jdbc.sql("DROP TRIGGER IF EXISTS broken_commit ON ledger.events").update();
        jdbc.sql("DROP FUNCTION IF EXISTS ledger.broken_commit()").update();
    }

    @Test
    void answersOutcomeUnknownWhenTheConnectionBreaksAtCommitAndTheKeyThenAppliesItOnce() {
        var account = api.openAccount("alice");
        breakTheCommitOfTheNextEventOf(account);
        var key = UUID.randomUUID().toString();

        var broken = api.deposit(account, 700, "Idempotency-Key", key);

        assertThat(broken.status()).as(broken.body()).isEqualTo(503);
        assertThat(broken.problemType()).isEqualTo("urn:ledgerlab:problem:database-unavailable");
        assertThat(broken.json().get("outcome").asString()).isEqualTo("unknown");
        assertThat(broken.header("Retry-After")).isNotNull();
        // Here the commit did not happen (the backend died before it could): the retry with the key runs it once.
        assertThat(eventsOf(account)).isEqualTo(1);
        removeTheTrigger();
        var retry = api.deposit(account, 700, "Idempotency-Key", key);
        assertThat(retry.status()).as(retry.body()).isEqualTo(200);
        assertThat(retry.header("Idempotent-Replayed")).isNull();
        assertThat(api.deposit(account, 700, "Idempotency-Key", key).header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(eventsOf(account)).isEqualTo(2);
        assertThat(api.account(account).json().get("balance").asLong()).isEqualTo(700);
    }

    /** pg_sleep keeps the backend in the trigger until the termination, which is handled at its first wait. */
    private void breakTheCommitOfTheNextEventOf(UUID id) {
        jdbc.sql("""
                CREATE FUNCTION ledger.broken_commit() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    PERFORM pg_terminate_backend(pg_backend_pid());
                    PERFORM pg_sleep(5);
                    RETURN NULL;
                END $$""").update();
        jdbc.sql("CREATE CONSTRAINT TRIGGER broken_commit AFTER INSERT ON ledger.events DEFERRABLE INITIALLY DEFERRED"
                + " FOR EACH ROW WHEN (NEW.account_id = '" + id + "') EXECUTE FUNCTION ledger.broken_commit()")
                .update();
    }

    private long eventsOf(UUID id) {
        return jdbc.sql("SELECT count(*) FROM ledger.events WHERE account_id = ?").param(id)
                .query(Long.class).single();
    }
}
