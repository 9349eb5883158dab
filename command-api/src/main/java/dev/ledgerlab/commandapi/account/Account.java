package dev.ledgerlab.commandapi.account;

import dev.ledgerlab.events.AccountEvent;
import dev.ledgerlab.events.AccountOpened;
import java.util.Objects;
import java.util.UUID;

/** The write model of one account: what commands are validated against. Version counts its events. */
public record Account(UUID id, String owner, long balance, long version) {

    public Account {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(owner, "owner");
    }

    /** The state after {@code event}; {@code state} is null before the account was opened. */
    public static Account evolve(UUID id, Account state, AccountEvent event) {
        if (state == null) {
            if (!(event instanceof AccountOpened opened)) {
                throw new IllegalStateException("the first event of an account must open it, not " + event.type());
            }
            return new Account(id, opened.owner(), 0, 1);
        }
        if (event instanceof AccountOpened) {
            throw new IllegalStateException("account " + id + " is already open");
        }
        return new Account(id, state.owner, event.applyTo(state.balance), Math.addExact(state.version, 1));
    }
}
