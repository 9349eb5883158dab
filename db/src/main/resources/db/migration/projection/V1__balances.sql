-- Read side, owned by the projector. Everything here can be thrown away and rebuilt from the Kafka log.

CREATE TABLE projection.balances (
    account_id  uuid        PRIMARY KEY,
    balance     bigint      NOT NULL CHECK (balance >= 0),
    -- The version of the last event applied: the next one to apply is version + 1, anything lower is a duplicate.
    version     bigint      NOT NULL CHECK (version >= 1),
    updated_at  timestamptz NOT NULL
);

-- The consumed position per consumer group and partition, written in the same transaction as the balances it
-- produced: the database, not Kafka's committed offset, is the truth about what was applied.
CREATE TABLE projection.offsets (
    group_id     text        NOT NULL,
    topic        text        NOT NULL,
    partition    int         NOT NULL CHECK (partition >= 0),
    next_offset  bigint      NOT NULL CHECK (next_offset >= 0),
    applied      bigint      NOT NULL DEFAULT 0,
    duplicates   bigint      NOT NULL DEFAULT 0,
    updated_at   timestamptz NOT NULL,
    PRIMARY KEY (group_id, topic, partition)
);

-- An account whose next event did not follow its last applied version: it is held, never skipped. Its later
-- events wait in held_events until an operator releases it.
CREATE TABLE projection.parked_accounts (
    account_id        uuid        PRIMARY KEY,
    expected_version  bigint      NOT NULL,
    received_version  bigint      NOT NULL,
    reason            text        NOT NULL,
    topic             text        NOT NULL,
    partition         int         NOT NULL,
    record_offset     bigint      NOT NULL,
    parked_at         timestamptz NOT NULL
);

CREATE TABLE projection.held_events (
    account_id     uuid   NOT NULL REFERENCES projection.parked_accounts (account_id) ON DELETE CASCADE,
    version        bigint NOT NULL,
    payload        text   NOT NULL,
    partition      int    NOT NULL,
    record_offset  bigint NOT NULL,
    -- A redelivered held event collapses onto the one already held.
    PRIMARY KEY (account_id, version)
);
