package dev.ledgerlab.commandapi.account;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledgerlab.commandapi.support.CommandApiIntegrationTest;
import org.junit.jupiter.api.Test;

/** Optimistic concurrency for clients: If-Match carries the version the client decided on. */
class IfMatchTest extends CommandApiIntegrationTest {

    @Test
    void rejectsACommandDecidedOnAStaleVersionWithPreconditionFailedAndWritesNothing() {
        var account = api.openAccount("alice");
        var seen = api.deposit(account, 100).header("ETag");
        api.deposit(account, 100);
        var before = snapshot();

        var response = api.withdraw(account, 50, "If-Match", seen);

        assertThat(response.status()).isEqualTo(412);
        assertThat(response.contentType()).startsWith("application/problem+json");
        assertThat(response.json().get("type").asString()).isEqualTo("urn:ledgerlab:problem:version-mismatch");
        assertThat(response.json().get("currentVersion").asLong()).isEqualTo(3);
        assertThat(response.header("ETag")).isEqualTo("\"3\"");
        assertThat(snapshot()).isEqualTo(before);
    }

    @Test
    void acceptsACommandDecidedOnTheCurrentVersion() {
        var account = api.openAccount("alice");
        var current = api.deposit(account, 100).header("ETag");

        var response = api.withdraw(account, 50, "If-Match", current);

        assertThat(response.status()).isEqualTo(200);
        assertThat(response.json().get("version").asLong()).isEqualTo(3);
        assertThat(response.header("ETag")).isEqualTo("\"3\"");
    }

    @Test
    void letsOnlyOneOfTwoClientsHoldingTheSameVersionWin() {
        var account = api.openAccount("alice");
        var seen = api.deposit(account, 100).header("ETag");

        var first = api.withdraw(account, 60, "If-Match", seen);
        var second = api.withdraw(account, 60, "If-Match", seen);

        assertThat(first.status()).isEqualTo(200);
        assertThat(second.status()).isEqualTo(412);
        assertThat(api.account(account).json().get("balance").asLong()).isEqualTo(40);
    }
}
