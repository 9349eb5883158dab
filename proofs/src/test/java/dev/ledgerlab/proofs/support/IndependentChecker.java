package dev.ledgerlab.proofs.support;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledgerlab.testkit.TopicReader;
import java.math.BigDecimal;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The last word of every proof, and shares no code with the pipeline it judges: its arithmetic is SQL over the
 * stored JSON payloads (not {@code AccountEvent.applyTo}, which the write side, the projector and the projector's own
 * invariant checker all use, so that a wrong rule there would pass all three), and it reads the topic with a plain
 * Kafka consumer and its own JSON parse. Once the pipeline is quiet it asserts that
 * <ul>
 *   <li>every account's events are versions 1..n, opened first, with positive amounts, each payload naming its own
 *       row; the fold of the amounts never dips below zero, and {@code ledger.accounts} holds that fold;</li>
 *   <li>{@code projection.balances} holds the same fold and version for exactly the same accounts, none parked;</li>
 *   <li>every stored event is in the topic under its account's key, with the payload as stored, each key's records
 *       in one partition and in version order (a re-published copy repeats an earlier record, nothing else);</li>
 *   <li>the live group counted one application per stored event, and as duplicates exactly the copies the topic
 *       holds plus what the test made it read twice; its stored offsets reached the end of every partition;</li>
 *   <li>the dead-letter topic holds what the test injected as poison, and nothing else.</li>
 * </ul>
 */
public final class IndependentChecker {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** What the check counted; every figure is the pipeline's alone. */
    public record Verdict(long accounts, long events, long topicRecords, long topicDuplicates, long applied,
            long duplicatesSkipped, long deadLetters) {
        @Override
        public String toString() {
            return events + " events over " + accounts + " accounts; topic " + topicRecords + " records ("
                    + topicDuplicates + " re-published copies); applied " + applied + ", duplicates skipped "
                    + duplicatesSkipped + ", dead letters " + deadLetters;
        }
    }

    private IndependentChecker() {
    }

    public static Verdict assertConsistent(Pipeline pipeline) throws SQLException {
        return assertConsistent(pipeline, Set.of(), 0);
    }

    /**
     * @param injectedPoison the values of records the test itself wrote into the topic: the dead-letter topic must
     *     hold these and nothing else
     * @param deliberateRereads records the test made the live group read a second time (a rewind, positions from
     *     Kafka after a crash): duplicates on top of the copies in the topic
     */
    public static Verdict assertConsistent(Pipeline pipeline, Set<String> injectedPoison, long deliberateRereads)
            throws SQLException {
        var violations = new ArrayList<String>();
        var folds = foldInSql(pipeline, violations);
        compareWithFold(pipeline, "ledger.accounts", folds, violations);
        compareWithFold(pipeline, "projection.balances", folds, violations);
        long parked = pipeline.queryLong("SELECT count(*) FROM projection.parked_accounts");
        require(violations, parked == 0, parked + " accounts parked");
        var topic = checkTopic(pipeline, violations);
        long applied = pipeline.applied();
        long duplicates = pipeline.duplicatesSkipped();
        long events = folds.values().stream().mapToLong(Fold::events).sum();
        if (applied != events) {
            violations.add("the live group counted " + applied + " applications for " + events + " stored events");
        }
        if (duplicates != topic.duplicates() + deliberateRereads) {
            violations.add("the live group skipped " + duplicates + " duplicates; the topic holds " + topic.duplicates()
                    + " re-published copies and the test re-read " + deliberateRereads);
        }
        checkOffsetsReachTheEnd(pipeline, violations);
        long deadLetters = checkDeadLetters(pipeline, injectedPoison, violations);
        assertThat(violations).as("independent check of pipeline %s", pipeline.name()).isEmpty();
        return new Verdict(folds.size(), events, topic.records(), topic.duplicates(), applied, duplicates, deadLetters);
    }

    private record Fold(BigDecimal balance, long events, long lastVersion) {
    }

    /** Per account, from the payloads alone: the SQL is the arithmetic, with numeric, so nothing can wrap. */
    private static Map<UUID, Fold> foldInSql(Pipeline pipeline, List<String> violations) throws SQLException {
        var folds = new TreeMap<UUID, Fold>();
        try (var connection = pipeline.connect(); var statement = connection.createStatement();
                var rs = statement.executeQuery("""
                WITH e AS (
                    SELECT account_id, version, id, payload->'event'->>'type' AS type,
                           -- schema version 3 names the amount amountMinor; 1 names it amount; 2 both, equal.
                           coalesce(payload->'event'->>'amountMinor', payload->'event'->>'amount')::numeric AS amount,
                           (payload->>'accountId')::uuid AS payload_account,
                           (payload->>'version')::bigint AS payload_version,
                           (payload->>'eventId')::uuid AS payload_id
                    FROM ledger.events),
                d AS (
                    SELECT *, CASE type WHEN 'AccountOpened' THEN 0
                                        WHEN 'MoneyDeposited' THEN amount
                                        WHEN 'MoneyReceived' THEN amount
                                        WHEN 'MoneyWithdrawn' THEN -amount
                                        WHEN 'MoneySent' THEN -amount END AS delta
                    FROM e),
                r AS (
                    SELECT *, sum(delta) OVER (PARTITION BY account_id ORDER BY version) AS running,
                           row_number() OVER (PARTITION BY account_id ORDER BY version) AS position
                    FROM d)
                SELECT account_id, count(*), max(version), sum(delta), min(running),
                       bool_and(version = position),
                       bool_and(delta IS NOT NULL),
                       bool_and(type = 'AccountOpened' OR amount > 0),
                       bool_and((position = 1) = (type = 'AccountOpened')),
                       bool_and(payload_account = account_id AND payload_version = version AND payload_id = id)
                FROM r GROUP BY account_id""")) {
            while (rs.next()) {
                var account = rs.getObject(1, UUID.class);
                var fold = new Fold(rs.getBigDecimal(4), rs.getLong(2), rs.getLong(3));
                folds.put(account, fold);
                require(violations, rs.getBoolean(6), account + ": versions are not 1.." + fold.events());
                require(violations, rs.getBoolean(7), account + ": an event of an unknown type");
                require(violations, rs.getBoolean(8), account + ": an amount that is not positive");
                require(violations, rs.getBoolean(9), account + ": AccountOpened is not exactly its first event");
                require(violations, rs.getBoolean(10), account + ": a payload names another row than its own");
                require(violations, rs.getBigDecimal(5).signum() >= 0,
                        account + ": the balance dips to " + rs.getBigDecimal(5));
            }
        }
        return folds;
    }

    /** {@code table}'s (account_id, balance, version) rows against the fold, for exactly the same accounts. */
    private static void compareWithFold(Pipeline pipeline, String table, Map<UUID, Fold> folds,
            List<String> violations) throws SQLException {
        var seen = new HashSet<UUID>();
        try (var connection = pipeline.connect(); var statement = connection.createStatement();
                var rs = statement.executeQuery("SELECT account_id, balance, version FROM " + table)) {
            while (rs.next()) {
                var account = rs.getObject(1, UUID.class);
                seen.add(account);
                var fold = folds.get(account);
                if (fold == null) {
                    violations.add(account + ": in " + table + " without any stored event");
                } else if (fold.balance().compareTo(BigDecimal.valueOf(rs.getLong(2))) != 0
                        || fold.lastVersion() != rs.getLong(3)) {
                    violations.add(account + ": " + table + " holds " + rs.getLong(2) + " at version " + rs.getLong(3)
                            + ", its events fold to " + fold.balance() + " at version " + fold.lastVersion());
                }
            }
        }
        folds.keySet().stream().filter(a -> !seen.contains(a))
                .forEach(a -> violations.add(a + ": has events but no row in " + table));
    }

    private record TopicCount(long records, long duplicates) {
    }

    private record Stored(UUID account, long version, JsonNode payload) {
    }

    /** Every stored event in the topic, as stored, under its key, in order; copies only of earlier records. */
    private static TopicCount checkTopic(Pipeline pipeline, List<String> violations) throws SQLException {
        var stored = new HashMap<UUID, Stored>();
        try (var connection = pipeline.connect(); var statement = connection.createStatement();
                var rs = statement.executeQuery("SELECT id, account_id, version, payload::text FROM ledger.events")) {
            while (rs.next()) {
                stored.put(rs.getObject(1, UUID.class), new Stored(rs.getObject(2, UUID.class), rs.getLong(3),
                        JSON.readTree(rs.getString(4))));
            }
        }
        var records = TopicReader.readAll(pipeline.infrastructure().bootstrapServers(), pipeline.topic());
        var partitionOfKey = new HashMap<String, Integer>();
        var lastNewVersion = new HashMap<String, Long>();
        var seen = new HashSet<UUID>();
        long duplicates = 0;
        int reported = violations.size();
        for (var record : records) {
            if (violations.size() - reported > 20) {
                break;
            }
            var where = "partition " + record.partition() + " offset " + record.offset();
            if (record.value() == null) {
                violations.add(where + ": a record without a value");
                continue;
            }
            JsonNode value;
            try {
                value = JSON.readTree(record.value());
            } catch (RuntimeException e) {
                violations.add(where + ": not JSON: " + record.value());
                continue;
            }
            UUID id;
            try {
                id = UUID.fromString(value.path("eventId").asString());
            } catch (IllegalArgumentException e) {
                violations.add(where + ": no event id: " + record.value());
                continue;
            }
            var event = stored.get(id);
            if (event == null) {
                violations.add(where + ": event " + id + " is not in ledger.events");
                continue;
            }
            if (!event.account().toString().equals(record.key())) {
                violations.add(where + ": event of " + event.account() + " under key " + record.key());
                continue;
            }
            if (!event.payload().equals(value)) {
                violations.add(where + ": payload differs from the stored one: " + record.value());
            }
            var partition = partitionOfKey.putIfAbsent(record.key(), record.partition());
            if (partition != null && partition != record.partition()) {
                violations.add(where + ": key " + record.key() + " also in partition " + partition);
            }
            if (!seen.add(id)) {
                duplicates++;
                continue;
            }
            long expected = lastNewVersion.getOrDefault(record.key(), 0L) + 1;
            if (event.version() != expected) {
                violations.add(where + ": " + record.key() + " version " + event.version() + " where " + expected
                        + " comes next");
            }
            lastNewVersion.put(record.key(), event.version());
        }
        stored.keySet().stream().filter(id -> !seen.contains(id)).limit(20)
                .forEach(id -> violations.add("event " + id + " of " + stored.get(id).account() + " version "
                        + stored.get(id).version() + " never reached the topic"));
        return new TopicCount(records.size(), duplicates);
    }

    /** Quiet means consumed to the end: the stored offset of every partition is its end offset. */
    private static void checkOffsetsReachTheEnd(Pipeline pipeline, List<String> violations) throws SQLException {
        var ends = TopicReader.endOffsets(pipeline.infrastructure().bootstrapServers(), pipeline.topic());
        var stored = new HashMap<Integer, Long>();
        try (var connection = pipeline.connect(); var statement = connection.createStatement();
                var rs = statement.executeQuery("SELECT partition, next_offset FROM projection.offsets WHERE group_id = '"
                        + pipeline.group() + "'")) {
            while (rs.next()) {
                stored.put(rs.getInt(1), rs.getLong(2));
            }
        }
        ends.forEach((partition, end) -> {
            long next = stored.getOrDefault(partition, 0L);
            require(violations, next == end, "partition " + partition + ": stored offset " + next + ", end " + end);
        });
    }

    private static long checkDeadLetters(Pipeline pipeline, Set<String> poison, List<String> violations) {
        // A copy that admits null: a tombstone is poison too.
        var injected = new HashSet<>(poison);
        var letters = TopicReader.readAll(pipeline.infrastructure().bootstrapServers(), pipeline.deadLetterTopic());
        var values = new HashSet<String>();
        for (var letter : letters) {
            values.add(letter.value());
            if (!injected.contains(letter.value())) {
                violations.add("dead-lettered but not injected as poison: key " + letter.key() + ", value "
                        + letter.value());
            }
        }
        injected.stream().filter(expected -> !values.contains(expected))
                .forEach(expected -> violations.add("injected poison not dead-lettered: " + expected));
        return letters.size();
    }

    private static void require(List<String> violations, boolean condition, String violation) {
        if (!condition) {
            violations.add(violation);
        }
    }
}
