package dev.ledgerlab.events;

import java.util.Objects;
import java.util.UUID;

/** The target side of a transfer: money arrived from {@code from}; the {@link MoneySent} has the same id. */
public record MoneyReceived(UUID transferId, UUID from, long amount) implements AccountEvent {

    public static final String TYPE = "MoneyReceived";

    public MoneyReceived {
        Objects.requireNonNull(transferId, "transferId");
        Objects.requireNonNull(from, "from");
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
        return Math.addExact(balance, amount);
    }
}
