package dev.ledgerlab.events;

/**
 * Money in minor units (cents); always positive. Schema version 3: the field was {@code amount} up to version 2
 * (see {@link Upcasters}).
 */
public record MoneyWithdrawn(long amountMinor) implements AccountEvent {

    public static final String TYPE = "MoneyWithdrawn";

    public MoneyWithdrawn {
        if (amountMinor <= 0) {
            throw new IllegalArgumentException("amountMinor must be positive: " + amountMinor);
        }
    }

    @Override
    public String type() {
        return TYPE;
    }

    @Override
    public long applyTo(long balance) {
        return Math.subtractExact(balance, amountMinor);
    }
}
