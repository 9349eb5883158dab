package dev.ledgerlab.projector.replay;

import dev.ledgerlab.projector.web.ProjectorProblem;
import java.net.URI;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

@RestController
public class ReplayController {

    private final Replays replays;
    private final ReplayCoordinator coordinator;

    public ReplayController(Replays replays, ReplayCoordinator coordinator) {
        this.replays = replays;
        this.coordinator = coordinator;
    }

    /** Clears the projection and re-reads the log from offset zero; reads answer 503 projection-rebuilding meanwhile. */
    @PostMapping(path = "/projection/replay", produces = MediaType.APPLICATION_JSON_VALUE)
    public ResponseEntity<Progress> replay() {
        var started = start(() -> replays.startReplay(InstanceName.of() + " (POST /projection/replay)"));
        return ResponseEntity.accepted().location(URI.create("/projection/replay")).body(started);
    }

    @GetMapping(path = "/projection/replay", produces = MediaType.APPLICATION_JSON_VALUE)
    public Progress replayProgress() {
        return replays.latest("replay").orElseThrow(() -> notFound("replay"));
    }

    /** Builds shadow tables from offset zero while the live projection serves, and swaps them in when caught up. */
    @PostMapping(path = "/projection/rebuild", produces = MediaType.APPLICATION_JSON_VALUE)
    public ResponseEntity<Progress> rebuild() {
        var started = start(() -> replays.startRebuild(InstanceName.of() + " (POST /projection/rebuild)"));
        coordinator.reconcileSoon();
        return ResponseEntity.accepted().location(URI.create("/projection/rebuild")).body(started);
    }

    @GetMapping(path = "/projection/rebuild", produces = MediaType.APPLICATION_JSON_VALUE)
    public Progress rebuildProgress() {
        return replays.latest("rebuild").orElseThrow(() -> notFound("rebuild"));
    }

    /** Abandons the running rebuild: its shadow tables are dropped, the live projection is untouched. */
    @DeleteMapping(path = "/projection/rebuild", produces = MediaType.APPLICATION_JSON_VALUE)
    public Progress cancelRebuild() {
        var cancelled = replays.cancelRebuild("cancelled by " + InstanceName.of() + " (DELETE /projection/rebuild)")
                .orElseThrow(() -> new ProjectorProblem(HttpStatus.CONFLICT, "rebuild-not-running",
                        "No rebuild runs", "no rebuild runs, so there is none to cancel", Map.of()));
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
            throw new ProjectorProblem(HttpStatus.CONFLICT, "replay-in-progress",
                    "Another replay or rebuild runs", e.getMessage(), details);
        }
    }

    private static ProjectorProblem notFound(String kind) {
        return new ProjectorProblem(HttpStatus.NOT_FOUND, "replay-not-found", "No " + kind + " has run",
                "no " + kind + " of the projection has run yet", Map.of());
    }
}
