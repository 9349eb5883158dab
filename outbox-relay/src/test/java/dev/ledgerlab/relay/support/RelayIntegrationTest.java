package dev.ledgerlab.relay.support;

import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.ledgerlab.events.AccountEvent;
import dev.ledgerlab.events.AccountOpened;
import dev.ledgerlab.events.EventCodec;
import dev.ledgerlab.events.EventEnvelope;
import dev.ledgerlab.relay.OutboxRelayApplication;
import dev.ledgerlab.relay.status.RelayRole;
import dev.ledgerlab.relay.status.RelayStatus;
import dev.ledgerlab.testkit.Infrastructure;
import dev.ledgerlab.testkit.TestHttp;
import dev.ledgerlab.testkit.TestInfrastructure;
import dev.ledgerlab.testkit.TopicReader;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The one integration-test base of this module. Relays are started the way the lab starts them, with
 * {@code new SpringApplicationBuilder(OutboxRelayApplication.class)}, so a test can run two at once, stop
 * one mid-stream and start another. Input is written straight into {@code ledger.events}: the table is the relay's
 * real seam. Every test gets its own slot, publication, offsets table and topic, because all tests of the module
 * share one PostgreSQL and one Kafka; a new slot snapshots the whole events table, so assertions look only at the
 * accounts their test wrote.
 */
public abstract class RelayIntegrationTest {

    protected static Infrastructure infra;
    protected static JdbcClient jdbc;
    private static HikariDataSource dataSource;

    protected String slot;
    protected String publication;
    protected String topic;
    protected String offsetsTable;
    private final List<ConfigurableApplicationContext> relays = new ArrayList<>();

    @BeforeAll
    static void database() {
        infra = TestInfrastructure.get();
        if (dataSource == null) {
            dataSource = new HikariDataSource();
            dataSource.setJdbcUrl(infra.jdbcUrl());
            dataSource.setUsername(infra.username());
            dataSource.setPassword(infra.password());
            dataSource.setMaximumPoolSize(8);
            // The schema exists before any relay runs, so tests may write events first and start a relay later.
            // With the roles the ledger migrations grant to; the relays of these tests connect as the admin user.
            Flyway.configure().dataSource(dataSource).schemas("ledger").defaultSchema("ledger")
                    .locations("classpath:db/migration/ledger", "classpath:db/roles")
                    .placeholders(Map.of("servicerole", "", "servicepassword", "")).load().migrate();
            jdbc = JdbcClient.create(dataSource);
        }
    }

    @BeforeEach
    void uniqueNames() {
        var unique = UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        slot = "relay_test_" + unique;
        publication = "relay_test_" + unique;
        offsetsTable = "ledger.relay_offsets_" + unique;
        topic = "relay-test-" + unique;
    }

    @AfterEach
    void stopRelaysAndDropTheirSlot() {
        closeRelays();
        // An abandoned slot would hold WAL for as long as the database lives.
        await().atMost(Duration.ofSeconds(30)).until(() -> jdbc.sql(
                "SELECT count(*) FROM pg_replication_slots WHERE slot_name = ? AND active").param(slot)
                .query(Long.class).single() == 0);
        jdbc.sql("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = ?")
                .param(slot).query().listOfRows();
        jdbc.sql("DROP PUBLICATION IF EXISTS " + publication).update();
        try (var admin = admin()) {
            admin.deleteTopics(List.of(topic));
        }
    }

    /** Stops every relay this test started, the last first. */
    protected void closeRelays() {
        for (int i = relays.size() - 1; i >= 0; i--) {
            relays.get(i).close();
        }
        relays.clear();
    }

    /** The settings every relay of this test shares; short intervals, so the tests wait little. */
    protected Map<String, String> relaySettings() {
        var settings = new LinkedHashMap<String, String>();
        settings.put("server.port", "0");
        settings.put("spring.datasource.url", infra.jdbcUrl());
        settings.put("spring.datasource.username", infra.username());
        settings.put("spring.datasource.password", infra.password());
        settings.put("spring.kafka.bootstrap-servers", infra.bootstrapServers());
        settings.put("relay.topic", topic);
        settings.put("relay.slot-name", slot);
        settings.put("relay.publication-name", publication);
        settings.put("relay.offsets-table", offsetsTable);
        settings.put("relay.heartbeat-interval", "1s");
        settings.put("relay.offset-flush-interval", "200ms");
        settings.put("relay.standby-poll-interval", "200ms");
        settings.put("relay.restart-backoff", "200ms");
        settings.put("relay.restart-backoff-max", "1s");
        settings.put("ledger.lab.operator.password", TestHttp.OPERATOR_PASSWORD);
        return settings;
    }

    protected ConfigurableApplicationContext startRelay() {
        return startRelay(Map.of());
    }

    /** Starts a relay; each setting appears once on the command line, since a repeated one would become a list. */
    protected ConfigurableApplicationContext startRelay(Map<String, String> overrides) {
        var settings = relaySettings();
        settings.putAll(overrides);
        var args = settings.entrySet().stream().map(e -> "--" + e.getKey() + "=" + e.getValue()).toArray(String[]::new);
        var relay = new SpringApplicationBuilder(OutboxRelayApplication.class)
                .properties("spring.config.name=" + OutboxRelayApplication.CONFIG_NAME)
                .run(args);
        relays.add(relay);
        return relay;
    }

    protected static RelayStatus status(ConfigurableApplicationContext relay) {
        return relay.getBean(RelayStatus.class);
    }

    protected static void awaitRole(ConfigurableApplicationContext relay, RelayRole role) {
        await().atMost(Duration.ofSeconds(60)).until(() -> status(relay).role() == role);
    }

    protected TopicReader readTopic() {
        return new TopicReader(infra.bootstrapServers(), topic);
    }

    protected Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, infra.bootstrapServers()));
    }

    /**
     * An accounts row and its AccountOpened event (version 1), inserted as the command API writes them (no API runs
     * here).
     */
    protected static EventEnvelope insertOpenedAccount(String owner, String traceparent, String tracestate) {
        var id = UUID.randomUUID();
        var now = Instant.now().truncatedTo(ChronoUnit.MICROS);
        jdbc.sql("""
                INSERT INTO ledger.accounts (account_id, owner, balance, version, opened_at, updated_at)
                VALUES (?, ?, 0, 1, ?, ?)""")
                .params(id, owner, Timestamp.from(now), Timestamp.from(now))
                .update();
        return append(id, 1, new AccountOpened(owner), traceparent, tracestate);
    }

    protected static EventEnvelope insertOpenedAccount(String owner) {
        return insertOpenedAccount(owner, null, null);
    }

    /**
     * One events row with a payload made by the real codec. The relay reads only ledger.events, so the accounts row
     * is not kept in step here.
     */
    protected static EventEnvelope append(UUID account, long version, AccountEvent event, String traceparent,
            String tracestate) {
        var envelope = new EventEnvelope(UUID.randomUUID(), account, version,
                Instant.now().truncatedTo(ChronoUnit.MICROS), event);
        jdbc.sql("""
                INSERT INTO ledger.events (id, account_id, version, type, schema_version, payload, occurred_at,
                                           traceparent, tracestate)
                VALUES (?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?)""")
                .params(envelope.eventId(), account, version, event.type(), EventCodec.schemaVersion(event),
                        EventCodec.toJson(envelope),
                        Timestamp.from(envelope.occurredAt()), traceparent, tracestate)
                .update();
        return envelope;
    }

    protected static EventEnvelope append(UUID account, long version, AccountEvent event) {
        return append(account, version, event, null, null);
    }
}
