package dev.ledgerlab.commandapi.account;

import dev.ledgerlab.events.AccountEvent;
import dev.ledgerlab.events.EventEnvelope;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Runs a command as one database transaction: lock the account, decide, append the events and write the new
 * account state, or (on any rejection) write nothing at all.
 */
@Service
public class AccountCommands {

    /** What a command produced: the account after it and the events it appended (never empty). */
    public record Executed(Account account, List<EventEnvelope> events) {
        public EventEnvelope lastEvent() {
            return events.get(events.size() - 1);
        }
    }

    private final AccountStore store;
    private final Clock clock;

    public AccountCommands(AccountStore store, Clock clock) {
        this.store = store;
        this.clock = clock;
    }

    @Transactional
    public Executed open(OpenAccount command, TraceContext trace) {
        var id = UUID.randomUUID();
        var events = AccountDecider.decide(command, null);
        var executed = fold(id, null, events);
        store.insert(executed.account(), executed.lastEvent().occurredAt());
        store.append(executed.events(), trace);
        return executed;
    }

    @Transactional
    public Executed execute(UUID id, AccountCommand command, IfMatch ifMatch, TraceContext trace) {
        var current = store.lockForUpdate(id).orElse(null);
        if (current != null && !ifMatch.matches(current.version())) {
            throw new VersionMismatch(ifMatch.header(), current.version());
        }
        var events = AccountDecider.decide(command, current);
        var executed = fold(id, current, events);
        store.append(executed.events(), trace);
        store.update(executed.account(), current.version(), executed.lastEvent().occurredAt());
        return executed;
    }

    private Executed fold(UUID id, Account state, List<AccountEvent> events) {
        // PostgreSQL keeps microseconds: truncate so the payload and the occurred_at column say the same instant.
        var now = clock.instant().truncatedTo(ChronoUnit.MICROS);
        var envelopes = new ArrayList<EventEnvelope>(events.size());
        var next = state;
        for (var event : events) {
            next = Account.evolve(id, next, event);
            envelopes.add(new EventEnvelope(UUID.randomUUID(), id, next.version(), now, event));
        }
        return new Executed(next, List.copyOf(envelopes));
    }
}
