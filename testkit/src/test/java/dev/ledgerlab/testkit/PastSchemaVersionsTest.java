package dev.ledgerlab.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledgerlab.events.EventCodec;
import dev.ledgerlab.events.GoldenFixtures;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.json.JsonMapper;

class PastSchemaVersionsTest {

    private static final JsonMapper TREES = JsonMapper.builder().build();

    static Stream<GoldenFixtures.Fixture> fixtures() {
        return GoldenFixtures.all().stream();
    }

    @ParameterizedTest
    @MethodSource("fixtures")
    void writesEachPastVersionExactlyAsItsGoldenFixture(GoldenFixtures.Fixture fixture) {
        var written = PastSchemaVersions.json(fixture.envelope(), fixture.schemaVersion());

        assertThat(TREES.readTree(written)).isEqualTo(TREES.readTree(fixture.json()));
        assertThat(EventCodec.fromJson(written)).isEqualTo(fixture.envelope());
    }
}
