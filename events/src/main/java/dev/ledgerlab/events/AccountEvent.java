package dev.ledgerlab.events;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;

/**
 * Everything that can happen to an account. The JSON name of each record is its {@code type} on the wire and in
 * {@code ledger.events.type}; renaming one breaks every reader of the log, and the golden fixtures say so.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, include = JsonTypeInfo.As.PROPERTY, property = "type")
@JsonSubTypes({
    @JsonSubTypes.Type(value = AccountOpened.class, name = AccountOpened.TYPE),
    @JsonSubTypes.Type(value = MoneyDeposited.class, name = MoneyDeposited.TYPE),
    @JsonSubTypes.Type(value = MoneyWithdrawn.class, name = MoneyWithdrawn.TYPE),
    @JsonSubTypes.Type(value = MoneySent.class, name = MoneySent.TYPE),
    @JsonSubTypes.Type(value = MoneyReceived.class, name = MoneyReceived.TYPE)
})
public sealed interface AccountEvent permits AccountOpened, MoneyDeposited, MoneyWithdrawn, MoneySent, MoneyReceived {

    /** The stable name of this event type, as stored and published. */
    String type();

    /** The balance after this event, given the balance before it; overflow throws, it never wraps. */
    long applyTo(long balance);
}
