package dev.ledgerlab.commandapi.account;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledgerlab.commandapi.support.CommandApiIntegrationTest;
import dev.ledgerlab.events.EventCodec;
import dev.ledgerlab.events.MoneyDeposited;
import dev.ledgerlab.events.MoneyWithdrawn;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** DepositMoney and WithdrawMoney through the API: each is one event and one new account version. */
class MoveMoneyTest extends CommandApiIntegrationTest {

    @Test
    void depositsAndAnswersTheNewVersionBalanceAndEvent() {
        var account = api.openAccount("alice");

        var response = api.deposit(account, 12_345);

        assertThat(response.status()).isEqualTo(200);
        var body = response.json();
        assertThat(body.get("accountId").asString()).isEqualTo(account.toString());
        assertThat(body.get("version").asLong()).isEqualTo(2);
        assertThat(body.get("balance").asLong()).isEqualTo(12_345);
        assertThat(response.header("ETag")).isEqualTo("\"2\"");
        var events = api.events(account).json();
        var deposited = EventCodec.fromJson(events.get(1).toString());
        assertThat(deposited.eventId().toString()).isEqualTo(body.get("eventId").asString());
        assertThat(deposited.version()).isEqualTo(2);
        assertThat(deposited.event()).isEqualTo(new MoneyDeposited(12_345));
    }

    @Test
    void withdrawsAndListsEveryEventInVersionOrder() {
        var account = api.openAccount("alice");
        api.deposit(account, 1_000);

        var response = api.withdraw(account, 400);

        assertThat(response.status()).isEqualTo(200);
        assertThat(response.json().get("version").asLong()).isEqualTo(3);
        assertThat(response.json().get("balance").asLong()).isEqualTo(600);
        var events = api.events(account).json();
        assertThat(events.size()).isEqualTo(3);
        for (int i = 0; i < 3; i++) {
            assertThat(events.get(i).get("version").asLong()).isEqualTo(i + 1);
        }
        assertThat(EventCodec.fromJson(events.get(2).toString()).event()).isEqualTo(new MoneyWithdrawn(400));
        var state = api.account(account).json();
        assertThat(state.get("balance").asLong()).isEqualTo(600);
        assertThat(state.get("version").asLong()).isEqualTo(3);
    }

    @Test
    void rejectsWithdrawalExceedingBalanceAndWritesNothing() {
        var account = api.openAccount("alice");
        api.deposit(account, 100);
        var before = snapshot();

        var response = api.withdraw(account, 101);

        assertThat(response.status()).isEqualTo(409);
        assertThat(response.contentType()).startsWith("application/problem+json");
        assertThat(response.json().get("type").asString()).isEqualTo("urn:ledgerlab:problem:insufficient-funds");
        assertThat(response.json().get("balance").asLong()).isEqualTo(100);
        assertThat(snapshot()).isEqualTo(before);
    }

    @Test
    void rejectsMoneyMovementsOnAnUnknownAccountAndWritesNothing() {
        var before = snapshot();

        var deposit = api.deposit(UUID.randomUUID(), 5);
        var withdrawal = api.withdraw(UUID.randomUUID(), 5);

        assertThat(deposit.status()).isEqualTo(404);
        assertThat(deposit.json().get("type").asString()).isEqualTo("urn:ledgerlab:problem:account-not-found");
        assertThat(withdrawal.status()).isEqualTo(404);
        assertThat(snapshot()).isEqualTo(before);
    }
}
