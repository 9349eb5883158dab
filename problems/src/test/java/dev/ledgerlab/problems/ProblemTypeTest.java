package dev.ledgerlab.problems;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;

class ProblemTypeTest {

    @Test
    void namesEveryTypeOnceUnderTheProjectsUrn() {
        var slugs = Arrays.stream(ProblemType.values()).map(ProblemType::slug).toList();

        assertThat(slugs).doesNotHaveDuplicates().allMatch(slug -> slug.matches("[a-z]+(-[a-z]+)*"));
        assertThat(ProblemType.INSUFFICIENT_FUNDS.uri()).hasToString("urn:ledgerlab:problem:insufficient-funds");
    }

    @Test
    void carriesTypeTitleStatusDetailAndExtensionMembers() {
        var problem = new ApiProblem(ProblemType.VERSION_MISMATCH, "at version 7", Map.of("currentVersion", 7L))
                .problem();

        assertThat(problem.getType()).isEqualTo(ProblemType.VERSION_MISMATCH.uri());
        assertThat(problem.getStatus()).isEqualTo(412);
        assertThat(problem.getTitle()).isEqualTo("The account has moved on");
        assertThat(problem.getDetail()).isEqualTo("at version 7");
        assertThat(problem.getProperties()).containsEntry("currentVersion", 7L);
    }

    @Test
    void tellsAClientWhenToRetryEveryServiceUnavailable() {
        var database = ProblemResponses.respond(ProblemType.DATABASE_UNAVAILABLE.problem("away"));
        var behind = ProblemResponses.respond(ProblemType.PROJECTION_BEHIND.problem("behind"));
        var refused = ProblemResponses.respond(ProblemType.INSUFFICIENT_FUNDS.problem("no"));

        assertThat(database.getHeaders().getFirst(HttpHeaders.RETRY_AFTER)).isEqualTo("2");
        assertThat(behind.getHeaders().getFirst(HttpHeaders.RETRY_AFTER)).isEqualTo("1");
        assertThat(refused.getHeaders().containsHeader(HttpHeaders.RETRY_AFTER)).isFalse();
        assertThat(database.getHeaders().getContentType()).hasToString("application/problem+json");
    }

    @Test
    void cutsALongAccountIdInTheDetail() {
        var problem = catchThrowableOfType(ApiProblem.class, () -> PathIds.accountId("x".repeat(100))).problem();

        assertThat(problem.getDetail()).hasSize(2 + 64 + 3 + " is not an account id (a UUID)".length());
    }
}
