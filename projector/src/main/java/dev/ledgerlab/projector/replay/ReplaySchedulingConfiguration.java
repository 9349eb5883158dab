package dev.ledgerlab.projector.replay;

import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;

/** Drives {@link ReplayCoordinator#reconcile()} on every instance. */
@Configuration(proxyBeanMethods = false)
@EnableScheduling
class ReplaySchedulingConfiguration {
}
