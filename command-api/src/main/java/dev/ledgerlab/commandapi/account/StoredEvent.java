package dev.ledgerlab.commandapi.account;

import java.time.Instant;
import java.util.UUID;
import org.springframework.data.annotation.Id;
import org.springframework.data.relational.core.mapping.Table;

/**
 * One row of {@code ledger.events}, the event store and the outbox, as stored. Appended and read through
 * {@link EventLog}; never updated or deleted (a trigger refuses both). Not a collection of {@link Account}: Spring
 * Data JDBC rewrites an aggregate's collections on every save, and an event, once written, is history.
 *
 * @param payload the event in the wire format ({@code jsonb}), as PostgreSQL prints it back
 */
@Table(schema = "ledger", name = "events")
public record StoredEvent(@Id UUID id, UUID accountId, long version, String type, int schemaVersion, String payload,
        Instant occurredAt, String traceparent, String tracestate) {
}
