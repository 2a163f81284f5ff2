package io.sluice.interop.spring;

import io.rsocket.exceptions.ApplicationErrorException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.function.Predicate;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.rsocket.context.RSocketServerInitializedEvent;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.event.EventListener;
import org.springframework.http.MediaType;
import org.springframework.messaging.rsocket.RSocketRequester;
import reactor.core.publisher.Flux;

/**
 * The Spring RSocket peer. {@code server --transport tcp|websocket}: serves {@link
 * GreetingController} on 127.0.0.1, a free port, printing {@code LISTENING <port>}; runs until
 * killed. {@code client --transport tcp|websocket --port N --mime json|cbor}: calls the same routes
 * on a server at 127.0.0.1:N through {@link RSocketRequester}, one {@code PASS <case>} or {@code
 * FAIL <case>: <why>} line per case; exits 0 when every case passed.
 */
@SpringBootApplication
public class SpringPeer {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @EventListener
  public void onServer(RSocketServerInitializedEvent event) {
    System.out.println("LISTENING " + event.getServer().address().getPort());
    System.out.flush();
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 1 || !(args[0].equals("server") || args[0].equals("client"))) {
      System.err.println("usage: server --transport tcp|websocket | client --transport tcp|websocket --port N --mime json|cbor");
      System.exit(2);
    }
    String transport = option(args, "--transport", "tcp");
    if (args[0].equals("server")) {
      SpringApplication.run(
          SpringPeer.class,
          "--spring.rsocket.server.address=127.0.0.1",
          "--spring.rsocket.server.port=0",
          "--spring.rsocket.server.transport=" + transport);
      new CountDownLatch(1).await(); // until killed
      return;
    }
    int port = Integer.parseInt(option(args, "--port", "-1"));
    MediaType mime = option(args, "--mime", "json").equals("cbor") ? MediaType.APPLICATION_CBOR : MediaType.APPLICATION_JSON;
    int failures;
    try (ConfigurableApplicationContext context = SpringApplication.run(SpringPeer.class)) {
      RSocketRequester.Builder builder = context.getBean(RSocketRequester.Builder.class).dataMimeType(mime);
      RSocketRequester requester =
          transport.equals("websocket")
              ? builder.websocket(URI.create("ws://127.0.0.1:" + port + "/"))
              : builder.tcp("127.0.0.1", port);
      failures = new Cases(requester).run();
      requester.dispose();
    }
    System.out.println(failures == 0 ? "DONE all passed" : "DONE " + failures + " failed");
    System.out.flush();
    System.exit(failures == 0 ? 0 : 1);
  }

  private static String option(String[] args, String name, String dflt) {
    for (int i = 1; i + 1 < args.length; i++) {
      if (args[i].equals(name)) {
        return args[i + 1];
      }
    }
    return dflt;
  }

  /** The client cases, against a server of GreetingController's contract. */
  static final class Cases {
    private final RSocketRequester requester;
    private int failures;

    Cases(RSocketRequester requester) {
      this.requester = requester;
    }

    int run() {
      check("request-response", () -> {
        Greeting g = requester.route("greet").data(Greeting.of("Ada")).retrieveMono(Greeting.class).block(WAIT);
        return expect("hello Ada", g.message());
      });
      check("request-stream", () -> {
        List<Greeting> gs =
            requester.route("count").data(new Greeting("Bob", null, 3)).retrieveFlux(Greeting.class).collectList().block(WAIT);
        List<String> messages = new ArrayList<>();
        gs.forEach(g -> messages.add(g.message() + "/" + g.count()));
        return expect("[hello Bob #0/0, hello Bob #1/1, hello Bob #2/2]", messages.toString());
      });
      check("request-channel", () -> {
        List<String> messages =
            requester.route("chat").data(Flux.just(Greeting.of("Cy"), Greeting.of("Di")), Greeting.class)
                .retrieveFlux(Greeting.class).map(Greeting::message).collectList().block(WAIT);
        return expect("[hi Cy, hi Di]", messages.toString());
      });
      check("fire-and-forget", () -> {
        requester.route("notify").data(Greeting.of("Ed")).send().block(WAIT);
        return poll("notified", g -> g.name().contains("Ed"));
      });
      check("error", () -> {
        try {
          requester.route("fail").data(Greeting.of("Fay")).retrieveMono(Greeting.class).block(WAIT);
          return "no error";
        } catch (ApplicationErrorException e) {
          return expect("no greeting for Fay", e.getMessage());
        }
      });
      check("metadata-push", () -> {
        requester.route("push").sendMetadata().block(WAIT);
        return poll("pushes", g -> g.count() >= 1);
      });
      return failures;
    }

    /** Asks {@code route} until its answer passes {@code ok} (bounded: 30 s). */
    private String poll(String route, Predicate<Greeting> ok) throws InterruptedException {
      long deadline = System.nanoTime() + WAIT.toNanos();
      Greeting last = null;
      while (System.nanoTime() < deadline) {
        last = requester.route(route).retrieveMono(Greeting.class).block(WAIT);
        if (last != null && ok.test(last)) {
          return null;
        }
        Thread.sleep(20);
      }
      return "last answer of " + route + ": " + last;
    }

    private static String expect(String expected, String actual) {
      return expected.equals(actual) ? null : "expected '" + expected + "', got '" + actual + "'";
    }

    private interface Case {
      String run() throws Exception;
    }

    private void check(String name, Case c) {
      String problem;
      try {
        problem = c.run();
      } catch (Exception e) {
        problem = e.toString();
      }
      if (problem == null) {
        System.out.println("PASS " + name);
      } else {
        failures++;
        System.out.println("FAIL " + name + ": " + problem);
      }
      System.out.flush();
    }
  }

}
