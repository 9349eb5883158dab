package dev.ledgerlab.proofs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ledgerlab.proofs.support.Http;
import dev.ledgerlab.proofs.support.Load;
import dev.ledgerlab.proofs.support.Pipeline;
import dev.ledgerlab.proofs.support.ServiceProcess;
import dev.ledgerlab.testkit.Infrastructure;
import dev.ledgerlab.testkit.TestInfrastructure;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * Scenarios 5, 6 and 7: the consumer group. Members share the partitions and take over a dead member's; the
 * group's parallelism is the partition count; re-reading the log from the start changes nothing.
 *
 * <p>Takeover is prompt because the projector's consumers use {@code session.timeout.ms=10000} (Kafka's default
 * is 45 s): a killed member is declared dead, and its partitions reassigned, within about ten seconds.
 */
class ConsumerGroupProofTest {

    @Test
    void sharesThePartitionsBetweenTwoProjectorsAndHandsThemOverWhenOneIsKilled() throws Exception {
        long seed = System.nanoTime();
        System.out.println("scenario 5 seed=" + seed);
        try (var pipeline = new Pipeline(TestInfrastructure.get())) {
            var api = pipeline.commandApi();
            pipeline.relay();
            var first = pipeline.projector();
            var second = pipeline.projector();
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                var a = assigned(first);
                var b = assigned(second);
                assertThat(a).isNotEmpty();
                assertThat(b).isNotEmpty();
                assertThat(a).doesNotContainAnyElementsOf(b);
                assertThat(a.size() + b.size()).isEqualTo(6);
            });
            var accounts = Pipeline.openAccounts(api, 12);
            try (var load = new Load(api, accounts, 2, seed)) {
                long target = Pipeline.status(first).get("applied").asLong() + 300;
                await().atMost(Duration.ofSeconds(60)).until(() ->
                        Pipeline.status(second).get("applied").asLong() >= target);
                var before = assigned(second);
                first.kill();
                long killed = System.nanoTime();
                await().atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(200)).until(() ->
                        assigned(second).size() == 6);
                long takeoverMillis = (System.nanoTime() - killed) / 1_000_000;
                long acceptedAfterTakeover = load.accepted();
                await().atMost(Duration.ofSeconds(60)).until(() -> load.accepted() > acceptedAfterTakeover + 100);
                load.close();

                pipeline.awaitQuiet(Duration.ofSeconds(120));
                for (var account : accounts) {
                    assertThat(Http.get(second.port(), "/accounts/" + account + "/balance").json().get("balance")
                            .asLong()).isEqualTo(load.sum(account));
                }
                Pipeline.assertInvariantsHold(second);
                System.out.printf("scenario 5: survivor held %s, took over all 6 partitions %d ms after the kill; "
                        + "%d deposits, duplicates skipped %d%n", before, takeoverMillis, load.accepted(),
                        Pipeline.status(second).get("duplicates").asLong());
                assertThat(takeoverMillis).as("takeover well before Kafka's default 45 s session").isLessThan(30_000);
            }
        }
    }

    @Test
    void givesWorkToOnlyAsManyProjectorsAsThereArePartitions() throws Exception {
        var infra = TestInfrastructure.get();
        var three = new Pipeline(TestInfrastructure.get()).infrastructure();
        new Pipeline(infra).execute("CREATE DATABASE proof_three");
        var url = infra.jdbcUrl().substring(0, infra.jdbcUrl().lastIndexOf('/')) + "/proof_three";
        var separate = new Infrastructure(url, three.username(), three.password(), three.bootstrapServers());
        try (var pipeline = new Pipeline(separate, "--relay.topic=accounts.three", "--relay.partitions=3",
                "--relay.slot-name=proof_three", "--relay.publication-name=proof_three",
                "--projector.topic=accounts.three", "--projector.dead-letter-topic=accounts.three.dlt")) {
            var api = pipeline.commandApi();
            pipeline.relay();
            var projectors = startInParallel(pipeline, 5);
            await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> {
                var sizes = new ArrayList<Integer>();
                for (var p : projectors) {
                    sizes.add(assigned(p).size());
                }
                assertThat(sizes).containsExactlyInAnyOrder(1, 1, 1, 0, 0);
            });
            var accounts = new ArrayList<UUID>();
            for (int i = 0; i < 30; i++) {
                var account = Pipeline.openAccount(api);
                accounts.add(account);
                assertThat(Pipeline.deposit(api, account, 10 + i).statusCode()).isEqualTo(200);
            }

            pipeline.awaitQuiet(Duration.ofSeconds(90));

            var received = new ArrayList<Long>();
            for (var p : projectors) {
                received.add(Pipeline.status(p).get("receivedSinceStart").asLong());
            }
            assertThat(received.stream().filter(r -> r > 0)).as("members that received records").hasSize(3);
            assertThat(received.stream().filter(r -> r == 0)).as("idle members").hasSize(2);
            for (int i = 0; i < accounts.size(); i++) {
                assertThat(Http.get(projectors.get(0).port(), "/accounts/" + accounts.get(i) + "/balance").json()
                        .get("balance").asLong()).isEqualTo(10 + i);
            }
            Pipeline.assertInvariantsHold(projectors.get(0));
            System.out.printf("scenario 6: five members on three partitions received %s records%n", received);
        }
    }

    @Test
    void recognisesEveryEventAsADuplicateWhenTheGroupReplaysFromTheEarliestOffset() throws Exception {
        try (var pipeline = new Pipeline(TestInfrastructure.get())) {
            var api = pipeline.commandApi();
            pipeline.relay();
            var projector = pipeline.projector();
            var accounts = new ArrayList<UUID>();
            for (int i = 0; i < 10; i++) {
                var account = Pipeline.openAccount(api);
                accounts.add(account);
                Pipeline.deposit(api, account, 100 + i);
            }
            pipeline.awaitQuiet(Duration.ofSeconds(90));
            projector.close();
            String balances = "SELECT md5(string_agg(b::text, '|' ORDER BY account_id)) FROM projection.balances b";
            var digestBefore = digest(pipeline, balances);
            long appliedBefore = pipeline.queryLong("SELECT sum(applied) FROM projection.offsets");
            long duplicatesBefore = pipeline.queryLong("SELECT sum(duplicates) FROM projection.offsets");

            // What kafka-consumer-groups --reset-offsets --to-earliest does: rewind the group's committed offsets.
            rewindKafkaGroup(pipeline.infrastructure());
            // The projector's position lives in projection.offsets with the balances; rewinding the group means
            // rewinding it there too, or the projector would just continue where the database says it stopped.
            pipeline.execute("UPDATE projection.offsets SET next_offset = 0 WHERE group_id = 'projection'");
            long records = pipeline.queryLong("SELECT count(*) FROM ledger.events");
            var replaying = pipeline.projector();

            await().atMost(Duration.ofSeconds(120)).until(() -> Pipeline.status(replaying).get("lag").asLong() == 0
                    && pipeline.queryLong("SELECT sum(duplicates) FROM projection.offsets") - duplicatesBefore
                            >= records);
            long duplicates = pipeline.queryLong("SELECT sum(duplicates) FROM projection.offsets") - duplicatesBefore;
            assertThat(pipeline.queryLong("SELECT sum(applied) FROM projection.offsets")).as("nothing applied again")
                    .isEqualTo(appliedBefore);
            assertThat(digest(pipeline, balances)).as("balances unchanged").isEqualTo(digestBefore);
            Pipeline.assertInvariantsHold(replaying);
            System.out.printf("scenario 7: replay from offset zero re-read %d records (%d events stored): %d "
                    + "recognised as duplicates, 0 applied%n",
                    Pipeline.status(replaying).get("partitions").findValues("logEndOffset").stream()
                            .mapToLong(n -> n.asLong()).sum(), records, duplicates);
        }
    }

    private static List<ServiceProcess> startInParallel(Pipeline pipeline, int n) throws Exception {
        var pool = Executors.newFixedThreadPool(n);
        try {
            var futures = new ArrayList<Future<ServiceProcess>>();
            for (int i = 0; i < n; i++) {
                futures.add(pool.submit(() -> pipeline.projector()));
            }
            var started = new ArrayList<ServiceProcess>();
            for (var f : futures) {
                started.add(f.get(180, TimeUnit.SECONDS));
            }
            return started;
        } finally {
            pool.shutdownNow();
        }
    }

    private static TreeSet<Integer> assigned(ServiceProcess projector) {
        var set = new TreeSet<Integer>();
        Pipeline.status(projector).get("assignedHere").forEach(n -> set.add(n.asInt()));
        return set;
    }

    private static String digest(Pipeline pipeline, String sql) throws Exception {
        try (var c = java.sql.DriverManager.getConnection(pipeline.infrastructure().jdbcUrl(),
                pipeline.infrastructure().username(), pipeline.infrastructure().password());
                var s = c.createStatement(); var rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static void rewindKafkaGroup(Infrastructure infra) throws Exception {
        try (var admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, infra.bootstrapServers()))) {
            Map<TopicPartition, OffsetAndMetadata> earliest = new HashMap<>();
            for (int p = 0; p < 6; p++) {
                earliest.put(new TopicPartition("accounts.events", p), new OffsetAndMetadata(0));
            }
            // The group must be empty to be rewound; the stopped projector's leave may take a moment to land.
            await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> {
                admin.alterConsumerGroupOffsets("projection", earliest).all().get(10, TimeUnit.SECONDS);
                return true;
            });
        }
    }
}
