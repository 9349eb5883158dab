package dev.ledgerlab.events;

import java.util.UUID;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The one JSON mapping of {@link EventEnvelope}: the writer and every reader use it, the golden fixtures pin it.
 * The writer writes the current schema version of each type ({@link SchemaVersions}); a reader reads every version
 * ever written, through {@link Upcasters}.
 */
public final class EventCodec {

    /** The envelope's field that names the event's schema version; absent means 1. */
    public static final String SCHEMA_VERSION = "schemaVersion";

    private static final JsonMapper MAPPER = JsonMapper.builder()
            // A reader must notice a field it does not know rather than drop it: that is a contract change.
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
            .build();

    private EventCodec() {
    }

    public static String toJson(EventEnvelope envelope) {
        int version = SchemaVersions.current(envelope.event().type());
        if (version == 1) {
            return MAPPER.writeValueAsString(envelope);
        }
        // Field order is not part of the contract: ledger.events.payload is jsonb, which keeps its own.
        ObjectNode tree = MAPPER.valueToTree(envelope);
        return MAPPER.writeValueAsString(tree.put(SCHEMA_VERSION, version));
    }

    /**
     * Reads an event of any schema version ever written, as the current version.
     *
     * @throws MalformedEventException when the text is not a valid event of this contract
     * @throws UnknownSchemaVersionException when the event's schema version is newer than this code knows
     */
    public static EventEnvelope fromJson(String json) {
        return read(json, Integer.MAX_VALUE);
    }

    /**
     * A reader that knows schema versions up to {@code newestKnown} only: what a reader deployed before the later
     * versions existed does with them. For the proofs that readers must be deployed before writers.
     */
    public static EventReader readerUpTo(int newestKnown) {
        return json -> read(json, newestKnown);
    }

    /** The schema version of an event's type as the writer writes it now, as stored beside it in {@code ledger.events}. */
    public static int schemaVersion(AccountEvent event) {
        return SchemaVersions.current(event.type());
    }

    private static EventEnvelope read(String json, int newestKnown) {
        try {
            if (!(MAPPER.readTree(json) instanceof ObjectNode envelope)) {
                throw new MalformedEventException("not a JSON object", null);
            }
            if (!(envelope.get("event") instanceof ObjectNode event) || !event.path("type").isString()) {
                throw new MalformedEventException("no event object with a type", null);
            }
            var type = event.get("type").asString();
            if (!SchemaVersions.isKnown(type)) {
                throw new MalformedEventException("unknown event type " + type, null);
            }
            int version = schemaVersionOf(envelope);
            int known = Math.min(newestKnown, SchemaVersions.current(type));
            if (version > known) {
                var sequence = envelope.path("version");
                if (!sequence.isIntegralNumber() || sequence.asLong() < 1) {
                    throw new MalformedEventException("version is not a positive integer: " + sequence, null);
                }
                throw new UnknownSchemaVersionException(type, version, known, header(envelope, "eventId"),
                        header(envelope, "accountId"), sequence.asLong());
            }
            envelope.remove(SCHEMA_VERSION);
            envelope.set("event", Upcasters.upcast(type, version, event));
            var read = MAPPER.treeToValue(envelope, EventEnvelope.class);
            if (read == null) {
                throw new MalformedEventException("empty event", null);
            }
            return read;
        } catch (JacksonException | IllegalArgumentException | NullPointerException e) {
            throw new MalformedEventException(e.getMessage(), e);
        }
    }

    private static int schemaVersionOf(ObjectNode envelope) {
        JsonNode field = envelope.get(SCHEMA_VERSION);
        if (field == null) {
            return 1;
        }
        if (!field.isInt() || field.intValue() < 1) {
            throw new MalformedEventException(SCHEMA_VERSION + " is not a positive integer: " + field, null);
        }
        return field.intValue();
    }

    private static UUID header(ObjectNode envelope, String field) {
        return UUID.fromString(envelope.path(field).asString());
    }

    public static final class MalformedEventException extends RuntimeException {
        public MalformedEventException(String message, Throwable cause) {
            super("not a valid account event: " + message, cause);
        }
    }

    /**
     * A valid envelope whose event is of a schema version newer than the reader knows. Not malformed: the event is
     * fine, the reader is old. It must neither be skipped nor guessed at (a missing field read as zero); its account
     * waits until a reader that knows the version is deployed. The envelope's own fields are read, so the reader
     * can tell which account and version wait.
     */
    public static final class UnknownSchemaVersionException extends RuntimeException {
        private final String type;
        private final int schemaVersion;
        private final int newestKnown;
        private final UUID eventId;
        private final UUID accountId;
        private final long version;

        UnknownSchemaVersionException(String type, int schemaVersion, int newestKnown, UUID eventId, UUID accountId,
                long version) {
            super("unknown schema version: " + type + " version " + schemaVersion + ", this reader knows " + type
                    + " up to version " + newestKnown + " (deploy readers before writers)", null, false, false);
            this.type = type;
            this.schemaVersion = schemaVersion;
            this.newestKnown = newestKnown;
            this.eventId = eventId;
            this.accountId = accountId;
            this.version = version;
        }

        public String type() {
            return type;
        }

        public int schemaVersion() {
            return schemaVersion;
        }

        public int newestKnown() {
            return newestKnown;
        }

        public UUID eventId() {
            return eventId;
        }

        public UUID accountId() {
            return accountId;
        }

        public long version() {
            return version;
        }
    }
}
