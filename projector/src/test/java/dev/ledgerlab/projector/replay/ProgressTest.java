package dev.ledgerlab.projector.replay;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProgressTest {

    private static final Instant START = Instant.parse("2026-11-29T10:00:00Z");

    @Test
    void reportsPercentRateAndTimeLeftAgainstTheTargetCapturedAtStart() {
        var run = new Progress.Run(7, "replay", "running", "projection", START, null, null, null,
                Map.of(0, 600L, 1, 400L));
        var stored = Map.of(0, new Progress.Stored(300, 290), 1, new Progress.Stored(100, 100));

        var progress = Progress.of(run, stored, Map.of(), START.plusSeconds(2));

        assertThat(progress.position()).isEqualTo(400);
        assertThat(progress.target()).isEqualTo(1000);
        assertThat(progress.eventsApplied()).isEqualTo(390);
        assertThat(progress.percent()).isEqualTo(40.0);
        assertThat(progress.eventsPerSecond()).isEqualTo(200.0);
        assertThat(progress.estimatedSecondsLeft()).isEqualTo(3.0);
        assertThat(progress.behindLive()).isNull();
    }

    @Test
    void countsRecordsBeyondTheTargetAsNoProgressPastIt() {
        var run = new Progress.Run(7, "replay", "running", "projection", START, null, null, null, Map.of(0, 10L));

        var progress = Progress.of(run, Map.of(0, new Progress.Stored(25, 25)), Map.of(), START.plusSeconds(1));

        assertThat(progress.position()).isEqualTo(10);
        assertThat(progress.percent()).isEqualTo(100.0);
        assertThat(progress.estimatedSecondsLeft()).isZero();
    }

    @Test
    void freezesTheFiguresOfAFinishedRunAtItsEnd() {
        var run = new Progress.Run(8, "rebuild", "completed", "projection-rebuild", START, START.plusSeconds(4), 950L,
                "swapped", Map.of(0, 1000L));

        var progress = Progress.of(run, Map.of(), Map.of(0, 1200L), START.plusSeconds(60));

        assertThat(progress.position()).isEqualTo(1000);
        assertThat(progress.eventsApplied()).isEqualTo(950);
        assertThat(progress.elapsedSeconds()).isEqualTo(4.0);
        assertThat(progress.eventsPerSecond()).isEqualTo(250.0);
        assertThat(progress.behindLive()).isZero();
    }

    @Test
    void tellsHowFarARebuildIsBehindTheLiveProjection() {
        var run = new Progress.Run(9, "rebuild", "running", "projection-rebuild", START, null, null, null,
                Map.of(0, 100L, 1, 100L));
        var stored = Map.of(0, new Progress.Stored(100, 100), 1, new Progress.Stored(90, 90));

        var progress = Progress.of(run, stored, Map.of(0, 105L, 1, 100L), START.plusSeconds(1));

        assertThat(progress.behindLive()).isEqualTo(15);
        assertThat(progress.estimatedSecondsLeft()).isGreaterThan(0.0);
    }

    @Test
    void knowsNoTimeLeftBeforeTheFirstRecord() {
        var run = new Progress.Run(10, "replay", "running", "projection", START, null, null, null, Map.of(0, 5L));

        assertThat(Progress.of(run, Map.of(), Map.of(), START.plusSeconds(1)).estimatedSecondsLeft()).isNull();
    }
}
