package dev.ledgerlab.commandapi.account;

import dev.ledgerlab.events.AccountEvent;
import dev.ledgerlab.events.AccountOpened;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;
import org.springframework.data.annotation.Id;
import org.springframework.data.annotation.PersistenceCreator;
import org.springframework.data.annotation.Version;
import org.springframework.data.relational.core.mapping.Column;
import org.springframework.data.relational.core.mapping.Table;

/**
 * The account aggregate: the write model commands are decided on, and one row of {@code ledger.accounts}, loaded and
 * saved through {@link AccountRepository} (Spring Data JDBC). Its version counts its events. {@code @Version} makes
 * each save of a loaded account an {@code UPDATE ... WHERE version = ?} of the version it was loaded at, raised by
 * one: one save per event ({@link AccountCommands}).
 *
 * @param openedAt when it was opened; null in a state that was not saved yet
 * @param updatedAt the time of the last event saved with it; null in a state that was not saved yet
 */
@Table(schema = "ledger", name = "accounts")
public record Account(@Id @Column("account_id") UUID id, String owner, long balance, @Version long version,
        Instant openedAt, Instant updatedAt) {

    @PersistenceCreator
    public Account {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(owner, "owner");
    }

    /** A state as the decider sees it, not saved yet. */
    public Account(UUID id, String owner, long balance, long version) {
        this(id, owner, balance, version, null, null);
    }

    /** This state at another version: how Spring Data JDBC sets the version it saved, the components being final. */
    public Account withVersion(long version) {
        return new Account(id, owner, balance, version, openedAt, updatedAt);
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
        return new Account(id, state.owner, event.applyTo(state.balance), Math.addExact(state.version, 1),
                state.openedAt, state.updatedAt);
    }
}
