package dev.ledgerlab.relay.capture;

import static dev.ledgerlab.testkit.TopicReader.keyed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ledgerlab.events.EventCodec;
import dev.ledgerlab.events.MoneyDeposited;
import dev.ledgerlab.relay.status.RelayRole;
import dev.ledgerlab.relay.support.RelayIntegrationTest;
import dev.ledgerlab.testkit.TestHttp;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A slot PostgreSQL gave up on: with the relay stopped, the server moves past {@code max_slot_wal_keep_size} and a
 * checkpoint removes the WAL its slot still needed ({@code wal_status = 'lost'}). The relay then does not start its
 * engine, says why, and skips nothing; a re-snapshot without the operator, or while the slot is fine, changes
 * nothing; the operator's re-snapshot publishes every stored event again, in version order, the ones written while
 * the slot was lost included, and streaming goes on from the new slot. Every other test of this module drops its slot
 * when it ends (RelayIntegrationTest), so no other slot is lost with this one.
 */
class SlotLostTest extends RelayIntegrationTest {

    @Test
    void republishesEveryStoredEventInVersionOrderWhenTheOperatorResnapshotsALostSlot() {
        var account = openAccount("lost").accountId();
        append(account, 2, new MoneyDeposited(100));
        var relay = startRelay();
        awaitRole(relay, RelayRole.ACTIVE);
        try (var reader = readTopic()) {
            reader.readUntil(all -> keyed(all, account).size() == 2, Duration.ofSeconds(60));
            var refused = operator(relay).post("/relay/resnapshot");
            assertThat(refused.status()).as(refused.body()).isEqualTo(409);
            assertThat(refused.problemType()).isEqualTo("urn:ledgerlab:problem:slot-not-lost");

            closeRelays();
            // Written while no relay streams: only the table has them once the slot's WAL is gone.
            append(account, 3, new MoneyDeposited(200));
            append(account, 4, new MoneyDeposited(300));
            loseTheSlot();
            relay = startRelay();
            awaitRole(relay, RelayRole.ACTIVE);
            var failing = relay;
            await("the relay reports the lost slot").atMost(Duration.ofSeconds(60))
                    .until(() -> status(failing).snapshot().engineRestarts() > 0
                            && status(failing).snapshot().lastEngineError() != null);
            assertThat(status(relay).snapshot().lastEngineError()).contains("is lost").contains("/relay/resnapshot");
            assertThat(TestHttp.at(port(relay)).get("/relay/status").json().get("slotLost").asBoolean()).isTrue();
            assertThat(TestHttp.at(port(relay)).get("/actuator/health").status()).as("unhealthy").isEqualTo(503);
            assertThat(operator(relay).get("/actuator/health").json().at("/components/relay/details/reason")
                    .asString()).isEqualTo("slot-lost");
            assertThat(versions(keyed(reader.readToEnd(), account))).as("nothing published past the lost WAL")
                    .containsExactly(1L, 2L);

            var anonymous = TestHttp.at(port(relay)).post("/relay/resnapshot");
            assertThat(anonymous.status()).isEqualTo(401);
            assertThat(walStatus()).as("nothing done without the operator").isEqualTo("lost");

            var accepted = operator(relay).post("/relay/resnapshot");
            assertThat(accepted.status()).as(accepted.body()).isEqualTo(202);
            assertThat(accepted.json().get("offsetsDeleted").asInt()).isPositive();

            var again = versions(keyed(reader.readUntil(all -> keyed(all, account).size() >= 6,
                    Duration.ofSeconds(60)), account));
            assertThat(again).as("the first two, then every stored event again, in version order")
                    .containsExactly(1L, 2L, 1L, 2L, 3L, 4L);
            await().atMost(Duration.ofSeconds(30)).until(() -> "reserved".equals(walStatus()));
            var recovered = relay;
            await().atMost(Duration.ofSeconds(30)).until(() -> !status(recovered).snapshot().slotLost()
                    && TestHttp.at(port(recovered)).get("/actuator/health").status() == 200);

            append(account, 5, new MoneyDeposited(400));
            var streamed = versions(keyed(reader.readUntil(all -> keyed(all, account).size() >= 7,
                    Duration.ofSeconds(60)), account));
            assertThat(streamed).as("streaming goes on from the new slot")
                    .containsExactly(1L, 2L, 1L, 2L, 3L, 4L, 5L);
        }
    }

    /**
     * Moves the server past the slot's limit ({@code max_slot_wal_keep_size}, 4GB in every stack: db's
     * postgresql.properties, given on the server's command line, so no ALTER SYSTEM can lower it): a message, so that
     * there is WAL to switch away from, then a switch to a new 16 MB segment, ~260 times, with a checkpoint every 8
     * switches so that PostgreSQL recycles the segments (the disk holds a few, not 4 GB) and, once past the limit,
     * removes the ones the slot still needed.
     */
    private void loseTheSlot() {
        for (int switches = 1; switches <= 1_000; switches++) {
            jdbc.sql("SELECT pg_logical_emit_message(false, 'slot-lost-test', 'x')").query().listOfRows();
            jdbc.sql("SELECT pg_switch_wal()").query().listOfRows();
            if (switches % 8 == 0) {
                jdbc.sql("CHECKPOINT").update();
                if ("lost".equals(walStatus())) {
                    return;
                }
            }
        }
        throw new AssertionError("slot " + slot + " still " + walStatus() + " after 1,000 segment switches");
    }

    private String walStatus() {
        return jdbc.sql("SELECT wal_status FROM pg_replication_slots WHERE slot_name = ?").param(slot)
                .query(String.class).optional().orElse(null);
    }

    private static List<Long> versions(List<ConsumerRecord<String, String>> records) {
        return records.stream().map(r -> EventCodec.fromJson(r.value()).version()).toList();
    }

    private static TestHttp operator(ConfigurableApplicationContext relay) {
        return TestHttp.at(port(relay)).asOperator();
    }

    private static int port(ConfigurableApplicationContext relay) {
        return Integer.parseInt(relay.getEnvironment().getProperty("local.server.port"));
    }
}
