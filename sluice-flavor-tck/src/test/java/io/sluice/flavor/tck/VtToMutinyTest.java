package io.sluice.flavor.tck;

/** A virtual-threads client calling a mutiny server. */
class VtToMutinyTest extends InteractionSuite {
  VtToMutinyTest() {
    super(VtFlavor.INSTANCE, MutinyFlavor.INSTANCE, false);
  }
}
