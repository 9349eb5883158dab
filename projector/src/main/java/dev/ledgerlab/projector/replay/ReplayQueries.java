package dev.ledgerlab.projector.replay;

import dev.ledgerlab.projector.ProjectorProperties;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.HashMap;
import java.util.Optional;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * What runs and how far it got, read from projection.replays, its targets and the stored offsets, so that every
 * instance reports the same run whichever one started it. Changes nothing; {@link Replays} does.
 */
@Component
public class ReplayQueries {

    private final JdbcTemplate jdbc;
    private final ProjectorProperties properties;

    public ReplayQueries(JdbcTemplate jdbc, ProjectorProperties properties) {
        this.jdbc = jdbc;
        this.properties = properties;
    }

    public Optional<Long> runningRebuild() {
        return jdbc.queryForList("SELECT id FROM projection.replays WHERE kind = 'rebuild' AND state = 'running'",
                Long.class).stream().findFirst();
    }

    /** Which replay or rebuild runs, if any. */
    public record Running(long id, String kind) {
    }

    /** The running replay or rebuild, if any: one small query, cheap enough for every coordination tick. */
    public Optional<Running> running() {
        return jdbc.query("SELECT id, kind FROM projection.replays WHERE state = 'running'",
                (rs, row) -> new Running(rs.getLong(1), rs.getString(2))).stream().findFirst();
    }

    /** The latest run of that kind ({@code replay} or {@code rebuild}). */
    public Optional<Progress> latest(String kind) {
        return jdbc.queryForList("SELECT id FROM projection.replays WHERE kind = ? ORDER BY id DESC LIMIT 1",
                Long.class, kind).stream().findFirst().map(this::progress);
    }

    public Progress progress(long id) {
        var targets = new HashMap<Integer, Long>();
        jdbc.query("SELECT partition, end_offset FROM projection.replay_targets WHERE replay_id = ?",
                rs -> {
                    targets.put(rs.getInt(1), rs.getLong(2));
                }, id);
        var runAndNow = jdbc.queryForObject("""
                SELECT id, kind, state, group_id, started_at, finished_at, events_applied, detail, clock_timestamp()
                FROM projection.replays WHERE id = ?""",
                (rs, row) -> new Object[] {new Progress.Run(rs.getLong(1), rs.getString(2), rs.getString(3),
                        rs.getString(4), instant(rs.getObject(5, OffsetDateTime.class)),
                        instant(rs.getObject(6, OffsetDateTime.class)), rs.getObject(7, Long.class), rs.getString(8),
                        targets), instant(rs.getObject(9, OffsetDateTime.class))}, id);
        var run = (Progress.Run) runAndNow[0];
        var stored = new HashMap<Integer, Progress.Stored>();
        jdbc.query("SELECT partition, next_offset, applied FROM projection.offsets WHERE group_id = ? AND topic = ?",
                rs -> {
                    stored.put(rs.getInt(1), new Progress.Stored(rs.getLong(2), rs.getLong(3)));
                }, run.groupId(), properties.topic());
        var live = new HashMap<Integer, Long>();
        if ("rebuild".equals(run.kind())) {
            jdbc.query("SELECT partition, next_offset FROM projection.offsets WHERE group_id = ? AND topic = ?",
                    rs -> {
                        live.put(rs.getInt(1), rs.getLong(2));
                    }, properties.groupId(), properties.topic());
        }
        return Progress.of(run, stored, live, (Instant) runAndNow[1]);
    }


    private static Instant instant(OffsetDateTime time) {
        return time == null ? null : time.toInstant();
    }
}
