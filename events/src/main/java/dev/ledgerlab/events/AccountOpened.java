package dev.ledgerlab.events;

import java.util.Objects;

public record AccountOpened(String owner) implements AccountEvent {

    public static final String TYPE = "AccountOpened";

    public AccountOpened {
        Objects.requireNonNull(owner, "owner");
    }

    @Override
    public String type() {
        return TYPE;
    }

    @Override
    public long applyTo(long balance) {
        return balance;
    }
}
