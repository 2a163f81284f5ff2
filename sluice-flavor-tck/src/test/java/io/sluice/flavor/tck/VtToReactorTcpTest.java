package io.sluice.flavor.tck;

/** A virtual-threads client calling a reactor server over TCP. */
class VtToReactorTcpTest extends InteractionSuite {
  VtToReactorTcpTest() {
    super(VtFlavor.INSTANCE, ReactorFlavor.INSTANCE, true);
  }
}
