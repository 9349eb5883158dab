package dev.ledgerlab.events;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/** The one JSON mapping of {@link EventEnvelope}: the writer and every reader use it, the golden fixtures pin it. */
public final class EventCodec {

    private static final JsonMapper MAPPER = JsonMapper.builder()
            // A reader must notice a field it does not know rather than drop it: that is a contract change.
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
            .build();

    private EventCodec() {
    }

    public static String toJson(EventEnvelope envelope) {
        return MAPPER.writeValueAsString(envelope);
    }

    /** @throws MalformedEventException when the text is not a valid event of this contract */
    public static EventEnvelope fromJson(String json) {
        try {
            var envelope = MAPPER.readValue(json, EventEnvelope.class);
            if (envelope == null) {
                throw new MalformedEventException("empty event", null);
            }
            return envelope;
        } catch (JacksonException | IllegalArgumentException | NullPointerException e) {
            throw new MalformedEventException(e.getMessage(), e);
        }
    }

    public static final class MalformedEventException extends RuntimeException {
        public MalformedEventException(String message, Throwable cause) {
            super("not a valid account event: " + message, cause);
        }
    }
}
