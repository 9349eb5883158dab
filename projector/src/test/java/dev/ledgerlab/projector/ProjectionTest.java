package dev.ledgerlab.projector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ledgerlab.events.MoneyDeposited;
import dev.ledgerlab.events.MoneyReceived;
import dev.ledgerlab.events.MoneySent;
import dev.ledgerlab.events.MoneyWithdrawn;
import dev.ledgerlab.testkit.TestInfrastructure;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;

class ProjectionTest extends ProjectorIntegrationTest {

    @Autowired
    private KafkaListenerEndpointRegistry listeners;

    @Test
    void appliesEachAccountsEventsInVersionOrder() {
        var account = openedAccount();
        publish(account, 2, new MoneyDeposited(10_000));
        publish(account, 3, new MoneyWithdrawn(2_500));

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                assertThat(projected(account)).containsExactly(7_500, 3));
    }

    @Test
    void appliesATransfersTwoSidesAndAnswersTheTotalWithThePositionsItReflects() {
        var alice = openedAccount();
        var bob = openedAccount();
        publish(alice, 2, new MoneyDeposited(1_000));
        await().atMost(Duration.ofSeconds(30)).until(() -> projected(alice) != null && projected(alice)[1] == 2);
        var transfer = UUID.randomUUID();

        publish(alice, 3, new MoneySent(transfer, bob, 400));
        publish(bob, 2, new MoneyReceived(transfer, alice, 400));

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            assertThat(projected(alice)).containsExactly(600, 3);
            assertThat(projected(bob)).containsExactly(400, 2);
        });
        var total = get("/projection/total").json();
        assertThat(total.get("balance").asLong()).isEqualTo(
                jdbc.sql("SELECT sum(balance) FROM projection.balances").query(Long.class).single());
        assertThat(total.get("accounts").asLong()).isEqualTo(
                jdbc.sql("SELECT count(*) FROM projection.balances").query(Long.class).single());
        var stored = jdbc.sql("SELECT sum(next_offset) FROM projection.offsets WHERE group_id = 'projection'"
                + " AND topic = ?").param(TOPIC).query(Long.class).single();
        long positions = 0;
        for (var position : total.get("positions").properties()) {
            positions += position.getValue().asLong();
        }
        assertThat(positions).isEqualTo(stored);
    }

    @Test
    void skipsRedeliveredEventsAsDuplicatesAndCountsThem() {
        var account = openedAccount();
        var deposit = publish(account, 2, new MoneyDeposited(500));
        await().atMost(Duration.ofSeconds(30)).until(() -> projected(account) != null && projected(account)[1] == 2);
        long duplicatesBefore = get("/projection/status").json().get("duplicates").asLong();

        publish(deposit);
        publish(deposit);
        publish(account, 3, new MoneyDeposited(1));

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                assertThat(projected(account)).containsExactly(501, 3));
        assertThat(get("/projection/status").json().get("duplicates").asLong() - duplicatesBefore).isEqualTo(2);
    }

    @Test
    void resumesFromTheOffsetsStoredWithTheBalancesNotFromKafkasCommit() throws Exception {
        var account = openedAccount();
        publish(account, 2, new MoneyDeposited(300));
        await().atMost(Duration.ofSeconds(30)).until(() -> projected(account) != null && projected(account)[1] == 2);
        var before = get("/projection/status").json();

        var container = listeners.getListenerContainer("projection-listener");
        container.stop();
        await().atMost(Duration.ofSeconds(30)).until(() -> !container.isRunning());
        // Rewind the group's Kafka commit to zero: were Kafka's offset the truth, everything would be re-read.
        try (var admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                TestInfrastructure.get().bootstrapServers()))) {
            var rewind = new java.util.HashMap<TopicPartition, OffsetAndMetadata>();
            for (int p = 0; p < PARTITIONS; p++) {
                rewind.put(new TopicPartition(TOPIC, p), new OffsetAndMetadata(0));
            }
            await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> {
                admin.alterConsumerGroupOffsets("projection", rewind).all().get();
                return true;
            });
        }
        container.start();
        publish(account, 3, new MoneyDeposited(1));

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
                assertThat(projected(account)).containsExactly(301, 3));
        var after = get("/projection/status").json();
        assertThat(after.get("duplicates").asLong()).isEqualTo(before.get("duplicates").asLong());
        assertThat(after.get("applied").asLong()).isEqualTo(before.get("applied").asLong() + 1);
        assertThat(after.get("redeliveredSinceStart").asLong()).as("the rewound records were never re-read")
                .isEqualTo(before.get("redeliveredSinceStart").asLong());
    }

    @Test
    void reportsStoredOffsetLogEndAndLagPerPartition() {
        var account = openedAccount();
        await().atMost(Duration.ofSeconds(30)).until(() -> projected(account) != null);

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            var status = get("/projection/status").json();
            assertThat(status.get("groupId").asString()).isEqualTo("projection");
            assertThat(status.get("partitions").size()).isEqualTo(PARTITIONS);
            assertThat(status.get("lag").asLong()).isZero();
            for (var partition : status.get("partitions")) {
                assertThat(partition.get("storedOffset").asLong()).isEqualTo(partition.get("logEndOffset").asLong());
            }
            assertThat(status.get("applied").asLong()).isPositive();
        });
    }

    @Test
    void answersBalancesAndRefusesBadQueries() {
        var account = openedAccount();
        publish(account, 2, new MoneyDeposited(42));

        var response = queries().balance(account, 2);

        assertThat(response.status()).isEqualTo(200);
        assertThat(response.json().get("balance").asLong()).isEqualTo(42);
        assertThat(response.json().get("version").asLong()).isEqualTo(2);
        assertThat(queries().balance(UUID.randomUUID()).status()).isEqualTo(404);
        var badId = get("/accounts/nope/balance");
        assertThat(badId.status()).isEqualTo(400);
        assertThat(badId.contentType()).startsWith("application/problem+json");
        assertThat(badId.json().get("type").asString()).isEqualTo("urn:ledgerlab:problem:invalid-account-id");
        assertThat(queries().balance(account, 0).json().get("type").asString())
                .isEqualTo("urn:ledgerlab:problem:invalid-min-version");
    }

    @Test
    void answersProjectionBehindWhenMinVersionIsNotReachedInTime() {
        var account = openedAccount();
        await().atMost(Duration.ofSeconds(30)).until(() -> projected(account) != null);

        var response = queries().balance(account, 5);

        assertThat(response.status()).isEqualTo(503);
        assertThat(response.json().get("type").asString()).isEqualTo("urn:ledgerlab:problem:projection-behind");
        assertThat(response.json().get("currentVersion").asLong()).isEqualTo(1);
    }

    @Test
    void waitsForAVersionThatArrivesWhileTheReadWaits() throws Exception {
        var account = openedAccount();
        await().atMost(Duration.ofSeconds(30)).until(() -> projected(account) != null);
        var pool = java.util.concurrent.Executors.newSingleThreadExecutor();
        try {
            var read = pool.submit(() -> queries().balance(account, 2));
            publish(account, 2, new MoneyDeposited(7));

            var response = read.get(30, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.json().get("balance").asLong()).isEqualTo(7);
        } finally {
            pool.shutdownNow();
        }
    }
}
