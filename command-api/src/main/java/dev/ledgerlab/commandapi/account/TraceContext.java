package dev.ledgerlab.commandapi.account;

import java.util.regex.Pattern;

/**
 * W3C trace context of the request that caused an event, stored with the event so the relay can carry it to Kafka.
 * An invalid traceparent is dropped, as the W3C spec asks, rather than rejecting the command.
 */
public record TraceContext(String traceparent, String tracestate) {

    public static final TraceContext NONE = new TraceContext(null, null);

    private static final Pattern TRACEPARENT = Pattern.compile("[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}");
    private static final int MAX_TRACESTATE = 512;

    public static TraceContext of(String traceparent, String tracestate) {
        if (traceparent == null || !TRACEPARENT.matcher(traceparent).matches()
                || traceparent.startsWith("ff") || traceparent.contains("-00000000000000000000000000000000-")) {
            return NONE;
        }
        var state = tracestate == null || tracestate.length() > MAX_TRACESTATE ? null : tracestate;
        return new TraceContext(traceparent, state);
    }
}
