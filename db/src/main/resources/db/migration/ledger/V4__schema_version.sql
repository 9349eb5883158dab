-- Each event names the schema version of its type: the payload's schemaVersion, from version 2 on (absent: 1).
-- The column repeats it so that the relay can put it in a Kafka header, where tools read it without parsing the
-- value; the CHECK keeps the two from ever disagreeing. Every row written before this migration is version 1.
ALTER TABLE ledger.events
    ADD COLUMN schema_version integer NOT NULL DEFAULT 1
        CONSTRAINT events_schema_version_is_the_payloads
        CHECK (schema_version = coalesce((payload ->> 'schemaVersion')::integer, 1));
