package dev.ledgerlab.relay.capture;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import org.apache.kafka.clients.producer.Producer;

/**
 * The meters of the engine's runs: the publish latency, and Kafka's own producer metrics (record-send-rate, request
 * latency...) of each run's producer while it lives. The relay's other meters are {@code RelayMetrics}'.
 */
final class EngineMeters {

    private final MeterRegistry registry;
    private final Timer publishLatency;

    EngineMeters(MeterRegistry registry) {
        this.registry = registry;
        this.publishLatency = Timer.builder("ledger.relay.publish.latency")
                .description("from the commit of an event's transaction in PostgreSQL to Kafka's acknowledgement")
                .publishPercentiles(0.5, 0.99)
                .register(registry);
    }

    Timer publishLatency() {
        return publishLatency;
    }

    /** Binds the producer's metrics until they are closed, with the producer. */
    KafkaClientMetrics bind(Producer<String, String> producer) {
        var metrics = new KafkaClientMetrics(producer);
        metrics.bindTo(registry);
        return metrics;
    }
}
