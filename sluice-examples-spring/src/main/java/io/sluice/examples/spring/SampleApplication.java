package io.sluice.examples.spring;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The Spring Boot sample: {@link GreeterEndpoint} is an ordinary {@code @Service}; the starter
 * serves it because it implements a generated Sluice service interface (application.yml: RSocket
 * and gRPC on one port, reflection on).
 */
// tag::app[]
@SpringBootApplication
public class SampleApplication {
  public static void main(String[] args) {
    SpringApplication.run(SampleApplication.class, args);
  }
}
// end::app[]
