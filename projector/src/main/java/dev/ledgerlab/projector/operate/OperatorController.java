package dev.ledgerlab.projector.operate;

import dev.ledgerlab.projector.apply.ParkedAccounts;
import dev.ledgerlab.projector.invariants.InvariantChecker;
import dev.ledgerlab.projector.web.ProjectorProblem;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

@RestController
public class OperatorController {

    private final ProjectionStatus status;
    private final ParkedAccounts parked;
    private final InvariantChecker invariants;

    public OperatorController(ProjectionStatus status, ParkedAccounts parked, InvariantChecker invariants) {
        this.status = status;
        this.parked = parked;
        this.invariants = invariants;
    }

    /** Run it once the pipeline is quiet: {@code ok} with no violations, or each violation precisely. */
    @GetMapping(path = "/projection/invariants", produces = MediaType.APPLICATION_JSON_VALUE)
    public InvariantChecker.Report invariants() {
        return invariants.check();
    }

    @GetMapping(path = "/projection/status", produces = MediaType.APPLICATION_JSON_VALUE)
    public ProjectionStatus.Status status() {
        return status.current();
    }

    @GetMapping(path = "/projection/parked", produces = MediaType.APPLICATION_JSON_VALUE)
    public List<ParkedAccounts.Parked> parked() {
        return parked.list();
    }

    @PostMapping(path = "/projection/parked/{id}/release", produces = MediaType.APPLICATION_JSON_VALUE)
    public ParkedAccounts.Released release(@PathVariable("id") String id) {
        UUID accountId;
        try {
            accountId = UUID.fromString(id);
        } catch (IllegalArgumentException e) {
            throw ProjectorProblem.invalidAccountId(id);
        }
        try {
            return parked.release(accountId).orElseThrow(() -> new ProjectorProblem(HttpStatus.NOT_FOUND,
                    "account-not-parked", "The account is not parked", "account " + id + " is not parked", Map.of()));
        } catch (ParkedAccounts.RebuildRunning e) {
            throw new ProjectorProblem(HttpStatus.CONFLICT, "rebuild-in-progress", "A rebuild runs", e.getMessage(),
                    Map.of());
        } catch (ParkedAccounts.StillMissing e) {
            throw new ProjectorProblem(HttpStatus.CONFLICT, "event-still-missing",
                    "The missing event has not arrived", e.getMessage(),
                    Map.of("expectedVersion", e.expectedVersion(), "firstHeldVersion", e.firstHeldVersion()));
        }
    }
}
