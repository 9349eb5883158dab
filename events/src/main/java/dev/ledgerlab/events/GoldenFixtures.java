package dev.ledgerlab.events;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The golden wire format: one fixture per event type and schema version ever written, under {@code golden/v<N>/}.
 * The fixtures of one type describe the same event, so each reads as the same envelope. Shipped in the jar so that
 * the writer's tests and every reader's tests check themselves against the same bytes.
 */
public final class GoldenFixtures {

    public static final UUID ACCOUNT_ID = UUID.fromString("5b0f6f2e-3d8a-4c39-9a57-2f1c0e4b7a10");
    /** The other side of the transfer fixtures. */
    public static final UUID OTHER_ACCOUNT_ID = UUID.fromString("9c3e1d52-7a64-4f0b-8e21-6d5a4b3c2f19");
    public static final UUID TRANSFER_ID = UUID.fromString("0195f3a8-7c1e-7000-8000-0000000000f1");

    /** {@code envelope}: the event as the current code holds it, whatever the version of the bytes. */
    public record Fixture(String name, int schemaVersion, EventEnvelope envelope) {

        public String resource() {
            return "v" + schemaVersion + "/" + name;
        }

        public String json() {
            try (var in = GoldenFixtures.class.getResourceAsStream("golden/" + resource())) {
                if (in == null) {
                    throw new IllegalStateException("missing golden fixture " + resource());
                }
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** Every fixture of every schema version ever written, oldest first. */
    public static List<Fixture> all() {
        var all = new ArrayList<Fixture>();
        for (var fixture : firstVersions()) {
            int current = SchemaVersions.current(fixture.envelope().event().type());
            for (int version = 1; version <= current; version++) {
                all.add(new Fixture(fixture.name(), version, fixture.envelope()));
            }
        }
        return all;
    }

    /** One fixture per event type, at the version the writer writes now. */
    public static List<Fixture> current() {
        return firstVersions().stream().map(f -> new Fixture(f.name(),
                SchemaVersions.current(f.envelope().event().type()), f.envelope())).toList();
    }

    private static List<Fixture> firstVersions() {
        return List.of(
                new Fixture("account-opened.json", 1, new EventEnvelope(
                        UUID.fromString("0195f3a8-7c1e-7000-8000-000000000001"), ACCOUNT_ID, 1,
                        Instant.parse("2026-11-29T10:00:00Z"), new AccountOpened("alice"))),
                new Fixture("money-deposited.json", 1, new EventEnvelope(
                        UUID.fromString("0195f3a8-7c1e-7000-8000-000000000002"), ACCOUNT_ID, 2,
                        Instant.parse("2026-11-29T10:00:01.250Z"), new MoneyDeposited(12345))),
                new Fixture("money-withdrawn.json", 1, new EventEnvelope(
                        UUID.fromString("0195f3a8-7c1e-7000-8000-000000000003"), ACCOUNT_ID, 3,
                        Instant.parse("2026-11-29T10:00:02Z"), new MoneyWithdrawn(2345))),
                new Fixture("money-sent.json", 1, new EventEnvelope(
                        UUID.fromString("0195f3a8-7c1e-7000-8000-000000000004"), ACCOUNT_ID, 4,
                        Instant.parse("2026-11-29T10:00:03Z"), new MoneySent(TRANSFER_ID, OTHER_ACCOUNT_ID, 500))),
                new Fixture("money-received.json", 1, new EventEnvelope(
                        UUID.fromString("0195f3a8-7c1e-7000-8000-000000000005"), OTHER_ACCOUNT_ID, 7,
                        Instant.parse("2026-11-29T10:00:03Z"), new MoneyReceived(TRANSFER_ID, ACCOUNT_ID, 500))));
    }

    private GoldenFixtures() {
    }
}
