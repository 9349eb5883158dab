package dev.ledgerlab.projector.watch;

import dev.ledgerlab.projector.ProjectorProperties;
import dev.ledgerlab.projector.operate.LogEndOffsets;
import dev.ledgerlab.projector.operate.ProjectionStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * Readings of the whole pipeline for the page, from the two places every stage leaves its trace: PostgreSQL (the
 * outbox head, the replication slots, the stored offsets) and Kafka (the log end of each partition, the dead-letter
 * topic). No other service is asked, so the page shows the same whether the services share a JVM or run apart.
 * A reading is taken only when the page asks and the last one is older than the sample interval; the readings of the
 * last few minutes are kept for the charts, in this process only.
 */
@Component
public class PipelineWatch {

    /**
     * A logical replication slot of this database, as {@code pg_replication_slots} shows it.
     *
     * @param lagBytes WAL written since the position the relay confirmed ({@code confirmed_flush_lsn})
     */
    public record Slot(String name, boolean active, String walStatus, Long lagBytes) {
    }

    /** Per second since the previous reading; null for the first. */
    public record Rates(double written, double published, double applied) {
    }

    /**
     * @param outboxHead the highest {@code ledger.events.position}: events committed
     * @param published records in the topic (the sum of its log end offsets), re-published duplicates included
     * @param deadLettered records in the dead-letter topic
     * @param errors what could not be read this time (the rest still is)
     */
    public record Sample(Instant at, long outboxHead, List<Slot> slots, long published,
            List<ProjectionStatus.Partition> partitions, long lag, long applied, long duplicates, long parked,
            long deadLettered, Rates rates, List<String> errors) {
    }

    private final JdbcClient jdbc;
    private final ProjectionStatus status;
    private final LogEndOffsets logEnd;
    private final ProjectorProperties projector;
    private final PageProperties page;
    private final ArrayDeque<Sample> history = new ArrayDeque<>();

    public PipelineWatch(JdbcClient jdbc, ProjectionStatus status, LogEndOffsets logEnd,
            ProjectorProperties projector, PageProperties page) {
        this.jdbc = jdbc;
        this.status = status;
        this.logEnd = logEnd;
        this.projector = projector;
        this.page = page;
    }

    /** The readings taken after {@code after} (all that are kept when null), a new one first if the last is old. */
    public synchronized List<Sample> since(Instant after) {
        var now = Instant.now();
        var last = history.peekLast();
        if (last == null || Duration.between(last.at(), now).compareTo(page.sampleInterval()) >= 0) {
            history.addLast(read(now, last));
            while (Duration.between(history.peekFirst().at(), now).compareTo(page.history()) > 0) {
                history.removeFirst();
            }
        }
        return history.stream().filter(sample -> after == null || sample.at().isAfter(after)).toList();
    }

    private Sample read(Instant now, Sample previous) {
        var errors = new ArrayList<String>();
        long head = -1;
        List<Slot> slots = List.of();
        try {
            head = jdbc.sql("SELECT coalesce(max(position), 0) FROM ledger.events").query(Long.class).single();
            slots = jdbc.sql("""
                    SELECT slot_name, active, wal_status, pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)
                    FROM pg_replication_slots WHERE database = current_database() AND slot_type = 'logical'
                    ORDER BY slot_name""")
                    .query((rs, row) -> new Slot(rs.getString(1), rs.getBoolean(2), rs.getString(3),
                            rs.getObject(4) == null ? null : rs.getLong(4)))
                    .list();
        } catch (DataAccessException e) {
            errors.add("PostgreSQL: " + e.getMostSpecificCause().getMessage());
        }
        ProjectionStatus.Status projection = null;
        try {
            projection = status.current();
            if (projection.error() != null) {
                errors.add("Kafka: " + projection.error());
            }
        } catch (DataAccessException e) {
            errors.add("PostgreSQL: " + e.getMostSpecificCause().getMessage());
        }
        long deadLettered = -1;
        try {
            deadLettered = logEnd.of(projector.deadLetterTopic()).values().stream().mapToLong(Long::longValue).sum();
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            errors.add("Kafka: dead-letter topic: " + e.getMessage());
        }
        var partitions = projection == null ? List.<ProjectionStatus.Partition>of() : projection.partitions();
        long published = projection == null || projection.error() != null ? -1
                : partitions.stream().mapToLong(ProjectionStatus.Partition::logEndOffset).sum();
        long applied = projection == null ? -1 : projection.applied();
        Rates rates = null;
        if (previous != null) {
            double seconds = Duration.between(previous.at(), now).toNanos() / 1e9;
            rates = new Rates(rate(previous.outboxHead(), head, seconds), rate(previous.published(), published, seconds),
                    rate(previous.applied(), applied, seconds));
        }
        return new Sample(now, head, slots, published, partitions, projection == null ? -1 : projection.lag(),
                applied, projection == null ? -1 : projection.duplicates(),
                projection == null ? -1 : projection.parkedKeys(), deadLettered, rates, errors);
    }

    /** A counter's rate; 0 across a reading that failed (-1) or a reset (a replay clears the stored offsets). */
    private static double rate(long before, long after, double seconds) {
        return before < 0 || after < before ? 0 : (after - before) / seconds;
    }
}
