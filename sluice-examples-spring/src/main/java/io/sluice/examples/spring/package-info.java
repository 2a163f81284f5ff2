/** The Spring Boot sample of docs/guide/spring.md. */
package io.sluice.examples.spring;
