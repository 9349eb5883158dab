package dev.ledgerlab.projector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ledgerlab.events.MoneyDeposited;
import dev.ledgerlab.projector.apply.ProjectionListener;
import dev.ledgerlab.testkit.TestInfrastructure;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.TestPropertySource;

/**
 * PostgreSQL failing under the projector while events arrive: its connections cut again and again, then refused
 * altogether. Such failures say nothing about the records, so nothing may be dead-lettered, parked or skipped: the
 * batches are tried again until the database answers, and every event ends applied exactly once. In a database,
 * topic, group and dead-letter topic of its own, so that the cut connections and the empty dead-letter topic are
 * this class's alone.
 */
@TestPropertySource(properties = {
    ProjectorIntegrationTest.DATABASE_PROPERTY + "=" + TransientFailureTest.DATABASE,
    "projector.topic=" + TransientFailureTest.TOPIC_NAME,
    "projector.group-id=transient-test",
    "projector.replay.rebuild-group-id=transient-test-rebuild",
    "projector.dead-letter-topic=" + TransientFailureTest.DEAD_LETTERS,
    "projector.retry-max-interval=1s"})
class TransientFailureTest extends ProjectorIntegrationTest {

    static final String DATABASE = "projector_transient";
    static final String TOPIC_NAME = "transient.accounts.events";
    static final String DEAD_LETTERS = "transient.accounts.events.dlt";

    @Autowired
    private ProjectionListener listener;

    @Autowired
    private MeterRegistry meters;

    @BeforeAll
    static void isolateProjection() {
        isolate(DATABASE, TOPIC_NAME);
    }

    @Test
    void retriesBatchesUntilTheDatabaseAnswersAndNeverDeadLettersParksOrSkipsAValidEvent() throws Exception {
        var accounts = new ArrayList<UUID>();
        var sums = new HashMap<UUID, Long>();
        var versions = new HashMap<UUID, Long>();
        for (int i = 0; i < 6; i++) {
            var account = openedAccount();
            accounts.add(account);
            sums.put(account, 0L);
            versions.put(account, 1L);
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> accounts.stream().allMatch(a -> projected(a) != null));

        // Phase 1: every connection of the projector's database is cut every 50 ms while deposits keep coming.
        long retriesBefore = listener.retriesSinceStart();
        var cutter = Executors.newSingleThreadScheduledExecutor();
        cutter.scheduleAtFixedRate(() -> superuser("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                + " WHERE datname = '" + DATABASE + "' AND pid <> pg_backend_pid()"), 0, 50, TimeUnit.MILLISECONDS);
        try {
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                depositToEach(accounts, sums, versions);
                return listener.retriesSinceStart() - retriesBefore >= 3;
            });
        } finally {
            cutter.shutdownNow();
            cutter.awaitTermination(10, TimeUnit.SECONDS);
        }
        long afterCuts = listener.retriesSinceStart();

        // Phase 2: the database refuses every new connection for a while (an outage, as the pool sees it).
        superuser("ALTER DATABASE " + DATABASE + " ALLOW_CONNECTIONS false");
        try {
            superuser("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + DATABASE + "'");
            depositToEach(accounts, sums, versions);
            // More failures of the same batch in a row than a handler with a fixed number of retries allows: the
            // projector's first one gave up after three and dead-lettered valid events.
            await().atMost(Duration.ofSeconds(60)).until(() -> listener.retriesSinceStart() - afterCuts >= 5);
        } finally {
            superuser("ALTER DATABASE " + DATABASE + " ALLOW_CONNECTIONS true");
        }
        depositToEach(accounts, sums, versions);

        // The pool may still hand out a connection that was cut: reads retry until the database answers.
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().untilAsserted(() -> {
            for (var account : accounts) {
                assertThat(projected(account)).as("account %s", account)
                        .containsExactly(sums.get(account), versions.get(account));
            }
        });
        assertThat(deadLetters()).as("records in " + DEAD_LETTERS).isZero();
        assertThat(get("/projection/parked").json().size()).as("parked accounts").isZero();
        long published = versions.values().stream().mapToLong(Long::longValue).sum();
        var status = get("/projection/status").json();
        assertThat(status.get("applied").asLong()).as("each event applied once").isEqualTo(published);
        assertThat(meters.counter("ledger.projection.batches.retried", "group", "transient-test", "cause",
                "database-unavailable").count()).as("batches retried because the database was away").isPositive();
        System.out.printf("transient failures: %d events applied once, %d batches retried (%d while connections were"
                + " cut, %d while refused), 0 dead-lettered, 0 parked%n", published,
                listener.retriesSinceStart() - retriesBefore, afterCuts - retriesBefore,
                listener.retriesSinceStart() - afterCuts);
    }

    private void depositToEach(List<UUID> accounts, Map<UUID, Long> sums, Map<UUID, Long> versions) {
        var round = new ArrayList<dev.ledgerlab.events.EventEnvelope>();
        for (var account : accounts) {
            long amount = 1 + sums.size();
            long version = versions.merge(account, 1L, Long::sum);
            sums.merge(account, amount, Long::sum);
            round.add(envelope(account, version, new MoneyDeposited(amount)));
        }
        publishAll(round);
    }

    private static long deadLetters() throws Exception {
        try (var admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                TestInfrastructure.get().bootstrapServers()))) {
            return admin.listOffsets(Map.of(new TopicPartition(DEAD_LETTERS, 0), OffsetSpec.latest())).all()
                    .get(30, TimeUnit.SECONDS).values().iterator().next().offset();
        }
    }

    /** As the superuser, on the postgres database: never one of the connections being cut. */
    private static void superuser(String sql) {
        var infra = TestInfrastructure.get();
        var url = infra.jdbcUrl().replaceFirst("/[^/?]+(\\?|$)", "/postgres$1");
        try (var connection = DriverManager.getConnection(url, infra.username(), infra.password());
                var statement = connection.createStatement()) {
            statement.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }
}
