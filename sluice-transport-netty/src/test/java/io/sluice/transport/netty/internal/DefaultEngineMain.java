package io.sluice.transport.netty.internal;

/**
 * For {@link FallbackLogTest}: chooses the JVM's default I/O engine, as the first transport does,
 * and prints its name; what the choice logs goes to this JVM's log (netty's JDK logging here).
 */
public final class DefaultEngineMain {
  private DefaultEngineMain() {}

  public static void main(String[] args) {
    System.out.println(EventLoops.defaultMode().label());
  }
}
