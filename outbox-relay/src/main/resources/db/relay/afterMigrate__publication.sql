-- The relay's publication (relay.publication-name, placeholder publication): the outbox table and the heartbeat
-- table, nothing else. Made here, by the admin user that migrates, because creating or altering a publication of a
-- table takes the table's owner and the relay's own role owns nothing. Debezium (publication.autocreate.mode
-- filtered, ConnectorSettings) then finds it up to date and leaves it alone. Runs after every migrate of the relay,
-- so a publication that lost or gained a table is set back to these two before the engine starts.
DO $publication$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_publication WHERE pubname = '${publication}') THEN
        EXECUTE format('CREATE PUBLICATION %I FOR TABLE ledger.events, ledger.relay_heartbeat', '${publication}');
    ELSIF (SELECT array_agg(schemaname || '.' || tablename ORDER BY schemaname, tablename)
           FROM pg_catalog.pg_publication_tables WHERE pubname = '${publication}')
          IS DISTINCT FROM ARRAY['ledger.events', 'ledger.relay_heartbeat']::text[] THEN
        EXECUTE format('ALTER PUBLICATION %I SET TABLE ledger.events, ledger.relay_heartbeat', '${publication}');
    END IF;
END
$publication$;
