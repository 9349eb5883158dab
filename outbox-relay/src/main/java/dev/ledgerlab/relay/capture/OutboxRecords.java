package dev.ledgerlab.relay.capture;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Turns what the engine hands over into what Kafka gets. The EventRouter has already done the column mapping; this
 * decides which change records are events at all and copies only the contract's headers.
 */
final class OutboxRecords {

    private static final List<String> HEADERS = List.of(ConnectorSettings.HEADER_EVENT_ID,
            ConnectorSettings.HEADER_EVENT_TYPE, ConnectorSettings.HEADER_VERSION,
            ConnectorSettings.HEADER_SCHEMA_VERSION, ConnectorSettings.HEADER_TRACEPARENT,
            ConnectorSettings.HEADER_TRACESTATE);

    private final String topic;

    OutboxRecords(String topic) {
        this.topic = topic;
    }

    /**
     * The Kafka record for an events row; empty for everything else the engine delivers (heartbeat-table rows and
     * Debezium's heartbeat records), which only move the offset.
     *
     * @throws IllegalStateException for an events row without an account id or payload: publishing it would break
     *     the contract, and skipping it would lose an event, so the engine stops instead
     */
    Optional<ProducerRecord<String, String>> toKafka(SourceRecord change) {
        // The EventRouter routed events rows to the outbox topic; nothing else has that name.
        if (!topic.equals(change.topic())) {
            return Optional.empty();
        }
        if (!(change.key() instanceof String accountId) || !(change.value() instanceof String payload)) {
            throw new IllegalStateException("an events row without a text account id and payload reached the relay: key "
                    + describe(change.key()) + ", value " + describe(change.value()) + ", offset " + change.sourceOffset());
        }
        var headers = new RecordHeaders();
        for (var name : HEADERS) {
            var header = change.headers().lastWithName(name);
            // traceparent and tracestate are NULL for commands that came without trace context: no header then.
            if (header != null && header.value() != null) {
                headers.add(name, header.value().toString().getBytes(StandardCharsets.UTF_8));
            }
        }
        return Optional.of(new ProducerRecord<>(topic, null, null, accountId, payload, headers));
    }

    private static String describe(Object value) {
        return value == null ? "null" : value.getClass().getSimpleName();
    }
}
