package io.sluice.flavor.tck;

/** A futures client calling a reactor server. */
class FuturesToReactorTest extends InteractionSuite {
  FuturesToReactorTest() {
    super(FuturesFlavor.INSTANCE, ReactorFlavor.INSTANCE, false);
  }
}
