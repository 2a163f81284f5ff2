package io.sluice.flavor.tck;

/** A futures client calling a mutiny server. */
class FuturesToMutinyTest extends InteractionSuite {
  FuturesToMutinyTest() {
    super(FuturesFlavor.INSTANCE, MutinyFlavor.INSTANCE, false);
  }
}
