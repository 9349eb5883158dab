package dev.ledgerlab.lab;

import static dev.ledgerlab.testkit.TopicReader.keyed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ledgerlab.events.EventCodec;
import dev.ledgerlab.relay.OutboxRelayApplication;
import dev.ledgerlab.testkit.CommandApiClient;
import dev.ledgerlab.testkit.PipelineNames;
import dev.ledgerlab.testkit.ProjectorClient;
import dev.ledgerlab.testkit.TestHttp;
import dev.ledgerlab.testkit.TopicReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * A slot PostgreSQL gave up on, through the whole pipeline: with the relay stopped and deposits still accepted, the
 * server moves past {@code max_slot_wal_keep_size} and a checkpoint removes the WAL the relay's slot still needed
 * ({@code wal_status = 'lost'}). The relay then does not start its engine, says why (status, health), and publishes
 * nothing past the missing WAL; a re-snapshot while the slot is fine, or without the operator, changes nothing. The
 * operator's re-snapshot publishes every stored event again, each account's in version order; the projector applies
 * the ones written while the slot was lost and counts every one it had already applied as a duplicate, exactly; the
 * projection ends exact, and streaming goes on from the new slot.
 *
 * <p>A pipeline of its own ({@link OwnPipeline}), in this JVM's PostgreSQL and Kafka. Losing a slot moves the whole
 * server's WAL on, so any other inactive slot of the server is lost with it: {@code PipelineTest} uses the lab's
 * default slot only while its services run, and the other tests drop their own slot when they end.
 */
class SlotLostTest {

    private static final String NAME = "slot_lost";
    private static final String TOPIC = new PipelineNames(NAME).topic();

    private static OwnPipeline pipeline;
    private static LabServices.Infrastructure infrastructure;
    private static List<String> arguments;
    private static LabServices services;
    private static ConfigurableApplicationContext relay;
    /** The admin user on this test's database: the slot, the WAL, the tables as stored. */
    private static JdbcClient admin;

    @BeforeAll
    static void startAPipelineOfItsOwn() {
        pipeline = OwnPipeline.create(NAME, TestHttp.OPERATOR_PASSWORD_ARGUMENT,
                "--management.tracing.export.enabled=false");
        infrastructure = pipeline.infrastructure();
        arguments = pipeline.arguments();
        admin = pipeline.admin();
        services = pipeline.start();
        relay = services.relay();
    }

    @AfterAll
    static void stopAndDropTheSlot() {
        if (relay != services.relay()) {
            relay.close();
        }
        services.close();
        pipeline.dropSlot();
    }

    @Test
    void countsEveryEventAppliedBeforeAsADuplicateWhenTheOperatorResnapshotsALostSlot() throws Exception {
        var balances = new LinkedHashMap<UUID, Long>();
        for (int a = 0; a < 5; a++) {
            var account = commands().openAccount("lost");
            balances.put(account, 0L);
            for (int d = 1; d <= 3; d++) {
                balances.merge(account, deposit(account, 100L * a + d), Long::sum);
            }
        }
        awaitProjected(balances, 4);
        var refused = operator().post("/relay/resnapshot");
        assertThat(refused.status()).as(refused.body()).isEqualTo(409);
        assertThat(refused.problemType()).isEqualTo("urn:ledgerlab:problem:slot-not-lost");
        long appliedBefore = storedEvents();
        assertThat(appliedBefore).isEqualTo(20);

        relay.close();
        // Accepted while no relay streams: once the slot's WAL is gone, only the table has them.
        for (var account : balances.keySet()) {
            for (int d = 1; d <= 2; d++) {
                balances.merge(account, deposit(account, 1_000L + d), Long::sum);
            }
        }
        loseTheSlot();
        relay = LabServices.run(OutboxRelayApplication.class, OutboxRelayApplication.CONFIG_NAME, infrastructure, 0,
                arguments);
        await("the relay reports the lost slot").atMost(Duration.ofSeconds(60))
                .until(() -> TestHttp.at(relayPort()).get("/relay/status").json().get("slotLost").asBoolean());
        assertThat(operator().get("/relay/status").json().get("lastEngineError").asString()).contains("is lost")
                .contains("/relay/resnapshot");
        assertThat(TestHttp.at(relayPort()).get("/actuator/health").status()).as("unhealthy").isEqualTo(503);
        assertThat(operator().get("/actuator/health").json().at("/components/relay/details/reason").asString())
                .isEqualTo("slot-lost");
        var anonymous = TestHttp.at(relayPort()).post("/relay/resnapshot");
        assertThat(anonymous.status()).isEqualTo(401);
        assertThat(walStatus()).as("nothing done without the operator").isEqualTo("lost");
        balances.keySet().forEach(account -> assertThat(projected(account)[1])
                .as("nothing published past the lost WAL: %s", account).isEqualTo(4));

        var accepted = operator().post("/relay/resnapshot");
        assertThat(accepted.status()).as(accepted.body()).isEqualTo(202);
        assertThat(accepted.json().get("offsetsDeleted").asInt()).isPositive();

        awaitProjected(balances, 6);
        var counts = offsetCounts();
        assertThat(counts[1]).as("duplicates: every event applied before the re-snapshot, once")
                .isEqualTo(appliedBefore);
        assertThat(counts[0]).as("applied: every stored event, once").isEqualTo(storedEvents()).isEqualTo(30);
        var records = TopicReader.readAll(infrastructure.bootstrapServers(), TOPIC);
        for (var account : balances.keySet()) {
            assertThat(versions(keyed(records, account))).as("published, then all again in version order: %s",
                    account).containsExactly(1L, 2L, 3L, 4L, 1L, 2L, 3L, 4L, 5L, 6L);
        }
        System.out.printf("lost slot: %d events stored, %d records published, %d duplicates skipped%n",
                storedEvents(), records.size(), counts[1]);

        await().atMost(Duration.ofSeconds(30)).until(() -> "reserved".equals(walStatus())
                && TestHttp.at(relayPort()).get("/actuator/health").status() == 200);
        var account = balances.keySet().iterator().next();
        balances.merge(account, deposit(account, 7), Long::sum);
        await("streaming goes on from the new slot").atMost(Duration.ofSeconds(60)).untilAsserted(() ->
                assertThat(projected(account)).containsExactly(balances.get(account), 7L));
    }

    /**
     * Moves the server past the slot's limit ({@code max_slot_wal_keep_size}, 4GB in every stack: db's
     * postgresql.properties, given on the server's command line, so no ALTER SYSTEM can lower it): a message, so that
     * there is WAL to switch away from, then a switch to a new 16 MB segment, ~260 times, with a checkpoint every 8
     * switches so that PostgreSQL recycles the segments (the disk holds a few, not 4 GB) and, once past the limit,
     * removes the ones the slot still needed.
     */
    private static void loseTheSlot() {
        for (int switches = 1; switches <= 1_000; switches++) {
            admin.sql("SELECT pg_logical_emit_message(false, 'slot-lost-test', 'x')").query().listOfRows();
            admin.sql("SELECT pg_switch_wal()").query().listOfRows();
            if (switches % 8 == 0) {
                admin.sql("CHECKPOINT").update();
                if ("lost".equals(walStatus())) {
                    return;
                }
            }
        }
        throw new AssertionError("slot " + NAME + " still " + walStatus() + " after 1,000 segment switches");
    }

    private static String walStatus() {
        return admin.sql("SELECT wal_status FROM pg_replication_slots WHERE slot_name = ?").param(NAME)
                .query(String.class).optional().orElse(null);
    }

    private static long storedEvents() {
        return admin.sql("SELECT count(*) FROM ledger.events").query(Long.class).single();
    }

    /** Applied and duplicates of the live group, as the projector stored them with the balances. */
    private static long[] offsetCounts() {
        return admin.sql("SELECT coalesce(sum(applied), 0), coalesce(sum(duplicates), 0) FROM projection.offsets"
                + " WHERE group_id = ?").param(NAME).query((rows, n) -> new long[] {rows.getLong(1), rows.getLong(2)})
                .single();
    }

    private static void awaitProjected(Map<UUID, Long> balances, long version) {
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> balances.forEach((account, balance) ->
                assertThat(projected(account)).as("projected %s", account).containsExactly(balance, version)));
    }

    private static List<Long> versions(List<ConsumerRecord<String, String>> records) {
        var versions = new ArrayList<Long>();
        records.forEach(r -> versions.add(EventCodec.fromJson(r.value()).version()));
        return versions;
    }

    private static CommandApiClient commands() {
        return CommandApiClient.at(LabServices.port(services.commandApi()));
    }

    /** The amount, once deposited. */
    private static long deposit(UUID account, long amount) {
        commands().deposit(account, amount).expect(200);
        return amount;
    }

    private static long[] projected(UUID account) {
        return ProjectorClient.at(LabServices.port(services.projector())).projected(account);
    }

    private static TestHttp operator() {
        return TestHttp.at(relayPort()).asOperator();
    }

    private static int relayPort() {
        return LabServices.port(relay);
    }
}
