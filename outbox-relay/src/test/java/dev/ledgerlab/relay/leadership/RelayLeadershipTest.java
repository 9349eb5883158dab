package dev.ledgerlab.relay.leadership;

import static dev.ledgerlab.testkit.TopicReader.keyed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ledgerlab.events.MoneyDeposited;
import dev.ledgerlab.relay.status.RelayRole;
import dev.ledgerlab.relay.support.RelayIntegrationTest;
import dev.ledgerlab.testkit.TestHttp;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;

/** One relay per slot is active; another waits, hot, and takes over when the first lets go of its lock. */
class RelayLeadershipTest extends RelayIntegrationTest {

    /** The backend holding the advisory lock of a name: the 64-bit key is split into classid and objid. */
    private static final String LOCK_HOLDER = "(SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted "
            + "AND ((classid::bigint << 32) | objid::bigint) = hashtextextended(?, 0))";

    @Test
    void waitsAsStandbyWhileAnotherRelayIsActiveAndTakesOverWhenItStops() {
        var first = startRelay();
        awaitRole(first, RelayRole.ACTIVE);
        var second = startRelay();
        awaitRole(second, RelayRole.STANDBY);
        // Many poll intervals (200 ms) later it still waits.
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5))
                .until(() -> status(second).role() == RelayRole.STANDBY);
        assertThat(get(second, "/relay/status").get("role").asString()).isEqualTo("STANDBY");
        assertThat(get(second, "/actuator/health").at("/components/relay/details/role").asString()).isEqualTo("STANDBY");
        assertThat(get(first, "/relay/status").get("role").asString()).isEqualTo("ACTIVE");
        assertThat(jdbc.sql("SELECT count(*) FROM pg_locks WHERE pid = " + LOCK_HOLDER)
                .param(RelayLeadership.lockName(slot)).query(Long.class).single()).as("one holder of the lock").isOne();

        var account = insertOpenedAccount("alice").accountId();
        append(account, 2, new MoneyDeposited(100));
        try (var reader = readTopic()) {
            reader.readUntil(all -> keyed(all, account).size() >= 2, Duration.ofSeconds(60));
        }
        assertThat(status(second).recordsPublished()).as("a standby publishes nothing").isZero();

        first.close();
        awaitRole(second, RelayRole.ACTIVE);
        append(account, 3, new MoneyDeposited(200));
        append(account, 4, new MoneyDeposited(300));
        try (var reader = readTopic()) {
            var published = keyed(reader.readUntil(all -> keyed(all, account).size() >= 4, Duration.ofSeconds(60)),
                    account);
            assertThat(published).extracting(r -> r.headers().lastHeader("version").value())
                    .map(String::new).containsExactly("1", "2", "3", "4");
        }
        assertThat(status(second).recordsPublished()).isPositive();
        var status = get(second, "/relay/status");
        assertThat(status.get("role").asString()).isEqualTo("ACTIVE");
        assertThat(status.get("slotName").asString()).isEqualTo(slot);
        assertThat(status.get("recordsPublished").asLong()).isPositive();
        assertThat(status.get("lastPublishedAt").isNull()).isFalse();
    }

    @Test
    void stopsItsEngineWhenItLosesTheLockConnection() {
        var relay = startRelay();
        awaitRole(relay, RelayRole.ACTIVE);
        long engineBackend = awaitSlotReader();

        // As if the network between relay and database broke: PostgreSQL ends the session and releases the lock.
        assertThat(jdbc.sql("SELECT pg_terminate_backend(" + LOCK_HOLDER + ")").param(RelayLeadership.lockName(slot))
                .query(Boolean.class).single()).isTrue();

        // The relay stops the engine (its replication connection goes) before anyone may take over; alone, it then
        // takes the lock again and starts a new engine on a new connection.
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            var reader = slotReader();
            return reader != null && reader != engineBackend;
        });
        awaitRole(relay, RelayRole.ACTIVE);
        var account = insertOpenedAccount("bob").accountId();
        try (var reader = readTopic()) {
            reader.readUntil(all -> keyed(all, account).size() == 1, Duration.ofSeconds(60));
        }
    }

    /**
     * The backend of the engine's streaming connection, once it has streamed an event: before that, the slot can be
     * held for a moment by the connection that creates it and then by none while the snapshot runs.
     */
    private long awaitSlotReader() {
        var account = insertOpenedAccount("streamed").accountId();
        try (var reader = readTopic()) {
            reader.readUntil(all -> keyed(all, account).size() == 1, Duration.ofSeconds(60));
        }
        return await().atMost(Duration.ofSeconds(60)).until(this::slotReader, java.util.Objects::nonNull);
    }

    /** The backend streaming from this test's slot, or null. */
    private Long slotReader() {
        return jdbc.sql("SELECT active_pid FROM pg_replication_slots WHERE slot_name = ?").param(slot)
                .query(Long.class).optional().orElse(null);
    }

    private static JsonNode get(ConfigurableApplicationContext relay, String path) {
        var port = Integer.parseInt(relay.getEnvironment().getProperty("local.server.port"));
        return TestHttp.at(port).asOperator().get(path).json();
    }
}
