package dev.ledgerlab.relay.status;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.springframework.stereotype.Component;

/** The status counters as Micrometer meters, so they reach whatever the metrics endpoint is scraped by. */
@Component
class RelayMetrics implements MeterBinder {

    private final RelayStatus status;

    RelayMetrics(RelayStatus status) {
        this.status = status;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        FunctionCounter.builder("ledger.relay.published", status, RelayStatus::recordsPublished)
                .description("outbox records acknowledged by Kafka")
                .register(registry);
        Gauge.builder("ledger.relay.active", status, s -> s.role() == RelayRole.ACTIVE ? 1 : 0)
                .description("1 while this instance holds the relay lock")
                .register(registry);
    }
}
