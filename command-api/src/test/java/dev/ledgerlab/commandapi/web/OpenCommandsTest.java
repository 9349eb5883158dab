package dev.ledgerlab.commandapi.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledgerlab.commandapi.support.CommandApiIntegrationTest;
import org.junit.jupiter.api.Test;

/**
 * Commands and their reads skip Spring Security's filter chain ({@link OpenCommandsConfiguration}), which cost a sixth of a
 * deposit's CPU, but keep the two of its headers that matter to a JSON API: no content sniffing, no caching of an
 * answer that changes with every command. Problems answered on those paths carry them too.
 */
class OpenCommandsTest extends CommandApiIntegrationTest {

    @Test
    void answersCommandsTheirReadsAndTheirProblemsWithoutSniffingOrCaching() {
        var account = api.openAccount("headers");
        var answers = java.util.List.of(api.deposit(account, 5), api.account(account),
                api.post("/accounts", "{\"owner\":"));
        assertThat(answers).extracting(answer -> answer.status()).containsExactly(200, 200, 400);
        for (var answer : answers) {
            assertThat(answer.header("X-Content-Type-Options")).as(answer.body()).isEqualTo("nosniff");
            assertThat(answer.header("Cache-Control")).as(answer.body()).contains("no-store");
        }
    }
}
