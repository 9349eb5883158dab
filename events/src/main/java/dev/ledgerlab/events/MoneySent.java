package dev.ledgerlab.events;

import java.util.Objects;
import java.util.UUID;

/**
 * The source side of a transfer: money left this account for {@code to}. Its counterpart is a {@link MoneyReceived}
 * with the same {@code transferId} on the target, written in the same transaction.
 */
public record MoneySent(UUID transferId, UUID to, long amount) implements AccountEvent {

    public static final String TYPE = "MoneySent";

    public MoneySent {
        Objects.requireNonNull(transferId, "transferId");
        Objects.requireNonNull(to, "to");
        if (amount <= 0) {
            throw new IllegalArgumentException("amount must be positive: " + amount);
        }
    }

    @Override
    public String type() {
        return TYPE;
    }

    @Override
    public long applyTo(long balance) {
        return Math.subtractExact(balance, amount);
    }
}
