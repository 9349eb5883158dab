package dev.ledgerlab.relay.capture;

import java.sql.Connection;
import java.sql.SQLException;

/** What PostgreSQL says of a replication slot, asked on a plain connection (the engine's check, the re-snapshot). */
final class ReplicationSlots {

    private ReplicationSlots() {
    }

    /** The slot's {@code wal_status} ({@code reserved}, {@code extended}, {@code unreserved}, {@code lost}), or null. */
    static String walStatus(Connection connection, String slot) throws SQLException {
        try (var query = connection.prepareStatement(
                "SELECT wal_status FROM pg_replication_slots WHERE slot_name = ?")) {
            query.setString(1, slot);
            try (var rows = query.executeQuery()) {
                return rows.next() ? rows.getString(1) : null;
            }
        }
    }
}
