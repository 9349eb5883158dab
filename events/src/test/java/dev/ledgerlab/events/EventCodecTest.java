package dev.ledgerlab.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.json.JsonMapper;

class EventCodecTest {

    private static final JsonMapper TREES = JsonMapper.builder().build();

    static Stream<GoldenFixtures.Fixture> fixtures() {
        return GoldenFixtures.all().stream();
    }

    @ParameterizedTest
    @MethodSource("fixtures")
    void serialisesEachEventToItsGoldenFixture(GoldenFixtures.Fixture fixture) {
        var written = TREES.readTree(EventCodec.toJson(fixture.envelope()));

        assertThat(written).isEqualTo(TREES.readTree(fixture.json()));
    }

    @ParameterizedTest
    @MethodSource("fixtures")
    void deserialisesEachGoldenFixtureToItsEvent(GoldenFixtures.Fixture fixture) {
        assertThat(EventCodec.fromJson(fixture.json())).isEqualTo(fixture.envelope());
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
                + "\"version\":2,\"occurredAt\":\"2026-11-29T10:00:01Z\",\"event\":{\"type\":\"MoneyDeposited\",\"amount\":1},\"extra\":1}"
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
