package dev.ledgerlab.commandapi.account;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledgerlab.commandapi.support.CommandApiIntegrationTest;
import org.junit.jupiter.api.Test;
import org.springframework.test.context.TestPropertySource;

/** With the amount limit lifted, two large deposits reach Long.MAX_VALUE: the second is refused, never wrapped. */
@TestPropertySource(properties = "ledger.commands.max-amount=" + Long.MAX_VALUE)
class BalanceOverflowTest extends CommandApiIntegrationTest {

    @Test
    void rejectsADepositThatWouldOverflowTheBalanceAndWritesNothing() {
        var account = api.openAccount("alice");
        assertThat(api.deposit(account, Long.MAX_VALUE - 10).status()).isEqualTo(200);
        var before = snapshot();

        var response = api.deposit(account, 11);

        assertThat(response.status()).isEqualTo(409);
        assertThat(response.json().get("type").asString()).isEqualTo("urn:ledgerlab:problem:balance-overflow");
        assertThat(snapshot()).isEqualTo(before);
        assertThat(api.deposit(account, 10).json().get("balance").asLong()).isEqualTo(Long.MAX_VALUE);
    }
}
