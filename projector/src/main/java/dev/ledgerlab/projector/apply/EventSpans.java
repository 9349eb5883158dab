package dev.ledgerlab.projector.apply;

import io.micrometer.tracing.Span;
import io.micrometer.tracing.propagation.Propagator;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.stereotype.Component;

/**
 * Continues each event's trace in the projector: for every record of a committed batch that carries the
 * {@code traceparent} its command stored (the relay copies it into a Kafka header), a span {@value #NAME}, a child of
 * the command's server span, from the batch's start to its commit. One span per event rather than one per batch
 * with links, because OpenTelemetry keeps at most 128 links on a span and a batch holds up to 20,000 records. Records
 * without trace context (written before tracing, or by a writer that stores none) get none.
 */
@Component
public class EventSpans {

    public static final String NAME = "ledger.projection.apply";

    private static final Propagator.Getter<ConsumerRecord<String, String>> HEADERS = (record, key) -> {
        var header = record.headers().lastHeader(key);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    };

    private final Propagator propagator;

    EventSpans(Propagator propagator) {
        this.propagator = propagator;
    }

    /** Records {@code records[0, handled)} as applied by the batch that started at {@code startedMillis}. */
    void committed(List<ConsumerRecord<String, String>> records, int handled, long startedMillis) {
        for (int i = 0; i < handled; i++) {
            var record = records.get(i);
            if (HEADERS.get(record, "traceparent") == null) {
                continue;
            }
            var span = propagator.extract(record, HEADERS)
                    .name(NAME)
                    .kind(Span.Kind.CONSUMER)
                    .startTimestamp(startedMillis, TimeUnit.MILLISECONDS)
                    .tag("ledger.account", String.valueOf(record.key()))
                    .tag("messaging.destination.name", record.topic())
                    .tag("messaging.kafka.partition", record.partition())
                    .tag("messaging.kafka.offset", record.offset())
                    .tag("ledger.batch.records", records.size())
                    .start();
            span.end();
        }
    }
}
