-- One PostgreSQL role per service, each with only what that service needs (DESIGN.md, "Roles"): the ledger
-- migrations grant the command API the ledger tables, the relay what it publishes and its own state, the projector
-- a read of the events; the projection migrations hand the projector its schemas. Roles belong to the cluster, not
-- to a database, so this runs before every migrate, of either schema, in any database: whichever service migrates
-- first creates all three, and the grants that follow always find them.
--
-- Flyway runs as the admin user (spring.flyway.user); the service runs as its role (spring.datasource.username).
-- Each service then sets its own role's password to the one it was given (placeholders servicerole and
-- servicepassword, from its spring.datasource settings): the password lives in one place, the service's settings.
-- Whoever sets it also holds the admin password, so nothing here is a way in; a password containing $password$
-- would only break this script.
DO $roles$
DECLARE
    service text;
BEGIN
    -- Services of two databases of one cluster may run this at the same moment. Without the lock the second one's
    -- CREATE or ALTER ROLE can fail on the row the first is changing ("tuple concurrently updated"); with it, the
    -- second waits for the first to commit. pg_authid is the cluster's table, so the lock is cluster-wide (an
    -- advisory lock is per database); it does not conflict with the reads that authenticate connections.
    LOCK TABLE pg_catalog.pg_authid IN SHARE ROW EXCLUSIVE MODE;
    FOREACH service IN ARRAY ARRAY['ledger_command_api', 'ledger_relay', 'ledger_projector'] LOOP
        IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = service) THEN
            EXECUTE format('CREATE ROLE %I LOGIN', service);
        END IF;
    END LOOP;
    -- The relay streams the slot's changes and drops the slot when it must re-snapshot.
    IF NOT (SELECT rolreplication FROM pg_catalog.pg_roles WHERE rolname = 'ledger_relay') THEN
        ALTER ROLE ledger_relay REPLICATION;
    END IF;
    -- Only a service's own role, and only when it was given a password (an empty one would lock it out).
    IF '${servicerole}' IN ('ledger_command_api', 'ledger_relay', 'ledger_projector')
            AND $password$${servicepassword}$password$ <> '' THEN
        EXECUTE format('ALTER ROLE %I PASSWORD %L', '${servicerole}', $password$${servicepassword}$password$);
    END IF;
END
$roles$;
