package dev.ledgerlab.commandapi.account;

import dev.ledgerlab.events.AccountEvent;
import dev.ledgerlab.events.AccountOpened;
import dev.ledgerlab.events.MoneyDeposited;
import dev.ledgerlab.events.MoneyReceived;
import dev.ledgerlab.events.MoneySent;
import dev.ledgerlab.events.MoneyWithdrawn;
import java.util.List;
import java.util.UUID;

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

    /** A transfer's two events: one for each account, the same transfer id in both. */
    public record TransferEvents(MoneySent sent, MoneyReceived received) {
    }

    /**
     * @param from the source account, or null when it does not exist
     * @param to the target account, or null when it does not exist
     * @throws Rejection when either account is missing or the states do not allow the transfer
     */
    public static TransferEvents decide(TransferMoney transfer, UUID transferId, Account from, Account to) {
        if (transfer.from().equals(transfer.to())) {
            throw new Rejection.SameAccount();
        }
        if (from == null) {
            throw new Rejection.TransferAccountMissing("from", transfer.from());
        }
        if (to == null) {
            throw new Rejection.TransferAccountMissing("to", transfer.to());
        }
        if (transfer.amount() > from.balance()) {
            throw new Rejection.InsufficientFunds(from.balance(), transfer.amount());
        }
        if (to.balance() > Long.MAX_VALUE - transfer.amount()) {
            throw new Rejection.BalanceOverflow(to.balance(), transfer.amount());
        }
        return new TransferEvents(new MoneySent(transferId, to.id(), transfer.amount()),
                new MoneyReceived(transferId, from.id(), transfer.amount()));
    }
}
