package dev.ledgerlab.projector.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ledgerlab.events.AccountEvent;
import dev.ledgerlab.events.AccountOpened;
import dev.ledgerlab.events.EventEnvelope;
import dev.ledgerlab.events.MoneyDeposited;
import dev.ledgerlab.events.MoneyWithdrawn;
import dev.ledgerlab.projector.ProjectorApplication;
import dev.ledgerlab.projector.ProjectorIntegrationTest;
import dev.ledgerlab.projector.apply.LiveGroupCounts;
import dev.ledgerlab.projector.apply.ProjectionListener;
import dev.ledgerlab.testkit.TestHttp;
import dev.ledgerlab.testkit.TestInfrastructure;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.test.context.TestPropertySource;

/**
 * Replays and rebuilds, in a database, topic and consumer groups of their own: they clear or replace the whole
 * projection, which other test classes must not see. Every event the class publishes is kept, so every projected
 * row can be compared with the fold of its account's events.
 */
@TestPropertySource(properties = {
    ProjectorIntegrationTest.DATABASE_PROPERTY + "=" + ReplayTest.DATABASE,
    "projector.topic=" + ReplayTest.REPLAY_TOPIC,
    "projector.group-id=replay-test",
    "projector.replay.rebuild-group-id=replay-test-rebuild",
    "projector.replay.progress-interval=200ms",
    "projector.replay.coordination-interval=200ms"})
@ExtendWith(OutputCaptureExtension.class)
class ReplayTest extends ProjectorIntegrationTest {

    static final String DATABASE = "projector_replay";
    static final String REPLAY_TOPIC = "replay.accounts.events";

    /** Every event this class published, per account, in version order. */
    private static final Map<UUID, List<EventEnvelope>> PUBLISHED = new ConcurrentHashMap<>();

    @Autowired
    private KafkaListenerEndpointRegistry listeners;

    @Value("${spring.datasource.url}")
    private String datasourceUrl;

    @BeforeAll
    static void isolateProjection() {
        isolate(DATABASE, REPLAY_TOPIC);
    }

    @Test
    void replaysProjectionFromOffsetZeroToIdenticalBalances(CapturedOutput output) {
        var random = new Random(11);
        publishAll(history(30, 20, random));
        var gapped = UUID.randomUUID();
        publishAll(List.of(record(gapped, 1, new AccountOpened("gapped")), record(gapped, 3, new MoneyDeposited(5))));
        awaitProjectionOfEverythingPublished();
        await().atMost(Duration.ofSeconds(30)).until(() -> !parkedRows().isEmpty());
        var before = snapshot();

        var live = listeners.getListenerContainer(ProjectionListener.ID);
        live.stop();
        try {
            // Held still, so that what a replay looks like from outside can be seen before it finishes.
            var started = post("/projection/replay");
            assertThat(started.status()).isEqualTo(202);
            assertThat(started.json().get("state").asString()).isEqualTo("running");
            long target = started.json().get("target").asLong();
            assertThat(target).isEqualTo(publishedCount());

            var read = queries().balance(PUBLISHED.keySet().iterator().next());
            assertThat(read.status()).isEqualTo(503);
            assertThat(read.contentType()).startsWith("application/problem+json");
            assertThat(read.json().get("type").asString()).isEqualTo("urn:ledgerlab:problem:projection-rebuilding");
            assertThat(post("/projection/replay").json().get("type").asString())
                    .isEqualTo("urn:ledgerlab:problem:replay-in-progress");
            assertThat(post("/projection/rebuild").status()).isEqualTo(409);
            var progress = get("/projection/replay").json();
            assertThat(progress.get("percent").asDouble()).isZero();
            assertThat(progress.get("targetOffsets").size()).isEqualTo(PARTITIONS);
            await().atMost(Duration.ofSeconds(10)).until(() -> output.getOut()
                    .contains("replay %d running: 0 of %,d events".formatted(started.json().get("id").asLong(), target)));

            // Events that arrive while the replay runs lie beyond its target: applied after it, never lost.
            publishAll(history(3, 5, random));
        } finally {
            live.start();
        }

        await().atMost(Duration.ofSeconds(60)).until(() -> "completed".equals(
                get("/projection/replay").json().get("state").asString()));
        var done = get("/projection/replay").json();
        assertThat(done.get("percent").asDouble()).isEqualTo(100.0);
        assertThat(done.get("position").asLong()).isEqualTo(done.get("target").asLong());
        assertThat(done.get("eventsApplied").asLong()).isGreaterThanOrEqualTo(done.get("target").asLong() - 1);
        awaitProjectionOfEverythingPublished();
        var after = snapshot();
        assertThat(after.parked()).isEqualTo(before.parked());
        assertThat(after.held()).isEqualTo(before.held());
        var rowsBefore = before.balances();
        assertThat(after.balances()).containsAllEntriesOf(rowsBefore);
        assertThat(after.balances()).hasSize(rowsBefore.size() + 3);
        assertThat(queries().balance(gapped).json().get("version").asLong()).isEqualTo(1);
    }

    @Test
    void rebuildsIntoAShadowTableAndSwapsWhileReadsAndDepositsContinue() throws Exception {
        var random = new Random(23);
        publishAll(history(200, 50, random));
        var hot = new ArrayList<UUID>();
        var opened = new ArrayList<EventEnvelope>();
        for (int i = 0; i < 10; i++) {
            var account = UUID.randomUUID();
            hot.add(account);
            opened.add(record(account, 1, new AccountOpened("hot-" + i)));
        }
        publishAll(opened);
        awaitProjectionOfEverythingPublished();
        long tableBefore = balancesTableOid();

        var stop = new AtomicBoolean();
        var failures = new CopyOnWriteArrayList<String>();
        var reads = new AtomicInteger();
        var lastSeen = new ConcurrentHashMap<UUID, Long>();
        var pool = Executors.newFixedThreadPool(2);
        try {
            var deposits = pool.submit(() -> {
                int i = 0;
                while (!stop.get()) {
                    var account = hot.get(i++ % hot.size());
                    publish(record(account, PUBLISHED.get(account).size() + 1, new MoneyDeposited(1 + i % 7)));
                }
                return i;
            });
            var readers = pool.submit(() -> {
                int i = 0;
                while (!stop.get()) {
                    var account = hot.get(i++ % hot.size());
                    var read = queries().balance(account);
                    reads.incrementAndGet();
                    if (read.status() != 200) {
                        failures.add(read.status() + " " + read.body());
                        continue;
                    }
                    long version = read.json().get("version").asLong();
                    var previous = lastSeen.put(account, version);
                    if (previous != null && version < previous) {
                        failures.add(account + " went back from version " + previous + " to " + version);
                    }
                }
                return i;
            });

            var started = post("/projection/rebuild");
            assertThat(started.status()).isEqualTo(202);
            int readsAtStart = reads.get();
            await().atMost(Duration.ofSeconds(90)).until(() -> "completed".equals(
                    get("/projection/rebuild").json().get("state").asString()));
            int readsDuringRebuild = reads.get() - readsAtStart;
            int readsAtSwap = reads.get();
            await().atMost(Duration.ofSeconds(30)).until(() -> reads.get() > readsAtSwap + 50);
            stop.set(true);
            System.out.printf("rebuild under load: %d deposits, %d reads (%d while it ran), rebuild %s%n",
                    deposits.get(30, TimeUnit.SECONDS), readers.get(30, TimeUnit.SECONDS), readsDuringRebuild,
                    get("/projection/rebuild").body());
            assertThat(readsDuringRebuild).isPositive();
        } finally {
            stop.set(true);
            pool.shutdownNow();
        }

        assertThat(failures).as("reads that failed or went back in version").isEmpty();
        assertThat(balancesTableOid()).as("the live table was replaced").isNotEqualTo(tableBefore);
        assertThat(jdbc.sql("SELECT count(*) FROM pg_tables WHERE schemaname = 'projection_rebuild'")
                .query(Long.class).single()).as("no shadow table is left").isZero();
        awaitProjectionOfEverythingPublished();
        await().atMost(Duration.ofSeconds(10)).until(() -> !listeners.getListenerContainer(RebuildListener.ID)
                .isRunning());
    }

    @Test
    void cancelsARebuildAndLeavesTheLiveProjectionAsItWas() {
        publishAll(history(5, 5, new Random(5)));
        awaitProjectionOfEverythingPublished();
        var before = snapshot();
        var rebuild = listeners.getListenerContainer(RebuildListener.ID);

        assertThat(post("/projection/rebuild").status()).isEqualTo(202);
        var cancelled = delete("/projection/rebuild");

        assertThat(cancelled.status()).isEqualTo(200);
        assertThat(cancelled.json().get("state").asString()).isEqualTo("failed");
        assertThat(cancelled.json().get("detail").asString()).startsWith("cancelled");
        assertThat(delete("/projection/rebuild").json().get("type").asString())
                .isEqualTo("urn:ledgerlab:problem:rebuild-not-running");
        await().atMost(Duration.ofSeconds(10)).until(() -> !rebuild.isRunning());
        assertThat(jdbc.sql("SELECT count(*) FROM pg_tables WHERE schemaname = 'projection_rebuild'")
                .query(Long.class).single()).isZero();
        assertThat(snapshot()).isEqualTo(before);
    }

    @Test
    void replaysOnStartWhileASecondInstanceConsumesAndBothEndExact() {
        publishAll(history(20, 10, new Random(31)));
        awaitProjectionOfEverythingPublished();
        var before = snapshot();
        long replaysBefore = jdbc.sql("SELECT count(*) FROM projection.replays WHERE kind = 'replay'")
                .query(Long.class).single();
        var infra = TestInfrastructure.get();

        // A second member of the group that replays as it starts: this instance's consumers must notice the reset.
        try (var second = new SpringApplicationBuilder(ProjectorApplication.class)
                .properties("spring.config.name=" + ProjectorApplication.CONFIG_NAME)
                .run("--spring.datasource.url=" + datasourceUrl,
                        "--spring.datasource.username=" + infra.username(),
                        "--spring.datasource.password=" + infra.password(),
                        "--spring.kafka.bootstrap-servers=" + infra.bootstrapServers(),
                        "--server.port=0", "--projector.topic=" + REPLAY_TOPIC, "--projector.group-id=replay-test",
                        "--projector.replay.rebuild-group-id=replay-test-rebuild",
                        "--projector.replay.on-start=true", TestHttp.OPERATOR_PASSWORD_ARGUMENT)) {
            assertThat(jdbc.sql("SELECT count(*) FROM projection.replays WHERE kind = 'replay'").query(Long.class)
                    .single()).isEqualTo(replaysBefore + 1);
            await().atMost(Duration.ofSeconds(60)).until(() -> "completed".equals(
                    get("/projection/replay").json().get("state").asString()));
            var secondListener = second.getBean(LiveGroupCounts.class);
            await().atMost(Duration.ofSeconds(30)).until(() -> !secondListener.assignedPartitions().isEmpty());
            awaitProjectionOfEverythingPublished();
            assertThat(snapshot()).isEqualTo(before);

            publishAll(history(6, 4, new Random(37)));
            awaitProjectionOfEverythingPublished();
        }
    }

    /** Accounts with contiguous versions: opened, then deposits and withdrawals that never overdraw. */
    private static List<EventEnvelope> history(int accounts, int eventsPerAccount, Random random) {
        var events = new ArrayList<EventEnvelope>();
        for (int a = 0; a < accounts; a++) {
            var account = UUID.randomUUID();
            events.add(record(account, 1, new AccountOpened("owner-" + a)));
            long balance = 0;
            for (int v = 2; v <= eventsPerAccount; v++) {
                AccountEvent event;
                if (balance > 0 && random.nextInt(3) == 0) {
                    long amount = 1 + random.nextInt((int) Math.min(balance, 1000));
                    event = new MoneyWithdrawn(amount);
                    balance -= amount;
                } else {
                    long amount = 1 + random.nextInt(1000);
                    event = new MoneyDeposited(amount);
                    balance += amount;
                }
                events.add(record(account, v, event));
            }
        }
        return events;
    }

    /** An event this class publishes, remembered for the fold. */
    private static EventEnvelope record(UUID account, long version, AccountEvent event) {
        var envelope = envelope(account, version, event);
        PUBLISHED.computeIfAbsent(account, a -> new CopyOnWriteArrayList<>()).add(envelope);
        return envelope;
    }

    private static long publishedCount() {
        return PUBLISHED.values().stream().mapToLong(List::size).sum();
    }

    /**
     * The invariant: every projected row is the fold of its account's published events, up to the first gap
     * (where the account is parked), and every account published is projected.
     */
    private void awaitProjectionOfEverythingPublished() {
        var expected = new TreeMap<UUID, List<Long>>();
        PUBLISHED.forEach((account, events) -> {
            long balance = 0;
            long version = 0;
            for (var event : events.stream().sorted((x, y) -> Long.compare(x.version(), y.version())).toList()) {
                if (event.version() != version + 1) {
                    break;
                }
                balance = event.event().applyTo(balance);
                version = event.version();
            }
            expected.put(account, List.of(balance, version));
        });
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
                assertThat(snapshot().balances()).isEqualTo(expected));
    }

    private record Snapshot(Map<UUID, List<Long>> balances, List<Map<String, Object>> parked,
            List<Map<String, Object>> held) {
    }

    private Snapshot snapshot() {
        var balances = new TreeMap<UUID, List<Long>>();
        jdbc.sql("SELECT account_id, balance, version FROM projection.balances").query(rs -> {
            balances.put(rs.getObject(1, UUID.class), List.of(rs.getLong(2), rs.getLong(3)));
        });
        var held = jdbc.sql("""
                SELECT account_id, version, payload, partition, record_offset FROM projection.held_events
                ORDER BY account_id, version""").query().listOfRows();
        return new Snapshot(balances, parkedRows(), held);
    }

    private List<Map<String, Object>> parkedRows() {
        return jdbc.sql("""
                SELECT account_id, expected_version, received_version, reason, topic, partition, record_offset
                FROM projection.parked_accounts ORDER BY account_id""").query().listOfRows();
    }

    private long balancesTableOid() {
        return jdbc.sql("SELECT 'projection.balances'::regclass::oid::bigint").query(Long.class).single();
    }
}
