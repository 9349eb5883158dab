package dev.ledgerlab.projector.apply;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ledgerlab.projector.ProjectorIntegrationTest;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.TestPropertySource;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * How an in-place replay ends when two consumers (of one projector or of two) write the last offsets it waits for
 * in transactions that overlap: the batches' own statements against the real PostgreSQL, in the order that lost
 * the end of a replay before (each transaction checked the other's offsets before the other committed). In a
 * database and consumer group of their own, on a topic nothing is published to, so the running consumers touch
 * none of it.
 */
@TestPropertySource(properties = {
    ProjectorIntegrationTest.DATABASE_PROPERTY + "=" + ReplayCompletionTest.DATABASE,
    "projector.topic=" + ReplayCompletionTest.QUIET_TOPIC,
    "projector.group-id=replay-completion-test",
    "projector.replay.rebuild-group-id=replay-completion-test-rebuild"})
class ReplayCompletionTest extends ProjectorIntegrationTest {

    static final String DATABASE = "projector_replay_completion";
    static final String QUIET_TOPIC = "replay-completion.accounts.events";

    @Autowired
    private ProjectionStore store;

    @Autowired
    private TransactionTemplate transactions;

    @BeforeAll
    static void isolateProjection() {
        isolate(DATABASE, QUIET_TOPIC);
    }

    @Test
    void endsAReplayWhenTwoConsumersCarryItsLastPartitionsToTheTargetAtOnce() throws Exception {
        long replay = jdbc.sql("""
                INSERT INTO projection.replays (kind, state, group_id, topic, requested_by, started_at)
                VALUES ('replay', 'running', 'replay-completion-test', ?, 'test', now()) RETURNING id""")
                .param(QUIET_TOPIC).query(Long.class).single();
        // Partition 2 is empty; 0 and 1 end at offsets 5 and 3.
        for (var target : new long[][] {{0, 5}, {1, 3}, {2, 0}}) {
            jdbc.sql("INSERT INTO projection.replay_targets (replay_id, partition, end_offset) VALUES (?, ?, ?)")
                    .params(replay, (int) target[0], target[1]).update();
        }

        // Two threads of their own: the common pool may have a single one on two cores.
        var consumers = Executors.newFixedThreadPool(2);
        var firstWrote = new CountDownLatch(1);
        var firstMayCommit = new CountDownLatch(1);
        // The first consumer's last batch: partition 0 to its target, the end checked, the commit held back.
        var first = CompletableFuture.runAsync(() -> transactions.executeWithoutResult(status -> {
            lastBatch(0, 4);
            firstWrote.countDown();
            try {
                assertThat(firstMayCommit.await(60, TimeUnit.SECONDS)).as("the test lets the first batch commit")
                        .isTrue();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }), consumers);
        assertThat(firstWrote.await(30, TimeUnit.SECONDS)).as("the first batch wrote").isTrue();
        // The second consumer's last batch, partition 1, while the first has not committed yet.
        var second = CompletableFuture.runAsync(() -> transactions.executeWithoutResult(status -> lastBatch(1, 2)),
                consumers);
        // Either it finished, or it waits for the first one's commit to check after it.
        await().atMost(Duration.ofSeconds(30)).until(() -> second.isDone() || waitingOnALock() > 0);
        boolean secondWaited = !second.isDone();
        firstMayCommit.countDown();
        first.get(30, TimeUnit.SECONDS);
        second.get(30, TimeUnit.SECONDS);
        consumers.shutdown();

        var ended = jdbc.sql("SELECT state, events_applied FROM projection.replays WHERE id = ?").param(replay)
                .query((rs, row) -> rs.getString(1) + " " + rs.getLong(2)).single();
        assertThat(ended).as("the replay after both batches committed (second batch waited for the first: %s)",
                secondWaited).isEqualTo("completed 8");
    }

    /** What a batch's transaction does with its offsets: fence, lock, write, then the replay's end. */
    private void lastBatch(int partition, long lastOffset) {
        var fence = store.fence(ProjectionTables.LIVE);
        store.lockOffsets(ProjectionTables.LIVE, Set.of(partition));
        store.writeOffsets(ProjectionTables.LIVE, Map.of(partition, progress(lastOffset + 1)));
        store.completeReplay(fence, Set.of(partition));
    }

    private static BatchDecision.PartitionProgress progress(long nextOffset) {
        var progress = new BatchDecision.PartitionProgress();
        progress.nextOffset = nextOffset;
        progress.applied = nextOffset;
        return progress;
    }

    private int waitingOnALock() {
        return jdbc.sql("SELECT count(*) FROM pg_stat_activity WHERE datname = ? AND wait_event_type = 'Lock'")
                .param(DATABASE).query(Integer.class).single();
    }
}
