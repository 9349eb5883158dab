package dev.ledgerlab.problems;

import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.IntegerSchema;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.ObjectSchema;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.media.StringSchema;
import io.swagger.v3.oas.models.responses.ApiResponse;
import java.lang.reflect.AnnotatedElement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springdoc.core.customizers.OperationCustomizer;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.http.HttpStatus;

/**
 * The OpenAPI description (springdoc: {@code /v3/api-docs}, Swagger UI at {@code /swagger-ui.html}) of a service,
 * with the refusals Spring cannot see: every problem type an endpoint names in {@link Refusals}, and the internal error
 * any endpoint may answer, grouped by status as {@code application/problem+json} whose {@code type} is one of them.
 * Every service imports it, like {@link OperatorAccess}.
 */
@Configuration(proxyBeanMethods = false)
public class ApiDocumentationConfiguration {

    private static final String PROBLEM_JSON = "application/problem+json";

    @Bean
    OperationCustomizer problemTypesOfEachEndpoint() {
        return (operation, handler) -> {
            var types = new LinkedHashSet<ProblemType>();
            // Direct and meta-present: an annotation that carries @Refusals declares refusals shared by endpoints.
            for (var element : new AnnotatedElement[] {handler.getBeanType(), handler.getMethod()}) {
                MergedAnnotations.from(element).stream(Refusals.class)
                        .forEach(refusals -> types.addAll(Arrays.asList(refusals.getEnumArray("value", ProblemType.class))));
            }
            types.add(ProblemType.INTERNAL_ERROR);
            Map<Integer, List<ProblemType>> byStatus = types.stream().collect(Collectors.groupingBy(
                    type -> type.status().value(), TreeMap::new, Collectors.toList()));
            byStatus.forEach((status, ofStatus) -> operation.getResponses().addApiResponse(status.toString(),
                    problems(status, ofStatus)));
            return operation;
        };
    }

    @Bean
    OpenApiCustomizer serviceTitle(@Value("${spring.application.name}") String service) {
        return openApi -> openApi.getInfo().title("Ledger Lab " + service).version("0.1.0")
                .description("Every refusal is application/problem+json (RFC 9457) with a stable type: "
                        + ProblemType.BASE + "<slug>.");
    }

    private static ApiResponse problems(int status, List<ProblemType> types) {
        var description = new StringBuilder(HttpStatus.valueOf(status).getReasonPhrase());
        var uris = new ArrayList<String>();
        for (var type : types) {
            description.append("\n- `").append(type.uri()).append("`: ").append(type.title());
            uris.add(type.uri().toString());
        }
        Schema<Object> problem = new ObjectSchema()
                .addProperty("type", new StringSchema()._enum(uris))
                .addProperty("title", new StringSchema())
                .addProperty("status", new IntegerSchema())
                .addProperty("detail", new StringSchema())
                .addProperty("instance", new StringSchema());
        return new ApiResponse().description(description.toString())
                .content(new Content().addMediaType(PROBLEM_JSON, new MediaType().schema(problem)));
    }
}
