package dev.ledgerlab.projector.replay;

import dev.ledgerlab.problems.ApiProblem;
import dev.ledgerlab.problems.ProblemType;
import dev.ledgerlab.problems.Refusals;
import java.net.URI;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

@RestController
@Refusals(ProblemType.DATABASE_UNAVAILABLE)
public class ReplayController {

    private final Replays replays;
    private final ReplayQueries queries;
    private final ReplayCoordinator coordinator;

    public ReplayController(Replays replays, ReplayQueries queries, ReplayCoordinator coordinator) {
        this.replays = replays;
        this.queries = queries;
        this.coordinator = coordinator;
    }

    /** Clears the projection and re-reads the log from offset zero; reads answer 503 projection-rebuilding meanwhile. */
    @PostMapping(path = "/projection/replay", produces = MediaType.APPLICATION_JSON_VALUE)
    @Refusals({ProblemType.OPERATOR_CREDENTIALS_REQUIRED, ProblemType.OPERATOR_NOT_CONFIGURED, ProblemType.REPLAY_IN_PROGRESS})
    public ResponseEntity<Progress> replay() {
        var started = start(() -> replays.startReplay(InstanceName.of() + " (POST /projection/replay)"));
        return ResponseEntity.accepted().location(URI.create("/projection/replay")).body(started);
    }

    @GetMapping(path = "/projection/replay", produces = MediaType.APPLICATION_JSON_VALUE)
    @Refusals(ProblemType.REPLAY_NOT_FOUND)
    public Progress replayProgress() {
        return queries.latest("replay").orElseThrow(() -> notFound("replay"));
    }

    /** Builds shadow tables from offset zero while the live projection serves, and swaps them in when caught up. */
    @PostMapping(path = "/projection/rebuild", produces = MediaType.APPLICATION_JSON_VALUE)
    @Refusals({ProblemType.OPERATOR_CREDENTIALS_REQUIRED, ProblemType.OPERATOR_NOT_CONFIGURED, ProblemType.REPLAY_IN_PROGRESS})
    public ResponseEntity<Progress> rebuild() {
        var started = start(() -> replays.startRebuild(InstanceName.of() + " (POST /projection/rebuild)"));
        coordinator.reconcileSoon();
        return ResponseEntity.accepted().location(URI.create("/projection/rebuild")).body(started);
    }

    @GetMapping(path = "/projection/rebuild", produces = MediaType.APPLICATION_JSON_VALUE)
    @Refusals(ProblemType.REPLAY_NOT_FOUND)
    public Progress rebuildProgress() {
        return queries.latest("rebuild").orElseThrow(() -> notFound("rebuild"));
    }

    /** Abandons the running rebuild: its shadow tables are dropped, the live projection is untouched. */
    @DeleteMapping(path = "/projection/rebuild", produces = MediaType.APPLICATION_JSON_VALUE)
    @Refusals({ProblemType.OPERATOR_CREDENTIALS_REQUIRED, ProblemType.OPERATOR_NOT_CONFIGURED, ProblemType.REBUILD_NOT_RUNNING})
    public Progress cancelRebuild() {
        var cancelled = replays.cancelRebuild("cancelled by " + InstanceName.of() + " (DELETE /projection/rebuild)")
                .orElseThrow(() -> new ApiProblem(ProblemType.REBUILD_NOT_RUNNING,
                        "no rebuild runs, so there is none to cancel"));
        coordinator.reconcileSoon();
        return cancelled;
    }

    private static Progress start(Supplier<Progress> start) {
        try {
            return start.get();
        } catch (ReplayRefused e) {
            Map<String, Object> details = new HashMap<>();
            if (e.running() != null) {
                details.put("runningId", e.running().id());
                details.put("runningKind", e.running().kind());
            }
            throw new ApiProblem(ProblemType.REPLAY_IN_PROGRESS, e.getMessage(), details);
        }
    }

    private static ApiProblem notFound(String kind) {
        return new ApiProblem(ProblemType.REPLAY_NOT_FOUND, "no " + kind + " of the projection has run yet");
    }
}
