package dev.ledgerlab.projector.watch;

import dev.ledgerlab.problems.ApiProblem;
import dev.ledgerlab.problems.OperatorAccess;
import dev.ledgerlab.problems.PathIds;
import dev.ledgerlab.problems.ProblemType;
import dev.ledgerlab.problems.Refusals;
import dev.ledgerlab.projector.ProjectorProperties;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** What the pipeline page at {@code /} reads (the page itself is {@code static/index.html}). */
@RestController
@Refusals(ProblemType.DATABASE_UNAVAILABLE)
public class PipelineController {

    /**
     * @param commandApiUrl where the page sends its commands
     * @param labUrl where the page reads the lab's processes and sends its faults; empty without them
     * @param samples the readings after the one asked for, oldest first
     * @param pauses every pause in consumption in the readings kept, not only those after the one asked for
     */
    public record Readings(String commandApiUrl, String labUrl, String topic, String deadLetterTopic, String groupId,
            List<PipelineWatch.Sample> samples, List<Pauses.Pause> pauses) {
    }

    private final PipelineWatch watch;
    private final Journeys journeys;
    private final ProjectorProperties projector;
    private final PageProperties page;

    public PipelineController(PipelineWatch watch, Journeys journeys, ProjectorProperties projector,
            PageProperties page) {
        this.watch = watch;
        this.journeys = journeys;
        this.projector = projector;
        this.page = page;
    }

    /** The readings kept for the charts, or only those after {@code after} (an instant a reading gave). */
    @GetMapping(path = "/pipeline", produces = MediaType.APPLICATION_JSON_VALUE)
    @Refusals(ProblemType.INVALID_AFTER)
    public Readings readings(@RequestParam(name = "after", required = false) String after) {
        Instant since = null;
        if (after != null) {
            try {
                since = Instant.parse(after);
            } catch (DateTimeParseException e) {
                throw new ApiProblem(ProblemType.INVALID_AFTER, "after must be an instant such as a reading's at, got "
                        + after);
            }
        }
        // First: it may take a new reading, and the pauses are then computed with it.
        var samples = watch.since(since);
        return new Readings(page.commandApiUrl(), page.labUrl(), projector.topic(), projector.deadLetterTopic(),
                projector.groupId(), samples, Pauses.of(watch.kept()));
    }

    /** Where one event is: committed, published (partition, offset), applied; what is not reached yet is null. */
    @GetMapping(path = "/pipeline/events/{accountId}/{version}", produces = MediaType.APPLICATION_JSON_VALUE)
    @Refusals({ProblemType.INVALID_ACCOUNT_ID, ProblemType.INVALID_VERSION, ProblemType.EVENT_NOT_FOUND})
    public Journeys.Journey journey(@PathVariable("accountId") String accountId,
            @PathVariable("version") String version) {
        var id = PathIds.accountId(accountId);
        long number;
        try {
            number = Long.parseLong(version);
        } catch (NumberFormatException e) {
            number = 0;
        }
        if (number < 1) {
            throw new ApiProblem(ProblemType.INVALID_VERSION, "the version must be a positive integer, got " + version);
        }
        long wanted = number;
        return journeys.of(id, wanted).orElseThrow(() -> new ApiProblem(ProblemType.EVENT_NOT_FOUND,
                "ledger.events has no version " + wanted + " of account " + id));
    }

    /** Answers only to the operator's credentials: how the page's login checks a password. */
    @GetMapping(path = "/pipeline/operator", produces = MediaType.APPLICATION_JSON_VALUE)
    @Refusals({ProblemType.OPERATOR_CREDENTIALS_REQUIRED, ProblemType.OPERATOR_NOT_CONFIGURED})
    public Map<String, String> operator() {
        return Map.of("user", OperatorAccess.USER);
    }
}
