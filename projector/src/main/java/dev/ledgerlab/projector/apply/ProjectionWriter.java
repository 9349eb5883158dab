package dev.ledgerlab.projector.apply;

import dev.ledgerlab.events.AccountOpened;
import dev.ledgerlab.events.EventCodec;
import dev.ledgerlab.events.EventCodec.MalformedEventException;
import dev.ledgerlab.events.EventEnvelope;
import dev.ledgerlab.projector.ProjectorProperties;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

/**
 * Applies a polled batch in one transaction: the balances it changes and the consumed offsets per partition commit
 * together, so a crash at any point either keeps both or neither. Per account, version {@code current + 1} is
 * applied, anything at or below {@code current} is a duplicate and skipped, anything above is never skipped: the
 * batch stops there and the caller retries, then parks the account.
 */
@Component
public class ProjectionWriter {

    /**
     * What a batch did. {@code failedIndex} is the first record not handled (-1 when all were), and everything
     * before it is committed.
     */
    public record Outcome(int applied, int duplicates, int held, int redelivered, int failedIndex,
            RuntimeException failure) {
    }

    record Balance(UUID accountId, long balance, long version) {
    }

    private static final class PartitionProgress {
        long nextOffset;
        long applied;
        long duplicates;
    }

    private final JdbcTemplate jdbc;
    private final ProjectorProperties properties;
    private final ProjectionFaults faults;

    public ProjectionWriter(JdbcTemplate jdbc, ProjectorProperties properties, ProjectionFaults faults) {
        this.jdbc = jdbc;
        this.properties = properties;
        this.faults = faults;
    }

    @Transactional
    public Outcome apply(List<ConsumerRecord<String, String>> records) {
        int stop = records.size();
        RuntimeException failure = null;
        var envelopes = new ArrayList<EventEnvelope>(records.size());
        for (int i = 0; i < records.size(); i++) {
            try {
                envelopes.add(decode(records.get(i)));
            } catch (MalformedEventException e) {
                stop = i;
                failure = e;
                break;
            }
        }
        var partitions = new TreeSet<Integer>();
        var accounts = new TreeSet<UUID>();
        for (int i = 0; i < stop; i++) {
            partitions.add(records.get(i).partition());
            accounts.add(envelopes.get(i).accountId());
        }
        var stored = lockOffsets(partitions);
        var state = lockBalances(accounts);
        var versionsBefore = new HashMap<UUID, Long>();
        state.forEach((id, balance) -> versionsBefore.put(id, balance.version()));
        var parked = parkedAmong(accounts);
        var progress = new LinkedHashMap<Integer, PartitionProgress>();
        var changed = new HashSet<UUID>();
        int applied = 0;
        int duplicates = 0;
        int held = 0;
        int redelivered = 0;
        for (int i = 0; i < stop; i++) {
            var record = records.get(i);
            var envelope = envelopes.get(i);
            var storedOffset = stored.get(record.partition());
            if (storedOffset != null && record.offset() < storedOffset) {
                // Kafka's committed offset lagged the database's: this record is already in the projection.
                redelivered++;
                continue;
            }
            var partition = progress.computeIfAbsent(record.partition(), p -> new PartitionProgress());
            var id = envelope.accountId();
            if (parked.contains(id)) {
                hold(record, envelope);
                held++;
                partition.nextOffset = record.offset() + 1;
                continue;
            }
            var current = state.get(id);
            long currentVersion = current == null ? 0 : current.version();
            if (envelope.version() <= currentVersion) {
                duplicates++;
                partition.duplicates++;
                partition.nextOffset = record.offset() + 1;
                continue;
            }
            try {
                if (envelope.version() > currentVersion + 1) {
                    throw new Unapplicable(id, currentVersion + 1, envelope.version(), "gap");
                }
                state.put(id, evolve(current, envelope));
            } catch (Unapplicable e) {
                stop = i;
                failure = e;
                break;
            }
            changed.add(id);
            applied++;
            partition.applied++;
            partition.nextOffset = record.offset() + 1;
        }
        writeBalances(changed, state, versionsBefore);
        writeOffsets(progress);
        faults.beforeDbCommit(applied);
        return new Outcome(applied, duplicates, held, redelivered, failure == null ? -1 : stop, failure);
    }

    /** Parks the account of a record that stayed unapplicable through its retries, holding that record. */
    @Transactional
    public void park(ConsumerRecord<String, String> record, Unapplicable reason) {
        var stored = lockOffsets(Set.of(record.partition())).get(record.partition());
        if (stored != null && record.offset() < stored) {
            return;
        }
        jdbc.update("""
                INSERT INTO projection.parked_accounts (account_id, expected_version, received_version, reason, topic,
                                                        partition, record_offset, parked_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, now())
                ON CONFLICT (account_id) DO NOTHING""",
                reason.accountId(), reason.expectedVersion(), reason.receivedVersion(), reason.reason(),
                record.topic(), record.partition(), record.offset());
        hold(record, decode(record));
        advance(record);
    }

    /** Moves the stored offset past a record that went to the dead-letter topic, so it is not read again. */
    @Transactional
    public void skipDeadLettered(ConsumerRecord<String, String> record) {
        var stored = lockOffsets(Set.of(record.partition())).get(record.partition());
        if (stored == null || record.offset() >= stored) {
            advance(record);
        }
    }

    /** The stored next offset per partition of this group's topic. */
    public Map<Integer, Long> storedOffsets() {
        var offsets = new HashMap<Integer, Long>();
        jdbc.query("SELECT partition, next_offset FROM projection.offsets WHERE group_id = ? AND topic = ?",
                rs -> {
                    offsets.put(rs.getInt(1), rs.getLong(2));
                }, properties.groupId(), properties.topic());
        return offsets;
    }

    /**
     * The balance after {@code envelope}, or {@link Unapplicable} when the event cannot follow {@code current}:
     * the log is then not a history this projection can hold, and an operator must look.
     */
    static Balance evolve(Balance current, EventEnvelope envelope) {
        var id = envelope.accountId();
        var event = envelope.event();
        long expected = current == null ? 1 : current.version() + 1;
        if (current == null) {
            if (!(event instanceof AccountOpened)) {
                throw new Unapplicable(id, expected, envelope.version(), "first event is " + event.type());
            }
            return new Balance(id, 0, envelope.version());
        }
        if (event instanceof AccountOpened) {
            throw new Unapplicable(id, expected, envelope.version(), "account opened twice");
        }
        long balance;
        try {
            balance = event.applyTo(current.balance());
        } catch (ArithmeticException e) {
            throw new Unapplicable(id, expected, envelope.version(), "balance overflow");
        }
        if (balance < 0) {
            throw new Unapplicable(id, expected, envelope.version(), "balance would go below zero");
        }
        return new Balance(id, balance, envelope.version());
    }

    /** The record's event; the key must be its account, or the partition says nothing about its order. */
    static EventEnvelope decode(ConsumerRecord<String, String> record) {
        if (record.value() == null) {
            throw new MalformedEventException("record has no value", null);
        }
        var envelope = EventCodec.fromJson(record.value());
        if (!envelope.accountId().toString().equals(record.key())) {
            throw new MalformedEventException("key " + record.key() + " is not the event's account "
                    + envelope.accountId(), null);
        }
        return envelope;
    }

    private Map<Integer, Long> lockOffsets(Set<Integer> partitions) {
        var offsets = new HashMap<Integer, Long>();
        if (partitions.isEmpty()) {
            return offsets;
        }
        jdbc.query("""
                SELECT partition, next_offset FROM projection.offsets
                WHERE group_id = ? AND topic = ? AND partition = ANY (?)
                ORDER BY partition FOR UPDATE""",
                rs -> {
                    offsets.put(rs.getInt(1), rs.getLong(2));
                }, properties.groupId(), properties.topic(), partitions.toArray(Integer[]::new));
        return offsets;
    }

    /** Locks the accounts' rows in a fixed order, so two consumers briefly sharing a partition cannot interleave. */
    Map<UUID, Balance> lockBalances(Set<UUID> accounts) {
        var balances = new HashMap<UUID, Balance>();
        if (accounts.isEmpty()) {
            return balances;
        }
        jdbc.query("""
                SELECT account_id, balance, version FROM projection.balances
                WHERE account_id = ANY (?) ORDER BY account_id FOR UPDATE""",
                rs -> {
                    var id = rs.getObject(1, UUID.class);
                    balances.put(id, new Balance(id, rs.getLong(2), rs.getLong(3)));
                }, (Object) accounts.toArray(UUID[]::new));
        return balances;
    }

    private Set<UUID> parkedAmong(Set<UUID> accounts) {
        if (accounts.isEmpty()) {
            return Set.of();
        }
        return new HashSet<>(jdbc.queryForList(
                "SELECT account_id FROM projection.parked_accounts WHERE account_id = ANY (?)", UUID.class,
                (Object) accounts.toArray(UUID[]::new)));
    }

    private void hold(ConsumerRecord<String, String> record, EventEnvelope envelope) {
        jdbc.update("""
                INSERT INTO projection.held_events (account_id, version, payload, partition, record_offset)
                VALUES (?, ?, ?, ?, ?) ON CONFLICT (account_id, version) DO NOTHING""",
                envelope.accountId(), envelope.version(), record.value(), record.partition(), record.offset());
    }

    /**
     * The version guard: an update only lands on the version it was decided on, so a second writer (a consumer
     * that lost its partition but has not noticed yet) fails and rolls back instead of applying twice.
     */
    void writeBalances(Set<UUID> changed, Map<UUID, Balance> state, Map<UUID, Long> versionsBefore) {
        if (changed.isEmpty()) {
            return;
        }
        var rows = new ArrayList<Object[]>(changed.size());
        for (var id : changed) {
            var balance = state.get(id);
            rows.add(new Object[] {id, balance.balance(), balance.version(), versionsBefore.getOrDefault(id, 0L)});
        }
        int[] counts = jdbc.batchUpdate("""
                INSERT INTO projection.balances (account_id, balance, version, updated_at) VALUES (?, ?, ?, now())
                ON CONFLICT (account_id) DO UPDATE
                SET balance = EXCLUDED.balance, version = EXCLUDED.version, updated_at = EXCLUDED.updated_at
                WHERE projection.balances.version = ?""", rows);
        for (int i = 0; i < counts.length; i++) {
            if (counts[i] != 1) {
                throw new IllegalStateException("account " + rows.get(i)[0] + " moved past version "
                        + rows.get(i)[3] + " under this batch; another consumer wrote it");
            }
        }
    }

    private void writeOffsets(Map<Integer, PartitionProgress> progress) {
        progress.forEach((partition, p) -> upsertOffset(partition, p.nextOffset, p.applied, p.duplicates));
    }

    private void advance(ConsumerRecord<String, String> record) {
        upsertOffset(record.partition(), record.offset() + 1, 0, 0);
    }

    private void upsertOffset(int partition, long nextOffset, long applied, long duplicates) {
        jdbc.update("""
                INSERT INTO projection.offsets (group_id, topic, partition, next_offset, applied, duplicates, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, now())
                ON CONFLICT (group_id, topic, partition) DO UPDATE
                SET next_offset = EXCLUDED.next_offset,
                    applied = projection.offsets.applied + EXCLUDED.applied,
                    duplicates = projection.offsets.duplicates + EXCLUDED.duplicates,
                    updated_at = EXCLUDED.updated_at
                WHERE projection.offsets.next_offset <= EXCLUDED.next_offset""",
                properties.groupId(), properties.topic(), partition, nextOffset, applied, duplicates);
    }
}
