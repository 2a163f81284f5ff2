package io.sluice.flavor.tck;

/** A futures client calling a virtual-threads server over TCP. */
class FuturesToVtTcpTest extends InteractionSuite {
  FuturesToVtTcpTest() {
    super(FuturesFlavor.INSTANCE, VtFlavor.INSTANCE, true);
  }
}
