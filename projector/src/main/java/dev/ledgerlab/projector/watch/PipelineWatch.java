package dev.ledgerlab.projector.watch;

import dev.ledgerlab.projector.ProjectorProperties;
import dev.ledgerlab.projector.operate.LogEndOffsets;
import dev.ledgerlab.projector.operate.ProjectionStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * Readings of the whole pipeline for the page, from PostgreSQL (outbox head, slots, stored offsets) and Kafka (log
 * ends, dead letters) only: the same whether the services share a JVM or run apart. Taken only when asked, at most
 * one per sample interval; the last few minutes kept for the charts.
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

    /** Per second since the previous reading; a rate is null when either reading lacks its figure. */
    public record Rates(Double written, Double published, Double applied) {
    }

    /**
     * @param outboxHead the highest {@code ledger.events.position} (an identity: a rolled-back insert leaves a gap)
     * @param published records in the topic (the sum of its log end offsets), re-published duplicates included
     * @param deadLettered records in the dead-letter topic
     * @param errors what could not be read this time; a figure that could not be read is -1, the rest still shown
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
    /** Held while a reading is taken, which may wait seconds for an unreachable server: others do not queue. */
    private final ReentrantLock reading = new ReentrantLock();

    public PipelineWatch(JdbcClient jdbc, ProjectionStatus status, LogEndOffsets logEnd,
            ProjectorProperties projector, PageProperties page) {
        this.jdbc = jdbc;
        this.status = status;
        this.logEnd = logEnd;
        this.projector = projector;
        this.page = page;
    }

    /**
     * The readings taken after {@code after} (all that are kept when null), a new one first if the last is old; while
     * another request takes one, those kept so far.
     */
    public List<Sample> since(Instant after) {
        if (reading.tryLock()) {
            try {
                var now = Instant.now();
                var last = last();
                if (last == null || Duration.between(last.at(), now).compareTo(page.sampleInterval()) >= 0) {
                    var sample = read(now, last);
                    synchronized (history) {
                        history.addLast(sample);
                        while (Duration.between(history.peekFirst().at(), now).compareTo(page.history()) > 0) {
                            history.removeFirst();
                        }
                    }
                }
            } finally {
                reading.unlock();
            }
        }
        synchronized (history) {
            return history.stream().filter(sample -> after == null || sample.at().isAfter(after)).toList();
        }
    }

    /** Every reading kept, oldest first; takes none. */
    public List<Sample> kept() {
        synchronized (history) {
            return List.copyOf(history);
        }
    }

    private Sample last() {
        synchronized (history) {
            return history.peekLast();
        }
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
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                deadLettered = 0; // the projector creates it with its first dead letter
            } else {
                errors.add("Kafka: dead-letter topic: " + e.getMessage());
            }
        } catch (TimeoutException | KafkaException e) {
            errors.add("Kafka: dead-letter topic: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            errors.add("interrupted");
        }
        boolean kafkaRead = projection != null && projection.error() == null;
        var partitions = projection == null ? List.<ProjectionStatus.Partition>of() : kafkaRead
                ? projection.partitions()
                // Without the log ends, ProjectionStatus takes the stored offsets for them: no lag is known.
                : projection.partitions().stream().map(p -> new ProjectionStatus.Partition(p.partition(),
                        p.storedOffset(), -1, -1, p.applied(), p.duplicates())).toList();
        long published = kafkaRead ? partitions.stream().mapToLong(ProjectionStatus.Partition::logEndOffset).sum() : -1;
        long lag = kafkaRead ? projection.lag() : -1;
        long applied = projection == null ? -1 : projection.applied();
        Rates rates = null;
        if (previous != null) {
            double seconds = Duration.between(previous.at(), now).toNanos() / 1e9;
            rates = new Rates(rate(previous.outboxHead(), head, seconds), rate(previous.published(), published, seconds),
                    rate(previous.applied(), applied, seconds));
        }
        return new Sample(now, head, slots, published, partitions, lag, applied,
                projection == null ? -1 : projection.duplicates(), projection == null ? -1 : projection.parkedKeys(),
                deadLettered, rates, errors);
    }

    /** A counter's rate: unknown across a reading that lacks it (-1); 0 across a reset (a replay clears offsets). */
    private static Double rate(long before, long after, double seconds) {
        if (before < 0 || after < 0) {
            return null;
        }
        return after < before ? 0 : (after - before) / seconds;
    }
}
