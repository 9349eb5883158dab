package dev.ledgerlab.relay.capture;

import dev.ledgerlab.relay.RelayProperties;
import java.util.List;
import java.util.Properties;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/** The Debezium engine, connector and SMT properties of the relay, derived from {@link RelayProperties}. */
public final class ConnectorSettings {

    /** Prefix of Debezium's topic names; the relay never publishes to them, it only recognises them. */
    static final String TOPIC_PREFIX = "ledger";
    static final String EVENTS_TABLE = "ledger.events";
    static final String HEARTBEAT_TABLE = "ledger.relay_heartbeat";
    /** Columns of {@value #EVENTS_TABLE} that Debezium leaves out of the change records it hands the relay. */
    static final List<String> EXCLUDED_COLUMNS = List.of("position", "occurred_at");

    // Headers the EventRouter copies from columns; the publisher forwards exactly these, so Debezium's own headers
    // (the router's "id", __debezium.*) stay inside the relay.
    static final String HEADER_EVENT_ID = "eventId";
    static final String HEADER_EVENT_TYPE = "eventType";
    static final String HEADER_VERSION = "version";
    static final String HEADER_SCHEMA_VERSION = "schemaVersion";
    static final String HEADER_TRACEPARENT = "traceparent";
    static final String HEADER_TRACESTATE = "tracestate";

    private ConnectorSettings() {
    }

    public static String engineName(RelayProperties relay) {
        return "outbox-relay-" + relay.slotName();
    }

    public static Properties of(RelayProperties relay, PostgresSource source) {
        var p = new Properties();
        // The engine name is part of every stored offset key: one name per slot keeps relays of different slots apart.
        p.setProperty("name", engineName(relay));
        p.setProperty("connector.class", "io.debezium.connector.postgresql.PostgresConnector");

        p.setProperty("offset.storage", "io.debezium.storage.jdbc.offset.JdbcOffsetBackingStore");
        p.setProperty("offset.storage.jdbc.connection.url", source.jdbcUrl());
        p.setProperty("offset.storage.jdbc.connection.user", source.username());
        p.setProperty("offset.storage.jdbc.connection.password", offsetStorePassword(source));
        p.setProperty("offset.storage.jdbc.table.name", relay.offsetsTable());
        // The store looks its table up with DatabaseMetaData.getTables(null, null, "<schema>.<table>"), which never
        // matches a schema-qualified name, so it runs its CREATE TABLE on every start and retries a failure forever.
        // So the statement creates the table only where it is missing, checked first: even CREATE TABLE IF NOT
        // EXISTS needs the CREATE privilege on the schema, which the relay's role has not (the default table comes
        // from the V2 migration). Another table (relay.offsets-table) is made here only for a role that may.
        p.setProperty("offset.storage.jdbc.table.ddl", "DO $$ BEGIN IF to_regclass('%1$s') IS NULL THEN "
                + "CREATE TABLE %1$s (id varchar(36) PRIMARY KEY, offset_key text, offset_val text, "
                + "record_insert_ts timestamp NOT NULL, record_insert_seq integer NOT NULL); END IF; END $$");
        // Offsets only ever contain positions Kafka acknowledged; flushing them often bounds what a crash re-publishes.
        p.setProperty("offset.flush.interval.ms", Long.toString(relay.offsetFlushInterval().toMillis()));

        p.setProperty("database.hostname", source.host());
        p.setProperty("database.port", Integer.toString(source.port()));
        p.setProperty("database.dbname", source.database());
        p.setProperty("database.user", source.username());
        p.setProperty("database.password", source.password() == null ? "" : source.password());
        p.setProperty("topic.prefix", TOPIC_PREFIX);

        p.setProperty("plugin.name", "pgoutput");
        p.setProperty("slot.name", relay.slotName());
        p.setProperty("publication.name", relay.publicationName());
        // filtered: the publication must hold exactly the tables below. The relay's migrate step makes it so, as
        // the admin user (db/relay): creating or altering it takes the tables' owner, which the relay's role is
        // not, so Debezium finds it up to date and changes nothing. (Mode disabled, which would say so plainly,
        // made the engine fail on a WAL backlog older than an ADD COLUMN, "schema_version is not a valid field
        // name": SchemaVersionUpgradeTest. Cause not established; filtered passes it, as before the roles.)
        p.setProperty("publication.autocreate.mode", "filtered");
        p.setProperty("table.include.list", EVENTS_TABLE + "," + HEARTBEAT_TABLE);
        // Columns of an events row the relay never publishes: the payload carries the time the event occurred, and
        // the store's own position means nothing on the topic. Debezium still reads them from the WAL, but no longer
        // converts them into the change record: occurred_at, a timestamptz, became an ISO string for every event,
        // about a tenth of the streaming thread's samples while a relay drained a backlog (docs/performance.md).
        p.setProperty("column.exclude.list", EXCLUDED_COLUMNS.stream()
                .map(column -> Pattern.quote(EVENTS_TABLE + "." + column)).collect(Collectors.joining(",")));
        // A snapshot of the existing events only when no offset is stored yet; afterwards the slot's WAL continues.
        p.setProperty("snapshot.mode", "initial");
        // The snapshot reads the table in physical order, which is not version order: concurrent inserts land on
        // different pages, and CLUSTER, VACUUM FULL or pg_repack rewrite the heap. The projector refuses a gap, so an
        // account's snapshotted events must reach Kafka in version order; the (account_id, version) unique index
        // delivers exactly that order. Streaming after the snapshot follows commit order, which is version order.
        p.setProperty("snapshot.select.statement.overrides", EVENTS_TABLE);
        p.setProperty("snapshot.select.statement.overrides." + EVENTS_TABLE,
                "SELECT * FROM " + EVENTS_TABLE + " ORDER BY account_id, version");
        // How long the engine waits for more changes (default 500 ms): that wait was most of a deposit's way to
        // Kafka when traffic is light (RelayProperties#pollInterval).
        p.setProperty("poll.interval.ms", Long.toString(relay.pollInterval().toMillis()));
        p.setProperty("tombstones.on.delete", "false");
        // Debezium 3.2+ adds __debezium.context.* headers to every record by default; nothing downstream wants them.
        p.setProperty("extended.headers.enabled", "false");

        if (!relay.heartbeatInterval().isZero()) {
            p.setProperty("heartbeat.interval.ms", Long.toString(relay.heartbeatInterval().toMillis()));
            // The slot name is a checked identifier (RelayProperties), safe inside the literal.
            p.setProperty("heartbeat.action.query", "INSERT INTO " + HEARTBEAT_TABLE + " (slot_name, beat_at) VALUES ('"
                    + relay.slotName() + "', now()) ON CONFLICT (slot_name) DO UPDATE SET beat_at = EXCLUDED.beat_at");
        }

        // The outbox EventRouter turns an events row into key = account_id, value = payload (header-only placement
        // leaves the payload unwrapped) and headers from columns. It runs only on the events table: heartbeat rows
        // have no payload and would make it fail.
        p.setProperty("transforms", "outbox");
        p.setProperty("transforms.outbox.type", "io.debezium.transforms.outbox.EventRouter");
        p.setProperty("transforms.outbox.predicate", "eventsTable");
        p.setProperty("transforms.outbox.table.field.event.id", "id");
        p.setProperty("transforms.outbox.table.field.event.key", "account_id");
        p.setProperty("transforms.outbox.table.field.event.payload", "payload");
        p.setProperty("transforms.outbox.table.fields.additional.placement", String.join(",",
                "id:header:" + HEADER_EVENT_ID,
                "type:header:" + HEADER_EVENT_TYPE,
                "version:header:" + HEADER_VERSION,
                "schema_version:header:" + HEADER_SCHEMA_VERSION,
                "traceparent:header:" + HEADER_TRACEPARENT,
                "tracestate:header:" + HEADER_TRACESTATE));
        p.setProperty("transforms.outbox.route.topic.replacement", relay.topic());
        // ledger.events refuses UPDATE and DELETE (V1 triggers); if one ever arrives, stop rather than drop it.
        p.setProperty("transforms.outbox.table.op.invalid.behavior", "fatal");
        p.setProperty("predicates", "eventsTable");
        p.setProperty("predicates.eventsTable.type", "org.apache.kafka.connect.transforms.predicates.TopicNameMatches");
        p.setProperty("predicates.eventsTable.pattern", Pattern.quote(TOPIC_PREFIX + "." + EVENTS_TABLE));
        return p;
    }

    /**
     * The offset store rejects an empty password as missing. An empty password only works where PostgreSQL does not
     * ask for one (trust authentication), so any placeholder is never read.
     */
    private static String offsetStorePassword(PostgresSource source) {
        return source.password() == null || source.password().isEmpty() ? "unused" : source.password();
    }
}
