package dev.ledgerlab.projector.watch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledgerlab.projector.operate.ProjectionStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The pauses the page shows, from readings a second apart: given stored offsets and lags, which pauses. */
class PausesTest {

    private static final Instant START = Instant.parse("2026-12-07T22:00:00Z");

    @Test
    void measuresAPartitionWaitingWithoutMovingFromItsLastMoveToItsNextOne() {
        // Moves at 0-2 s, then records wait at 3-11 s while nobody applies them (a member killed), moved at 12 s.
        var readings = new Readings();
        for (int s = 0; s <= 2; s++) {
            readings.at(s, 100 + s, 5);
        }
        for (int s = 3; s <= 11; s++) {
            readings.at(s, 102, 5 + s);
        }
        readings.at(12, 130, 0);

        assertThat(Pauses.of(readings.samples)).containsExactly(
                new Pauses.Pause(0, START.plusSeconds(2), START.plusSeconds(12), 10.0, false));
    }

    @Test
    void findsNoPauseInAPartitionThatMovesAtEveryReadingUnderLoadOrHasNothingToApply() {
        var readings = new Readings();
        for (int s = 0; s < 10; s++) {
            readings.at(s, 100 + 10 * s, 7);
        }
        for (int s = 10; s < 20; s++) {
            readings.at(s, 190, 0);
        }

        assertThat(Pauses.of(readings.samples)).isEmpty();
    }

    @Test
    void callsAPauseStillWaitingAtTheLastReadingOngoingOnceTwoReadingsFoundItWaiting() {
        var readings = new Readings();
        readings.at(0, 50, 0);
        readings.at(1, 50, 3);
        assertThat(Pauses.of(readings.samples)).as("one waiting reading: records that came just before it").isEmpty();

        readings.at(2, 50, 9);
        readings.at(3, 50, 14);
        assertThat(Pauses.of(readings.samples)).containsExactly(
                new Pauses.Pause(0, START, START.plusSeconds(3), 3.0, true));
    }

    @Test
    void neitherEndsNorLengthensAPauseAtAReadingThatCouldNotReadThePartition() {
        var readings = new Readings();
        readings.at(0, 10, 0);
        readings.at(1, 10, 4);
        readings.at(2, -1, -1);
        readings.at(3, 10, 6);
        readings.at(4, 16, 0);

        assertThat(Pauses.of(readings.samples)).containsExactly(
                new Pauses.Pause(0, START, START.plusSeconds(4), 4.0, false));
    }

    @Test
    void keepsEachPartitionsPausesApartInTheOrderTheyBegan() {
        var readings = new Readings();
        for (int s = 0; s <= 6; s++) {
            long one = s < 4 ? 20 : 20 + s; // waits at 1-3 s, moves at 4 s
            long two = s < 2 ? 30 + s : s < 6 ? 31 : 40; // waits at 2-5 s, moves at 6 s
            readings.at(s, List.of(partition(1, one, s < 4 ? 2 : 0), partition(2, two, s < 6 ? 3 : 0)));
        }

        assertThat(Pauses.of(readings.samples)).containsExactly(
                new Pauses.Pause(1, START, START.plusSeconds(4), 4.0, false),
                new Pauses.Pause(2, START.plusSeconds(1), START.plusSeconds(6), 5.0, false));
    }

    private static ProjectionStatus.Partition partition(int partition, long storedOffset, long lag) {
        return new ProjectionStatus.Partition(partition, storedOffset, storedOffset < 0 ? -1 : storedOffset + lag, lag,
                0, 0);
    }

    /** Readings a second apart, as the page asks for them. */
    private static final class Readings {

        final List<PipelineWatch.Sample> samples = new ArrayList<>();

        void at(int second, long storedOffset, long lag) {
            at(second, List.of(partition(0, storedOffset, lag)));
        }

        void at(int second, List<ProjectionStatus.Partition> partitions) {
            samples.add(new PipelineWatch.Sample(START.plusSeconds(second), 0, List.of(), 0, partitions, 0, 0, 0, 0, 0,
                    null, List.of()));
        }
    }
}
