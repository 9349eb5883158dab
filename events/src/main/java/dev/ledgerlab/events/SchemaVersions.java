package dev.ledgerlab.events;

import java.util.Map;
import java.util.Set;

/**
 * The schema version of each event type that the writer writes now. Every version below it stays readable through
 * {@link Upcasters}; the schemas of every version ever written are in {@code schemas/} beside the golden fixtures,
 * and {@code ContractCompatibilityTest} checks that the current one reads them all.
 *
 * <p>A version travels in the envelope as {@code schemaVersion}, from version 2 on: an envelope without one is
 * version 1, as is everything written before the contract had versions.
 */
public final class SchemaVersions {

    private static final Map<String, Integer> CURRENT = Map.of(
            AccountOpened.TYPE, 1,
            MoneyDeposited.TYPE, 3,
            MoneyWithdrawn.TYPE, 3,
            MoneySent.TYPE, 1,
            MoneyReceived.TYPE, 1);

    private SchemaVersions() {
    }

    /** @throws IllegalArgumentException when the type is not one of the contract */
    public static int current(String type) {
        var version = CURRENT.get(type);
        if (version == null) {
            throw new IllegalArgumentException("not an event type of the contract: " + type);
        }
        return version;
    }

    public static boolean isKnown(String type) {
        return CURRENT.containsKey(type);
    }

    public static Set<String> types() {
        return CURRENT.keySet();
    }
}
