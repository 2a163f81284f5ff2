package io.sluice.flavor.tck;

/** The suite with a futures client and a server on event-loop virtual threads, over TCP. */
class FuturesToVtLoopTcpTest extends InteractionSuite {
  FuturesToVtLoopTcpTest() {
    super(FuturesFlavor.INSTANCE, VtFlavor.EVENT_LOOP, true);
  }
}
