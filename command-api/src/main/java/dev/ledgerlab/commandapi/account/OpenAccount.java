package dev.ledgerlab.commandapi.account;

import java.util.Objects;

public record OpenAccount(String owner) implements AccountCommand {

    public OpenAccount {
        Objects.requireNonNull(owner, "owner");
    }
}
