package dev.ledgerlab.projector.watch;

import dev.ledgerlab.projector.operate.ProjectionStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeMap;

/**
 * The pauses in consumption that the page's readings show: a partition with records waiting (lag above 0) whose stored
 * offset did not move, from the last reading where it moved or had nothing to apply, to the one where it moved again.
 * What the course's rebalance exercise measures: kill one member of the group, and its partitions wait until the
 * group notices and a survivor takes them. Only as fine as the readings (a second apart while someone watches), so a
 * partition that misses one reading under load is not paused: a pause spans at least one reading in between.
 */
public final class Pauses {

    /**
     * @param from the last reading before it where the partition moved or had nothing to apply
     * @param to the reading where it moved again; the last reading while it goes on
     * @param ongoing whether it still waits at the last reading
     */
    public record Pause(int partition, Instant from, Instant to, double seconds, boolean ongoing) {
    }

    private Pauses() {
    }

    /** Every pause in these readings (oldest first), by the time it began. */
    public static List<Pause> of(List<PipelineWatch.Sample> samples) {
        var byPartition = new TreeMap<Integer, Tracker>();
        for (var sample : samples) {
            for (var partition : sample.partitions()) {
                byPartition.computeIfAbsent(partition.partition(), Tracker::new).read(sample.at(), partition);
            }
        }
        var pauses = new ArrayList<Pause>();
        byPartition.values().forEach(tracker -> tracker.finish(pauses));
        pauses.sort(Comparator.comparing(Pause::from));
        return pauses;
    }

    /** One partition, reading by reading. */
    private static final class Tracker {

        private final int partition;
        private final List<Pause> ended = new ArrayList<>();
        private long offset = Long.MIN_VALUE;
        /** The last reading where it moved or had nothing to apply; null before the first known one. */
        private Instant settled;
        /** Readings since then where it waited without moving. */
        private int waited;
        private Instant last;

        Tracker(int partition) {
            this.partition = partition;
        }

        void read(Instant at, ProjectionStatus.Partition reading) {
            if (reading.storedOffset() < 0 || reading.lag() < 0) {
                return; // not read this time (the reading's errors say why): neither a move nor a wait
            }
            boolean moved = reading.storedOffset() != offset;
            offset = reading.storedOffset();
            if (moved && settled != null && waited > 0) {
                ended.add(pause(settled, at, false));
            }
            if (moved || reading.lag() == 0) {
                settled = at;
                waited = 0;
            } else {
                waited++;
            }
            last = at;
        }

        void finish(List<Pause> into) {
            into.addAll(ended);
            // Still waiting: a pause once two readings in a row found it waiting (one alone may be records that
            // came just before that reading).
            if (settled != null && waited > 1) {
                into.add(pause(settled, last, true));
            }
        }

        private Pause pause(Instant from, Instant to, boolean ongoing) {
            return new Pause(partition, from, to, Duration.between(from, to).toMillis() / 1000.0, ongoing);
        }
    }
}
