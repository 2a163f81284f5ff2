package io.sluice.flavor.tck;

/** A futures client calling a reactor server over TCP. */
class FuturesToReactorTcpTest extends InteractionSuite {
  FuturesToReactorTcpTest() {
    super(FuturesFlavor.INSTANCE, ReactorFlavor.INSTANCE, true);
  }
}
