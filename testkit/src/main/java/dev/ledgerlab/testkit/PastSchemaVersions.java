package dev.ledgerlab.testkit;

import dev.ledgerlab.events.EventCodec;
import dev.ledgerlab.events.EventEnvelope;
import dev.ledgerlab.events.MoneyDeposited;
import dev.ledgerlab.events.MoneyWithdrawn;
import dev.ledgerlab.events.SchemaVersions;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The JSON that the writer wrote at each past schema version, for tests that need a log written across versions:
 * the inverse of the upcasters, test code only (the write side writes the current version and nothing else).
 * {@code PastSchemaVersionsTest} holds each one to the golden fixture of its version.
 */
public final class PastSchemaVersions {

    private static final JsonMapper MAPPER = JsonMapper.builder().build();

    private PastSchemaVersions() {
    }

    /** {@code envelope} as the writer of {@code schemaVersion} wrote it; the current version is the codec's own. */
    public static String json(EventEnvelope envelope, int schemaVersion) {
        var type = envelope.event().type();
        int current = SchemaVersions.current(type);
        if (schemaVersion < 1 || schemaVersion > current) {
            throw new IllegalArgumentException(type + " has no schema version " + schemaVersion);
        }
        if (schemaVersion == current) {
            return EventCodec.toJson(envelope);
        }
        // Only the amount's rename made versions so far: 1 wrote amount, 2 amount and amountMinor, 3 amountMinor.
        if (!type.equals(MoneyDeposited.TYPE) && !type.equals(MoneyWithdrawn.TYPE)) {
            throw new IllegalStateException("no past writer for " + type + " version " + schemaVersion);
        }
        var tree = (ObjectNode) MAPPER.readTree(EventCodec.toJson(envelope));
        var event = (ObjectNode) tree.get("event");
        var amountMinor = event.remove("amountMinor");
        event.set("amount", amountMinor);
        if (schemaVersion == 2) {
            event.set("amountMinor", amountMinor);
            tree.put(EventCodec.SCHEMA_VERSION, 2);
        } else {
            tree.remove(EventCodec.SCHEMA_VERSION);
        }
        return MAPPER.writeValueAsString(tree);
    }
}
