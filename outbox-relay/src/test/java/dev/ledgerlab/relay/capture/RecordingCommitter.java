package dev.ledgerlab.relay.capture;

import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.connect.source.SourceRecord;

/** The engine's committer as the publisher sees it, recording what it was told is processed. */
final class RecordingCommitter implements DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> {

    final List<RecordChangeEvent<SourceRecord>> processed = new ArrayList<>();
    int batchesFinished;

    @Override
    public void markProcessed(RecordChangeEvent<SourceRecord> record) {
        processed.add(record);
    }

    @Override
    public void markBatchFinished() {
        batchesFinished++;
    }

    @Override
    public void markProcessed(RecordChangeEvent<SourceRecord> record, DebeziumEngine.Offsets offsets) {
        processed.add(record);
    }

    @Override
    public DebeziumEngine.Offsets buildOffsets() {
        throw new UnsupportedOperationException("the publisher keeps the engine's own offsets");
    }
}
