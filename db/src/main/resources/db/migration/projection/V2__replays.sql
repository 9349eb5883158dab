-- Replaying the projection from offset zero: in place, or into a shadow schema that is swapped in when caught up.

-- The live projection's epoch, bumped by every reset of it (an in-place replay's clear, a rebuild's swap). Every
-- batch of the live projection reads it first, in share mode: a reset waits for the batches in flight, and a batch
-- after it finds the epoch moved, applies nothing and re-seeks its consumer to the offsets stored now. That is what
-- makes a reset safe with several projector instances in the group.
CREATE TABLE projection.epoch (
    singleton  boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    epoch      bigint  NOT NULL
);
INSERT INTO projection.epoch (singleton, epoch) VALUES (true, 0);

-- One row per replay ('replay': in place) or rebuild ('rebuild': shadow tables, then a swap), whichever instance
-- asked for it. Every instance reads its state from here.
CREATE TABLE projection.replays (
    id              bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind            text        NOT NULL CHECK (kind IN ('replay', 'rebuild')),
    state           text        NOT NULL CHECK (state IN ('running', 'completed', 'failed')),
    -- The consumer group whose stored offsets measure its progress (the live group for a replay).
    group_id        text        NOT NULL,
    topic           text        NOT NULL,
    requested_by    text        NOT NULL,
    started_at      timestamptz NOT NULL,
    finished_at     timestamptz,
    -- Frozen when the run ends, so that its figures do not move with the live consumption after it.
    events_applied  bigint,
    detail          text
);
-- One run at a time: a second request, from any instance, is refused while one runs.
CREATE UNIQUE INDEX replays_one_running ON projection.replays ((true)) WHERE state = 'running';

-- The log end offsets captured when the run started: it is complete once its group's stored offsets reach them.
CREATE TABLE projection.replay_targets (
    replay_id   bigint NOT NULL REFERENCES projection.replays (id) ON DELETE CASCADE,
    partition   int    NOT NULL CHECK (partition >= 0),
    end_offset  bigint NOT NULL CHECK (end_offset >= 0),
    PRIMARY KEY (replay_id, partition)
);

-- A rebuild creates balances, parked_accounts and held_events here as copies of the live tables' definitions, fills
-- them from offset zero, and the swap moves them into the projection schema. A schema of their own keeps their
-- index names (balances_pkey, ...) free of clashes, so they arrive with the names the live tables had.
CREATE SCHEMA IF NOT EXISTS projection_rebuild;
