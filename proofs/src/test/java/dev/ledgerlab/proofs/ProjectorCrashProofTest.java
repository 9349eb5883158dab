package dev.ledgerlab.proofs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ledgerlab.proofs.support.Http;
import dev.ledgerlab.proofs.support.Load;
import dev.ledgerlab.proofs.support.Pipeline;
import dev.ledgerlab.proofs.support.ServiceProcess;
import dev.ledgerlab.testkit.TestInfrastructure;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Scenario 3: the projector dies mid-batch, three ways, while deposits flow; a new projector process finishes
 * the job and the projection is exact. Each death is a real one: a halt injected through the projector's fault
 * seam (no shutdown hook, no commit), or a SIGKILL from outside.
 */
class ProjectorCrashProofTest {

    private static Pipeline pipeline;
    private static ServiceProcess api;

    @BeforeAll
    static void start() {
        pipeline = new Pipeline(TestInfrastructure.get());
        api = pipeline.commandApi();
        pipeline.relay();
    }

    @AfterAll
    static void stop() {
        pipeline.close();
    }

    @Test
    void staysExactWhenTheProjectorDiesAfterItsDatabaseCommitBeforeItsKafkaCommit() throws Exception {
        dieAt("after-db-commit");
    }

    @Test
    void staysExactWhenTheProjectorDiesHalfwayThroughApplyingABatch() throws Exception {
        dieAt("before-db-commit");
    }

    @Test
    void staysExactWhenAProjectorProcessIsKilledAtRandomPointsUnderLoad() throws Exception {
        long seed = System.nanoTime();
        System.out.println("scenario 3c seed=" + seed);
        var random = new Random(seed);
        var accounts = accounts(5);
        ServiceProcess survivor = null;
        var kills = new ArrayList<Long>();
        try (var load = new Load(api, accounts, 2, seed)) {
            for (int i = 0; i < 3; i++) {
                var projector = pipeline.projector();
                long target = Pipeline.status(projector).get("applied").asLong() + 50 + random.nextInt(400);
                await().atMost(Duration.ofSeconds(90)).until(() ->
                        Pipeline.status(projector).get("applied").asLong() >= target);
                projector.kill();
                kills.add(target);
            }
            survivor = pipeline.projector();
            long acceptedAtRestart = load.accepted();
            await().atMost(Duration.ofSeconds(60)).until(() -> load.accepted() > acceptedAtRestart + 100);
            load.close();
            assertExact(accounts, load, survivor, "3c (SIGKILL after " + kills + " applied events)");
        } finally {
            stopIfStarted(survivor);
        }
    }

    private void dieAt(String point) throws Exception {
        long seed = System.nanoTime();
        var random = new Random(seed);
        int batch = 3 + random.nextInt(5);
        System.out.println("scenario 3 " + point + " seed=" + seed + " halting in batch " + batch);
        var accounts = accounts(5);
        ServiceProcess faulty = null;
        ServiceProcess recovered = null;
        try (var load = new Load(api, accounts, 2, seed)) {
            faulty = pipeline.projector("--projector.faults.halt-at=" + point,
                    "--projector.faults.halt-after-batches=" + batch);
            assertThat(faulty.awaitExit(Duration.ofSeconds(90))).as("halted by the fault seam").isEqualTo(99);
            assertThat(faulty.tail()).contains("FAULT: projector halting " + point);
            recovered = pipeline.projector();
            long acceptedAtRestart = load.accepted();
            await().atMost(Duration.ofSeconds(60)).until(() -> load.accepted() > acceptedAtRestart + 100);
            load.close();
            assertExact(accounts, load, recovered, "3 " + point);
        } finally {
            stopIfStarted(faulty);
            stopIfStarted(recovered);
        }
    }

    /**
     * Each scenario ends with no projector of its own left in the group: a survivor of one scenario would share
     * the partitions with the next one's faulty projector, which then may receive none of its accounts' records and
     * never reach the batch it is armed to halt in.
     */
    private static void stopIfStarted(ServiceProcess projector) {
        if (projector != null) {
            projector.close();
        }
    }

    private static List<UUID> accounts(int n) {
        return Pipeline.openAccounts(api, n);
    }

    private static void assertExact(List<UUID> accounts, Load load, ServiceProcess projector, String scenario) {
        pipeline.awaitQuiet(Duration.ofSeconds(120));
        for (var account : accounts) {
            var projected = Http.get(projector.port(), "/accounts/" + account + "/balance").json();
            assertThat(projected.get("balance").asLong()).as("balance of %s", account).isEqualTo(load.sum(account));
        }
        var report = Pipeline.assertInvariantsHold(projector);
        var status = Pipeline.status(projector);
        System.out.printf("scenario %s: %d deposits accepted, store %d events, duplicates skipped %d, "
                + "redelivered to the last projector %d%n", scenario, load.accepted(),
                report.get("eventsStored").asLong(), status.get("duplicates").asLong(),
                status.get("redeliveredSinceStart").asLong());
    }
}
