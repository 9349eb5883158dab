package dev.ledgerlab.projector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ledgerlab.events.MoneyDeposited;
import dev.ledgerlab.events.MoneyWithdrawn;
import dev.ledgerlab.testkit.Scrape;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/** /actuator/prometheus of the projector, open without credentials, against what the projector really did. */
class ProjectorMetricsTest extends ProjectorIntegrationTest {

    private static final String EVENTS = "ledger_projection_events_total";
    private static final String LAG = "ledger_projection_lag_records";
    private static final String LAG_SECONDS = "ledger_projection_lag_seconds";

    @Autowired
    private DataSource dataSource;

    @Test
    void countsEventsByOutcomeAndReportsNoLagOnceCaughtUp() {
        var before = Scrape.of(port());
        var account = openedAccount();
        publish(account, 2, new MoneyDeposited(500));
        var withdrawal = publish(account, 3, new MoneyWithdrawn(200));
        publish(withdrawal);
        await().atMost(Duration.ofSeconds(30)).until(() -> projected(account) != null && projected(account)[1] == 3);

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            var after = Scrape.of(port());
            assertThat(after.value(EVENTS, "outcome", "applied") - before.value(EVENTS, "outcome", "applied"))
                    .isEqualTo(3);
            assertThat(after.value(EVENTS, "outcome", "duplicate") - before.value(EVENTS, "outcome", "duplicate"))
                    .isEqualTo(1);
            assertThat(after.samples(LAG)).as("one lag gauge per partition").hasSize(PARTITIONS);
            assertThat(after.sum(LAG)).isZero();
            assertThat(after.value(LAG_SECONDS)).isZero();
        });
        var after = Scrape.of(port());
        assertThat(after.value("ledger_projection_batch_seconds_count", "target", "live"))
                .isGreaterThan(before.value("ledger_projection_batch_seconds_count", "target", "live"));
        assertThat(after.has("ledger_projection_batch_seconds", "target", "live", "quantile", "0.99")).isTrue();
        assertThat(after.value("ledger_projection_replay_running", "kind", "replay")).isZero();
        // Kafka's own consumer metrics, bound by Micrometer's Kafka binder rather than copied by hand.
        assertThat(after.has("kafka_consumer_fetch_manager_records_lag_max")).isTrue();
    }

    /**
     * A batch that cannot be applied (here a row lock the test holds on the account's balance, which the projector
     * waits for) shows as lag: one record behind, and the age of the record the projector holds rises.
     */
    @Test
    void reportsTheLagInRecordsAndSecondsWhileABatchCannotBeApplied() throws Exception {
        var account = openedAccount();
        await().atMost(Duration.ofSeconds(30)).until(() -> projected(account) != null);
        try (var blocker = dataSource.getConnection()) {
            blocker.setAutoCommit(false);
            try (var lock = blocker.prepareStatement(
                    "SELECT balance FROM projection.balances WHERE account_id = ? FOR UPDATE")) {
                lock.setObject(1, account);
                lock.executeQuery().close();
            }
            publish(account, 2, new MoneyDeposited(700));

            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                var scrape = Scrape.of(port());
                assertThat(scrape.sum(LAG)).isEqualTo(1);
                assertThat(scrape.value(LAG_SECONDS)).as("it ages while held").isGreaterThanOrEqualTo(1.0);
            });
            blocker.rollback();
        }
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            assertThat(projected(account)).containsExactly(700, 2);
            var scrape = Scrape.of(port());
            assertThat(scrape.sum(LAG)).isZero();
            assertThat(scrape.value(LAG_SECONDS)).isZero();
        });
    }
}
