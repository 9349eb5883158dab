package dev.ledgerlab.proofs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ledgerlab.proofs.support.IndependentChecker;
import dev.ledgerlab.proofs.support.Load;
import dev.ledgerlab.proofs.support.Pipeline;
import dev.ledgerlab.proofs.support.ServiceProcess;
import dev.ledgerlab.testkit.CommandApiClient;
import dev.ledgerlab.testkit.DurablePostgres;
import dev.ledgerlab.testkit.TestHttp;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Outages under REST load, through real processes, on a PostgreSQL with fsync and synchronous_commit on (so that a
 * command answered 200 is one that survives a crash). Every scenario ends with the independent checker.
 */
class OutageProofTest {

    @Test
    void keepsEveryAnsweredCommandAndResumesByItselfWhenPostgresIsKilledAndRestarted() throws Exception {
        long seed = System.nanoTime();
        var postgres = DurablePostgres.get();
        try (var pipeline = Pipeline.isolated(postgres.infrastructure(), "proof_outage_postgres")) {
            var started = pipeline.startAll();
            var api = started.api();
            var relay = started.relay();
            var projector = started.projector();
            var services = List.of(api, relay, projector);
            var accounts = CommandApiClient.at(api.port()).openAccounts(8);
            try (var load = new Load(api, accounts, seed)) {
                load.awaitMore(300, Duration.ofSeconds(90));
                assertThat(services).allSatisfy(s -> assertThat(ready(s)).as("%s ready", s).isEqualTo(200));

                long killedPid = postgres.pid();
                long acceptedBeforeTheKill = load.accepted();
                postgres.kill();
                long killed = System.nanoTime();
                long unavailableBefore = load.counts().unavailable();
                // Down for several seconds: clients get 503 database-unavailable, every service reports not ready.
                await().atMost(Duration.ofSeconds(60)).pollDelay(Duration.ofSeconds(6)).until(() ->
                        load.counts().unavailable() > unavailableBefore
                        && services.stream().allMatch(s -> ready(s) == 503));
                long acceptedWhileDown = load.accepted() - acceptedBeforeTheKill;
                long downMillis = (System.nanoTime() - killed) / 1_000_000;
                postgres.restart();

                // Nobody restarts the services: the relay and the projector resume by themselves.
                load.awaitMore(300, Duration.ofSeconds(120));
                await().atMost(Duration.ofSeconds(60)).until(() -> services.stream().allMatch(s -> ready(s) == 200));
                long resumedMillis = (System.nanoTime() - killed) / 1_000_000 - downMillis;
                load.close();

                var verdict = assertEveryAnswerKept(pipeline, projector, accounts, load);
                var counts = load.counts();
                assertThat(counts.unavailable()).as("503 database-unavailable answers during the outage").isPositive();
                assertThat(counts.slowestUnavailableMillis()).as("a 503 comes within the 2 s connection timeout,"
                        + " with some slack for a loaded machine").isLessThan(5_000);
                System.out.printf("postgres killed seed=%d: postmaster %d SIGKILLed under load after %d commands"
                        + " accepted, down %d ms (%d answered 200 meanwhile: in flight at the kill), restarted; %d ms"
                        + " later 300 more were accepted and every service was ready again; %s; %s%n", seed, killedPid,
                        acceptedBeforeTheKill, downMillis, acceptedWhileDown, resumedMillis, counts, verdict);
            }
        }
    }

    @Test
    void appliesEveryCommandExactlyOnceWhenTheCommandApiIsKilledAndClientsRetryWithTheirKeys() throws Exception {
        long seed = System.nanoTime();
        try (var pipeline = Pipeline.isolated(DurablePostgres.get().infrastructure(), "proof_outage_api")) {
            var started = pipeline.startAll();
            var api = started.api();
            var projector = started.projector();
            var accounts = CommandApiClient.at(api.port()).openAccounts(8);
            try (var load = new Load(api, accounts, seed)) {
                load.awaitMore(300, Duration.ofSeconds(90));
                long unansweredBefore = load.counts().unanswered();
                assertThat(api.kill()).as("SIGKILL").isEqualTo(137);
                await().atMost(Duration.ofSeconds(30)).until(() -> load.counts().unanswered() > unansweredBefore);
                // The same command line on the same port, as a supervisor would restart it.
                api.restart();
                load.awaitMore(300, Duration.ofSeconds(90));
                load.close();

                var verdict = assertEveryAnswerKept(pipeline, projector, accounts, load);
                var counts = load.counts();
                assertThat(counts.retried()).as("commands retried with their key after the kill").isPositive();
                System.out.printf("command API killed seed=%d: SIGKILLed under load and restarted on its port; %s;"
                        + " %s%n", seed, counts, verdict);
            }
        }
    }

    private static int ready(ServiceProcess service) {
        return TestHttp.at(service.port()).get("/actuator/health/readiness").status();
    }

    /**
     * Every command answered 200 is one event in the store (its event id, once), nothing else was written, the
     * projection holds what clients were told, and the independent checker finds nothing: no valid event
     * dead-lettered, none parked, none applied twice.
     */
    private static IndependentChecker.Verdict assertEveryAnswerKept(Pipeline pipeline, ServiceProcess projector,
            List<UUID> accounts, Load load) throws Exception {
        pipeline.awaitQuiet(Duration.ofSeconds(120));
        var stored = new HashSet<UUID>();
        try (var connection = pipeline.connect(); var statement = connection.createStatement();
                var rs = statement.executeQuery("SELECT id FROM ledger.events")) {
            while (rs.next()) {
                stored.add(rs.getObject(1, UUID.class));
            }
        }
        assertThat(stored).as("every accepted command's event is stored").containsAll(load.acceptedEvents());
        assertThat(stored).as("one event per account opened and per accepted command, nothing else")
                .hasSize(accounts.size() + (int) load.accepted());
        pipeline.assertProjectedAsTold(projector, accounts, load);
        return IndependentChecker.assertConsistent(pipeline);
    }
}
