-- The read side belongs to the projector's role (the roles: db/roles/beforeMigrate__service_roles.sql). Owner, not
-- just granted: a replay truncates these tables, and a rebuild creates shadow tables in projection_rebuild, drops
-- the live ones and moves the shadows in, which only an owner may. The command API and the relay have no access.
-- A later migration that creates a table here hands it over the same way (ALTER TABLE ... OWNER TO).
ALTER SCHEMA projection OWNER TO ledger_projector;
ALTER SCHEMA projection_rebuild OWNER TO ledger_projector;

DO $owner$
DECLARE
    t record;
BEGIN
    -- Every table of both schemas, including the shadows a stopped rebuild left behind; the identity sequence and
    -- the indexes follow their table. Flyway's own history table stays with the admin user that migrates.
    FOR t IN SELECT schemaname, tablename FROM pg_catalog.pg_tables
             WHERE schemaname IN ('projection', 'projection_rebuild') AND tablename <> 'flyway_schema_history' LOOP
        EXECUTE format('ALTER TABLE %I.%I OWNER TO ledger_projector', t.schemaname, t.tablename);
    END LOOP;
END
$owner$;
