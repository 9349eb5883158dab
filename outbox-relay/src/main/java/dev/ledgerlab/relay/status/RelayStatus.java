package dev.ledgerlab.relay.status;

import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/** The live state of one relay instance, written by the leadership loop and the publisher, read by status and health. */
public final class RelayStatus {

    private final String slotName;
    private final String topic;
    private final AtomicReference<RelayRole> role = new AtomicReference<>(RelayRole.STARTING);
    private final AtomicLong published = new AtomicLong();
    private final AtomicLong engineRestarts = new AtomicLong();
    private final AtomicReference<Instant> lastPublishedAt = new AtomicReference<>();
    private final AtomicReference<String> lastEngineError = new AtomicReference<>();
    private volatile boolean engineRunning;
    private volatile boolean slotLost;

    public RelayStatus(String slotName, String topic) {
        this.slotName = slotName;
        this.topic = topic;
    }

    public void role(RelayRole next) {
        role.set(next);
    }

    public RelayRole role() {
        return role.get();
    }

    /** Called only after Kafka acknowledged the records. */
    public void published(int records) {
        if (records > 0) {
            published.addAndGet(records);
            lastPublishedAt.set(Instant.now());
        }
    }

    public long recordsPublished() {
        return published.get();
    }

    public void engineRunning(boolean running) {
        engineRunning = running;
    }

    public void engineFailed(String error) {
        lastEngineError.set(error);
    }

    /** Whether the engine was last kept from starting because PostgreSQL removed WAL its slot needed. */
    public void slotLost(boolean lost) {
        slotLost = lost;
    }

    public void engineRestarted() {
        engineRestarts.incrementAndGet();
    }

    public Snapshot snapshot() {
        return new Snapshot(role.get(), published.get(), lastPublishedAt.get(), slotName, topic, engineRunning,
                engineRestarts.get(), lastEngineError.get(), slotLost);
    }

    /** One consistent-enough reading for JSON; each field is read once. */
    public record Snapshot(RelayRole role, long recordsPublished, Instant lastPublishedAt, String slotName,
            String topic, boolean engineRunning, long engineRestarts, String lastEngineError, boolean slotLost) {

        public Snapshot withLastEngineError(String error) {
            return new Snapshot(role, recordsPublished, lastPublishedAt, slotName, topic, engineRunning, engineRestarts,
                    error, slotLost);
        }
    }
}
