package dev.ledgerlab.commandapi.account;

import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.springframework.data.jdbc.repository.query.Modifying;
import org.springframework.data.jdbc.repository.query.Query;
import org.springframework.data.repository.Repository;

/** {@code ledger.events}: append, and read back. An event row is only ever inserted. */
public interface EventLog extends Repository<StoredEvent, UUID> {

    /**
     * Appends one event, in the command's transaction. {@code UNIQUE (account_id, version)} refuses a second event
     * for a version already taken. Written out: Spring Data JDBC's save would decide between insert and update by
     * the id, and it does not map a {@code jsonb} column.
     */
    @Modifying
    @Query("""
            INSERT INTO ledger.events (id, account_id, version, type, schema_version, payload, occurred_at,
                                       traceparent, tracestate)
            VALUES (:id, :accountId, :version, :type, :schemaVersion, CAST(:payload AS jsonb), :occurredAt,
                    :traceparent, :tracestate)""")
    void append(UUID id, UUID accountId, long version, String type, int schemaVersion, String payload,
            Instant occurredAt, String traceparent, String tracestate);

    /** The account's events as stored, in version order. */
    List<StoredEvent> findByAccountIdOrderByVersion(UUID accountId);

    /** A transfer's two events as stored, MoneySent first; empty when there is no such transfer. */
    // Found by a path into the jsonb payload: SQL says it, a derived query cannot.
    @Query("""
            SELECT * FROM ledger.events
            WHERE type IN ('MoneySent', 'MoneyReceived') AND payload -> 'event' ->> 'transferId' = :transferId
            ORDER BY type DESC""")
    List<StoredEvent> findTransfer(String transferId);
}
