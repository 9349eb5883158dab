package dev.ledgerlab.projector.apply;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Which readers a committed batch wakes: those of the accounts it touched, and no others. */
class ProjectionSignalsTest {

    private static final String ALICE = "00000000-0000-0000-0000-00000000000a";
    private static final String BOB = "00000000-0000-0000-0000-00000000000b";

    private final ProjectionSignals signals = new ProjectionSignals();

    @Test
    void aCommitTouchingTheAccountWakesItsWaitingReader() throws Exception {
        long seen = signals.watch(ALICE);
        var waiting = CompletableFuture.supplyAsync(() -> await(ALICE, seen, 60_000));

        signals.committed(List.of(BOB, ALICE));

        assertThat(waiting.get(30, TimeUnit.SECONDS)).isEqualTo(seen + 1);
    }

    @Test
    void aCommitOfOtherAccountsLeavesTheReaderWaiting() throws Exception {
        long seen = signals.watch(ALICE);

        signals.committed(List.of(BOB));

        assertThat(signals.awaitCommitAfter(ALICE, seen, 0)).isEqualTo(seen);
    }

    @Test
    void aCommitBetweenTheReadersReadAndItsWaitIsNotMissed() throws Exception {
        long seen = signals.watch(ALICE);
        signals.committed(List.of(ALICE));

        assertThat(signals.awaitCommitAfter(ALICE, seen, 60_000)).isEqualTo(seen + 1);
    }

    @Test
    void twoReadersOfOneAccountAreCountedAndNothingStaysWatchedAfterBoth() throws Exception {
        long first = signals.watch(ALICE);
        long second = signals.watch(ALICE);
        signals.unwatch(ALICE);
        signals.committed(List.of(ALICE));

        assertThat(signals.awaitCommitAfter(ALICE, second, 60_000)).isEqualTo(first + 1);
        signals.unwatch(ALICE);
        assertThatThrownBy(() -> signals.awaitCommitAfter(ALICE, second, 0)).isInstanceOf(IllegalStateException.class);
    }

    private long await(String account, long seen, long millis) {
        try {
            return signals.awaitCommitAfter(account, seen, millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
