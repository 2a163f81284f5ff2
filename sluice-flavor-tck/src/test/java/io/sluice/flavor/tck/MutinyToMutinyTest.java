package io.sluice.flavor.tck;

/** The suite with a mutiny client and a mutiny server. */
class MutinyToMutinyTest extends InteractionSuite {
  MutinyToMutinyTest() {
    super(MutinyFlavor.INSTANCE, MutinyFlavor.INSTANCE, false);
  }
}
