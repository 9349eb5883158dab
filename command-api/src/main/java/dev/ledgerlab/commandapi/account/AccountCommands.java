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

    /** What a transfer produced: both accounts after it, and its two events. */
    public record Transferred(UUID transferId, Executed from, Executed to) {
    }

    /**
     * Both rows are locked in one order for every transfer (by id, as PostgreSQL orders uuids), whichever side each is
     * on: two opposite transfers between the same accounts then queue on the same first row, instead of each holding
     * the row the other waits for (a deadlock PostgreSQL would break by aborting one of them).
     */
    @Transactional
    public Transferred transfer(TransferMoney command, IfMatch ifMatch, TraceContext trace) {
        if (command.from().equals(command.to())) {
            throw new Rejection.SameAccount();
        }
        boolean fromFirst = command.from().toString().compareTo(command.to().toString()) < 0;
        var first = store.lockForUpdate(fromFirst ? command.from() : command.to()).orElse(null);
        var second = store.lockForUpdate(fromFirst ? command.to() : command.from()).orElse(null);
        var from = fromFirst ? first : second;
        var to = fromFirst ? second : first;
        if (from != null && !ifMatch.matches(from.version())) {
            throw new VersionMismatch(ifMatch.header(), from.version());
        }
        var transferId = UUID.randomUUID();
        var events = AccountDecider.decide(command, transferId, from, to);
        var sent = fold(from.id(), from, List.of(events.sent()));
        var received = fold(to.id(), to, List.of(events.received()));
        var all = new ArrayList<>(sent.events());
        all.addAll(received.events());
        store.append(all, trace);
        store.update(sent.account(), from.version(), sent.lastEvent().occurredAt());
        store.update(received.account(), to.version(), received.lastEvent().occurredAt());
        return new Transferred(transferId, sent, received);
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
