package dev.ledgerlab.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ledgerlab.events.EventCodec;
import dev.ledgerlab.relay.OutboxRelayApplication;
import dev.ledgerlab.testkit.TestHttp;
import dev.ledgerlab.testkit.TestInfrastructure;
import dev.ledgerlab.testkit.TopicReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The whole pipeline in one JVM: REST command -> PostgreSQL (events = outbox) -> WAL -> Debezium relay -> Kafka
 * -> projector -> projection.balances, against the real PostgreSQL and Kafka of this test JVM.
 */
class PipelineTest {

    private static final String TOPIC = "accounts.events";

    private static LabServices.Infrastructure infrastructure;
    private static LabServices services;
    private static org.springframework.context.ConfigurableApplicationContext replacementRelay;

    @BeforeAll
    static void startServices() {
        var infra = TestInfrastructure.get();
        infrastructure = new LabServices.Infrastructure(infra.jdbcUrl(), infra.username(), infra.password(),
                infra.bootstrapServers());
        services = LabServices.start(infrastructure, new LabServices.Ports(0, 0, 0), List.of());
    }

    @AfterAll
    static void stopServices() {
        if (replacementRelay != null) {
            replacementRelay.close();
        }
        services.close();
    }

    @Test
    void carriesDepositsFromTheApiThroughTheWalAndKafkaIntoTheProjection() {
        var random = new Random(seed("carriesDeposits"));
        var expected = new HashMap<UUID, Long>();
        for (int a = 0; a < 10; a++) {
            var account = openAccount();
            long sum = 0;
            for (int d = 0; d < 5; d++) {
                long amount = 1 + random.nextInt(100_000);
                assertThat(deposit(account, amount).get("balance").asLong()).isEqualTo(sum + amount);
                sum += amount;
            }
            expected.put(account, sum);
        }

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> expected.forEach((account, sum) ->
                assertThat(projected(account)).as("projected %s", account).isEqualTo(new long[] {sum, 6})));

        var records = readTopic(expected.keySet());
        var partitionOf = new HashMap<String, Integer>();
        var versions = new HashMap<String, List<Long>>();
        for (var record : records) {
            assertThat(partitionOf.computeIfAbsent(record.key(), k -> record.partition()))
                    .as("every event of account %s in one partition", record.key()).isEqualTo(record.partition());
            var envelope = EventCodec.fromJson(record.value());
            assertThat(envelope.accountId().toString()).isEqualTo(record.key());
            versions.computeIfAbsent(record.key(), k -> new ArrayList<>()).add(envelope.version());
        }
        assertThat(versions).hasSize(expected.size());
        versions.values().forEach(v -> assertThat(v).containsExactly(1L, 2L, 3L, 4L, 5L, 6L));
    }

    @Test
    void readsItsOwnWriteRightAfterTheCommandThatProducedIt() {
        var account = openAccount();
        var latencies = new ArrayList<Long>();
        for (int i = 1; i <= 20; i++) {
            var moved = deposit(account, i);
            long version = moved.get("version").asLong();
            long started = System.nanoTime();
            var read = get(projectorPort(), "/accounts/" + account + "/balance?minVersion=" + version);
            latencies.add((System.nanoTime() - started) / 1_000_000);

            assertThat(read.status()).as(read.body()).isEqualTo(200);
            var body = read.json();
            assertThat(body.get("version").asLong()).isGreaterThanOrEqualTo(version);
            assertThat(body.get("balance").asLong()).isEqualTo(moved.get("balance").asLong());
        }
        latencies.sort(null);
        System.out.printf("read-your-writes wait after a deposit: median %d ms, worst %d ms of %d%n",
                latencies.get(latencies.size() / 2), latencies.get(latencies.size() - 1), latencies.size());
    }

    @Test
    void losesNoEventWhenTheRelayIsRestartedMidStream() throws Exception {
        var random = new Random(seed("relayRestart"));
        var accounts = new ArrayList<UUID>();
        for (int i = 0; i < 5; i++) {
            accounts.add(openAccount());
        }
        var sums = new HashMap<UUID, Long>();
        var done = new AtomicInteger();
        int total = 300;
        var writer = Executors.newSingleThreadExecutor();
        var load = writer.submit(() -> {
            for (int i = 0; i < total; i++) {
                var account = accounts.get(random.nextInt(accounts.size()));
                long amount = 1 + random.nextInt(1_000);
                deposit(account, amount);
                sums.merge(account, amount, Long::sum);
                done.incrementAndGet();
            }
            return null;
        });
        try {
            await().atMost(Duration.ofSeconds(60)).until(() -> done.get() >= total / 3);
            services.relay().close();
            int stoppedAt = done.get();
            await().atMost(Duration.ofSeconds(60)).until(() -> done.get() >= stoppedAt + total / 3);
            replacementRelay = LabServices.run(OutboxRelayApplication.class, OutboxRelayApplication.CONFIG_NAME,
                    infrastructure, 0, List.of());
            load.get(120, TimeUnit.SECONDS);
        } finally {
            writer.shutdownNow();
        }

        await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> sums.forEach((account, sum) ->
                assertThat(projected(account)[0]).as("projected balance of %s", account).isEqualTo(sum)));
        var records = readTopic(new HashSet<>(accounts));
        var eventIds = new HashSet<String>();
        records.forEach(r -> eventIds.add(EventCodec.fromJson(r.value()).eventId().toString()));
        long events = accounts.size() + total;
        assertThat(eventIds).as("every event reached Kafka").hasSize((int) events);
        System.out.printf("relay restart: %d events, %d records in Kafka, %d duplicates%n", events, records.size(),
                records.size() - eventIds.size());
    }

    private static long seed(String name) {
        long seed = System.nanoTime();
        System.out.println("PipelineTest." + name + " seed=" + seed);
        return seed;
    }

    private static int commandApiPort() {
        return LabServices.port(services.commandApi());
    }

    private static int projectorPort() {
        return LabServices.port(services.projector());
    }

    private static UUID openAccount() {
        var response = post(commandApiPort(), "/accounts", "{\"owner\":\"pipeline\"}");
        assertThat(response.status()).as(response.body()).isEqualTo(201);
        return UUID.fromString(response.json().get("accountId").asString());
    }

    private static JsonNode deposit(UUID account, long amount) {
        var response = post(commandApiPort(), "/accounts/" + account + "/deposits", "{\"amount\":" + amount + "}");
        assertThat(response.status()).as(response.body()).isEqualTo(200);
        return response.json();
    }

    private static long[] projected(UUID account) {
        var response = get(projectorPort(), "/accounts/" + account + "/balance");
        if (response.status() != 200) {
            return new long[] {-1, -1};
        }
        var body = response.json();
        return new long[] {body.get("balance").asLong(), body.get("version").asLong()};
    }

    /** Every record of these accounts in the topic, read from offset zero by a plain consumer. */
    private static List<ConsumerRecord<String, String>> readTopic(java.util.Set<UUID> accounts) {
        var keys = new HashSet<String>();
        accounts.forEach(a -> keys.add(a.toString()));
        return TopicReader.readAll(infrastructure.bootstrapServers(), TOPIC).stream()
                .filter(record -> keys.contains(record.key())).toList();
    }

    private static TestHttp.Response post(int port, String path, String json) {
        return TestHttp.at(port).post(path, json);
    }

    private static TestHttp.Response get(int port, String path) {
        return TestHttp.at(port).get(path);
    }
}
