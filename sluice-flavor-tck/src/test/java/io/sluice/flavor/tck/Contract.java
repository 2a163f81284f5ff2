package io.sluice.flavor.tck;

import io.netty.buffer.ByteBufAllocator;
import io.sluice.Message;
import io.sluice.exceptions.ApplicationErrorException;

/**
 * What every flavor's test server answers (data of the request message):
 *
 * <ul>
 *   <li>fire-and-forget: records the data in {@link ServerProbe#fnf};
 *   <li>request-response: {@code error} fails with APPLICATION_ERROR {@code boom}; {@code never}
 *       never answers and completes {@link ServerProbe#rrCanceled} when canceled; anything else
 *       answers {@code echo:<data>};
 *   <li>request-stream: {@code count:N} sends {@code 0..N-1} then completes; {@code fail:K} sends
 *       {@code 0..K-1} then fails with {@code boom}; {@code endless} sends {@code 0,1,2,...} as
 *       long as there is demand, counting in {@link ServerProbe#emitted}, and completes {@link
 *       ServerProbe#streamCanceled} when canceled;
 *   <li>request-channel: first message {@code echo} answers each later message x with {@code
 *       echo:x} and completes when the requester does; {@code take:K} answers the next K messages
 *       with {@code got:x}, then completes its half and stops reading.
 * </ul>
 *
 * Server messages come from the pooled allocator so the leak detector tracks them.
 */
final class Contract {
  private Contract() {}

  static final ByteBufAllocator ALLOC = ByteBufAllocator.DEFAULT;

  static Message msg(String data) {
    return Message.utf8(ALLOC, data);
  }

  /** The data of {@code m}; releases it. */
  static String text(Message m) {
    try {
      return m.dataUtf8();
    } finally {
      m.release();
    }
  }

  static ApplicationErrorException boom() {
    return new ApplicationErrorException("boom");
  }

  static int arg(String data) {
    return Integer.parseInt(data.substring(data.indexOf(':') + 1));
  }
}
