-- What each service's role may do on the write side (the roles: db/roles/beforeMigrate__service_roles.sql). Nothing
-- is granted by default: a later migration that adds a table grants it here-like, to the services that use it.

GRANT USAGE ON SCHEMA ledger TO ledger_command_api, ledger_relay, ledger_projector;

-- The command API appends events and keeps accounts and idempotency keys. No UPDATE or DELETE on events (the V1
-- triggers refuse them anyway), and nothing of the projection.
GRANT SELECT, INSERT, UPDATE ON ledger.accounts TO ledger_command_api;
GRANT SELECT, INSERT ON ledger.events TO ledger_command_api;
GRANT SELECT, INSERT, UPDATE ON ledger.idempotency_keys TO ledger_command_api;

-- The relay reads what it publishes (the snapshot, the outbox head) and writes only its own state: Debezium's
-- offsets and the heartbeat rows. Its role has the REPLICATION attribute; the publication is created for it by the
-- relay's own migrate step (db/relay), since adding a table to a publication takes the table's owner.
GRANT SELECT ON ledger.events TO ledger_relay;
GRANT SELECT, INSERT, UPDATE, DELETE ON ledger.relay_offsets, ledger.relay_heartbeat TO ledger_relay;

-- The projector only reads the events: the invariant check compares them with the projection.
GRANT SELECT ON ledger.events TO ledger_projector;
