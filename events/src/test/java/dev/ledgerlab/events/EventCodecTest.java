package dev.ledgerlab.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.json.JsonMapper;

class EventCodecTest {

    private static final JsonMapper TREES = JsonMapper.builder().build();

    static Stream<GoldenFixtures.Fixture> fixtures() {
        return GoldenFixtures.all().stream();
    }

    static Stream<GoldenFixtures.Fixture> currentFixtures() {
        return GoldenFixtures.current().stream();
    }

    @ParameterizedTest
    @MethodSource("currentFixtures")
    void serialisesEachEventToTheGoldenFixtureOfItsCurrentVersion(GoldenFixtures.Fixture fixture) {
        var written = TREES.readTree(EventCodec.toJson(fixture.envelope()));

        assertThat(written).isEqualTo(TREES.readTree(fixture.json()));
    }

    @ParameterizedTest
    @MethodSource("fixtures")
    void readsTheGoldenFixtureOfEveryVersionEverWrittenAsTheCurrentEvent(GoldenFixtures.Fixture fixture) {
        assertThat(EventCodec.fromJson(fixture.json())).isEqualTo(fixture.envelope());
    }

    @Test
    void keepsAFixtureForEveryVersionOfEveryTypeAndNamesTheVersionInEachFromVersionTwoOn() {
        assertThat(GoldenFixtures.all()).extracting(GoldenFixtures.Fixture::resource).containsExactlyInAnyOrder(
                "v1/account-opened.json", "v1/money-deposited.json", "v1/money-withdrawn.json", "v1/money-sent.json",
                "v1/money-received.json", "v2/money-deposited.json", "v2/money-withdrawn.json",
                "v3/money-deposited.json", "v3/money-withdrawn.json");
        for (var fixture : GoldenFixtures.all()) {
            var field = TREES.readTree(fixture.json()).get(EventCodec.SCHEMA_VERSION);
            if (fixture.schemaVersion() == 1) {
                assertThat(field).as(fixture.resource()).isNull();
            } else {
                assertThat(field.intValue()).as(fixture.resource()).isEqualTo(fixture.schemaVersion());
            }
        }
    }

    @Test
    void refusesAVersionNewerThanTheReaderKnowsAsUnknownNotAsMalformed() {
        var v3 = GoldenFixtures.all().stream()
                .filter(f -> f.schemaVersion() == 3 && f.name().equals("money-deposited.json")).findFirst().orElseThrow();

        assertThatThrownBy(() -> EventCodec.readerUpTo(1).read(v3.json()))
                .isInstanceOfSatisfying(EventCodec.UnknownSchemaVersionException.class, e -> {
                    assertThat(e.type()).isEqualTo("MoneyDeposited");
                    assertThat(e.schemaVersion()).isEqualTo(3);
                    assertThat(e.newestKnown()).isEqualTo(1);
                    assertThat(e.accountId()).isEqualTo(GoldenFixtures.ACCOUNT_ID);
                    assertThat(e.version()).isEqualTo(v3.envelope().version());
                    assertThat(e.eventId()).isEqualTo(v3.envelope().eventId());
                    assertThat(e).hasMessageContaining("MoneyDeposited version 3").hasMessageContaining("up to version 1");
                });
        var v4 = v3.json().replace("\"schemaVersion\": 3", "\"schemaVersion\": 4");
        assertThatThrownBy(() -> EventCodec.fromJson(v4)).isInstanceOf(EventCodec.UnknownSchemaVersionException.class);
        assertThat(EventCodec.readerUpTo(1).read(GoldenFixtures.all().get(1).json()))
                .isEqualTo(GoldenFixtures.all().get(1).envelope());
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "",
        "not json",
        "[]",
        "null",
        "{\"eventId\":\"0195f3a8-7c1e-7000-8000-000000000002\"}",
        "{\"eventId\":\"0195f3a8-7c1e-7000-8000-000000000002\",\"accountId\":\"5b0f6f2e-3d8a-4c39-9a57-2f1c0e4b7a10\","
                + "\"version\":2,\"occurredAt\":\"2026-11-29T10:00:01Z\",\"event\":{\"type\":\"MoneyStolen\",\"amount\":1}}",
        "{\"eventId\":\"0195f3a8-7c1e-7000-8000-000000000002\",\"accountId\":\"5b0f6f2e-3d8a-4c39-9a57-2f1c0e4b7a10\","
                + "\"version\":2,\"occurredAt\":\"2026-11-29T10:00:01Z\",\"event\":{\"type\":\"MoneyDeposited\",\"amount\":-5}}",
        "{\"eventId\":\"0195f3a8-7c1e-7000-8000-000000000002\",\"accountId\":\"5b0f6f2e-3d8a-4c39-9a57-2f1c0e4b7a10\","
                + "\"version\":2,\"occurredAt\":\"2026-11-29T10:00:01Z\",\"event\":{\"type\":\"MoneyDeposited\",\"amount\":1.5}}",
        "{\"eventId\":\"0195f3a8-7c1e-7000-8000-000000000002\",\"accountId\":\"5b0f6f2e-3d8a-4c39-9a57-2f1c0e4b7a10\","
                + "\"version\":0,\"occurredAt\":\"2026-11-29T10:00:01Z\",\"event\":{\"type\":\"MoneyDeposited\",\"amount\":1}}",
        "{\"eventId\":\"0195f3a8-7c1e-7000-8000-000000000002\",\"accountId\":\"5b0f6f2e-3d8a-4c39-9a57-2f1c0e4b7a10\","
                + "\"version\":2,\"occurredAt\":\"2026-11-29T10:00:01Z\",\"event\":{\"type\":\"MoneyDeposited\",\"amount\":1},\"extra\":1}",
        // Version 3 has no amount; a reader must not find one in it, nor read it as 0.
        "{\"eventId\":\"0195f3a8-7c1e-7000-8000-000000000002\",\"accountId\":\"5b0f6f2e-3d8a-4c39-9a57-2f1c0e4b7a10\","
                + "\"version\":2,\"schemaVersion\":3,\"occurredAt\":\"2026-11-29T10:00:01Z\",\"event\":{\"type\":\"MoneyDeposited\",\"amount\":1}}",
        // Version 1 has no amountMinor.
        "{\"eventId\":\"0195f3a8-7c1e-7000-8000-000000000002\",\"accountId\":\"5b0f6f2e-3d8a-4c39-9a57-2f1c0e4b7a10\","
                + "\"version\":2,\"occurredAt\":\"2026-11-29T10:00:01Z\",\"event\":{\"type\":\"MoneyDeposited\",\"amountMinor\":1}}",
        // Version 2 names the amount twice, and the two must agree.
        "{\"eventId\":\"0195f3a8-7c1e-7000-8000-000000000002\",\"accountId\":\"5b0f6f2e-3d8a-4c39-9a57-2f1c0e4b7a10\","
                + "\"version\":2,\"schemaVersion\":2,\"occurredAt\":\"2026-11-29T10:00:01Z\",\"event\":{\"type\":\"MoneyDeposited\",\"amount\":1,\"amountMinor\":2}}",
        "{\"eventId\":\"0195f3a8-7c1e-7000-8000-000000000002\",\"accountId\":\"5b0f6f2e-3d8a-4c39-9a57-2f1c0e4b7a10\","
                + "\"version\":2,\"schemaVersion\":0,\"occurredAt\":\"2026-11-29T10:00:01Z\",\"event\":{\"type\":\"MoneyDeposited\",\"amount\":1}}",
        "{\"eventId\":\"0195f3a8-7c1e-7000-8000-000000000002\",\"accountId\":\"5b0f6f2e-3d8a-4c39-9a57-2f1c0e4b7a10\","
                + "\"version\":2,\"schemaVersion\":\"3\",\"occurredAt\":\"2026-11-29T10:00:01Z\",\"event\":{\"type\":\"MoneyDeposited\",\"amountMinor\":1}}"
    })
    void refusesAnythingThatIsNotAnEventOfTheContract(String json) {
        assertThatThrownBy(() -> EventCodec.fromJson(json)).isInstanceOf(EventCodec.MalformedEventException.class);
    }

    @ParameterizedTest
    @MethodSource("fixtures")
    void keepsTheTypeColumnAndTheWireTypeTheSame(GoldenFixtures.Fixture fixture) {
        var wireType = TREES.readTree(fixture.json()).get("event").get("type").asString();

        assertThat(fixture.envelope().event().type()).isEqualTo(wireType);
    }
}
