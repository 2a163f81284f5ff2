package io.sluice.interop.spring;

/** The payload both sides exchange, as JSON or CBOR: a name in, a message out. */
public record Greeting(String name, String message, long count) {
  static Greeting of(String name) {
    return new Greeting(name, null, 0);
  }
}
