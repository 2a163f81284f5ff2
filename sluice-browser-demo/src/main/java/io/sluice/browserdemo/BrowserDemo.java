package io.sluice.browserdemo;

/** WIP: the server of ./sluice demo --browser (waits for sluice-transport-websocket). */
public final class BrowserDemo {
  /** Where the server upgrades to RSocket over WebSocket (app.js's RSOCKET_PATH). */
  public static final String RSOCKET_PATH = "/rsocket";

  /** The largest request-stream the demo serves (app.js's MAX.stream). */
  public static final int MAX_STREAM_COUNT = 10_000_000;

  private BrowserDemo() {}
}
