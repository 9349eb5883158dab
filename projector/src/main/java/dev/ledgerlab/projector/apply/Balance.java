package dev.ledgerlab.projector.apply;

import dev.ledgerlab.events.AccountOpened;
import dev.ledgerlab.events.EventEnvelope;
import java.util.UUID;

/**
 * An account as the projection holds it, and the one rule for moving it on by one event.
 *
 * @param eventId the last applied event's id (null on rows projected before V3 added the column)
 */
record Balance(UUID accountId, long balance, long version, UUID eventId) {

    /**
     * The balance after {@code envelope}, which must be the next version, or {@link UnapplicableEventException} when the event
     * cannot follow {@code current} at all: the log is then not a history this projection can hold, and an operator
     * must look.
     */
    static Balance evolve(Balance current, EventEnvelope envelope) {
        var id = envelope.accountId();
        var event = envelope.event();
        long expected = current == null ? 1 : current.version() + 1;
        if (current == null) {
            if (!(event instanceof AccountOpened)) {
                throw new UnapplicableEventException(id, expected, envelope.version(), "first event is " + event.type());
            }
            return new Balance(id, 0, envelope.version(), envelope.eventId());
        }
        if (event instanceof AccountOpened) {
            throw new UnapplicableEventException(id, expected, envelope.version(), "account opened twice");
        }
        long balance;
        try {
            balance = event.applyTo(current.balance());
        } catch (ArithmeticException e) {
            throw new UnapplicableEventException(id, expected, envelope.version(), "balance overflow");
        }
        if (balance < 0) {
            throw new UnapplicableEventException(id, expected, envelope.version(), "balance would go below zero");
        }
        return new Balance(id, balance, envelope.version(), envelope.eventId());
    }
}
