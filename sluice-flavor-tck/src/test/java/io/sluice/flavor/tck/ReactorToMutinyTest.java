package io.sluice.flavor.tck;

/** A reactor client calling a mutiny server. */
class ReactorToMutinyTest extends InteractionSuite {
  ReactorToMutinyTest() {
    super(ReactorFlavor.INSTANCE, MutinyFlavor.INSTANCE, false);
  }
}
