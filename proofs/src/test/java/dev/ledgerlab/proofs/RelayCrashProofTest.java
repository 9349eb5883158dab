package dev.ledgerlab.proofs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ledgerlab.proofs.support.Faults;
import dev.ledgerlab.proofs.support.IndependentChecker;
import dev.ledgerlab.proofs.support.Load;
import dev.ledgerlab.proofs.support.Pipeline;
import dev.ledgerlab.proofs.support.ServiceProcess;
import dev.ledgerlab.testkit.CommandApiClient;
import dev.ledgerlab.testkit.TestHttp;
import dev.ledgerlab.testkit.TestInfrastructure;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Scenario 4: the relay process dies while events flow; a new one loses nothing, and what it publishes twice the
 * projector's version check skips, every copy of it. Each scenario has a pipeline of its own, started projector
 * first (before the relay has created the topic), so that the copies in the topic and the duplicates the projector
 * counted are compared exactly.
 */
class RelayCrashProofTest {

    @Test
    void losesNoEventWhenTheRelayProcessIsKilledWhileEventsFlow() throws Exception {
        long seed = System.nanoTime();
        try (var pipeline = Pipeline.isolated(TestInfrastructure.get(), "proof_relay_kill")) {
            var started = pipeline.together(pipeline::commandApi, pipeline::projector);
            var api = started.get(0);
            var projector = started.get(1);
            var accounts = CommandApiClient.at(api.port()).openAccounts(6);
            try (var load = new Load(api, accounts, seed)) {
                var relay = pipeline.relay();
                long killAfter = 100 + new Random(seed).nextInt(400);
                await().atMost(Duration.ofSeconds(90)).until(() ->
                        TestHttp.at(relay.port()).get("/relay/status").json().get("recordsPublished").asLong() >= killAfter);
                assertThat(relay.kill()).as("SIGKILL").isEqualTo(137);
                // Events keep being written while no relay runs; they wait in the WAL, held by the slot.
                load.awaitMore(200, Duration.ofSeconds(60));
                pipeline.relay();
                load.awaitMore(100, Duration.ofSeconds(60));
                load.close();
                var verdict = assertExact(pipeline, projector, accounts, load);
                System.out.printf("scenario 4 seed=%d: relay SIGKILLed after %d published; %s; %s%n", seed, killAfter,
                        load.counts(), verdict);
            }
        }
    }

    @Test
    void skipsEveryRecordTheRelayPublishedAgainAfterItDiedBetweenKafkasAcknowledgementAndItsOffsets()
            throws Exception {
        long seed = System.nanoTime();
        int batch = 5 + new Random(seed).nextInt(10);
        try (var pipeline = Pipeline.isolated(TestInfrastructure.get(), "proof_relay_halt")) {
            var started = pipeline.together(pipeline::commandApi, pipeline::projector);
            var api = started.get(0);
            var projector = started.get(1);
            var accounts = CommandApiClient.at(api.port()).openAccounts(6);
            try (var load = new Load(api, accounts, seed)) {
                var faulty = pipeline.relayUnready("--relay.faults.halt-after-acknowledged-batch=" + batch);
                var halted = Faults.awaitHalt(faulty, Duration.ofSeconds(120));
                int acknowledged = Faults.batchRecords(halted);
                load.awaitMore(100, Duration.ofSeconds(60));
                pipeline.relay();
                load.awaitMore(100, Duration.ofSeconds(60));
                load.close();
                var verdict = assertExact(pipeline, projector, accounts, load);
                assertThat(verdict.topicDuplicates()).as("records the next relay published again: at least the batch"
                        + " Kafka had acknowledged when the relay died").isGreaterThanOrEqualTo(acknowledged);
                System.out.printf("scenario 4b seed=%d: relay halted after Kafka acknowledged batch %d (%d records)"
                        + " before storing its offsets; the topic holds %d copies, the projector skipped %d; %s; %s%n",
                        seed, batch, acknowledged, verdict.topicDuplicates(), verdict.duplicatesSkipped(),
                        load.counts(), verdict);
            }
        }
    }

    /** Balances as clients were told, the projector's checker, and the independent one (copies == duplicates). */
    private static IndependentChecker.Verdict assertExact(Pipeline pipeline, ServiceProcess projector,
            List<UUID> accounts, Load load) throws Exception {
        pipeline.assertProjectedAsTold(projector, accounts, load);
        var verdict = IndependentChecker.assertConsistent(pipeline);
        assertThat(verdict.events()).as("every accepted command is one stored event")
                .isEqualTo(accounts.size() + load.accepted());
        return verdict;
    }
}
