package dev.ledgerlab.commandapi.account;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledgerlab.commandapi.support.CommandApiIntegrationTest;
import dev.ledgerlab.events.EventCodec;
import dev.ledgerlab.events.MoneyReceived;
import dev.ledgerlab.events.MoneySent;
import dev.ledgerlab.testkit.Concurrently;
import dev.ledgerlab.testkit.TestHttp;
import java.util.ArrayList;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** TransferMoney through the API: one transaction, two events sharing a transfer id, or nothing at all. */
class TransferMoneyTest extends CommandApiIntegrationTest {

    private static final String PROBLEM = "urn:ledgerlab:problem:";

    @Test
    void movesMoneyAsTwoEventsWithOneTransferIdAndAnswersBothSides() {
        var alice = api.openAccount("alice");
        var bob = api.openAccount("bob");
        api.deposit(alice, 1_000);

        var response = api.transfer(alice, bob, 300);

        assertThat(response.status()).as(response.body()).isEqualTo(201);
        var body = response.json();
        var transferId = UUID.fromString(body.get("transferId").asString());
        assertThat(response.header("Location")).isEqualTo("/transfers/" + transferId);
        assertThat(response.header("ETag")).as("the source's new version").isEqualTo("\"3\"");
        assertThat(body.get("from").get("accountId").asString()).isEqualTo(alice.toString());
        assertThat(body.get("from").get("version").asLong()).isEqualTo(3);
        assertThat(body.get("from").get("balance").asLong()).isEqualTo(700);
        assertThat(body.get("to").get("accountId").asString()).isEqualTo(bob.toString());
        assertThat(body.get("to").get("version").asLong()).isEqualTo(2);
        assertThat(body.get("to").get("balance").asLong()).isEqualTo(300);
        var sent = EventCodec.fromJson(api.events(alice).json().get(2).toString());
        var received = EventCodec.fromJson(api.events(bob).json().get(1).toString());
        assertThat(sent.event()).isEqualTo(new MoneySent(transferId, bob, 300));
        assertThat(received.event()).isEqualTo(new MoneyReceived(transferId, alice, 300));

        var stored = api.get("/transfers/" + transferId);
        assertThat(stored.status()).isEqualTo(200);
        assertThat(stored.json().get("amount").asLong()).isEqualTo(300);
        assertThat(stored.json().get("from").get("eventId").asString()).isEqualTo(sent.eventId().toString());
        assertThat(stored.json().get("to").get("eventId").asString()).isEqualTo(received.eventId().toString());
        assertThat(stored.json().get("to").get("version").asLong()).isEqualTo(2);
    }

    @Test
    void answersTheWriteSidesTotalFromOneSnapshotUnchangedByTransfers() {
        var alice = api.openAccount("alice");
        var bob = api.openAccount("bob");
        api.deposit(alice, 5_000);
        var before = api.get("/ledger/total").json();

        assertThat(api.transfer(alice, bob, 1_234).status()).isEqualTo(201);

        var after = api.get("/ledger/total").json();
        // Other tests' accounts share this database, some near the largest balance: the total exceeds a long.
        assertThat(after.get("balance").bigIntegerValue()).isEqualTo(before.get("balance").bigIntegerValue());
        assertThat(after.get("accounts").asLong()).isEqualTo(before.get("accounts").asLong());
        assertThat(jdbc.sql("SELECT sum(balance) FROM ledger.accounts").query(java.math.BigDecimal.class).single()
                .toBigIntegerExact()).isEqualTo(after.get("balance").bigIntegerValue());
    }

    static Stream<Arguments> refusals() {
        return Stream.of(
                Arguments.of("same account", "{\"from\":\"%1$s\",\"to\":\"%1$s\",\"amount\":1}", 400,
                        "same-account-transfer"),
                Arguments.of("unknown source", "{\"from\":\"%3$s\",\"to\":\"%2$s\",\"amount\":1}", 404,
                        "account-not-found"),
                Arguments.of("unknown target", "{\"from\":\"%1$s\",\"to\":\"%3$s\",\"amount\":1}", 404,
                        "account-not-found"),
                Arguments.of("insufficient funds", "{\"from\":\"%1$s\",\"to\":\"%2$s\",\"amount\":1001}", 409,
                        "insufficient-funds"),
                Arguments.of("zero amount", "{\"from\":\"%1$s\",\"to\":\"%2$s\",\"amount\":0}", 400, "invalid-amount"),
                Arguments.of("float amount", "{\"from\":\"%1$s\",\"to\":\"%2$s\",\"amount\":1.5}", 400,
                        "invalid-amount"),
                Arguments.of("missing target", "{\"from\":\"%1$s\",\"amount\":1}", 400, "invalid-account-id"),
                Arguments.of("target not a uuid", "{\"from\":\"%1$s\",\"to\":\"bob\",\"amount\":1}", 400,
                        "invalid-account-id"),
                Arguments.of("unknown field", "{\"from\":\"%1$s\",\"to\":\"%2$s\",\"amount\":1,\"memo\":\"x\"}", 400,
                        "unknown-field"),
                Arguments.of("not json", "{\"from\":", 400, "malformed-json"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusals")
    void refusesABadTransferAndWritesNothing(String name, String template, int status, String type) {
        var alice = api.openAccount("alice");
        var bob = api.openAccount("bob");
        api.deposit(alice, 1_000);
        var before = snapshot();

        var response = api.post("/transfers", template.formatted(alice, bob, UUID.randomUUID()));

        assertThat(response.status()).as(response.body()).isEqualTo(status);
        assertThat(response.problemType()).isEqualTo(PROBLEM + type);
        assertThat(snapshot()).isEqualTo(before);
    }

    @Test
    void namesWhichSideOfATransferIsMissing() {
        var alice = api.openAccount("alice");
        var nobody = UUID.randomUUID();

        var response = api.transfer(alice, nobody, 1);

        assertThat(response.status()).isEqualTo(404);
        assertThat(response.json().get("side").asString()).isEqualTo("to");
        assertThat(response.json().get("accountId").asString()).isEqualTo(nobody.toString());
        assertThat(response.json().get("detail").asString()).contains(nobody.toString());
    }

    @Test
    void refusesATransferThatWouldOverflowTheTarget() {
        var alice = api.openAccount("alice");
        var bob = api.openAccount("bob");
        api.deposit(alice, 10);
        jdbc.sql("UPDATE ledger.accounts SET balance = ? WHERE account_id = ?").params(Long.MAX_VALUE - 5, bob)
                .update();
        var before = snapshot();

        var response = api.transfer(alice, bob, 10);

        assertThat(response.status()).isEqualTo(409);
        assertThat(response.problemType()).isEqualTo(PROBLEM + "balance-overflow");
        assertThat(snapshot()).isEqualTo(before);
    }

    @Test
    void checksIfMatchAgainstTheSourceAccount() {
        var alice = api.openAccount("alice");
        var bob = api.openAccount("bob");
        api.deposit(alice, 100);

        var stale = api.transfer(alice, bob, 10, "If-Match", "\"1\"");
        var current = api.transfer(alice, bob, 10, "If-Match", "\"2\"");

        assertThat(stale.status()).isEqualTo(412);
        assertThat(stale.problemType()).isEqualTo(PROBLEM + "version-mismatch");
        assertThat(current.status()).as(current.body()).isEqualTo(201);
    }

    @Test
    void replaysATransferRetriedWithItsIdempotencyKeyInsteadOfMovingTheMoneyTwice() {
        var alice = api.openAccount("alice");
        var bob = api.openAccount("bob");
        api.deposit(alice, 100);

        var first = api.transfer(alice, bob, 60, "Idempotency-Key", "transfer-once");
        var retry = api.transfer(alice, bob, 60, "Idempotency-Key", "transfer-once");

        assertThat(first.status()).isEqualTo(201);
        assertThat(retry.status()).isEqualTo(201);
        assertThat(retry.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(retry.json().get("transferId")).isEqualTo(first.json().get("transferId"));
        assertThat(api.account(alice).json().get("balance").asLong()).isEqualTo(40);
    }

    @Test
    void answersAnUnknownOrMalformedTransferIdAsAProblem() {
        assertThat(api.get("/transfers/" + UUID.randomUUID()).problemType()).isEqualTo(PROBLEM + "transfer-not-found");
        assertThat(api.get("/transfers/nope").problemType()).isEqualTo(PROBLEM + "invalid-transfer-id");
    }

    /**
     * Opposite transfers between the same two accounts, all at once: with the rows locked in one order none
     * deadlocks (PostgreSQL would abort one with 40P01, answered 500), and the money adds up.
     */
    @Test
    void neverDeadlocksOnOppositeTransfersBetweenTheSameAccounts() throws Exception {
        var alice = api.openAccount("alice");
        var bob = api.openAccount("bob");
        api.deposit(alice, 100_000);
        api.deposit(bob, 100_000);
        var transfers = new ArrayList<Callable<TestHttp.Response>>();
        for (int i = 0; i < 60; i++) {
            boolean fromAlice = i % 2 == 0;
            transfers.add(() -> fromAlice ? api.transfer(alice, bob, 7) : api.transfer(bob, alice, 11));
        }

        var responses = Concurrently.atOnce(transfers);

        assertThat(responses).allSatisfy(r -> assertThat(r.status()).as(r.body()).isEqualTo(201));
        assertThat(api.account(alice).json().get("balance").asLong()).isEqualTo(100_000 - 30 * 7 + 30 * 11);
        assertThat(api.account(bob).json().get("balance").asLong()).isEqualTo(100_000 + 30 * 7 - 30 * 11);
        assertThat(api.account(alice).json().get("version").asLong()).isEqualTo(2 + 60);
    }
}
