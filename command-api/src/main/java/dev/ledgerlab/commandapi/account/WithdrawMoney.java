package dev.ledgerlab.commandapi.account;

public record WithdrawMoney(long amount) implements AccountCommand {

    public WithdrawMoney {
        AccountCommand.requirePositive(amount);
    }
}
