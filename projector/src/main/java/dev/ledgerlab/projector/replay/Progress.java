package dev.ledgerlab.projector.replay;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Where a replay or rebuild stands: records read of the target (the log end offsets captured at its start), rate,
 * percent and time left. Pure, so that the arithmetic is tested without a database.
 *
 * @param position records of the log read so far, counted up to the target of each partition
 * @param eventsApplied events that changed a balance (duplicates and held events are not counted)
 * @param eventsPerSecond records read per second since the start (until the end, once it ended)
 * @param estimatedSecondsLeft null while nothing has been read yet, 0 once the target is reached
 * @param behindLive for a rebuild: records the shadow tables still lack against the live projection
 */
public record Progress(long id, String kind, String state, Instant startedAt, Instant finishedAt,
        double elapsedSeconds, long eventsApplied, long position, long target, SortedMap<Integer, Long> targetOffsets,
        double eventsPerSecond, double percent, Double estimatedSecondsLeft, Long behindLive, String detail) {

    /** A run as stored in projection.replays, with its target. */
    public record Run(long id, String kind, String state, String groupId, Instant startedAt, Instant finishedAt,
            Long eventsApplied, String detail, Map<Integer, Long> targetOffsets) {
    }

    /** The stored position of one partition of the run's consumer group. */
    public record Stored(long nextOffset, long applied) {
    }

    static Progress of(Run run, Map<Integer, Stored> stored, Map<Integer, Long> liveOffsets, Instant now) {
        var targets = new TreeMap<>(run.targetOffsets());
        long target = 0;
        long position = 0;
        long applied = 0;
        long behindLive = 0;
        for (var entry : targets.entrySet()) {
            var partition = stored.getOrDefault(entry.getKey(), new Stored(0, 0));
            target += entry.getValue();
            position += Math.min(partition.nextOffset(), entry.getValue());
            behindLive += Math.max(0, liveOffsets.getOrDefault(entry.getKey(), 0L) - partition.nextOffset());
        }
        for (var partition : stored.values()) {
            applied += partition.applied();
        }
        boolean completed = "completed".equals(run.state());
        if (completed) {
            position = target;
            behindLive = 0;
        }
        if (run.eventsApplied() != null) {
            applied = run.eventsApplied();
        }
        var end = run.finishedAt() != null ? run.finishedAt() : now;
        double elapsed = Math.max(0, Duration.between(run.startedAt(), end).toNanos() / 1e9);
        double rate = elapsed > 0 ? position / elapsed : 0;
        double percent = target == 0 ? 100 : 100.0 * position / target;
        Double left;
        if (position >= target) {
            left = 0.0;
        } else if (rate > 0 && "running".equals(run.state())) {
            left = (target - position) / rate;
        } else {
            left = null;
        }
        return new Progress(run.id(), run.kind(), run.state(), run.startedAt(), run.finishedAt(), round(elapsed),
                applied, position, target, targets, round(rate), round(percent), left == null ? null : round(left),
                "rebuild".equals(run.kind()) ? behindLive : null, run.detail());
    }

    private static double round(double value) {
        return Math.round(value * 10) / 10.0;
    }

    /** One line for the log. */
    String summary() {
        var line = new StringBuilder("%s %d %s: %,d of %,d events (%.1f %%), %,.0f events/s".formatted(kind, id, state,
                position, target, percent, eventsPerSecond));
        if ("running".equals(state) && estimatedSecondsLeft != null) {
            line.append(", about %.1f s left".formatted(estimatedSecondsLeft));
        }
        if (behindLive != null && "running".equals(state)) {
            line.append(", %,d behind the live projection".formatted(behindLive));
        }
        if (detail != null) {
            line.append(" (").append(detail).append(')');
        }
        return line.toString();
    }
}
