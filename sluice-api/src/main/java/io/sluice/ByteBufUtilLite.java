package io.sluice;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;

/** UTF-8 helpers kept out of the public surface. */
final class ByteBufUtilLite {
  private ByteBufUtilLite() {}

  static ByteBuf utf8(ByteBufAllocator alloc, CharSequence text) {
    ByteBuf buf = alloc.buffer(ByteBufUtil.utf8MaxBytes(text));
    ByteBufUtil.writeUtf8(buf, text);
    return buf;
  }
}
