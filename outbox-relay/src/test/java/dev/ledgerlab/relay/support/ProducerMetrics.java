package dev.ledgerlab.relay.support;

import org.apache.kafka.clients.producer.Producer;

/** What a real producer counted, read from its own metrics. */
public final class ProducerMetrics {

    private ProducerMetrics() {
    }

    /** A cumulative producer metric, such as {@code record-retry-total} or {@code batch-split-total}. */
    public static double total(Producer<?, ?> producer, String name) {
        return producer.metrics().entrySet().stream()
                .filter(e -> e.getKey().group().equals("producer-metrics") && e.getKey().name().equals(name))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue())
                .sum();
    }
}
