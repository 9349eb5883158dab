# syntax=docker/dockerfile:1
# One image for the three services of docker-compose.yml: the lab's fat jar, whose PropertiesLauncher runs the
# application class named by LOADER_MAIN (dev.ledgerlab.commandapi.CommandApiApplication,
# dev.ledgerlab.relay.OutboxRelayApplication or dev.ledgerlab.projector.ProjectorApplication).
#   docker build -t ledger-lab:local .
#   docker run --rm -e LOADER_MAIN=dev.ledgerlab.projector.ProjectorApplication -e SPRING_DATASOURCE_URL=... ledger-lab:local

FROM eclipse-temurin:17-jdk AS build
WORKDIR /src
COPY . .
# The Maven wrapper and the dependencies are downloaded once into a build cache, not into an image layer.
RUN --mount=type=cache,target=/root/.m2 ./mvnw -B -pl lab -am package -DskipTests

FROM eclipse-temurin:17-jre
# curl is what docker-compose.yml's health checks run against /actuator/health/readiness; the base image has it
# today "for historical reasons" only, so it is installed on purpose.
RUN apt-get update \
    && apt-get install -y --no-install-recommends curl \
    && rm -rf /var/lib/apt/lists/*
RUN groupadd --system --gid 10001 ledger \
    && useradd --system --uid 10001 --gid ledger --no-create-home --shell /usr/sbin/nologin ledger
WORKDIR /app
COPY --from=build /src/lab/target/ledger-lab.jar /app/ledger-lab.jar
# The services write nothing locally (relay offsets live in PostgreSQL), so the jar stays root-owned and read-only.
USER 10001:10001
EXPOSE 8080 8081 8082
ENTRYPOINT ["java", "-XX:+ExitOnOutOfMemoryError", "-jar", "/app/ledger-lab.jar"]
