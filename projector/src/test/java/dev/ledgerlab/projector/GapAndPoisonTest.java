package dev.ledgerlab.projector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ledgerlab.events.MoneyDeposited;
import dev.ledgerlab.testkit.Scrape;
import dev.ledgerlab.testkit.TestInfrastructure;
import dev.ledgerlab.testkit.TopicReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/** Out-of-order and undecodable records injected straight into the topic. */
class GapAndPoisonTest extends ProjectorIntegrationTest {

    @Test
    void parksAnAccountAtAGapInsteadOfSkippingAnEventWhileOtherAccountsFlow() {
        var gapped = openedAccount();
        var other = openedAccount();
        var missing = publishLater(gapped, 2, 100);
        publish(gapped, 3, new MoneyDeposited(20));
        publish(gapped, 4, new MoneyDeposited(3));
        publish(other, 2, new MoneyDeposited(5));

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                assertThat(projected(other)).containsExactly(5, 2));
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            var parked = parkedEntry(gapped);
            assertThat(parked).isNotNull();
            assertThat(parked.get("expectedVersion").asLong()).isEqualTo(2);
            assertThat(parked.get("receivedVersion").asLong()).isEqualTo(3);
            assertThat(parked.get("heldVersions").toString()).isEqualTo("[3,4]");
        });
        assertThat(projected(gapped)).as("nothing after the gap is applied").containsExactly(0, 1);
        assertThat(get("/projection/status").json().get("parkedKeys").asLong()).isPositive();
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(Scrape.of(port())
                .value("ledger_projection_parked_accounts")).as("the gauge counts the parked table")
                .isEqualTo(jdbc.sql("SELECT count(*) FROM projection.parked_accounts").query(Double.class).single()));

        publish(missing);
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                assertThat(parkedEntry(gapped).get("heldVersions").toString()).isEqualTo("[2,3,4]"));
        var released = post("/projection/parked/" + gapped + "/release");

        assertThat(released.status()).isEqualTo(200);
        assertThat(released.json().get("applied").asInt()).isEqualTo(3);
        assertThat(projected(gapped)).containsExactly(123, 4);
        assertThat(parkedEntry(gapped)).isNull();
        publish(gapped, 5, new MoneyDeposited(1));
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                assertThat(projected(gapped)).containsExactly(124, 5));
    }

    @Test
    void parksAGapAccountEvenWhileOtherPartitionsKeepDeliveringRecords() throws Exception {
        var others = new ArrayList<UUID>();
        for (int i = 0; i < 9; i++) {
            others.add(openedAccount());
        }
        var gapped = openedAccount();
        var published = new java.util.concurrent.atomic.AtomicLong(1);
        var stop = new java.util.concurrent.atomic.AtomicBoolean();
        // Records of other partitions keep arriving in every poll, so each retry of the gap comes in a batch where
        // other records precede it: the gap's retry count must survive that, or the account is never parked.
        var traffic = java.util.concurrent.Executors.newSingleThreadExecutor();
        var flowing = traffic.submit(() -> {
            while (!stop.get()) {
                long version = published.get() + 1;
                publishAll(others.stream().map(other -> envelope(other, version, new MoneyDeposited(1))).toList());
                published.set(version);
            }
            return null;
        });
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> published.get() >= 5);
            publish(gapped, 3, new MoneyDeposited(20));

            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(parkedEntry(gapped)).isNotNull());
        } finally {
            stop.set(true);
            flowing.get(30, java.util.concurrent.TimeUnit.SECONDS);
            traffic.shutdown();
        }
        long last = published.get();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            for (var other : others) {
                assertThat(projected(other)).as("account %s", other).containsExactly(last - 1, last);
            }
        });
        assertThat(projected(gapped)).containsExactly(0, 1);
    }

    @Test
    void refusesToReleaseAnAccountWhoseMissingEventHasNotArrived() {
        var gapped = openedAccount();
        publish(gapped, 3, new MoneyDeposited(20));
        await().atMost(Duration.ofSeconds(30)).until(() -> parkedEntry(gapped) != null);

        var response = post("/projection/parked/" + gapped + "/release");

        assertThat(response.status()).isEqualTo(409);
        assertThat(response.json().get("type").asString()).isEqualTo("urn:ledgerlab:problem:event-still-missing");
        assertThat(response.json().get("expectedVersion").asLong()).isEqualTo(2);
        assertThat(parkedEntry(gapped)).isNotNull();
        assertThat(projected(gapped)).containsExactly(0, 1);
        assertThat(post("/projection/parked/" + UUID.randomUUID() + "/release").status()).isEqualTo(404);
    }

    @Test
    void deadLettersUndecodableRecordsOfEveryShapeWithTheirOriginAndKeepsEachPartitionFlowing() {
        var notJson = openedAccount();
        var notAnEvent = openedAccount();
        var keyedElsewhere = openedAccount();
        var tombstoned = openedAccount();
        var owner = openedAccount();
        var marker = UUID.randomUUID().toString();
        double deadLetteredBefore = Scrape.of(port()).value("ledger_projection_dead_letters_total");
        var poison = new java.util.LinkedHashMap<String, String>();
        poison.put("not JSON", "this is not JSON " + marker);
        poison.put("JSON that is no event", "{\"this is\": \"not an event\", \"marker\": \"" + marker + "\"}");
        // A valid event of another account under this key: its partition says nothing about that account's order.
        var foreign = dev.ledgerlab.events.EventCodec.toJson(envelope(owner, 2, new MoneyDeposited(7)));
        publishRaw(notJson.toString(), poison.get("not JSON"));
        publishRaw(notAnEvent.toString(), poison.get("JSON that is no event"));
        publishRaw(keyedElsewhere.toString(), foreign);
        publishRaw(tombstoned.toString(), null);
        publishRaw(null, "{\"keyless\": \"" + marker + "\"}");
        for (var account : List.of(notJson, notAnEvent, keyedElsewhere, tombstoned)) {
            publish(account, 2, new MoneyDeposited(99));
        }

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            for (var account : List.of(notJson, notAnEvent, keyedElsewhere, tombstoned)) {
                assertThat(projected(account)).as("the events after the poison of %s", account)
                        .containsExactly(99, 2);
            }
        });
        assertThat(projected(owner)).as("the foreign event is not applied to its account").containsExactly(0, 1);
        var deadLetters = readDeadLetters(5, r -> (r.value() != null && r.value().contains(marker))
                || r.value() != null && r.value().equals(foreign)
                || tombstoned.toString().equals(r.key()));
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(
                Scrape.of(port()).value("ledger_projection_dead_letters_total") - deadLetteredBefore)
                .as("ledger_projection_dead_letters_total").isEqualTo(5));
        assertThat(deadLetters).extracting(ConsumerRecord::value).containsExactlyInAnyOrder(poison.get("not JSON"),
                poison.get("JSON that is no event"), foreign, null, "{\"keyless\": \"" + marker + "\"}");
        for (var letter : deadLetters) {
            assertThat(TopicReader.header(letter, "kafka_dlt-original-topic")).isEqualTo(TOPIC);
            assertThat(letter.headers().lastHeader("kafka_dlt-original-partition")).isNotNull();
            assertThat(letter.headers().lastHeader("kafka_dlt-original-offset")).isNotNull();
            assertThat(TopicReader.header(letter, "kafka_dlt-exception-message")).contains("not a valid account event");
        }
        assertThat(deadLetters.stream().filter(r -> r.value() == null).findFirst().orElseThrow().key())
                .isEqualTo(tombstoned.toString());
        assertThat(TopicReader.header(deadLetters.stream().filter(r -> foreign.equals(r.value())).findFirst().orElseThrow(),
                "kafka_dlt-exception-message")).contains("is not the event's account");
    }

    @Test
    void parksAnAccountWhenASecondEventClaimsAVersionAlreadyAppliedInsteadOfCountingADuplicate() {
        var account = openedAccount();
        var applied = publish(account, 2, new MoneyDeposited(10));
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(projected(account)).containsExactly(10, 2));
        long duplicatesBefore = get("/projection/status").json().get("duplicates").asLong();

        var conflicting = publish(account, 2, new MoneyDeposited(5_000));
        publish(account, 3, new MoneyDeposited(1));

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            var parked = parkedEntry(account);
            assertThat(parked).isNotNull();
            assertThat(parked.get("reason").asString()).contains("conflict").contains(applied.eventId().toString())
                    .contains(conflicting.eventId().toString());
            assertThat(parked.get("heldVersions").toString()).isEqualTo("[2,3]");
        });
        assertThat(projected(account)).as("neither the conflicting event nor what follows it is applied")
                .containsExactly(10, 2);
        assertThat(get("/projection/status").json().get("duplicates").asLong()).as("not counted as a duplicate")
                .isEqualTo(duplicatesBefore);
        assertThat(post("/projection/parked/" + account + "/release").json().get("version").asLong())
                .as("an operator who releases it keeps the first event and applies the next").isEqualTo(3);
        assertThat(projected(account)).containsExactly(11, 3);
    }

    private dev.ledgerlab.events.EventEnvelope publishLater(UUID account, long version, long amount) {
        return new dev.ledgerlab.events.EventEnvelope(UUID.randomUUID(), account, version,
                java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.MICROS), new MoneyDeposited(amount));
    }

    private tools.jackson.databind.JsonNode parkedEntry(UUID account) {
        for (var entry : get("/projection/parked").json()) {
            if (entry.get("accountId").asString().equals(account.toString())) {
                return entry;
            }
        }
        return null;
    }

    /** The dead letters that match, once there are {@code expected} of them. */
    private static List<ConsumerRecord<String, String>> readDeadLetters(int expected,
            java.util.function.Predicate<ConsumerRecord<String, String>> wanted) {
        try (var reader = new TopicReader(TestInfrastructure.get().bootstrapServers(), "accounts.events.dlt")) {
            return reader.readUntil(seen -> seen.stream().filter(wanted).count() >= expected, Duration.ofSeconds(30))
                    .stream().filter(wanted).toList();
        }
    }
}
