-- Write side. ledger.events is the event store and the transactional outbox at once: one row per event,
-- appended in the same transaction as the account state it produces. Columns id, aggregatetype, type and
-- payload are the ones Debezium's outbox EventRouter reads; account_id is its key (table.field.event.key).

CREATE TABLE ledger.accounts (
    account_id  uuid        PRIMARY KEY,
    owner       text        NOT NULL CHECK (length(owner) BETWEEN 1 AND 200),
    balance     bigint      NOT NULL CHECK (balance >= 0),
    version     bigint      NOT NULL CHECK (version >= 1),
    opened_at   timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL
);

CREATE TABLE ledger.events (
    id             uuid        PRIMARY KEY,
    -- Global append order, for reading the whole store in the order it was written.
    position       bigint      GENERATED ALWAYS AS IDENTITY UNIQUE,
    aggregatetype  text        NOT NULL DEFAULT 'account',
    account_id     uuid        NOT NULL REFERENCES ledger.accounts (account_id),
    version        bigint      NOT NULL CHECK (version >= 1),
    type           text        NOT NULL,
    payload        jsonb       NOT NULL,
    occurred_at    timestamptz NOT NULL,
    traceparent    text,
    tracestate     text,
    -- The invariant the whole pipeline leans on: one event per account and version, so two writers that
    -- decided on the same state cannot both append.
    CONSTRAINT events_account_version_unique UNIQUE (account_id, version)
);

-- Append-only: an event, once written, is history.
CREATE FUNCTION ledger.reject_event_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'ledger.events is append-only (% refused)', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$$;

CREATE TRIGGER events_append_only
    BEFORE UPDATE OR DELETE ON ledger.events
    FOR EACH ROW EXECUTE FUNCTION ledger.reject_event_change();

CREATE TRIGGER events_no_truncate
    BEFORE TRUNCATE ON ledger.events
    FOR EACH STATEMENT EXECUTE FUNCTION ledger.reject_event_change();

-- A retried command with the same Idempotency-Key replays the stored response instead of acting twice.
-- The row is inserted in the command's own transaction, so a key exists exactly when its command committed.
CREATE TABLE ledger.idempotency_keys (
    idempotency_key  text        PRIMARY KEY CHECK (length(idempotency_key) BETWEEN 1 AND 255),
    -- sha-256 of method, path and body: the same key with another request is refused, not replayed.
    request_hash     bytea       NOT NULL,
    response_status  int,
    response_body    text,
    response_headers jsonb,
    created_at       timestamptz NOT NULL DEFAULT now()
);
