package dev.ledgerlab.projector.apply;

/**
 * Where a batch is written: the live projection that serves reads, or the shadow tables a rebuild fills from offset
 * zero until they are swapped in. Both have the same tables; only the schema differs.
 */
public enum ProjectionTables {
    LIVE("projection"),
    REBUILD("projection_rebuild");

    private final String schema;

    ProjectionTables(String schema) {
        this.schema = schema;
    }

    public String schema() {
        return schema;
    }

    public String balances() {
        return schema + ".balances";
    }

    public String parkedAccounts() {
        return schema + ".parked_accounts";
    }

    public String heldEvents() {
        return schema + ".held_events";
    }
}
