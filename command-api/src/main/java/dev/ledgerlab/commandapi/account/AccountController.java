package dev.ledgerlab.commandapi.account;

import static dev.ledgerlab.commandapi.account.CommandHttp.etag;
import static dev.ledgerlab.commandapi.account.CommandHttp.http;
import static dev.ledgerlab.commandapi.account.CommandHttp.idempotencyKey;
import static dev.ledgerlab.commandapi.account.CommandHttp.ifMatch;
import static dev.ledgerlab.commandapi.account.CommandHttp.truncate;

import dev.ledgerlab.commandapi.idempotency.CommandResponse;
import dev.ledgerlab.commandapi.idempotency.IdempotentCommands;
import dev.ledgerlab.commandapi.web.CommandBodies;
import dev.ledgerlab.commandapi.web.CommandKind;
import dev.ledgerlab.commandapi.web.CommandRefusals;
import dev.ledgerlab.commandapi.web.MoneyMovementRefusals;
import dev.ledgerlab.problems.ApiProblem;
import dev.ledgerlab.problems.PathIds;
import dev.ledgerlab.problems.ProblemType;
import dev.ledgerlab.problems.Refusals;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import jakarta.servlet.http.HttpServletRequest;
import java.util.Map;
import java.util.UUID;
import java.util.function.LongFunction;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.json.JsonMapper;

@RestController
@RequestMapping(path = "/accounts", produces = MediaType.APPLICATION_JSON_VALUE)
@Refusals(ProblemType.DATABASE_UNAVAILABLE)
public class AccountController {

    public record Opened(UUID accountId, long version, long balance) {
    }

    public record Moved(UUID accountId, UUID eventId, long version, long balance) {
    }

    public record AccountView(UUID accountId, String owner, long balance, long version) {
    }

    private final AccountCommands commands;
    private final AccountStore store;
    private final IdempotentCommands idempotent;
    private final CommandBodies bodies;
    private final JsonMapper json;
    private final RequestTraces traces;

    public AccountController(AccountCommands commands, AccountStore store, IdempotentCommands idempotent,
            CommandBodies bodies, JsonMapper json, RequestTraces traces) {
        this.commands = commands;
        this.store = store;
        this.idempotent = idempotent;
        this.bodies = bodies;
        this.json = json;
        this.traces = traces;
    }

    @PostMapping
    @CommandKind("open")
    @CommandRefusals
    @Refusals(ProblemType.INVALID_OWNER)
    @io.swagger.v3.oas.annotations.parameters.RequestBody(required = true, content = @Content(
            mediaType = MediaType.APPLICATION_JSON_VALUE, schema = @Schema(implementation = CommandBodies.OpenAccountBody.class)))
    public ResponseEntity<String> open(HttpServletRequest request,
            @RequestHeader(name = "Idempotency-Key", required = false) String idempotencyKey,
            @RequestHeader(name = "traceparent", required = false) String traceparent,
            @RequestHeader(name = "tracestate", required = false) String tracestate) {
        var key = idempotencyKey(idempotencyKey);
        var command = new OpenAccount(bodies.owner(request));
        var trace = traces.of(traceparent, tracestate);
        return http(idempotent.run(key, "POST /accounts " + command, () -> {
            var executed = commands.open(command, trace);
            var account = executed.account();
            return CommandResponse.of(201,
                    Map.of(HttpHeaders.LOCATION, "/accounts/" + account.id(), HttpHeaders.ETAG, etag(account)),
                    json.writeValueAsString(new Opened(account.id(), account.version(), account.balance())));
        }));
    }

    @PostMapping("/{id}/deposits")
    @CommandKind("deposit")
    @MoneyMovementRefusals
    @Refusals(ProblemType.BALANCE_OVERFLOW)
    @io.swagger.v3.oas.annotations.parameters.RequestBody(required = true, content = @Content(
            mediaType = MediaType.APPLICATION_JSON_VALUE, schema = @Schema(implementation = CommandBodies.AmountBody.class)))
    public ResponseEntity<String> deposit(@PathVariable("id") String id, HttpServletRequest request,
            @RequestHeader(name = "Idempotency-Key", required = false) String idempotencyKey,
            @RequestHeader(name = HttpHeaders.IF_MATCH, required = false) String ifMatch,
            @RequestHeader(name = "traceparent", required = false) String traceparent,
            @RequestHeader(name = "tracestate", required = false) String tracestate) {
        return move(id, "deposits", DepositMoney::new, request, idempotencyKey, ifMatch, traceparent, tracestate);
    }

    @PostMapping("/{id}/withdrawals")
    @CommandKind("withdraw")
    @MoneyMovementRefusals
    @Refusals(ProblemType.INSUFFICIENT_FUNDS)
    @io.swagger.v3.oas.annotations.parameters.RequestBody(required = true, content = @Content(
            mediaType = MediaType.APPLICATION_JSON_VALUE, schema = @Schema(implementation = CommandBodies.AmountBody.class)))
    public ResponseEntity<String> withdraw(@PathVariable("id") String id, HttpServletRequest request,
            @RequestHeader(name = "Idempotency-Key", required = false) String idempotencyKey,
            @RequestHeader(name = HttpHeaders.IF_MATCH, required = false) String ifMatch,
            @RequestHeader(name = "traceparent", required = false) String traceparent,
            @RequestHeader(name = "tracestate", required = false) String tracestate) {
        return move(id, "withdrawals", WithdrawMoney::new, request, idempotencyKey, ifMatch, traceparent, tracestate);
    }

    @GetMapping("/{id}")
    @Refusals({ProblemType.INVALID_ACCOUNT_ID, ProblemType.ACCOUNT_NOT_FOUND})
    public ResponseEntity<AccountView> account(@PathVariable("id") String id) {
        var account = store.find(PathIds.accountId(id)).orElseThrow(() -> notFound(id));
        return ResponseEntity.ok()
                .eTag(etag(account))
                .body(new AccountView(account.id(), account.owner(), account.balance(), account.version()));
    }

    /** The account's events exactly as stored in ledger.events.payload (the wire format), in version order. */
    @GetMapping("/{id}/events")
    @Refusals({ProblemType.INVALID_ACCOUNT_ID, ProblemType.ACCOUNT_NOT_FOUND})
    public ResponseEntity<String> events(@PathVariable("id") String id) {
        var accountId = PathIds.accountId(id);
        var events = store.eventsOf(accountId);
        if (events.isEmpty()) {
            throw notFound(id);
        }
        return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body("[" + String.join(",", events) + "]");
    }

    /** A deposit or a withdrawal: the headers and the body read in the order their refusals are decided. */
    private ResponseEntity<String> move(String id, String collection, LongFunction<AccountCommand> commandOfAmount,
            HttpServletRequest request, String idempotencyKey, String ifMatch, String traceparent, String tracestate) {
        var accountId = PathIds.accountId(id);
        var key = idempotencyKey(idempotencyKey);
        var precondition = ifMatch(ifMatch);
        var command = commandOfAmount.apply(bodies.amount(request));
        return move(accountId, command, key, precondition, traces.of(traceparent, tracestate),
                "POST /accounts/" + accountId + "/" + collection + " " + command);
    }

    private ResponseEntity<String> move(UUID accountId, AccountCommand command, String key, IfMatch precondition,
            TraceContext trace, String request) {
        // If-Match is part of what the request means: a retry with another precondition is another request.
        var identity = request + " if-match=" + precondition.header();
        return http(idempotent.run(key, identity, () -> {
            var executed = commands.execute(accountId, command, precondition, trace);
            var account = executed.account();
            return CommandResponse.of(200, Map.of(HttpHeaders.ETAG, etag(account)), json.writeValueAsString(
                    new Moved(account.id(), executed.lastEvent().eventId(), account.version(), account.balance())));
        }));
    }

    private static ApiProblem notFound(String id) {
        return new ApiProblem(ProblemType.ACCOUNT_NOT_FOUND, "no account " + truncate(id));
    }
}
