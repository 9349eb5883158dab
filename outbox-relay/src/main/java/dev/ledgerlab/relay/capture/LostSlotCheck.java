package dev.ledgerlab.relay.capture;

import java.sql.SQLException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks PostgreSQL, before each engine run, whether the relay's slot is lost (PostgreSQL removed WAL the slot still
 * needed). Debezium itself would wait up to 30 minutes per start for the slot to become valid, reporting nothing;
 * asking first says so at once, and nothing streams or is skipped until the operator re-snapshots (Resnapshot).
 */
final class LostSlotCheck {

    private static final Logger log = LoggerFactory.getLogger(LostSlotCheck.class);

    private final PostgresSource source;
    private final String slot;

    LostSlotCheck(PostgresSource source, String slot) {
        this.source = source;
        this.slot = slot;
    }

    /**
     * Why the engine must not start, or empty when the slot is usable, absent (the engine makes it) or cannot be asked
     * about (the engine's own start then fails or works).
     */
    Optional<String> reasonNotToStart() {
        try (var connection = source.connect("outbox-relay-slot-check")) {
            if ("lost".equals(ReplicationSlots.walStatus(connection, slot))) {
                return Optional.of("replication slot " + slot + " is lost: PostgreSQL removed WAL it still needed "
                        + "(max_slot_wal_keep_size). Nothing is published past it; POST /relay/resnapshot takes "
                        + "the events table again");
            }
        } catch (SQLException unreachable) {
            log.debug("Cannot ask about slot {}: {}", slot, unreachable.getMessage());
        }
        return Optional.empty();
    }
}
