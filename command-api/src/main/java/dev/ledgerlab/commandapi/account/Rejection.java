package dev.ledgerlab.commandapi.account;

import java.util.UUID;

/** A command that is well formed but not allowed by the account's current state. Nothing is written. */
public abstract sealed class Rejection extends RuntimeException {

    Rejection(String message) {
        super(message, null, false, false);
    }

    public static final class InsufficientFunds extends Rejection {
        private final long balance;
        private final long amount;

        InsufficientFunds(long balance, long amount) {
            super("cannot withdraw " + amount + ": the balance is " + balance);
            this.balance = balance;
            this.amount = amount;
        }

        public long balance() {
            return balance;
        }

        public long amount() {
            return amount;
        }
    }

    public static final class BalanceOverflow extends Rejection {
        BalanceOverflow(long balance, long amount) {
            super("depositing " + amount + " onto " + balance + " would exceed the largest balance, "
                    + Long.MAX_VALUE);
        }
    }

    public static final class AlreadyOpened extends Rejection {
        AlreadyOpened() {
            super("the account is already open");
        }
    }

    public static final class NotOpened extends Rejection {
        NotOpened() {
            super("the account does not exist");
        }
    }

    /** A transfer whose two sides are one account: refused as a bad request, before any lock. */
    public static final class SameAccount extends Rejection {
        SameAccount() {
            super("a transfer needs two different accounts");
        }
    }

    /** One side of a transfer names no account; {@code side} is "from" or "to". */
    public static final class TransferAccountMissing extends Rejection {
        private final String side;
        private final UUID accountId;

        TransferAccountMissing(String side, UUID accountId) {
            super("no account " + accountId + " (the transfer's \"" + side + "\")");
            this.side = side;
            this.accountId = accountId;
        }

        public String side() {
            return side;
        }

        public UUID accountId() {
            return accountId;
        }
    }
}
