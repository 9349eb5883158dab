package dev.ledgerlab.projector.operate;

import dev.ledgerlab.projector.apply.LiveGroupCounts;
import dev.ledgerlab.projector.replay.ReplayQueries;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Clock;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToDoubleFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * The projection's gauges, computed when they are scraped from what {@link ProjectionStatus} already reads (one
 * query of projection.offsets and parked accounts, the log end offsets from the broker) and one query of the running
 * replay; every gauge of one scrape shares one reading (kept {@value #FRESH_MILLIS} ms), so a scrape costs one
 * reading whatever the number of partitions. When the reading fails (the database or the broker away) the gauges
 * are NaN: unknown, not 0 (the lag ones also when only the broker is away).
 *
 * <ul>
 * <li>{@code ledger_projection_lag_records{partition}}: log end offset minus the offset stored with the projection;
 * <li>{@code ledger_projection_lag_seconds}: the age of the oldest record this process has received and not yet
 * applied (a batch that keeps failing ages here), 0 when the group has no lag;
 * <li>{@code ledger_projection_parked_accounts}: accounts parked at a gap or an unknown schema version;
 * <li>{@code ledger_projection_replay_running{kind}} and {@code ledger_projection_replay_progress_ratio{kind}}: the
 * replay or rebuild in progress, and how much of its target it has read (0 when none runs).
 * </ul>
 * The counters and the batch timer are kept where the events happen ({@link LiveGroupCounts}, the listeners'
 * batches, the dead-letter recoverer).
 */
@Component
class ProjectorMetrics implements MeterBinder {

    private static final Logger log = LoggerFactory.getLogger(ProjectorMetrics.class);
    private static final long FRESH_MILLIS = 1_000;
    private static final String LAG_RECORDS = "ledger.projection.lag.records";

    private record Reading(ProjectionStatus.Status status, Optional<ReplayQueries.Running> running,
            double runningRatio, long takenAt) {
    }

    private final ProjectionStatus projection;
    private final ReplayQueries replays;
    private final LiveGroupCounts counts;
    private final Clock clock;
    private final Set<Integer> partitionsWithGauges = ConcurrentHashMap.newKeySet();
    private volatile MeterRegistry registry;
    private Reading last;

    ProjectorMetrics(ProjectionStatus projection, ReplayQueries replays, LiveGroupCounts counts) {
        this.projection = projection;
        this.replays = replays;
        this.counts = counts;
        this.clock = Clock.systemUTC();
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        this.registry = registry;
        gauge("ledger.projection.lag.seconds", "age of the oldest record received and not yet applied", r -> {
            if (r.status().error() != null) {
                return Double.NaN;
            }
            if (r.status().lag() == 0) {
                return 0;
            }
            var oldest = counts.oldestPendingTimestamp();
            return oldest.isPresent() ? Math.max(0, clock.millis() - oldest.getAsLong()) / 1000.0 : 0;
        });
        gauge("ledger.projection.parked.accounts", "accounts parked at a gap or an unknown schema version",
                r -> r.status().parkedKeys());
        for (var kind : new String[] {"replay", "rebuild"}) {
            Gauge.builder("ledger.projection.replay.running", this,
                    m -> m.read(r -> r.running().filter(run -> run.kind().equals(kind)).isPresent() ? 1 : 0))
                    .description("1 while a replay (in place) or a rebuild (shadow tables) of this kind runs")
                    .tag("kind", kind).register(registry);
            Gauge.builder("ledger.projection.replay.progress.ratio", this,
                    m -> m.read(r -> r.running().filter(run -> run.kind().equals(kind)).isPresent()
                            ? r.runningRatio() : 0))
                    .description("share of its target the running replay or rebuild has read")
                    .tag("kind", kind).register(registry);
        }
    }

    /**
     * So that the per-partition gauges exist by the first scrape: one reading once started, on a thread of its own
     * (readiness waits for this event's listeners, and a reading can wait 5 s for an absent broker).
     */
    @EventListener(ApplicationReadyEvent.class)
    void registerPartitionGauges() {
        var thread = new Thread(() -> read(r -> 0), "projector-metrics");
        thread.setDaemon(true);
        thread.start();
    }

    private void gauge(String name, String description, ToDoubleFunction<Reading> value) {
        Gauge.builder(name, this, m -> m.read(value)).description(description).register(registry);
    }

    private double read(ToDoubleFunction<Reading> value) {
        var reading = reading();
        return reading == null ? Double.NaN : value.applyAsDouble(reading);
    }

    private synchronized Reading reading() {
        long now = clock.millis();
        if (last != null && now - last.takenAt() < FRESH_MILLIS) {
            return last;
        }
        try {
            var status = projection.current();
            var running = replays.running();
            double ratio = running.map(run -> replays.progress(run.id()).percent() / 100).orElse(0.0);
            last = new Reading(status, running, ratio, now);
            status.partitions().forEach(p -> partitionGauge(p.partition()));
            return last;
        } catch (RuntimeException e) {
            log.debug("projection metrics unavailable: {}", e.getMessage());
            last = null;
            return null;
        }
    }

    private void partitionGauge(int partition) {
        if (registry != null && partitionsWithGauges.add(partition)) {
            Gauge.builder(LAG_RECORDS, this, m -> m.read(r -> r.status().error() != null ? Double.NaN
                    : r.status().partitions().stream().filter(p -> p.partition() == partition)
                            .mapToLong(ProjectionStatus.Partition::lag).findFirst().orElse(0)))
                    .description("log end offset minus the offset stored with the projection")
                    .tag("partition", Integer.toString(partition)).register(registry);
        }
    }
}
