package dev.ledgerlab.relay.capture;

import static dev.ledgerlab.testkit.TopicReader.keyed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ledgerlab.events.EventCodec;
import dev.ledgerlab.relay.status.RelayRole;
import dev.ledgerlab.relay.support.RelayIntegrationTest;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * While no event is written, other tables still write WAL, and a slot that never confirms a newer position makes
 * PostgreSQL keep all of it. Heartbeat rows give the slot something to confirm.
 */
class HeartbeatTest extends RelayIntegrationTest {

    @BeforeEach
    void scratchTable() {
        jdbc.sql("CREATE TABLE IF NOT EXISTS public.relay_scratch (id bigserial PRIMARY KEY, note text)").update();
    }

    @Test
    void movesTheSlotWhileTheEventsTableIsIdle() {
        var relay = startRelay(Map.of("relay.heartbeat-interval", "200ms"));
        awaitStreaming(relay);

        for (int round = 0; round < 3; round++) {
            String walWritten = writeUnrelatedWal();
            await().atMost(Duration.ofSeconds(30)).until(() -> slotConfirmedPast(walWritten));
        }

        // Heartbeat rows moved the slot but never reached the topic: everything on it is an event.
        long published = status(relay).recordsPublished();
        try (var reader = readTopic()) {
            var all = reader.readUntil(records -> records.size() >= published, Duration.ofSeconds(30));
            assertThat(all).extracting(ConsumerRecord::value).allSatisfy(EventCodec::fromJson);
        }
        assertThat(jdbc.sql("SELECT count(*) FROM ledger.relay_heartbeat WHERE slot_name = ?").param(slot)
                .query(Long.class).single()).isEqualTo(1);
    }

    @Test
    void leavesTheSlotBehindWithoutHeartbeats() {
        // The control: the same idle table and unrelated WAL, heartbeats off. This is what heartbeats are for.
        var relay = startRelay(Map.of("relay.heartbeat-interval", "0"));
        awaitStreaming(relay);

        String walWritten = writeUnrelatedWal();
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5))
                .until(() -> !slotConfirmedPast(walWritten));
    }

    /**
     * Waits until the relay streams from its slot and has confirmed an event written after that. Before then the
     * slot's position can be ahead of WAL just written for other reasons (the slot is created at the current end of
     * WAL, after the test wrote), and both tests would prove nothing.
     */
    private void awaitStreaming(ConfigurableApplicationContext relay) {
        awaitRole(relay, RelayRole.ACTIVE);
        await().atMost(Duration.ofSeconds(60)).until(() -> jdbc.sql(
                "SELECT count(*) FROM pg_replication_slots WHERE slot_name = ? AND active_pid IS NOT NULL")
                .param(slot).query(Long.class).single() == 1);
        // The position just before the event, not the end of WAL after it: the relay's own offset store writes WAL
        // too (every flush, and all through a snapshot), which the slot never confirms without heartbeats.
        String beforeTheEvent = jdbc.sql("SELECT pg_current_wal_insert_lsn()::text").query(String.class).single();
        var account = insertOpenedAccount("heartbeat").accountId();
        try (var reader = readTopic()) {
            reader.readUntil(all -> !keyed(all, account).isEmpty(), Duration.ofSeconds(60));
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> slotConfirmedPast(beforeTheEvent));
    }

    /** Writes to a table outside the publication; returns the WAL position after it. */
    private static String writeUnrelatedWal() {
        jdbc.sql("INSERT INTO public.relay_scratch (note) SELECT md5(g::text) FROM generate_series(1, 1000) g").update();
        return jdbc.sql("SELECT pg_current_wal_lsn()::text").query(String.class).single();
    }

    private boolean slotConfirmedPast(String lsn) {
        return Boolean.TRUE.equals(jdbc.sql(
                "SELECT confirmed_flush_lsn >= ?::pg_lsn FROM pg_replication_slots WHERE slot_name = ?")
                .params(lsn, slot).query(Boolean.class).optional().orElse(false));
    }
}
