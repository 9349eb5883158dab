-- A transfer is two events, MoneySent on the source and MoneyReceived on the target, written in one transaction
-- and sharing a transferId. GET /transfers/{id} finds them by it; no other table holds a transfer.
CREATE INDEX events_transfer_id ON ledger.events ((payload -> 'event' ->> 'transferId'))
    WHERE type IN ('MoneySent', 'MoneyReceived');
