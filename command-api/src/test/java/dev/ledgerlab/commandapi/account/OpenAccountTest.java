package dev.ledgerlab.commandapi.account;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledgerlab.commandapi.support.CommandApiIntegrationTest;
import dev.ledgerlab.events.AccountOpened;
import dev.ledgerlab.events.EventCodec;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class OpenAccountTest extends CommandApiIntegrationTest {

    @Test
    void opensAnAccountAtVersionOneWithZeroBalance() {
        var response = api.post("/accounts", "{\"owner\":\"alice\"}");

        assertThat(response.status()).isEqualTo(201);
        var accountId = UUID.fromString(response.json().get("accountId").asString());
        assertThat(response.json().get("version").asLong()).isEqualTo(1);
        assertThat(response.json().get("balance").asLong()).isZero();
        assertThat(response.header("Location")).isEqualTo("/accounts/" + accountId);
        assertThat(response.header("ETag")).isEqualTo("\"1\"");

        var account = api.account(accountId);
        assertThat(account.status()).isEqualTo(200);
        assertThat(account.json().get("owner").asString()).isEqualTo("alice");
        assertThat(account.header("ETag")).isEqualTo("\"1\"");
    }

    @Test
    void appendsAccountOpenedInTheSameTransactionAsTheAccountRow() {
        var accountId = api.openAccount("bob");

        var events = api.events(accountId).json();
        assertThat(events.size()).isEqualTo(1);
        var envelope = EventCodec.fromJson(events.get(0).toString());
        assertThat(envelope.accountId()).isEqualTo(accountId);
        assertThat(envelope.version()).isEqualTo(1);
        assertThat(envelope.event()).isEqualTo(new AccountOpened("bob"));
        assertThat(jdbc.sql("SELECT type FROM ledger.events WHERE account_id = ?").param(accountId)
                .query(String.class).single()).isEqualTo("AccountOpened");
    }

    @Test
    void answersNotFoundForAnAccountThatDoesNotExist() {
        var response = api.account(UUID.randomUUID());

        assertThat(response.status()).isEqualTo(404);
        assertThat(response.contentType()).startsWith("application/problem+json");
        assertThat(response.json().get("type").asString()).isEqualTo("urn:ledgerlab:problem:account-not-found");
        assertThat(api.events(UUID.randomUUID()).status()).isEqualTo(404);
    }

    /**
     * The caller's trace is continued: the event stores the context of the request's own server span (same trace,
     * this service's span as the parent of what follows), the caller's tracestate with it, and the response names
     * that span in its traceparent.
     */
    @Test
    void storesTheW3cTraceContextOfTheRequestWithTheEvent() {
        var traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        var response = api.post("/accounts", "{\"owner\":\"carol\"}", "traceparent", traceparent,
                "tracestate", "lab=1");
        var accountId = UUID.fromString(response.json().get("accountId").asString());

        var answered = response.header("traceparent");
        assertThat(answered).matches("00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-01")
                .isNotEqualTo(traceparent);
        assertThat(jdbc.sql("SELECT traceparent || ' ' || tracestate FROM ledger.events WHERE account_id = ?")
                .param(accountId).query(String.class).single()).isEqualTo(answered + " lab=1");
    }

    @Test
    void startsATraceForARequestThatCameWithoutOneAndStoresIt() {
        var response = api.post("/accounts", "{\"owner\":\"dave\"}");
        var accountId = UUID.fromString(response.json().get("accountId").asString());

        assertThat(response.header("traceparent")).matches("00-[0-9a-f]{32}-[0-9a-f]{16}-01");
        assertThat(jdbc.sql("SELECT traceparent FROM ledger.events WHERE account_id = ?")
                .param(accountId).query(String.class).single()).isEqualTo(response.header("traceparent"));
    }
}
