package dev.ledgerlab.commandapi.account;

import java.util.Objects;
import java.util.UUID;

/** Move money from one account to another: two accounts, so not an {@link AccountCommand} of either. */
public record TransferMoney(UUID from, UUID to, long amount) {

    public TransferMoney {
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(to, "to");
        AccountCommand.requirePositive(amount);
    }
}
