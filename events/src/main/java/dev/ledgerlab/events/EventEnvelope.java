package dev.ledgerlab.events;

import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * One event as stored in {@code ledger.events.payload} and published to Kafka: self-describing, so a reader of the
 * topic needs no header and no database to know which account, which version and what happened.
 */
public record EventEnvelope(UUID eventId, UUID accountId, long version, Instant occurredAt, AccountEvent event) {

    public EventEnvelope {
        Objects.requireNonNull(eventId, "eventId");
        Objects.requireNonNull(accountId, "accountId");
        Objects.requireNonNull(occurredAt, "occurredAt");
        Objects.requireNonNull(event, "event");
        if (version < 1) {
            throw new IllegalArgumentException("version must be at least 1: " + version);
        }
    }
}
