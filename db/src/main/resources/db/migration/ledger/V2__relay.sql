-- The outbox relay's state lives in the database it reads, so the relay process keeps nothing on disk and a
-- replacement instance continues where the last one stopped.

-- Debezium's JDBC offset store (debezium-storage-jdbc) writes the connector's position here: the last WAL
-- position whose events Kafka acknowledged. The columns are the ones that store reads and writes. It replaces all
-- rows on every flush (DELETE, then INSERT), so one table serves exactly one relay deployment.
CREATE TABLE ledger.relay_offsets (
    id                 varchar(36) PRIMARY KEY,
    offset_key         text,
    offset_val         text,
    record_insert_ts   timestamp   NOT NULL,
    record_insert_seq  integer     NOT NULL
);

-- Debezium's heartbeat.action.query upserts one row per replication slot here. The table is in the relay's
-- publication, so each beat is WAL that the slot can confirm: without it, a slot whose tables are idle never moves
-- its confirmed position and PostgreSQL keeps all WAL written since (by any table) for it. Its change records are
-- consumed by the relay and never published.
CREATE TABLE ledger.relay_heartbeat (
    slot_name  text        PRIMARY KEY,
    beat_at    timestamptz NOT NULL
);
