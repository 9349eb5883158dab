package dev.ledgerlab.proofs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ledgerlab.proofs.support.Http;
import dev.ledgerlab.proofs.support.Load;
import dev.ledgerlab.proofs.support.Pipeline;
import dev.ledgerlab.proofs.support.ServiceProcess;
import dev.ledgerlab.testkit.TestInfrastructure;
import java.time.Duration;
import java.util.HashSet;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Scenario 4: the relay process is SIGKILLed while events flow; a new one loses nothing, duplicates are absorbed. */
class RelayCrashProofTest {

    private static Pipeline pipeline;
    private static ServiceProcess api;
    private static ServiceProcess projector;

    @BeforeAll
    static void start() {
        pipeline = new Pipeline(TestInfrastructure.get());
        api = pipeline.commandApi();
        projector = pipeline.projector();
    }

    @AfterAll
    static void stop() {
        pipeline.close();
    }

    @Test
    void losesNoEventWhenTheRelayProcessIsKilledWhileEventsFlow() throws Exception {
        long seed = System.nanoTime();
        System.out.println("scenario 4 seed=" + seed);
        var random = new Random(seed);
        var accounts = Pipeline.openAccounts(api, 5);
        try (var load = new Load(api, accounts, 2, seed)) {
            var relay = pipeline.relay();
            long killAfter = 100 + random.nextInt(400);
            await().atMost(Duration.ofSeconds(90)).until(() ->
                    Http.get(relay.port(), "/relay/status").json().get("recordsPublished").asLong() >= killAfter);
            relay.kill();
            long acceptedAtKill = load.accepted();
            // Events keep being written while no relay runs; they wait in the WAL, held by the slot.
            await().atMost(Duration.ofSeconds(60)).until(() -> load.accepted() > acceptedAtKill + 200);
            pipeline.relay();
            long acceptedAtRestart = load.accepted();
            await().atMost(Duration.ofSeconds(60)).until(() -> load.accepted() > acceptedAtRestart + 100);
            load.close();

            pipeline.awaitQuiet(Duration.ofSeconds(120));
            for (var account : accounts) {
                var projected = Http.get(projector.port(), "/accounts/" + account + "/balance").json();
                assertThat(projected.get("balance").asLong()).as("balance of %s", account)
                        .isEqualTo(load.sum(account));
            }
            var report = Pipeline.assertInvariantsHold(projector);
            long events = accounts.size() + load.accepted();
            var topic = pipeline.countTopic("accounts.events", new HashSet<>(accounts));
            assertThat(topic.distinctEvents()).as("every event reached Kafka").isEqualTo(events);
            System.out.printf("scenario 4: relay killed after %d published; %d events, %d records in Kafka, "
                    + "%d duplicates absorbed (projector duplicates total %d); store %d events%n", killAfter, events,
                    topic.records(), topic.duplicates(), Pipeline.status(projector).get("duplicates").asLong(),
                    report.get("eventsStored").asLong());
        }
    }
}
