package dev.ledgerlab.relay.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ledgerlab.events.EventCodec;
import dev.ledgerlab.events.EventEnvelope;
import dev.ledgerlab.events.MoneyDeposited;
import dev.ledgerlab.relay.status.RelayRole;
import dev.ledgerlab.relay.support.RelayIntegrationTest;
import dev.ledgerlab.testkit.PastSchemaVersions;
import dev.ledgerlab.testkit.TopicReader;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.UUID;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationVersion;
import org.junit.jupiter.api.Test;

/**
 * Upgrading in place while the relay has a backlog: events committed before ledger V4 added
 * {@code schema_version} are still in the slot's WAL when the upgraded relay starts. Debezium publishes them with
 * the column's default, 1, which is their schema version; the relay neither stops at them nor drops the header. In a
 * database of its own, migrated to V3 first.
 */
class SchemaVersionUpgradeTest extends RelayIntegrationTest {

    @Test
    void publishesTheBacklogCommittedBeforeTheSchemaVersionColumnExistedAsVersionOne() throws Exception {
        var database = "relay_upgrade_" + slot.substring(slot.length() - 12);
        execute(infra.jdbcUrl(), "CREATE DATABASE " + database);
        var url = infra.jdbcUrl().replaceFirst("^(jdbc:postgresql://[^/]+/)[^?]*", "$1" + database);
        try {
            migrate(url, MigrationVersion.fromVersion("3"));
            // The relay before the upgrade: it creates its slot, snapshots the (empty) table, stores its offsets.
            var first = startRelay(Map.of("spring.datasource.url", url, "spring.flyway.enabled", "false"));
            awaitRole(first, RelayRole.ACTIVE);
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> storedOffsets(url) > 0);
            first.close();

            // The backlog: committed while no relay runs, before the migration.
            var account = UUID.randomUUID();
            var opened = envelope(account, 1, new dev.ledgerlab.events.AccountOpened("before"));
            var backlog = envelope(account, 2, new MoneyDeposited(5));
            try (var db = connect(url)) {
                insertAccount(db, account);
                insertAtV3(db, opened);
                insertAtV3(db, backlog);
            }
            migrate(url, MigrationVersion.LATEST);
            var after = envelope(account, 3, new MoneyDeposited(7));
            try (var db = connect(url); var insert = db.prepareStatement("""
                    INSERT INTO ledger.events (id, account_id, version, type, schema_version, payload, occurred_at)
                    VALUES (?, ?, ?, ?, ?, ?::jsonb, ?)""")) {
                insert.setObject(1, after.eventId());
                insert.setObject(2, account);
                insert.setLong(3, 3);
                insert.setString(4, after.event().type());
                insert.setInt(5, EventCodec.schemaVersion(after.event()));
                insert.setString(6, EventCodec.toJson(after));
                insert.setTimestamp(7, Timestamp.from(after.occurredAt()));
                insert.executeUpdate();
            }
            startRelay(Map.of("spring.datasource.url", url));

            java.util.List<org.apache.kafka.clients.consumer.ConsumerRecord<String, String>> published;
            try (var reader = readTopic()) {
                published = TopicReader.keyed(reader.readUntil(all -> TopicReader.keyed(all, account).size() >= 3,
                        Duration.ofSeconds(60)), account);
            }
            assertThat(published).extracting(r -> EventCodec.fromJson(r.value()).version()).containsExactly(1L, 2L, 3L);
            assertThat(EventCodec.fromJson(published.get(1).value())).isEqualTo(backlog);
            assertThat(published).extracting(r -> TopicReader.header(r, "schemaVersion"))
                    .as("rows older than the column read as its default, 1, as their payloads say by naming none")
                    .containsExactly("1", "1", "3");
            assertThat(TopicReader.header(published.get(2), "schemaVersion")).isEqualTo("3");
        } finally {
            closeRelays();
            try (var db = connect(url); var statement = db.createStatement()) {
                statement.execute("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots"
                        + " WHERE slot_name = '" + slot + "'");
            }
            execute(infra.jdbcUrl(), "DROP DATABASE " + database);
        }
    }

    @Test
    void refusesAnEventRowWhoseSchemaVersionColumnDisagreesWithItsPayload() {
        var account = insertOpenedAccount("checked").accountId();
        var deposit = envelope(account, 2, new MoneyDeposited(5));
        var insert = """
                INSERT INTO ledger.events (id, account_id, version, type, schema_version, payload, occurred_at)
                VALUES (?, ?, 2, 'MoneyDeposited', ?, ?::jsonb, now())""";

        for (int claimed : new int[] {1, 2}) {
            assertThatThrownBy(() -> jdbc.sql(insert).params(deposit.eventId(), account, claimed,
                    EventCodec.toJson(deposit)).update())
                    .hasMessageContaining("events_schema_version_is_the_payloads");
        }
        assertThatThrownBy(() -> jdbc.sql(insert).params(deposit.eventId(), account, 3,
                PastSchemaVersions.json(deposit, 1)).update())
                .hasMessageContaining("events_schema_version_is_the_payloads");
        assertThat(jdbc.sql(insert).params(deposit.eventId(), account, 3, EventCodec.toJson(deposit)).update())
                .isEqualTo(1);
    }

    private long storedOffsets(String url) throws SQLException {
        try (var db = connect(url); var rs = db.createStatement().executeQuery("SELECT count(*) FROM " + offsetsTable)) {
            return rs.next() ? rs.getLong(1) : 0;
        } catch (SQLException e) {
            return 0;
        }
    }

    private static EventEnvelope envelope(UUID account, long version, dev.ledgerlab.events.AccountEvent event) {
        return new EventEnvelope(UUID.randomUUID(), account, version, Instant.now().truncatedTo(ChronoUnit.MICROS),
                event);
    }

    /** As the command API wrote events before V4: no schema_version column, the payload of schema version 1. */
    private static void insertAtV3(Connection db, EventEnvelope event) throws SQLException {
        try (var insert = db.prepareStatement("""
                INSERT INTO ledger.events (id, account_id, version, type, payload, occurred_at)
                VALUES (?, ?, ?, ?, ?::jsonb, ?)""")) {
            insert.setObject(1, event.eventId());
            insert.setObject(2, event.accountId());
            insert.setLong(3, event.version());
            insert.setString(4, event.event().type());
            insert.setString(5, PastSchemaVersions.json(event, 1));
            insert.setTimestamp(6, Timestamp.from(event.occurredAt()));
            insert.executeUpdate();
        }
    }

    private static void insertAccount(Connection db, UUID account) throws SQLException {
        try (var insert = db.prepareStatement("INSERT INTO ledger.accounts (account_id, owner, balance, version,"
                + " opened_at, updated_at) VALUES (?, 'before', 0, 1, now(), now())")) {
            insert.setObject(1, account);
            insert.executeUpdate();
        }
    }

    private void migrate(String url, MigrationVersion target) {
        // As the relay's own migrate step would, publication included: the first relay runs with Flyway off.
        Flyway.configure().dataSource(url, infra.username(), infra.password()).schemas("ledger")
                .defaultSchema("ledger").locations("classpath:db/migration/ledger", "classpath:db/roles",
                        "classpath:db/relay")
                .placeholders(Map.of("servicerole", "", "servicepassword", "", "publication", publication))
                .target(target).load().migrate();
    }

    private static Connection connect(String url) throws SQLException {
        return DriverManager.getConnection(url, infra.username(), infra.password());
    }

    private static void execute(String url, String sql) throws SQLException {
        try (var db = connect(url); var statement = db.createStatement()) {
            statement.execute(sql);
        }
    }
}
