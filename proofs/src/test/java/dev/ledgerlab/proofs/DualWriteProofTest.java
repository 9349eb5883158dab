package dev.ledgerlab.proofs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ledgerlab.events.EventCodec;
import dev.ledgerlab.events.EventEnvelope;
import dev.ledgerlab.proofs.simpler.SimplerCommandApi;
import dev.ledgerlab.proofs.support.Faults;
import dev.ledgerlab.proofs.support.Pipeline;
import dev.ledgerlab.proofs.support.ServiceProcess;
import dev.ledgerlab.testkit.CommandApiClient;
import dev.ledgerlab.testkit.TestInfrastructure;
import dev.ledgerlab.testkit.TopicReader;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Why not simpler, 1 and 2: a command handler that sends its events to Kafka itself, instead of writing them to the
 * outbox in its transaction. {@link SimplerCommandApi} is the real command API with only that part swapped; it
 * halts (a real process halt: no answer, no shutdown hook) between its two steps, and each test shows what the
 * write side, the topic and the projection hold afterwards. The relay and the lab's projector run throughout.
 * <ul>
 *   <li>Database commit, then send: the event is lost, and the account's projection stops at the gap for good.</li>
 *   <li>The outbox, halted at the same point: nothing is lost, the relay publishes the event from the WAL.</li>
 *   <li>Send, then database commit: the projection shows a deposit the write side never stored, and the account's
 *       next event collides with it.</li>
 * </ul>
 */
class DualWriteProofTest {

    private static final Pattern EVENT = Pattern.compile("event ([0-9a-f-]{36})");

    private static Pipeline pipeline;
    private static ServiceProcess api;

    @BeforeAll
    static void start() {
        pipeline = Pipeline.isolated(TestInfrastructure.get(), "proof_dual_write");
        api = pipeline.startAll().api();
    }

    @AfterAll
    static void stop() {
        pipeline.close();
    }

    @Test
    void losesTheEventForGoodWhenTheHandlerDiesBetweenItsDatabaseCommitAndItsOwnSendToKafka() throws Exception {
        var handler = handler("dual-write", 3);
        var account = CommandApiClient.at(handler.port()).openAccount("proof");
        var lost = depositsUntilTheHalt(handler, account);

        assertThat(writeSide(account)).as("the write side committed the third deposit").containsExactly(600L, 4L);
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(projected(account))
                .as("the projection of what reached the topic").containsExactly(300L, 3L));
        assertThat(topicVersions(account)).as("the topic never got version 4").containsExactly(1L, 2L, 3L);
        assertThat(inTopic(lost)).as("records of event %s", lost).isZero();

        // The account goes on; its projection cannot: version 5 arrives where 4 was expected, and 4 will never come.
        var next = handler("dual-write", 0);
        assertThat(CommandApiClient.at(next.port()).deposit(account, 400).status()).isEqualTo(200);
        var parked = awaitParked(account);
        assertThat(parked).as("parked at the gap").startsWith("4 | 5 | gap");
        assertThat(writeSide(account)).containsExactly(1000L, 5L);
        assertThat(projected(account)).as("the projection stays where the lost event left it").containsExactly(300L, 3L);
        System.out.printf("why-not-simpler 1 dual write: LOST event %s (MoneyDeposited 300, version 4): committed in"
                + " PostgreSQL, never in the topic; write side 1000 at version 5, projection 300 at version 3, account"
                + " parked (%s)%n", lost, parked);
    }

    @Test
    void losesNothingWhenTheSameHaltFallsRightAfterTheCommitOfAnOutboxWrite() throws Exception {
        var handler = handler("outbox", 3);
        var account = CommandApiClient.at(handler.port()).openAccount("proof");
        var halted = depositsUntilTheHalt(handler, account);

        // The lab's own command API takes over, as a restarted one would.
        assertThat(CommandApiClient.at(api.port()).deposit(account, 400).status()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(projected(account))
                .as("every committed deposit projected").containsExactly(1000L, 5L));
        assertThat(writeSide(account)).containsExactly(1000L, 5L);
        assertThat(topicVersions(account)).containsExactly(1L, 2L, 3L, 4L, 5L);
        assertThat(inTopic(halted)).as("records of event %s", halted).isEqualTo(1);
        assertThat(pipeline.queryLong("SELECT count(*) FROM projection.parked_accounts WHERE account_id = '"
                + account + "'")).isZero();
        System.out.printf("why-not-simpler 1 outbox: the same halt after the commit of event %s lost nothing: the"
                + " relay published it from the WAL; write side and projection both 1000 at version 5%n", halted);
    }

    @Test
    void projectsADepositTheWriteSideNeverStoredWhenTheHandlerSendsToKafkaBeforeItCommits() throws Exception {
        var handler = handler("kafka-first", 3);
        var account = CommandApiClient.at(handler.port()).openAccount("proof");
        var invented = depositsUntilTheHalt(handler, account);

        assertThat(writeSide(account)).as("the third deposit rolled back with the halt").containsExactly(300L, 3L);
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(projected(account))
                .as("the projection shows the deposit nobody stored").containsExactly(600L, 4L));
        assertThat(inTopic(invented)).isEqualTo(1);

        // The write side gives version 4 to the next deposit: a second, different version 4 reaches the projector.
        var next = handler("kafka-first", 0);
        assertThat(CommandApiClient.at(next.port()).deposit(account, 400).status()).isEqualTo(200);
        assertThat(writeSide(account)).containsExactly(700L, 4L);
        var parked = awaitParked(account);
        assertThat(parked).as("two different events claim version 4").contains("conflict",
                "applied as event " + invented);
        assertThat(projected(account)).containsExactly(600L, 4L);
        System.out.printf("why-not-simpler 2 send before commit: INVENTED event %s (MoneyDeposited 300, version 4):"
                + " in the topic and projected (600 at version 4), never stored (write side 300 at version 3, then"
                + " 700 at version 4 with another event); account parked (%s)%n", invented, parked);
    }

    /** A command handler publishing {@code how}, armed to halt at its {@code haltAt}-th deposit (0: never). */
    private static ServiceProcess handler(String how, int haltAt) {
        return pipeline.variant("handler-" + how, SimplerCommandApi.class, true, "--simpler.publish=" + how,
                "--simpler.halt-at-command=" + haltAt);
    }

    /** Deposits 100 and 200 (answered), then 300, which the handler halts on: returns the event its FAULT line names. */
    private static UUID depositsUntilTheHalt(ServiceProcess handler, UUID account) {
        assertThat(CommandApiClient.at(handler.port()).deposit(account, 100).status()).isEqualTo(200);
        assertThat(CommandApiClient.at(handler.port()).deposit(account, 200).status()).isEqualTo(200);
        assertThat(CommandApiClient.at(handler.port()).deposit(account, 300).status()).as("no answer: the handler halted").isZero();
        var fault = Faults.awaitHalt(handler, Duration.ofSeconds(30));
        var matcher = EVENT.matcher(fault);
        assertThat(matcher.find()).as("an event id in %s", fault).isTrue();
        assertThat(fault).contains("account " + account, "version 4");
        return UUID.fromString(matcher.group(1));
    }

    /** {balance, version} of the account in ledger.accounts. */
    private static long[] writeSide(UUID account) throws SQLException {
        return balanceAndVersion("ledger.accounts", account);
    }

    /** {balance, version} of the account in projection.balances; {0, 0} before it is projected. */
    private static long[] projected(UUID account) throws SQLException {
        return balanceAndVersion("projection.balances", account);
    }

    private static long[] balanceAndVersion(String table, UUID account) throws SQLException {
        try (var connection = pipeline.connect(); var statement = connection.createStatement();
                var rs = statement.executeQuery("SELECT balance, version FROM " + table + " WHERE account_id = '"
                        + account + "'")) {
            return rs.next() ? new long[] {rs.getLong(1), rs.getLong(2)} : new long[] {0, 0};
        }
    }

    private static List<Long> topicVersions(UUID account) {
        return events(account).stream().map(EventEnvelope::version).toList();
    }

    private static long inTopic(UUID eventId) {
        return TopicReader.readAll(pipeline.infrastructure().bootstrapServers(), pipeline.topic()).stream()
                .filter(record -> EventCodec.fromJson(record.value()).eventId().equals(eventId)).count();
    }

    private static List<EventEnvelope> events(UUID account) {
        return TopicReader.keyed(TopicReader.readAll(pipeline.infrastructure().bootstrapServers(), pipeline.topic()),
                account).stream().map(record -> EventCodec.fromJson(record.value())).toList();
    }

    /** Waits until the projector parks the account; returns "expected | received | reason". */
    private static String awaitParked(UUID account) {
        return await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
            try (var connection = pipeline.connect(); var statement = connection.createStatement();
                    var rs = statement.executeQuery("SELECT expected_version, received_version, reason"
                            + " FROM projection.parked_accounts WHERE account_id = '" + account + "'")) {
                return rs.next() ? rs.getLong(1) + " | " + rs.getLong(2) + " | " + rs.getString(3) : null;
            }
        }, parked -> parked != null);
    }
}
