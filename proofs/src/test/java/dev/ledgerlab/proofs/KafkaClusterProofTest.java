package dev.ledgerlab.proofs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ledgerlab.proofs.support.IndependentChecker;
import dev.ledgerlab.proofs.support.Load;
import dev.ledgerlab.proofs.support.Pipeline;
import dev.ledgerlab.proofs.support.ProgressWatch;
import dev.ledgerlab.proofs.support.ServiceProcess;
import dev.ledgerlab.proofs.support.TopicReplicas;
import dev.ledgerlab.testkit.CommandApiClient;
import dev.ledgerlab.testkit.ReplicatedKafka;
import dev.ledgerlab.testkit.TestHttp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Broker failures on a real three-node Kafka cluster ({@link ReplicatedKafka}: each node a process of its own, topics
 * with three replicas, {@code min.insync.replicas=2}, unclean leader election off; the relay's producer
 * {@code acks=all}, idempotent), under REST load from {@link Load#CLIENTS} client threads. Each scenario ends with the
 * independent checker and says how many records the relay published twice and the projector skipped.
 *
 * <p>In the two outage scenarios the relay runs with {@code relay.delivery-timeout=3s} (2 minutes by default) and
 * engine restarts at most 2 s apart (30 s by default), so that a send the cluster cannot acknowledge fails within
 * seconds, and the failure path (the engine restarting from its stored offset, the batch published again) is what the
 * proof exercises, three times over, not just a producer that waits. The leader scenario keeps a 10 s delivery timeout:
 * the controller fences a dead node once its session expires (4 s,
 * {@link dev.ledgerlab.infra.KafkaCluster#SHORT_SESSIONS}; new leaders came 3.4-7.7 s after the kill), and the proof is
 * that the producer carries on through it.
 */
class KafkaClusterProofTest {

    /** Longer than the dead leader's fencing: the producer waits for the new leaders, nothing fails. */
    private static final List<String> THROUGH_FENCING = List.of("--relay.delivery-timeout=10s");
    /** Sends fail within seconds of the outage and the engine retries soon, on both sides of it. */
    private static final List<String> FAIL_FAST = List.of("--relay.delivery-timeout=3s",
            "--relay.restart-backoff-max=2s");

    private static final ReplicatedKafka kafka = ReplicatedKafka.get();
    /** The outage scenarios' pipeline and its services, started by the first of them. */
    private static Pipeline outages;
    private static Pipeline.Services outageServices;

    @AfterAll
    static void stopOutagePipeline() {
        if (outages != null) {
            outages.close();
        }
    }

    /** Every scenario leaves the cluster whole for the next. */
    @AfterEach
    void restartStoppedNodes() {
        var stopped = kafka.cluster().nodes().stream().mapToInt(node -> node.id())
                .filter(id -> !kafka.cluster().isRunning(id)).toArray();
        if (stopped.length > 0) {
            kafka.cluster().start(stopped);
        }
    }

    @Test
    void losesNothingAndCarriesOnWhenTheNodeLeadingMostPartitionsIsKilled() throws Exception {
        long seed = System.nanoTime();
        try (var pipeline = pipeline("proof_cluster_leader", THROUGH_FENCING)) {
            var services = pipeline.startAll();
            var accounts = CommandApiClient.at(services.api().port()).openAccounts(12);
            try (var load = new Load(services.api(), accounts, seed); var progress = new ProgressWatch(pipeline)) {
                load.awaitMore(300, Duration.ofSeconds(90));
                var before = TopicReplicas.of(pipeline);
                assertThat(before.values()).as("three copies of each partition, all in sync")
                        .allSatisfy(p -> assertThat(p.inSync()).hasSize(ReplicatedKafka.NODES)
                                .isEqualTo(p.replicas()));
                assertThat(TopicReplicas.settings(pipeline)).containsAllEntriesOf(kafka.replication().topicConfigs());
                int leader = TopicReplicas.busiestLeader(before);
                long led = before.values().stream().filter(p -> p.leader() == leader).count();
                long pid = kafka.cluster().pid(leader);
                long appliedAtKill = pipeline.applied();

                assertThat(kafka.cluster().kill(leader)).as("SIGKILL of node %d", leader).isEqualTo(137);
                long killed = System.nanoTime();
                // The controller fences the dead node once its session expires and elects leaders from the replicas
                // still in sync: every partition has one again, none of them the dead node.
                await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> TopicReplicas.of(pipeline)
                        .values().stream().allMatch(p -> p.leader() >= 0 && p.leader() != leader
                                && !p.inSync().contains(leader)));
                long newLeadersMillis = millisSince(killed);
                load.awaitMore(300, Duration.ofSeconds(90));
                await().atMost(Duration.ofSeconds(60)).until(() -> pipeline.applied() > appliedAtKill + 300);

                kafka.cluster().start(leader);
                long restarted = System.nanoTime();
                await().atMost(Duration.ofSeconds(120)).ignoreExceptions().until(() -> TopicReplicas.of(pipeline)
                        .values().stream().allMatch(p -> p.inSync().size() == ReplicatedKafka.NODES));
                long rejoinedMillis = millisSince(restarted);
                load.awaitMore(100, Duration.ofSeconds(60));
                load.close();

                var verdict = assertExact(pipeline, services.projector(), accounts, load);
                assertThat(List.of(services.relay(), services.projector()))
                        .as("nobody restarted the relay or the projector")
                        .allSatisfy(service -> assertThat(service.isAlive()).as("%s", service).isTrue());
                System.out.printf("cluster leader killed seed=%d: node %d (pid %d, leading %d of 6 partitions)"
                        + " SIGKILLed under load; every partition had a new leader %d ms later; the pipeline made no"
                        + " progress for at most %d ms; restarted, the node was back in every in-sync replica set %d ms"
                        + " after its start; %s; %s%n", seed, leader, pid, led, newLeadersMillis,
                        progress.longestStallMillis(), rejoinedMillis, load.counts(), verdict);
            }
        }
    }

    @Test
    void acceptsCommandsWhileTwoOfThreeNodesAreDownAndDrainsThemInOrderOnceOneReturns() throws Exception {
        long seed = System.nanoTime();
        var random = new Random(seed);
        int survivor = 1 + random.nextInt(ReplicatedKafka.NODES);
        var killed = IntStream.rangeClosed(1, ReplicatedKafka.NODES).filter(id -> id != survivor).toArray();
        int returning = killed[random.nextInt(killed.length)];
        var outage = outage(seed, killed, new int[] {returning}, Duration.ZERO);
        System.out.printf("cluster minority seed=%d: nodes %s SIGKILLed, node %d left alone, node %d started again;"
                + " %s%n", seed, Arrays.toString(killed), survivor, returning, outage);
    }

    @Test
    void acceptsCommandsWhileTheWholeClusterIsDownAndDrainsThemInOrderOnceItIsBack() throws Exception {
        long seed = System.nanoTime();
        var nodes = IntStream.rangeClosed(1, ReplicatedKafka.NODES).toArray();
        // At least 15 s without any broker, commands flowing all along.
        var outage = outage(seed, nodes, nodes, Duration.ofSeconds(15));
        System.out.printf("cluster down seed=%d: all %d nodes SIGKILLed, then started again; %s%n", seed,
                nodes.length, outage);
    }

    /**
     * One outage under load, in the pipeline the outage scenarios share (their faults strike the brokers, and every
     * figure of an outage is measured from its own start): {@code killed} are SIGKILLed, the outage is checked while it
     * lasts (at least {@code atLeastDown}), {@code returning} start again, the backlog drains while commands keep
     * coming, and the end state is checked. Returns what it measured.
     */
    private String outage(long seed, int[] killed, int[] returning, Duration atLeastDown) throws Exception {
        if (outages == null) {
            outages = pipeline("proof_cluster_outage", FAIL_FAST);
            outageServices = outages.startAll();
        }
        var pipeline = outages;
        var services = outageServices;
        var accounts = CommandApiClient.at(services.api().port()).openAccounts(12);
        try (var load = new Load(services.api(), accounts, seed); var progress = new ProgressWatch(pipeline)) {
            load.awaitMore(300, Duration.ofSeconds(90));
            // The pipeline flows end to end before the fault (an outage before it may have just ended).
            awaitApplied(pipeline, eventsStored(pipeline));
            for (int id : killed) {
                assertThat(kafka.cluster().kill(id)).as("SIGKILL of node %d", id).isEqualTo(137);
            }
            long down = System.nanoTime();
            var outage = assertNothingPublishedWhileKafkaCannotAcknowledge(pipeline, services.relay(), load);
            await().atMost(atLeastDown.plusSeconds(60)).until(() -> millisSince(down) >= atLeastDown.toMillis());
            long downMillis = millisSince(down);

            long storedBeforeReturn = eventsStored(pipeline);
            kafka.cluster().start(returning);
            long back = System.nanoTime();
            awaitApplied(pipeline, storedBeforeReturn);
            long drainedMillis = millisSince(back);
            load.awaitMore(200, Duration.ofSeconds(60));
            load.close();

            var verdict = assertExact(pipeline, services.projector(), accounts, load);
            return "down %d ms; %s; the backlog (every event stored until the nodes were back) was projected %d ms"
                    .formatted(downMillis, outage, drainedMillis) + " after they were ready; "
                    + assertPublishedSince(pipeline, services.relay(), outage, verdict)
                    + "; longest time without progress " + progress.longestStallMillis() + " ms; " + load.counts()
                    + "; " + verdict;
        }
    }

    private static Pipeline pipeline(String name, List<String> relaySettings) {
        var args = new ArrayList<>(kafka.serviceArguments());
        args.addAll(relaySettings);
        return Pipeline.isolated(kafka.infrastructure(), name, args.toArray(String[]::new));
    }

    /**
     * What the outage did, measured from the relay's first failed send: the relay's published count and the slot's
     * confirmed position then and at the end (both unchanged: nothing marked processed), the events stored meanwhile,
     * the engine's restarts, and the error it reported.
     */
    private record Outage(long publishedBefore, long eventsBefore, long acceptedMeanwhile, long eventsStoredMeanwhile,
            long engineRestarts, String error) {
        @Override
        public String toString() {
            return "the relay's sends failed (" + error + "), its engine restarted " + engineRestarts + " times from"
                    + " its stored offset and marked nothing processed, the slot stood still, while " + acceptedMeanwhile
                    + " commands were accepted and " + eventsStoredMeanwhile + " events waited in PostgreSQL";
        }
    }

    /**
     * Once Kafka can no longer acknowledge: the relay's sends fail, it starts its engine again and fails again, and
     * meanwhile nothing is marked processed and the slot stays where it was, while the command API keeps accepting
     * commands whose events wait in the outbox. Measured from the end of the first engine run that started after the
     * outage did (a run may confirm to the slot, as it starts, what the one before had stored but not yet confirmed).
     */
    private static Outage assertNothingPublishedWhileKafkaCannotAcknowledge(Pipeline pipeline, ServiceProcess relay,
            Load load) throws Exception {
        long restartsBefore = restarts(relay);
        await().atMost(Duration.ofSeconds(90)).until(() -> restarts(relay) >= restartsBefore + 2);
        var error = relayStatus(relay).get("lastEngineError").asString();
        assertThat(error).as("the engine failed because Kafka did not acknowledge a batch")
                .contains("Kafka did not acknowledge a batch");
        long published = published(relay);
        long confirmed = confirmedFlush(pipeline);
        long events = eventsStored(pipeline);
        long accepted = load.accepted();
        long restarts = restarts(relay);

        // Another engine run fails the same way while commands keep coming.
        load.awaitMore(300, Duration.ofSeconds(90));
        await().atMost(Duration.ofSeconds(90)).until(() -> restarts(relay) > restarts);
        assertThat(published(relay)).as("records acknowledged during the outage").isEqualTo(published);
        assertThat(confirmedFlush(pipeline)).as("the slot's confirmed_flush_lsn during the outage").isEqualTo(confirmed);
        long storedMeanwhile = eventsStored(pipeline) - events;
        assertThat(storedMeanwhile).as("events the outbox absorbed during the outage").isGreaterThanOrEqualTo(300);
        return new Outage(published, events, load.accepted() - accepted, storedMeanwhile,
                restarts(relay) - restartsBefore, relayStatus(relay).get("lastEngineError").asString());
    }

    /**
     * Every event stored since the outage was measured was published after it (none had been before: nothing was
     * acknowledged meanwhile), so the relay's count of acknowledged records grew by at least as many; what it published
     * beyond the events is copies, which the independent checker has counted in the topic and the projector skipped.
     */
    private static String assertPublishedSince(Pipeline pipeline, ServiceProcess relay, Outage outage,
            IndependentChecker.Verdict verdict) throws Exception {
        long published = published(relay) - outage.publishedBefore();
        long stored = eventsStored(pipeline) - outage.eventsBefore();
        assertThat(published).as("records the relay published once Kafka was back, against the events stored since the"
                + " outage was measured").isGreaterThanOrEqualTo(stored);
        return "from then on the relay published " + published + " records for " + stored + " events stored since the"
                + " outage was measured and the backlog before them (the whole topic: " + verdict.topicDuplicates()
                + " copies, as many skipped)";
    }

    /** Waits, while commands keep coming, until the live group has applied at least {@code events} events. */
    private static void awaitApplied(Pipeline pipeline, long events) {
        try {
            await().atMost(Duration.ofSeconds(180)).until(() -> pipeline.applied() >= events);
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError("the backlog of " + events + " events was not projected:\n"
                    + pipeline.whyNotQuiet(), e);
        }
    }

    /** Balances as clients were told, the projector's own checker, and the independent one. */
    private static IndependentChecker.Verdict assertExact(Pipeline pipeline, ServiceProcess projector,
            List<UUID> accounts, Load load) throws Exception {
        pipeline.assertProjectedAsTold(projector, accounts, load);
        return IndependentChecker.assertConsistent(pipeline);
    }

    private static JsonNode relayStatus(ServiceProcess relay) {
        return TestHttp.at(relay.port()).asOperator().get("/relay/status").json();
    }

    private static long restarts(ServiceProcess relay) {
        return relayStatus(relay).get("engineRestarts").asLong();
    }

    private static long published(ServiceProcess relay) {
        return relayStatus(relay).get("recordsPublished").asLong();
    }

    private static long eventsStored(Pipeline pipeline) throws Exception {
        return pipeline.queryLong("SELECT count(*) FROM ledger.events");
    }

    /** The slot's confirmed_flush_lsn as a number: where PostgreSQL may discard WAL up to. */
    private static long confirmedFlush(Pipeline pipeline) throws Exception {
        return pipeline.queryLong("SELECT pg_wal_lsn_diff(confirmed_flush_lsn, '0/0')::bigint FROM pg_replication_slots"
                + " WHERE slot_name = '" + pipeline.name() + "'");
    }

    private static long millisSince(long nanos) {
        return (System.nanoTime() - nanos) / 1_000_000;
    }
}
