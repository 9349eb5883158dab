package dev.ledgerlab.events;

import java.util.List;
import java.util.function.UnaryOperator;
import tools.jackson.databind.node.ObjectNode;

/**
 * The chain that turns any stored version of an event into the current one: one pure function per step, from a
 * version to the next, on the {@code event} object of the envelope. The log is kept forever and replayed from
 * offset zero, so a step is never removed once a version has been written.
 *
 * <p>The rename of {@code amount} to {@code amountMinor} in {@link MoneyDeposited} and {@link MoneyWithdrawn},
 * done in three deploys: version 2 writes both fields (readers of version 1 still find {@code amount}), readers
 * then move to {@code amountMinor}, and version 3 writes it alone.
 */
public final class Upcasters {

    /** Moves an event of {@code type} from schema version {@code from} to {@code from + 1}. */
    record Step(String type, int from, UnaryOperator<ObjectNode> upcast) {
    }

    static final List<Step> STEPS = List.of(
            new Step(MoneyDeposited.TYPE, 1, Upcasters::copyAmountToAmountMinor),
            new Step(MoneyDeposited.TYPE, 2, Upcasters::dropAmount),
            new Step(MoneyWithdrawn.TYPE, 1, Upcasters::copyAmountToAmountMinor),
            new Step(MoneyWithdrawn.TYPE, 2, Upcasters::dropAmount));

    private Upcasters() {
    }

    /**
     * The event object at the current version of its type, from the same event at {@code version}. Works on the
     * object it is given (the codec's own tree of the record), which it changes.
     *
     * @throws IllegalArgumentException when the event is not a valid instance of the version it claims
     */
    public static ObjectNode upcast(String type, int version, ObjectNode event) {
        var current = SchemaVersions.current(type);
        var result = event;
        for (int from = version; from < current; from++) {
            result = step(type, from).upcast().apply(result);
        }
        return result;
    }

    static Step step(String type, int from) {
        return STEPS.stream().filter(s -> s.type().equals(type) && s.from() == from).findFirst()
                .orElseThrow(() -> new IllegalStateException("no upcaster for " + type + " from version " + from));
    }

    /** 1 -> 2: version 2 carries the amount under both names. */
    private static ObjectNode copyAmountToAmountMinor(ObjectNode event) {
        var amount = event.get("amount");
        if (amount == null || event.has("amountMinor")) {
            throw new IllegalArgumentException("version 1 has amount and no amountMinor: " + event);
        }
        return event.set("amountMinor", amount);
    }

    /** 2 -> 3: version 3 has only {@code amountMinor}; in version 2 the two must agree, or the event is malformed. */
    private static ObjectNode dropAmount(ObjectNode event) {
        var amount = event.remove("amount");
        var amountMinor = event.get("amountMinor");
        if (amount == null || !amount.equals(amountMinor)) {
            throw new IllegalArgumentException("version 2 has amount and amountMinor, equal: " + amount + ", "
                    + amountMinor);
        }
        return event;
    }
}
