package io.sluice.flavor.tck;

/** A reactor client calling a virtual-threads server. */
class ReactorToVtTest extends InteractionSuite {
  ReactorToVtTest() {
    super(ReactorFlavor.INSTANCE, VtFlavor.INSTANCE, false);
  }
}
