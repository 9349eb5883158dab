package dev.ledgerlab.projector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ledgerlab.events.EventCodec;
import dev.ledgerlab.events.EventReader;
import dev.ledgerlab.events.MoneyDeposited;
import dev.ledgerlab.testkit.PastSchemaVersions;
import dev.ledgerlab.testkit.TestInfrastructure;
import dev.ledgerlab.testkit.TopicReader;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Primary;
import org.springframework.test.context.TestPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * A projector deployed before schema version 3 existed meets a version-3 event: why readers deploy before writers.
 * Its reader knows versions up to {@link #NEWEST_KNOWN}; raising it stands for deploying a projector that knows
 * more. In a database, topic and groups of its own, so that no other test's projector (which knows every version)
 * takes the event.
 */
@TestPropertySource(properties = {
    ProjectorIntegrationTest.DATABASE_PROPERTY + "=" + UnknownSchemaVersionTest.DATABASE,
    "projector.topic=" + UnknownSchemaVersionTest.VERSIONS_TOPIC,
    "projector.dead-letter-topic=" + UnknownSchemaVersionTest.DEAD_LETTERS,
    "projector.group-id=versions-test",
    "projector.replay.rebuild-group-id=versions-test-rebuild"})
@Import(UnknownSchemaVersionTest.OldReader.class)
class UnknownSchemaVersionTest extends ProjectorIntegrationTest {

    static final String DATABASE = "projector_versions";
    static final String VERSIONS_TOPIC = "versions.accounts.events";
    static final String DEAD_LETTERS = VERSIONS_TOPIC + ".dlt";
    static final AtomicInteger NEWEST_KNOWN = new AtomicInteger(1);

    @TestConfiguration(proxyBeanMethods = false)
    static class OldReader {
        @Bean
        @Primary
        EventReader readerOfTheVersionsDeployed() {
            return json -> EventCodec.readerUpTo(NEWEST_KNOWN.get()).read(json);
        }
    }

    @BeforeAll
    static void isolateProjection() {
        isolate(DATABASE, VERSIONS_TOPIC);
    }

    @Test
    void parksAnAccountAtASchemaVersionItsProjectorDoesNotKnowAndAppliesItOnceAReaderThatKnowsItIsDeployed() {
        NEWEST_KNOWN.set(1);
        var alice = openedAccount();
        var bob = openedAccount();
        publishRaw(alice.toString(), PastSchemaVersions.json(envelope(alice, 2, new MoneyDeposited(100)), 1));
        var newer = publish(alice, 3, new MoneyDeposited(40));
        publishRaw(alice.toString(), PastSchemaVersions.json(envelope(alice, 4, new MoneyDeposited(10)), 1));
        publishRaw(bob.toString(), PastSchemaVersions.json(envelope(bob, 2, new MoneyDeposited(7)), 1));

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            var parked = parkedEntry(alice);
            assertThat(parked).isNotNull();
            assertThat(parked.get("reason").asString())
                    .contains("unknown schema version: MoneyDeposited version 3")
                    .contains("knows MoneyDeposited up to version 1");
            assertThat(parked.get("expectedVersion").asLong()).isEqualTo(3);
            assertThat(parked.get("heldVersions").toString()).isEqualTo("[3,4]");
            assertThat(projected(bob)).as("other accounts flow").containsExactly(7, 2);
        });
        assertThat(projected(alice)).as("the version-3 amount is neither read as 0 nor skipped").containsExactly(100, 2);
        assertThat(TopicReader.readAll(TestInfrastructure.get().bootstrapServers(), DEAD_LETTERS))
                .as("a valid event of a newer version is no dead letter").isEmpty();

        var refused = post("/projection/parked/" + alice + "/release");
        assertThat(refused.status()).isEqualTo(409);
        assertThat(refused.json().get("type").asString()).isEqualTo("urn:ledgerlab:problem:unknown-schema-version");
        assertThat(refused.json().get("detail").asString()).contains("version 3").contains(alice.toString());
        assertThat(projected(alice)).containsExactly(100, 2);
        assertThat(parkedEntry(alice)).isNotNull();

        NEWEST_KNOWN.set(EventCodec.schemaVersion(newer.event()));
        var released = post("/projection/parked/" + alice + "/release");

        assertThat(released.status()).isEqualTo(200);
        assertThat(released.json().get("applied").asInt()).isEqualTo(2);
        assertThat(projected(alice)).containsExactly(150, 4);
        assertThat(parkedEntry(alice)).isNull();
    }

    private JsonNode parkedEntry(UUID account) {
        for (var entry : get("/projection/parked").json()) {
            if (entry.get("accountId").asString().equals(account.toString())) {
                return entry;
            }
        }
        return null;
    }
}
