package dev.ledgerlab.events;

/** Money in minor units (cents); always positive. */
public record MoneyDeposited(long amount) implements AccountEvent {

    public static final String TYPE = "MoneyDeposited";

    public MoneyDeposited {
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
