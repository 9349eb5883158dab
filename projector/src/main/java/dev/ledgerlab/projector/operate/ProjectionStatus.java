package dev.ledgerlab.projector.operate;

import dev.ledgerlab.projector.ProjectorProperties;
import dev.ledgerlab.projector.apply.ParkedAccounts;
import dev.ledgerlab.projector.apply.LiveGroupCounts;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/** Where the projection stands against the log: stored offset, log end offset and lag per partition. */
@Component
public class ProjectionStatus {

    public record Partition(int partition, long storedOffset, long logEndOffset, long lag, long applied,
            long duplicates) {
    }

    /**
     * @param applied events applied, from projection.offsets (survives restarts)
     * @param duplicates duplicates skipped, likewise
     * @param redeliveredSinceStart records this process re-read below the stored offset (0 while seeks work)
     * @param assignedHere the partitions this process's consumers hold now
     * @param receivedSinceStart records this process received since it started
     */
    public record Status(String groupId, String topic, List<Partition> partitions, long lag, long applied,
            long duplicates, long parkedKeys, long redeliveredSinceStart, java.util.SortedSet<Integer> assignedHere,
            long receivedSinceStart, String error) {
    }

    private final JdbcTemplate jdbc;
    private final ProjectorProperties properties;
    private final ParkedAccounts parked;
    private final LogEndOffsets logEnd;
    private final LiveGroupCounts counts;

    public ProjectionStatus(JdbcTemplate jdbc, ProjectorProperties properties, ParkedAccounts parked,
            LogEndOffsets logEnd, LiveGroupCounts counts) {
        this.jdbc = jdbc;
        this.counts = counts;
        this.properties = properties;
        this.parked = parked;
        this.logEnd = logEnd;
    }

    public Status current() {
        record Stored(long nextOffset, long applied, long duplicates) {
        }
        var stored = jdbc.query(
                "SELECT partition, next_offset, applied, duplicates FROM projection.offsets WHERE group_id = ? AND topic = ?",
                (rs, row) -> Map.entry(rs.getInt(1), new Stored(rs.getLong(2), rs.getLong(3), rs.getLong(4))),
                properties.groupId(), properties.topic()).stream()
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
        Map<Integer, Long> ends;
        String error = null;
        try {
            ends = logEnd.current();
        } catch (ExecutionException | TimeoutException e) {
            ends = Map.of();
            error = "log end offsets unavailable: " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            ends = Map.of();
            error = "interrupted";
        }
        var partitions = new ArrayList<Partition>();
        var all = new java.util.TreeSet<Integer>(ends.keySet());
        all.addAll(stored.keySet());
        long lag = 0;
        long applied = 0;
        long duplicates = 0;
        for (int p : all) {
            var s = stored.getOrDefault(p, new Stored(0, 0, 0));
            long end = ends.getOrDefault(p, s.nextOffset());
            long partitionLag = Math.max(0, end - s.nextOffset());
            partitions.add(new Partition(p, s.nextOffset(), end, partitionLag, s.applied(), s.duplicates()));
            lag += partitionLag;
            applied += s.applied();
            duplicates += s.duplicates();
        }
        return new Status(properties.groupId(), properties.topic(), partitions, lag, applied, duplicates,
                parked.count(), counts.redeliveredSinceStart(), counts.assignedPartitions(),
                counts.receivedSinceStart(), error);
    }
}
