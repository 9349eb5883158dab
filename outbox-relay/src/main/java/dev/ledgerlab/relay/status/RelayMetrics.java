package dev.ledgerlab.relay.status;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.util.List;
import java.util.function.ToDoubleFunction;
import javax.management.ObjectName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * The relay's meters. Its counters come from {@link RelayStatus}; the publish latency timer from the publisher.
 * The slot's gauges are one query of {@code pg_replication_slots} at scrape time, shared by the gauges of one scrape
 * (kept {@value #FRESH_MILLIS} ms); NaN when PostgreSQL cannot be asked or the slot does not exist:
 * <ul>
 * <li>{@code ledger_relay_slot_lag_bytes}: WAL written since the position the slot last confirmed
 * ({@code pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)}): what the relay still has to read; NaN
 * too while PostgreSQL builds a new slot's snapshot, when {@code confirmed_flush_lsn} is still null;
 * <li>{@code ledger_relay_slot_wal_status{status}}: 1 for the slot's {@code wal_status} ({@code reserved},
 * {@code extended}, {@code unreserved}: past {@code max_slot_wal_keep_size}, {@code lost}: the WAL it needed is
 * gone), 0 for the others;
 * <li>{@code ledger_relay_slot_safe_wal_size_bytes}: how much more WAL may be written before the slot is in danger
 * of being lost; NaN while {@code max_slot_wal_keep_size} is unlimited (-1, the default).
 * </ul>
 * Debezium's own streaming metrics ({@code MilliSecondsBehindSource}, the queue's remaining capacity) are read from
 * the MBean the connector registers while it streams; NaN on a standby.
 */
@Component
class RelayMetrics implements MeterBinder {

    private static final Logger log = LoggerFactory.getLogger(RelayMetrics.class);
    private static final long FRESH_MILLIS = 1_000;
    private static final List<String> WAL_STATUSES = List.of("reserved", "extended", "unreserved", "lost");
    /** What the PostgreSQL connector registers for topic.prefix {@code ledger} (ConnectorSettings.TOPIC_PREFIX). */
    private static final String STREAMING_MBEAN = "debezium.postgres:type=connector-metrics,context=streaming,"
            + "server=ledger";

    private record Slot(double lagBytes, String walStatus, double safeWalSizeBytes, long takenAt) {
    }

    private final RelayStatus status;
    private final JdbcClient jdbc;
    private final Clock clock = Clock.systemUTC();
    private Slot last;

    RelayMetrics(RelayStatus status, JdbcClient jdbc) {
        this.status = status;
        this.jdbc = jdbc;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        FunctionCounter.builder("ledger.relay.published", status, RelayStatus::recordsPublished)
                .description("outbox records acknowledged by Kafka")
                .register(registry);
        Gauge.builder("ledger.relay.active", status, s -> s.role() == RelayRole.ACTIVE ? 1 : 0)
                .description("1 while this instance holds the relay lock")
                .register(registry);
        Gauge.builder("ledger.relay.slot.lag", this, m -> m.slot(Slot::lagBytes))
                .description("WAL written since the position the relay's slot confirmed")
                .baseUnit("bytes").register(registry);
        Gauge.builder("ledger.relay.slot.safe.wal.size", this, m -> m.slot(Slot::safeWalSizeBytes))
                .description("WAL that may still be written before the slot is in danger of being lost")
                .baseUnit("bytes").register(registry);
        for (var walStatus : WAL_STATUSES) {
            Gauge.builder("ledger.relay.slot.wal.status", this,
                    m -> m.slot(slot -> walStatus.equals(slot.walStatus()) ? 1 : 0))
                    .description("1 for the slot's wal_status in pg_replication_slots")
                    .tag("status", walStatus).register(registry);
        }
        Gauge.builder("ledger.relay.debezium.behind.source", this,
                m -> m.streaming("MilliSecondsBehindSource") / 1000.0)
                .description("Debezium's MilliSecondsBehindSource: the last event's commit to its processing")
                .baseUnit("seconds").register(registry);
        Gauge.builder("ledger.relay.debezium.queue.remaining.capacity", this,
                m -> m.streaming("QueueRemainingCapacity"))
                .description("free places in Debezium's queue between the WAL reader and the relay")
                .register(registry);
    }

    private double slot(ToDoubleFunction<Slot> value) {
        var slot = reading();
        return slot == null ? Double.NaN : value.applyAsDouble(slot);
    }

    private synchronized Slot reading() {
        long now = clock.millis();
        if (last != null && now - last.takenAt() < FRESH_MILLIS) {
            return last;
        }
        try {
            last = jdbc.sql("""
                    SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn), wal_status, safe_wal_size
                    FROM pg_replication_slots WHERE slot_name = ?""")
                    .param(status.snapshot().slotName())
                    .query((rs, row) -> new Slot(number(rs.getObject(1)), rs.getString(2), number(rs.getObject(3)),
                            now))
                    .optional().orElse(null);
        } catch (RuntimeException e) {
            log.debug("slot metrics unavailable: {}", e.getMessage());
            last = null;
        }
        return last;
    }

    private static double number(Object value) {
        return value instanceof Number n ? n.doubleValue() : Double.NaN;
    }

    private double streaming(String attribute) {
        try {
            var value = ManagementFactory.getPlatformMBeanServer().getAttribute(new ObjectName(STREAMING_MBEAN),
                    attribute);
            // MilliSecondsBehindSource is -1 until an event has streamed: unknown, like a missing MBean.
            return value instanceof Number n && n.doubleValue() >= 0 ? n.doubleValue() : Double.NaN;
        } catch (Exception notStreaming) {
            return Double.NaN;
        }
    }
}
