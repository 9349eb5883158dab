package dev.ledgerlab.commandapi.account;

import dev.ledgerlab.events.AccountEvent;
import dev.ledgerlab.events.AccountOpened;
import dev.ledgerlab.events.MoneyDeposited;
import dev.ledgerlab.events.MoneyWithdrawn;
import java.util.List;

/** decide(command, state) -> events: the business rules, pure, with no Spring and no database. */
public final class AccountDecider {

    private AccountDecider() {
    }

    /**
     * @param state the account, or null when it does not exist yet
     * @throws Rejection when the state does not allow the command
     */
    public static List<AccountEvent> decide(AccountCommand command, Account state) {
        // Java 17 has no pattern matching for switch; the sealed interface keeps this chain exhaustive in review.
        if (command instanceof OpenAccount open) {
            if (state != null) {
                throw new Rejection.AlreadyOpened();
            }
            return List.of(new AccountOpened(open.owner()));
        }
        if (state == null) {
            throw new Rejection.NotOpened();
        }
        if (command instanceof DepositMoney deposit) {
            if (state.balance() > Long.MAX_VALUE - deposit.amount()) {
                throw new Rejection.BalanceOverflow(state.balance(), deposit.amount());
            }
            return List.of(new MoneyDeposited(deposit.amount()));
        }
        if (command instanceof WithdrawMoney withdrawal) {
            if (withdrawal.amount() > state.balance()) {
                throw new Rejection.InsufficientFunds(state.balance(), withdrawal.amount());
            }
            return List.of(new MoneyWithdrawn(withdrawal.amount()));
        }
        throw new IllegalArgumentException("unknown command " + command);
    }
}
