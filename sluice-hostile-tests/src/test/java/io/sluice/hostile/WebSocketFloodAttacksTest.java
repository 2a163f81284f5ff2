package io.sluice.hostile;

/** {@link FloodAttacksTest}'s attacks over WebSocket: each RSocket frame a masked binary message. */
class WebSocketFloodAttacksTest extends FloodAttacksTest {
  @Override
  boolean webSocket() {
    return true;
  }
}
