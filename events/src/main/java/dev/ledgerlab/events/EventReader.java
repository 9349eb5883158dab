package dev.ledgerlab.events;

/**
 * How a reader of the log turns a record's value into an event. {@link #current()} reads every version ever
 * written; {@link EventCodec#readerUpTo} stands for a reader deployed before later versions existed.
 */
@FunctionalInterface
public interface EventReader {

    /**
     * @throws EventCodec.MalformedEventException when the text is not an event of the contract
     * @throws EventCodec.UnknownSchemaVersionException when it is an event of a version newer than this reader knows
     */
    EventEnvelope read(String json);

    static EventReader current() {
        return EventCodec::fromJson;
    }
}
