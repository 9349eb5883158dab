package dev.ledgerlab.relay.capture;

import static dev.ledgerlab.testkit.TopicReader.header;
import static dev.ledgerlab.testkit.TopicReader.keyed;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ledgerlab.events.EventCodec;
import dev.ledgerlab.events.MoneyDeposited;
import dev.ledgerlab.events.MoneyWithdrawn;
import dev.ledgerlab.relay.support.RelayIntegrationTest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.LongStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;

/** What reaches Kafka for each events row, snapshotted or streamed, and where it lands. */
class OutboxPublishingTest extends RelayIntegrationTest {

    private static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    private static final String TRACESTATE = "ledgerlab=relay-test";

    @Test
    void publishesEachOutboxRowKeyedByAccountWithHeaders() {
        // Written before the relay starts: reaches Kafka through the initial snapshot.
        var opened = insertOpenedAccount("alice", TRACEPARENT, TRACESTATE);
        var account = opened.accountId();
        startRelay();
        // Written while it runs: reaches Kafka through the replication stream.
        append(account, 2, new MoneyDeposited(1_500));
        append(account, 3, new MoneyWithdrawn(500), TRACEPARENT, null);

        List<ConsumerRecord<String, String>> published;
        try (var reader = readTopic()) {
            published = keyed(reader.readUntilOrGiveUp(all -> keyed(all, account).size() >= 3,
                    Duration.ofSeconds(60)), account);
        }

        assertThat(published).hasSize(3);
        for (var record : published) {
            var eventId = UUID.fromString(header(record, "eventId"));
            var stored = jdbc.sql("SELECT payload::text AS payload, type, version, schema_version, traceparent, tracestate "
                    + "FROM ledger.events WHERE id = ?").param(eventId).query().singleRow();
            assertThat(record.key()).isEqualTo(account.toString());
            // The value is the column's JSON text as PostgreSQL renders it, not a re-serialisation.
            assertThat(record.value()).isEqualTo(stored.get("payload"));
            var envelope = EventCodec.fromJson(record.value());
            assertThat(envelope.eventId()).isEqualTo(eventId);
            assertThat(envelope.accountId()).isEqualTo(account);
            assertThat(header(record, "eventType")).isEqualTo(stored.get("type")).isEqualTo(envelope.event().type());
            assertThat(header(record, "version")).isEqualTo(stored.get("version").toString())
                    .isEqualTo(Long.toString(envelope.version()));
            assertThat(header(record, "schemaVersion")).isEqualTo(stored.get("schema_version").toString())
                    .isEqualTo(Integer.toString(EventCodec.schemaVersion(envelope.event())));
            assertThat(header(record, "traceparent")).isEqualTo(stored.get("traceparent"));
            assertThat(header(record, "tracestate")).isEqualTo(stored.get("tracestate"));
            assertThat(record.headers()).extracting(Header::key)
                    .doesNotHaveDuplicates()
                    .noneMatch(key -> key.startsWith("__debezium"))
                    .isSubsetOf("eventId", "eventType", "version", "schemaVersion", "traceparent", "tracestate");
        }
        assertThat(published).extracting(r -> header(r, "version")).containsExactly("1", "2", "3");
        assertThat(published).extracting(r -> header(r, "schemaVersion")).containsExactly("1", "3", "3");
        assertThat(published.get(0).headers().lastHeader("tracestate")).isNotNull();
        assertThat(published.get(1).headers().lastHeader("traceparent")).as("no trace context, no header").isNull();
    }

    @Test
    void snapshotsEachAccountsEventsInVersionOrderWhateverTheTablesPhysicalOrder() {
        int versions = 20;
        var accounts = new ArrayList<UUID>();
        for (int i = 0; i < 6; i++) {
            accounts.add(insertOpenedAccount("snapshot-" + i).accountId());
        }
        for (long version = 2; version <= versions; version++) {
            for (var account : accounts) {
                append(account, version, new MoneyDeposited(version));
            }
        }
        // Rewrite the heap in event-id order (random UUIDs), as CLUSTER, VACUUM FULL or pg_repack may rewrite it,
        // and as concurrent inserts on different pages leave it anyway: physical order is no longer version order.
        jdbc.sql("CLUSTER ledger.events USING events_pkey").update();
        long scrambled = jdbc.sql("""
                SELECT count(*) FROM (SELECT version < lag(version) OVER (PARTITION BY account_id ORDER BY ctid) AS back
                                      FROM ledger.events WHERE account_id = ANY (?)) t WHERE back""")
                .param(accounts.toArray(UUID[]::new)).query(Long.class).single();
        assertThat(scrambled).as("events stored out of version order (else this test proves nothing)").isPositive();

        // Written before the relay's first start: all of it reaches Kafka through the initial snapshot.
        startRelay();

        List<ConsumerRecord<String, String>> published;
        try (var reader = readTopic()) {
            published = reader.readUntilOrGiveUp(
                    all -> accounts.stream().allMatch(a -> keyed(all, a).size() >= versions), Duration.ofSeconds(60));
        }
        for (var account : accounts) {
            assertThat(keyed(published, account)).extracting(r -> EventCodec.fromJson(r.value()).version())
                    .as("versions of %s in their partition", account)
                    .containsExactlyElementsOf(LongStream.rangeClosed(1, versions).boxed().toList());
        }
    }

    @Test
    void keepsEveryEventOfOneAccountInOnePartitionInVersionOrder() {
        startRelay();
        int versions = 30;
        var accounts = new ArrayList<UUID>();
        for (int i = 0; i < 8; i++) {
            accounts.add(insertOpenedAccount("owner-" + i).accountId());
        }
        // Interleaved, one transaction each: the order of the log is not the order of any one account.
        for (long version = 2; version <= versions; version++) {
            for (var account : accounts) {
                append(account, version, new MoneyDeposited(version));
            }
        }

        List<ConsumerRecord<String, String>> published;
        try (var reader = readTopic()) {
            published = reader.readUntilOrGiveUp(all -> accounts.stream().allMatch(a -> keyed(all, a).size() >= versions),
                    Duration.ofSeconds(60));
        }

        int partitions = 6;
        var partitionOf = new HashMap<UUID, Integer>();
        for (var account : accounts) {
            var records = keyed(published, account);
            assertThat(records).as("records keyed by %s", account).hasSize(versions);
            assertThat(records).extracting(ConsumerRecord::partition).as("partitions of %s", account).containsOnly(
                    records.get(0).partition());
            assertThat(records).extracting(r -> Long.parseLong(header(r, "version"))).as("versions of %s", account)
                    .containsExactlyElementsOf(LongStream.rangeClosed(1, versions).boxed().toList());
            assertThat(records).extracting(r -> EventCodec.fromJson(r.value()).version())
                    .containsExactlyElementsOf(LongStream.rangeClosed(1, versions).boxed().toList());
            // The partition is the one Kafka's default partitioner picks for the key: the key alone decides.
            byte[] key = account.toString().getBytes(StandardCharsets.UTF_8);
            assertThat(records.get(0).partition()).isEqualTo(Utils.toPositive(Utils.murmur2(key)) % partitions);
            partitionOf.put(account, records.get(0).partition());
        }
        assertThat(Set.copyOf(partitionOf.values())).as("partitions used by 8 accounts").hasSizeGreaterThan(1);
    }
}
