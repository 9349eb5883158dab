package dev.ledgerlab.commandapi.account;

public record DepositMoney(long amount) implements AccountCommand {

    public DepositMoney {
        AccountCommand.requirePositive(amount);
    }
}
