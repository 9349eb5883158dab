package dev.ledgerlab.relay.status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ledgerlab.events.MoneyDeposited;
import dev.ledgerlab.relay.leadership.RelayLeadership;
import dev.ledgerlab.relay.support.RelayIntegrationTest;
import dev.ledgerlab.testkit.Scrape;
import java.sql.DriverManager;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * /actuator/prometheus of the relay, open without credentials: what it published, how late, and how far its
 * replication slot is behind, against what PostgreSQL itself says.
 */
class RelayMetricsTest extends RelayIntegrationTest {

    private static final String SLOT_LAG = "ledger_relay_slot_lag_bytes";

    @Test
    void reportsPublishedEventsTheirLatencyAndTheSlotWhileStreaming() {
        var relay = startRelay();
        awaitRole(relay, RelayRole.ACTIVE);
        var account = insertOpenedAccount("alice").accountId();
        for (int version = 2; version <= 10; version++) {
            append(account, version, new MoneyDeposited(version));
        }

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            var scrape = scrape(relay);
            assertThat(scrape.value("ledger_relay_published_total")).isGreaterThanOrEqualTo(10);
            assertThat(scrape.value("ledger_relay_publish_latency_seconds_count")).isGreaterThanOrEqualTo(10);
            assertThat(scrape.value("ledger_relay_debezium_behind_source_seconds")).isNotNaN();
            // NaN while PostgreSQL still builds the slot's snapshot (confirmed_flush_lsn is null until then), and a
            // reading is kept for a second: it may predate the first events.
            assertThat(scrape.value(SLOT_LAG)).isNotNaN().isGreaterThanOrEqualTo(0);
        });
        var scrape = scrape(relay);
        assertThat(scrape.value("ledger_relay_publish_latency_seconds", "quantile", "0.99")).isPositive();
        assertThat(scrape.value("ledger_relay_active")).isOne();
        assertThat(scrape.value("ledger_relay_slot_wal_status", "status", "reserved")).isOne();
        assertThat(scrape.sum("ledger_relay_slot_wal_status")).as("one status at a time").isOne();
        long keepMegabytes = jdbc.sql("SELECT setting::bigint FROM pg_settings WHERE name = 'max_slot_wal_keep_size'")
                .query(Long.class).single();
        if (keepMegabytes < 0) {
            assertThat(scrape.value("ledger_relay_slot_safe_wal_size_bytes")).as("unlimited: no danger").isNaN();
        } else {
            // PostgreSQL's own figure, a moment later: a segment of WAL written meanwhile at most.
            double safe = jdbc.sql("SELECT safe_wal_size FROM pg_replication_slots WHERE slot_name = ?").param(slot)
                    .query(Double.class).single();
            assertThat(scrape.value("ledger_relay_slot_safe_wal_size_bytes")).as("safe_wal_size").isPositive()
                    .isCloseTo(safe, org.assertj.core.data.Offset.offset(16.0 * 1024 * 1024));
        }
        assertThat(scrape.value("ledger_relay_debezium_queue_remaining_capacity")).isPositive();
        // Kafka's own producer metrics, bound by Micrometer's Kafka binder.
        assertThat(scrape.has("kafka_producer_record_send_total")).isTrue();
    }

    /**
     * Events written while no relay streams (this one stands by, because the test holds the relay lock) are WAL the
     * slot has not confirmed: the lag is what PostgreSQL reports, and it shrinks once the relay takes over.
     */
    @Test
    void reportsTheSlotLagInBytesWhileNoRelayStreamsAndItsFallOnceOneDoes() throws Exception {
        var first = startRelay();
        awaitRole(first, RelayRole.ACTIVE);
        var account = insertOpenedAccount("bob").accountId();
        await().atMost(Duration.ofSeconds(60)).until(() -> status(first).recordsPublished() >= 1);
        closeRelays();

        try (var lock = DriverManager.getConnection(infra.jdbcUrl(), infra.username(), infra.password())) {
            try (var statement = lock.prepareStatement("SELECT pg_advisory_lock(hashtextextended(?, 0))")) {
                statement.setString(1, RelayLeadership.lockName(slot));
                statement.executeQuery().close();
            }
            var standby = startRelay();
            awaitRole(standby, RelayRole.STANDBY);
            // The first relay's engine may still be ending after its lock went: nobody may stream from here on.
            await().atMost(Duration.ofSeconds(30)).until(() -> !jdbc.sql(
                    "SELECT active FROM pg_replication_slots WHERE slot_name = ?").param(slot)
                    .query(Boolean.class).single());
            for (int version = 2; version <= 200; version++) {
                append(account, version, new MoneyDeposited(version));
            }
            // With synchronous_commit off (the tests' PostgreSQL) the WAL writer writes the commits within 200 ms:
            // until then pg_current_wal_lsn(), the written position, has not reached them.
            long behind = await().atMost(Duration.ofSeconds(10)).until(() -> jdbc.sql(
                    "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)::bigint"
                    + " FROM pg_replication_slots WHERE slot_name = ?").param(slot).query(Long.class).single(),
                    bytes -> bytes > 10_000);

            await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                    assertThat(scrape(standby).value(SLOT_LAG)).isGreaterThanOrEqualTo(behind));
            var scrape = scrape(standby);
            assertThat(scrape.value("ledger_relay_active")).isZero();
            assertThat(scrape.value("ledger_relay_debezium_behind_source_seconds")).as("a standby streams nothing")
                    .isNaN();

            try (var statement = lock.prepareStatement("SELECT pg_advisory_unlock(hashtextextended(?, 0))")) {
                statement.setString(1, RelayLeadership.lockName(slot));
                statement.executeQuery().close();
            }
            awaitRole(standby, RelayRole.ACTIVE);
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
                    assertThat(scrape(standby).value(SLOT_LAG)).isLessThan(behind));
        }
    }

    private static Scrape scrape(ConfigurableApplicationContext relay) {
        return Scrape.of(Integer.parseInt(relay.getEnvironment().getProperty("local.server.port")));
    }
}
