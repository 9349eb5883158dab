package dev.ledgerlab.commandapi.account;

import dev.ledgerlab.events.EventCodec;
import dev.ledgerlab.events.EventEnvelope;
import java.util.List;
import org.springframework.stereotype.Component;

/**
 * Appends a command's events to {@code ledger.events} ({@link EventLog}), inside the command's transaction: that is
 * what makes the table an outbox. Its own bean, so that the proofs of the simpler designs (dual write, Kafka first)
 * can replace this one step and keep the rest of the real service.
 */
@Component
public class EventAppender {

    private final EventLog events;

    public EventAppender(EventLog events) {
        this.events = events;
    }

    /** Each event in version order, with the trace context of the request that caused it. */
    public void append(List<EventEnvelope> appended, TraceContext trace) {
        for (var e : appended) {
            events.append(e.eventId(), e.accountId(), e.version(), e.event().type(),
                    EventCodec.schemaVersion(e.event()), EventCodec.toJson(e), e.occurredAt(), trace.traceparent(),
                    trace.tracestate());
        }
    }
}
