/**
 * Spring Boot auto-configuration for Sluice ({@link io.sluice.spring.boot.SluiceAutoConfiguration}):
 * the server of {@code sluice.server.*}, the client stubs of {@code sluice.client.<name>.*}, their
 * actuator health and graceful shutdown. See docs/guide/spring.md.
 */
package io.sluice.spring.boot;
