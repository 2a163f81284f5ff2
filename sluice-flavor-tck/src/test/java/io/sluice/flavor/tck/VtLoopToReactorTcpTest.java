package io.sluice.flavor.tck;

/** The suite with a client on event-loop virtual threads and a reactor server, over TCP. */
class VtLoopToReactorTcpTest extends InteractionSuite {
  VtLoopToReactorTcpTest() {
    super(VtFlavor.EVENT_LOOP, ReactorFlavor.INSTANCE, true);
  }
}
