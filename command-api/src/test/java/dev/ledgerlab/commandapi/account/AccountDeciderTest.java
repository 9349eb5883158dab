package dev.ledgerlab.commandapi.account;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ledgerlab.events.AccountOpened;
import dev.ledgerlab.events.MoneyDeposited;
import dev.ledgerlab.events.MoneyReceived;
import dev.ledgerlab.events.MoneySent;
import dev.ledgerlab.events.MoneyWithdrawn;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Given this state, when this command, then these events or this rejection. No Spring, no database. */
class AccountDeciderTest {

    private static final UUID ID = UUID.fromString("5b0f6f2e-3d8a-4c39-9a57-2f1c0e4b7a10");

    private static Account withBalance(long balance) {
        return new Account(ID, "alice", balance, 7);
    }

    @Test
    void opensAnAccountThatDoesNotExistYet() {
        assertThat(AccountDecider.decide(new OpenAccount("alice"), null)).containsExactly(new AccountOpened("alice"));
    }

    @Test
    void refusesToOpenAnAccountTwice() {
        assertThatThrownBy(() -> AccountDecider.decide(new OpenAccount("alice"), withBalance(0)))
                .isInstanceOf(Rejection.AlreadyOpened.class);
    }

    @Test
    void depositsOntoAnOpenAccount() {
        assertThat(AccountDecider.decide(new DepositMoney(250), withBalance(100)))
                .containsExactly(new MoneyDeposited(250));
    }

    @Test
    void rejectsCommandsOnAnAccountThatDoesNotExist() {
        assertThatThrownBy(() -> AccountDecider.decide(new DepositMoney(1), null))
                .isInstanceOf(Rejection.NotOpened.class);
        assertThatThrownBy(() -> AccountDecider.decide(new WithdrawMoney(1), null))
                .isInstanceOf(Rejection.NotOpened.class);
    }

    @Test
    void withdrawsTheWholeBalance() {
        assertThat(AccountDecider.decide(new WithdrawMoney(100), withBalance(100)))
                .containsExactly(new MoneyWithdrawn(100));
    }

    @Test
    void rejectsWithdrawalExceedingBalance() {
        assertThatThrownBy(() -> AccountDecider.decide(new WithdrawMoney(101), withBalance(100)))
                .isInstanceOfSatisfying(Rejection.InsufficientFunds.class, r -> {
                    assertThat(r.balance()).isEqualTo(100);
                    assertThat(r.amount()).isEqualTo(101);
                });
    }

    @Test
    void rejectsADepositThatWouldOverflowTheBalanceInsteadOfWrappingIt() {
        assertThat(AccountDecider.decide(new DepositMoney(1), withBalance(Long.MAX_VALUE - 1)))
                .containsExactly(new MoneyDeposited(1));
        assertThatThrownBy(() -> AccountDecider.decide(new DepositMoney(2), withBalance(Long.MAX_VALUE - 1)))
                .isInstanceOf(Rejection.BalanceOverflow.class);
        assertThatThrownBy(() -> AccountDecider.decide(new DepositMoney(Long.MAX_VALUE), withBalance(Long.MAX_VALUE)))
                .isInstanceOf(Rejection.BalanceOverflow.class);
    }

    @Test
    void refusesNonPositiveAmountsWhenTheCommandIsMade() {
        assertThatThrownBy(() -> new DepositMoney(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new WithdrawMoney(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void evolvesVersionByOnePerEventAndFoldsTheBalance() {
        var opened = Account.evolve(ID, null, new AccountOpened("alice"));
        var afterDeposit = Account.evolve(ID, opened, new MoneyDeposited(500));
        var afterWithdrawal = Account.evolve(ID, afterDeposit, new MoneyWithdrawn(200));

        assertThat(opened).isEqualTo(new Account(ID, "alice", 0, 1));
        assertThat(afterDeposit).isEqualTo(new Account(ID, "alice", 500, 2));
        assertThat(afterWithdrawal).isEqualTo(new Account(ID, "alice", 300, 3));
    }

    @Test
    void parsesIfMatchEntityTags() {
        assertThat(IfMatch.parse("\"3\"").matches(3)).isTrue();
        assertThat(IfMatch.parse("\"3\"").matches(4)).isFalse();
        assertThat(IfMatch.parse("\"2\", \"4\"").matches(4)).isTrue();
        assertThat(IfMatch.parse("*").matches(9)).isTrue();
        assertThat(IfMatch.parse("W/\"3\"").matches(3)).as("weak tags never match").isFalse();
        assertThat(IfMatch.NONE.matches(1)).isTrue();
        assertThatThrownBy(() -> IfMatch.parse("3")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> IfMatch.parse("\"99999999999999999999\"")).isInstanceOf(IllegalArgumentException.class);
    }

    private static final UUID OTHER = UUID.fromString("9c3e1d52-7a64-4f0b-8e21-6d5a4b3c2f19");
    private static final UUID TRANSFER = UUID.fromString("0195f3a8-7c1e-7000-8000-0000000000f1");

    @Test
    void transfersAsOneEventOnEachSideWithTheSameTransferId() {
        var events = AccountDecider.decide(new TransferMoney(ID, OTHER, 40), TRANSFER, withBalance(100),
                new Account(OTHER, "bob", 5, 2));

        assertThat(events.sent()).isEqualTo(new MoneySent(TRANSFER, OTHER, 40));
        assertThat(events.received()).isEqualTo(new MoneyReceived(TRANSFER, ID, 40));
    }

    @Test
    void refusesATransferTheSourceCannotCoverOrTheTargetCannotHold() {
        assertThatThrownBy(() -> AccountDecider.decide(new TransferMoney(ID, OTHER, 101), TRANSFER, withBalance(100),
                new Account(OTHER, "bob", 0, 1))).isInstanceOf(Rejection.InsufficientFunds.class);
        assertThatThrownBy(() -> AccountDecider.decide(new TransferMoney(ID, OTHER, 10), TRANSFER, withBalance(100),
                new Account(OTHER, "bob", Long.MAX_VALUE - 9, 1))).isInstanceOf(Rejection.BalanceOverflow.class);
    }

    @Test
    void refusesATransferToItselfOrBetweenAccountsThatDoNotExist() {
        assertThatThrownBy(() -> AccountDecider.decide(new TransferMoney(ID, ID, 1), TRANSFER, withBalance(100),
                withBalance(100))).isInstanceOf(Rejection.SameAccount.class);
        assertThatThrownBy(() -> AccountDecider.decide(new TransferMoney(ID, OTHER, 1), TRANSFER, null,
                new Account(OTHER, "bob", 0, 1))).isInstanceOf(Rejection.TransferAccountMissing.class)
                .hasMessageContaining("\"from\"");
        assertThatThrownBy(() -> AccountDecider.decide(new TransferMoney(ID, OTHER, 1), TRANSFER, withBalance(100),
                null)).isInstanceOf(Rejection.TransferAccountMissing.class).hasMessageContaining("\"to\"");
    }
}
