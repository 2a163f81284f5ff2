package io.sluice.flavor.tck;

/** The suite with a virtual-threads client and a virtual-threads server. */
class VtToVtTest extends InteractionSuite {
  VtToVtTest() {
    super(VtFlavor.INSTANCE, VtFlavor.INSTANCE, false);
  }
}
