package dev.ledgerlab.commandapi.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledgerlab.commandapi.support.CommandApiIntegrationTest;
import dev.ledgerlab.testkit.Scrape;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** /actuator/prometheus, without credentials, counts each command by kind and by what became of it. */
class CommandMetricsTest extends CommandApiIntegrationTest {

    private static final String COMMANDS = "ledger_commands_total";

    @Test
    void countsCommandsByKindAndOutcomeInThePrometheusScrape() {
        var before = scrape();
        var account = api.openAccount("alice");
        api.deposit(account, 500);
        var key = UUID.randomUUID().toString();
        assertThat(api.withdraw(account, 100, "Idempotency-Key", key).status()).isEqualTo(200);
        assertThat(api.withdraw(account, 100, "Idempotency-Key", key).header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(api.withdraw(account, 10_000).status()).isEqualTo(409);
        assertThat(api.deposit(account, 1, "If-Match", "\"1\"").status()).isEqualTo(412);
        assertThat(api.deposit(UUID.randomUUID(), 1).status()).isEqualTo(404);
        var after = scrape();

        assertThat(delta(before, after, "open", "accepted", "none")).isEqualTo(1);
        assertThat(delta(before, after, "deposit", "accepted", "none")).isEqualTo(1);
        assertThat(delta(before, after, "withdraw", "accepted", "none")).isEqualTo(1);
        assertThat(delta(before, after, "withdraw", "replayed", "none")).isEqualTo(1);
        assertThat(delta(before, after, "withdraw", "refused", "insufficient-funds")).isEqualTo(1);
        assertThat(delta(before, after, "deposit", "version-conflict", "version-mismatch")).isEqualTo(1);
        assertThat(delta(before, after, "deposit", "refused", "account-not-found")).isEqualTo(1);
        assertThat(after.sum(COMMANDS) - before.sum(COMMANDS)).as("nothing else counted").isEqualTo(7);
        assertThat(after.has(COMMANDS, "kind", "transfer", "outcome", "accepted")).as("present at 0").isTrue();
        // Reads are not commands; Spring's own request metrics count every request.
        assertThat(after.has("http_server_requests_seconds_count", "uri", "/accounts/{id}/deposits")).isTrue();
    }

    private Scrape scrape() {
        var response = api.get("/actuator/prometheus");
        assertThat(response.status()).as("open without credentials").isEqualTo(200);
        return Scrape.parse(response.body());
    }

    private static double delta(Scrape before, Scrape after, String kind, String outcome, String type) {
        var labels = new String[] {"kind", kind, "outcome", outcome, "type", type};
        return after.sum(COMMANDS, labels) - before.sum(COMMANDS, labels);
    }
}
