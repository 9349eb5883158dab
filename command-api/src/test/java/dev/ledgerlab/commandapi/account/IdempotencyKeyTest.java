package dev.ledgerlab.commandapi.account;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledgerlab.commandapi.support.CommandApiIntegrationTest;
import dev.ledgerlab.testkit.TestHttp;
import java.util.ArrayList;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class IdempotencyKeyTest extends CommandApiIntegrationTest {

    private long eventsOf(UUID account) {
        return jdbc.sql("SELECT count(*) FROM ledger.events WHERE account_id = ?").param(account)
                .query(Long.class).single();
    }

    @Test
    void replaysTheOriginalResponseForARetryAndWritesNoSecondEvent() {
        var account = api.openAccount("alice");
        var key = UUID.randomUUID().toString();

        var first = api.deposit(account, 700, "Idempotency-Key", key);
        var before = snapshot();
        var retry = api.deposit(account, 700, "Idempotency-Key", key);

        assertThat(first.status()).isEqualTo(200);
        assertThat(retry.status()).isEqualTo(200);
        assertThat(retry.json()).isEqualTo(first.json());
        assertThat(retry.header("ETag")).isEqualTo(first.header("ETag"));
        assertThat(retry.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(first.header("Idempotent-Replayed")).isNull();
        assertThat(snapshot()).isEqualTo(before);
        assertThat(eventsOf(account)).isEqualTo(2);
        assertThat(api.account(account).json().get("balance").asLong()).isEqualTo(700);
    }

    @Test
    void replaysAnAccountOpeningWithTheSameAccountId() {
        var key = UUID.randomUUID().toString();

        var first = api.post("/accounts", "{\"owner\":\"alice\"}", "Idempotency-Key", key);
        var retry = api.post("/accounts", "{\"owner\":\"alice\"}", "Idempotency-Key", key);

        assertThat(retry.status()).isEqualTo(201);
        assertThat(retry.json()).isEqualTo(first.json());
        assertThat(retry.header("Location")).isEqualTo(first.header("Location"));
        assertThat(jdbc.sql("SELECT count(*) FROM ledger.accounts WHERE owner = 'alice' AND account_id = ?")
                .param(UUID.fromString(first.json().get("accountId").asString())).query(Long.class).single())
                .isEqualTo(1);
    }

    @Test
    void rejectsTheSameKeyWithADifferentRequestAndWritesNothing() {
        var account = api.openAccount("alice");
        var key = UUID.randomUUID().toString();
        api.deposit(account, 700, "Idempotency-Key", key);
        var before = snapshot();

        var otherAmount = api.deposit(account, 701, "Idempotency-Key", key);
        var otherCommand = api.withdraw(account, 700, "Idempotency-Key", key);
        var otherAccount = api.deposit(api.openAccount("bob"), 700, "Idempotency-Key", key);

        for (var response : new TestHttp.Response[] {otherAmount, otherCommand, otherAccount}) {
            assertThat(response.status()).isEqualTo(422);
            assertThat(response.json().get("type").asString())
                    .isEqualTo("urn:ledgerlab:problem:idempotency-key-reused");
        }
        assertThat(eventsOf(account)).isEqualTo(2);
        assertThat(snapshot().idempotencyKeys()).isEqualTo(before.idempotencyKeys());
    }

    @Test
    void letsARejectedCommandBeRetriedWithTheSameKeyOnceItCanSucceed() {
        var account = api.openAccount("alice");
        var key = UUID.randomUUID().toString();

        var refused = api.withdraw(account, 300, "Idempotency-Key", key);
        api.deposit(account, 500);
        var retried = api.withdraw(account, 300, "Idempotency-Key", key);

        assertThat(refused.status()).isEqualTo(409);
        assertThat(retried.status()).isEqualTo(200);
        assertThat(retried.json().get("balance").asLong()).isEqualTo(200);
    }

    @Test
    void appliesConcurrentRetriesWithOneKeyExactlyOnce() throws Exception {
        var account = api.openAccount("alice");
        var key = UUID.randomUUID().toString();
        int retries = 20;
        var start = new CountDownLatch(1);
        var pool = Executors.newFixedThreadPool(retries);
        try {
            var responses = new ArrayList<Future<TestHttp.Response>>();
            for (int i = 0; i < retries; i++) {
                responses.add(pool.submit(() -> {
                    start.await();
                    return api.deposit(account, 250, "Idempotency-Key", key);
                }));
            }
            start.countDown();
            var bodies = new ArrayList<String>();
            for (var response : responses) {
                var r = response.get(60, TimeUnit.SECONDS);
                assertThat(r.status()).isEqualTo(200);
                bodies.add(r.json().toString());
            }
            assertThat(bodies).containsOnly(bodies.get(0));
        } finally {
            pool.shutdownNow();
        }
        assertThat(eventsOf(account)).isEqualTo(2);
        assertThat(api.account(account).json().get("balance").asLong()).isEqualTo(250);
    }
}
