package dev.ledgerlab.relay.status;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.stereotype.Component;

/**
 * A standby is healthy: waiting is its job. An active relay whose engine is not running (waiting to restart it after
 * a failure) is reported DOWN, so an orchestrator sees a relay that keeps failing; with the reason {@code slot-lost}
 * when PostgreSQL removed WAL its slot needed (only the operator's re-snapshot helps then, not a restart).
 */
@Component("relay")
class RelayHealthIndicator implements HealthIndicator {

    private final RelayStatus status;

    RelayHealthIndicator(RelayStatus status) {
        this.status = status;
    }

    @Override
    public Health health() {
        var now = status.snapshot();
        var health = now.role() == RelayRole.ACTIVE && !now.engineRunning() ? Health.down() : Health.up();
        health.withDetail("role", now.role())
                .withDetail("slotName", now.slotName())
                .withDetail("topic", now.topic())
                .withDetail("recordsPublished", now.recordsPublished())
                .withDetail("engineRunning", now.engineRunning())
                .withDetail("engineRestarts", now.engineRestarts());
        if (now.slotLost()) {
            health.withDetail("reason", "slot-lost");
        }
        if (now.lastPublishedAt() != null) {
            health.withDetail("lastPublishedAt", now.lastPublishedAt().toString());
        }
        if (now.lastEngineError() != null) {
            health.withDetail("lastEngineError", now.lastEngineError());
        }
        return health.build();
    }
}
