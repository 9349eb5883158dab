package dev.ledgerlab.commandapi.account;

/** What a client asks of an account. Amounts are positive minor units, checked when the command is made. */
public sealed interface AccountCommand permits OpenAccount, DepositMoney, WithdrawMoney {

    static long requirePositive(long amount) {
        if (amount <= 0) {
            throw new IllegalArgumentException("amount must be positive: " + amount);
        }
        return amount;
    }
}
