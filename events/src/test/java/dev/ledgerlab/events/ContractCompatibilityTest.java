package dev.ledgerlab.events;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.json.JsonMapper;

/**
 * The compatibility check of the contract, part of {@code ./mvnw verify}: a change that would leave part of the
 * log unreadable fails the build before it ships. The log is replayed from offset zero, so the policy is
 * BACKWARD_TRANSITIVE: the current reader reads every version ever written.
 */
class ContractCompatibilityTest {

    private static final JsonMapper TREES = JsonMapper.builder().build();

    static Stream<String> types() {
        return SchemaVersions.types().stream().sorted();
    }

    static List<Schema> versions(String type) {
        var versions = new ArrayList<Schema>();
        for (int v = 1; v <= SchemaVersions.current(type); v++) {
            var schema = ContractCheck.load(type, v);
            assertThat(schema).as("schemas/%s/v%d.avsc", type, v).isNotNull();
            versions.add(schema);
        }
        return versions;
    }

    @ParameterizedTest
    @MethodSource("types")
    void readsEveryVersionEverWrittenWithTheCurrentSchema(String type) {
        assertThat(ContractCheck.backwardTransitive(type, versions(type))).isEmpty();
    }

    @ParameterizedTest
    @MethodSource("types")
    void keepsOneSchemaPerVersionAndAnUpcasterPerStepUpToTheVersionTheWriterWrites(String type) {
        int current = SchemaVersions.current(type);
        assertThat(ContractCheck.load(type, current + 1)).as("a schema newer than the writer").isNull();
        for (int from = 1; from < current; from++) {
            assertThat(Upcasters.step(type, from)).isNotNull();
        }
        assertThat(Upcasters.STEPS).filteredOn(step -> step.type().equals(type))
                .allSatisfy(step -> assertThat(step.from()).isBetween(1, current - 1));
    }

    @ParameterizedTest
    @MethodSource("fixtures")
    void writesEachGoldenFixtureInExactlyTheFieldsOfItsVersionsSchema(GoldenFixtures.Fixture fixture) {
        var schema = ContractCheck.load(fixture.envelope().event().type(), fixture.schemaVersion());

        var roundTrip = ContractCheck.resolve(fixture.json(), schema, schema);

        assertThat(TREES.readTree(roundTrip)).isEqualTo(TREES.readTree(fixture.json()));
    }

    @ParameterizedTest
    @MethodSource("fixtures")
    void upcastsEachVersionToAnEventOfTheCurrentSchema(GoldenFixtures.Fixture fixture) {
        var type = fixture.envelope().event().type();
        var current = ContractCheck.load(type, SchemaVersions.current(type));
        var upcast = EventCodec.toJson(EventCodec.fromJson(fixture.json()));

        assertThat(TREES.readTree(ContractCheck.resolve(upcast, current, current))).isEqualTo(TREES.readTree(upcast));
    }

    /**
     * Why a reader upcasts instead of trusting schema resolution: the current schema reads version 1 (the check
     * passes, thanks to the default), but resolution alone finds no amountMinor in it and takes the default, 0.
     * Only the upcaster knows that version 1 called it amount.
     */
    @Test
    void resolvesVersionOneToTheDefaultWhereOnlyTheUpcasterFindsTheAmount() {
        var v1 = GoldenFixtures.all().stream()
                .filter(f -> f.schemaVersion() == 1 && f.name().equals("money-deposited.json")).findFirst().orElseThrow();

        var resolved = TREES.readTree(ContractCheck.resolve(v1.json(), ContractCheck.load(MoneyDeposited.TYPE, 1),
                ContractCheck.load(MoneyDeposited.TYPE, 3)));

        assertThat(resolved.get("event").get("amountMinor").longValue()).isZero();
        assertThat(EventCodec.fromJson(v1.json()).event()).isEqualTo(new MoneyDeposited(12345));
    }

    @Test
    void refusesARenameDoneInOneStep() {
        var v1 = ContractCheck.load(MoneyDeposited.TYPE, 1);
        var renamed = ContractCheck.parse(v1.toString().replace("\"amount\"", "\"amountMinor\""));

        var problems = ContractCheck.backwardTransitive(MoneyDeposited.TYPE, List.of(v1, renamed));

        assertThat(problems).singleElement().asString()
                .contains("MoneyDeposited version 2 cannot read version 1")
                .contains("READER_FIELD_MISSING_DEFAULT_VALUE")
                .contains("amountMinor");
    }

    @Test
    void refusesATypeChangeAndANewFieldWithoutADefault() {
        var v3 = ContractCheck.load(MoneyDeposited.TYPE, 3);
        var asText = ContractCheck.parse(v3.toString().replace(
                "\"name\":\"amountMinor\",\"type\":\"long\"", "\"name\":\"amountMinor\",\"type\":\"string\"")
                .replace("\"default\":0", "\"default\":\"0\""));
        var required = ContractCheck.parse(v3.toString().replace("{\"name\":\"type\",\"type\":\"string\"}",
                "{\"name\":\"type\",\"type\":\"string\"},{\"name\":\"currency\",\"type\":\"string\"}"));
        var optional = ContractCheck.parse(v3.toString().replace("{\"name\":\"type\",\"type\":\"string\"}",
                "{\"name\":\"type\",\"type\":\"string\"},{\"name\":\"currency\",\"type\":\"string\",\"default\":\"EUR\"}"));
        var history = versions(MoneyDeposited.TYPE);

        assertThat(ContractCheck.backwardTransitive(MoneyDeposited.TYPE, append(history, asText)))
                .isNotEmpty().allSatisfy(p -> assertThat(p).contains("TYPE_MISMATCH"));
        assertThat(ContractCheck.backwardTransitive(MoneyDeposited.TYPE, append(history, required)))
                .hasSize(3).allSatisfy(p -> assertThat(p).contains("READER_FIELD_MISSING_DEFAULT_VALUE", "currency"));
        assertThat(ContractCheck.backwardTransitive(MoneyDeposited.TYPE, append(history, optional))).isEmpty();
    }

    static Stream<GoldenFixtures.Fixture> fixtures() {
        return GoldenFixtures.all().stream();
    }

    private static List<Schema> append(List<Schema> history, Schema next) {
        var all = new ArrayList<>(history);
        all.add(next);
        return all;
    }
}
