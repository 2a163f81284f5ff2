package io.sluice.lease;

import io.sluice.Message;

/**
 * A {@link LeasePolicy}'s state for one connection. Called on the connection's event loop only.
 */
public interface ConnectionLease {

  /**
   * A peer's request that the current grant covers is about to reach the responder (once complete,
   * after reassembly). Returning false refuses it: the peer gets REJECTED and the responder never
   * sees it. The default policy refuses by priority rank here as load nears its limit. The policy
   * must not keep or release {@code request}.
   */
  default boolean admit(Message request) {
    return true;
  }

  /** The connection is closed: stop timers, forget it. Called once. */
  void close();
}
