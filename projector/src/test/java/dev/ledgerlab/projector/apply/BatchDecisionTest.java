package dev.ledgerlab.projector.apply;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ledgerlab.events.AccountEvent;
import dev.ledgerlab.events.AccountOpened;
import dev.ledgerlab.events.EventCodec;
import dev.ledgerlab.events.EventCodec.MalformedEventException;
import dev.ledgerlab.events.EventEnvelope;
import dev.ledgerlab.events.EventReader;
import dev.ledgerlab.events.MoneyDeposited;
import dev.ledgerlab.events.MoneyWithdrawn;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/** The batch rule without a database: given what is stored and what was read, what is applied, skipped or held. */
class BatchDecisionTest {

    private static final UUID ALICE = UUID.fromString("00000000-0000-0000-0000-00000000000a");
    private static final UUID BOB = UUID.fromString("00000000-0000-0000-0000-00000000000b");

    private final List<BatchDecision.Entry> batch = new ArrayList<>();

    @Test
    void appliesTheNextVersionsAndFoldsEachAccountsEventsIntoOneBalance() {
        read(0, 0, ALICE, 1, new AccountOpened("alice"));
        read(0, 1, ALICE, 2, new MoneyDeposited(100));
        read(1, 0, BOB, 1, new AccountOpened("bob"));
        read(0, 2, ALICE, 3, new MoneyWithdrawn(30));

        var decided = decide(Map.of(), Map.of(), Set.of());

        assertThat(decided.failure()).isNull();
        assertThat(decided.stop()).isEqualTo(4);
        assertThat(decided.applied()).isEqualTo(4);
        assertThat(decided.changed()).containsExactlyInAnyOrder(ALICE, BOB);
        assertThat(decided.state().get(ALICE)).extracting(Balance::balance, Balance::version).containsExactly(70L, 3L);
        assertThat(decided.state().get(ALICE).eventId()).isEqualTo(batch.get(3).envelope().eventId());
        assertThat(decided.progress().get(0).nextOffset).isEqualTo(3);
        assertThat(decided.progress().get(0).applied).isEqualTo(3);
        assertThat(decided.progress().get(1).nextOffset).isEqualTo(1);
    }

    @Test
    void skipsAVersionAtOrBelowTheCurrentOneAsADuplicateAndCountsIt() {
        var applied = read(0, 7, ALICE, 2, new MoneyDeposited(100));
        read(0, 8, ALICE, 2, applied.event(), applied.eventId());
        read(0, 9, ALICE, 1, new AccountOpened("alice"));

        var decided = decide(Map.of(), Map.of(ALICE, balance(ALICE, 0, 1)), Set.of());

        assertThat(decided.applied()).isEqualTo(1);
        assertThat(decided.duplicates()).isEqualTo(2);
        assertThat(decided.progress().get(0).duplicates).isEqualTo(2);
        assertThat(decided.progress().get(0).nextOffset).as("past the duplicates too").isEqualTo(10);
        assertThat(decided.state().get(ALICE).balance()).isEqualTo(100);
    }

    @Test
    void stopsAtAGapWithEverythingBeforeItDecided() {
        read(0, 0, BOB, 1, new AccountOpened("bob"));
        read(0, 1, ALICE, 3, new MoneyDeposited(5));
        read(0, 2, BOB, 2, new MoneyDeposited(5));

        var decided = decide(Map.of(), Map.of(ALICE, balance(ALICE, 10, 1)), Set.of());

        assertThat(decided.stop()).isEqualTo(1);
        assertThat(decided.failure().isGap()).isTrue();
        assertThat(decided.failure().expectedVersion()).isEqualTo(2);
        assertThat(decided.failure().receivedVersion()).isEqualTo(3);
        assertThat(decided.changed()).containsExactly(BOB);
        assertThat(decided.progress().get(0).nextOffset).as("stops before the gap").isEqualTo(1);
    }

    @Test
    void stopsAtASecondEventClaimingTheCurrentVersionWithAnotherId() {
        var current = new Balance(ALICE, 10, 2, UUID.randomUUID());
        read(0, 4, ALICE, 2, new MoneyDeposited(5));

        var decided = decide(Map.of(), Map.of(ALICE, current), Set.of());

        assertThat(decided.stop()).isZero();
        assertThat(decided.failure().isGap()).isFalse();
        assertThat(decided.failure().reason()).startsWith("conflict").contains(current.eventId().toString());
        assertThat(decided.duplicates()).isZero();
    }

    @Test
    void stopsAtAnEventThatCannotFollowAtAll() {
        read(0, 0, ALICE, 2, new MoneyWithdrawn(11));
        read(1, 0, BOB, 1, new MoneyDeposited(1));

        assertThat(decide(Map.of(), Map.of(ALICE, balance(ALICE, 10, 1)), Set.of()).failure().reason())
                .isEqualTo("balance would go below zero");
        batch.remove(0);
        assertThat(decide(Map.of(), Map.of(), Set.of()).failure().reason()).isEqualTo("first event is MoneyDeposited");
    }

    @Test
    void holdsTheEventsOfAParkedAccountAndMovesItsPartitionOn() {
        read(2, 40, ALICE, 5, new MoneyDeposited(1));
        read(2, 41, BOB, 2, new MoneyDeposited(1));

        var decided = decide(Map.of(), Map.of(BOB, balance(BOB, 0, 1)), Set.of(ALICE));

        assertThat(decided.held()).extracting(BatchDecision.Entry::offset).containsExactly(40L);
        assertThat(decided.applied()).isEqualTo(1);
        assertThat(decided.progress().get(2).nextOffset).isEqualTo(42);
    }

    @Test
    void passesOverRecordsBelowTheStoredOffsetUnlessTheVersionCheckIsToJudgeThem() {
        var redelivered = read(3, 10, ALICE, 2, new MoneyDeposited(1));
        read(3, 11, ALICE, 3, new MoneyDeposited(1));
        var stored = Map.of(3, 11L);
        var current = Map.of(ALICE, new Balance(ALICE, 1, 2, redelivered.eventId()));

        var positioned = BatchDecision.decide(batch, stored, current, Set.of(), true);
        var fromKafka = BatchDecision.decide(batch, stored, current, Set.of(), false);

        assertThat(positioned.belowStoredOffset()).isEqualTo(1);
        assertThat(positioned.duplicates()).isZero();
        assertThat(fromKafka.belowStoredOffset()).isZero();
        assertThat(fromKafka.duplicates()).isEqualTo(1);
        assertThat(positioned.applied()).isEqualTo(1);
        assertThat(fromKafka.applied()).isEqualTo(1);
    }

    @Test
    void decodesOnlyARecordThatCarriesAnEventOfTheContractUnderItsAccountsKey() {
        var event = EventCodec.toJson(envelope(ALICE, 1, new AccountOpened("alice"), UUID.randomUUID()));

        var reader = EventReader.current();
        assertThat(BatchDecision.Entry.decode(record(ALICE.toString(), event), reader).accountId()).isEqualTo(ALICE);
        assertThatThrownBy(() -> BatchDecision.Entry.decode(record(BOB.toString(), event), reader))
                .isInstanceOf(MalformedEventException.class).hasMessageContaining("is not the event's account");
        assertThatThrownBy(() -> BatchDecision.Entry.decode(record(ALICE.toString(), null), reader))
                .isInstanceOf(MalformedEventException.class).hasMessageContaining("no value");
        assertThatThrownBy(() -> BatchDecision.Entry.decode(record(ALICE.toString(), "{\"not\":\"an event\"}"), reader))
                .isInstanceOf(MalformedEventException.class);
    }

    @Test
    void stopsAtAnEventOfAnUnknownSchemaVersionInsteadOfReadingItsMissingAmountAsZero() {
        read(0, 0, ALICE, 1, new AccountOpened("alice"));
        read(0, 1, ALICE, 2, new MoneyDeposited(100));
        var newer = envelope(ALICE, 3, new MoneyDeposited(40), UUID.randomUUID());
        var oldReader = EventCodec.readerUpTo(1);
        var unreadable = BatchDecision.Entry.read(0, 2, EventCodec.toJson(newer), oldReader);
        batch.add(unreadable);
        batch.add(BatchDecision.Entry.read(0, 3, EventCodec.toJson(newer), oldReader));

        var decided = decide(Map.of(), Map.of(), Set.of());

        assertThat(unreadable.envelope()).isNull();
        assertThat(unreadable).extracting(BatchDecision.Entry::accountId, BatchDecision.Entry::version,
                BatchDecision.Entry::eventId).containsExactly(ALICE, 3L, newer.eventId());
        assertThat(decided.applied()).isEqualTo(2);
        assertThat(decided.stop()).isEqualTo(2);
        assertThat(decided.state().get(ALICE)).extracting(Balance::balance, Balance::version).containsExactly(100L, 2L);
        assertThat(decided.failure().isGap()).isFalse();
        assertThat(decided.failure().reason()).contains("unknown schema version: MoneyDeposited version 3")
                .contains("up to version 1");
        // Once past it (applied by a reader that knows it), a copy of an unknown version is a duplicate like any other.
        batch.subList(0, 3).clear();
        assertThat(decide(Map.of(), Map.of(ALICE, balance(ALICE, 140, 3)), Set.of()).duplicates()).isEqualTo(1);
    }

    private BatchDecision.Decided decide(Map<Integer, Long> stored, Map<UUID, Balance> current, Set<UUID> parked) {
        return BatchDecision.decide(batch, stored, current, parked, true);
    }

    private EventEnvelope read(int partition, long offset, UUID account, long version, AccountEvent event) {
        return read(partition, offset, account, version, event, UUID.randomUUID());
    }

    private EventEnvelope read(int partition, long offset, UUID account, long version, AccountEvent event,
            UUID eventId) {
        var envelope = envelope(account, version, event, eventId);
        batch.add(new BatchDecision.Entry(partition, offset, EventCodec.toJson(envelope), envelope));
        return envelope;
    }

    private static EventEnvelope envelope(UUID account, long version, AccountEvent event, UUID eventId) {
        return new EventEnvelope(eventId, account, version, Instant.parse("2026-12-01T10:00:00Z"), event);
    }

    private static Balance balance(UUID account, long balance, long version) {
        return new Balance(account, balance, version, null);
    }

    private static ConsumerRecord<String, String> record(String key, String value) {
        return new ConsumerRecord<>("accounts.events", 0, 0, key, value);
    }
}
